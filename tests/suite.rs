//! Every integration test, in one binary: one link instead of one per
//! file, and the slow groups (mail, IMAP, the browser, the archive) run
//! side by side on the test harness's threads instead of one after
//! another. Each file of tests/ is a module here; run one group with
//! `cargo test --test suite GROUP::` (e.g. `mail_imap::`).

mod common;
mod devtools;
mod imap_server;
mod mailto;
mod players;
mod served;
mod smtp_server;
mod static_server;
mod web_play;
mod web_player;

#[path = "archive.rs"]
mod archive;
#[path = "bots.rs"]
mod bots;
#[path = "browser.rs"]
mod browser;
#[path = "cache.rs"]
mod cache;
#[path = "cli_commands.rs"]
mod cli_commands;
#[path = "cli_errors.rs"]
mod cli_errors;
#[path = "cli_game.rs"]
mod cli_game;
#[path = "clock.rs"]
mod clock;
#[path = "computer.rs"]
mod computer;
#[path = "custom_boards.rs"]
mod custom_boards;
#[path = "everyday_terminal.rs"]
mod everyday_terminal;
#[path = "examples.rs"]
mod examples;
#[path = "file_safety.rs"]
mod file_safety;
#[path = "git_game.rs"]
mod git_game;
#[path = "golden.rs"]
mod golden;
#[path = "harness.rs"]
mod harness;
#[path = "history.rs"]
mod history;
#[path = "hostile_players.rs"]
mod hostile_players;
#[path = "hostile_text.rs"]
mod hostile_text;
#[path = "id_transfer.rs"]
mod id_transfer;
#[path = "independent.rs"]
mod independent;
#[path = "join_recovery.rs"]
mod join_recovery;
#[path = "late_answer.rs"]
mod late_answer;
#[path = "layers.rs"]
mod layers;
#[path = "mail_correspondence.rs"]
mod mail_correspondence;
#[path = "mail_failures.rs"]
mod mail_failures;
#[path = "mail_game.rs"]
mod mail_game;
#[path = "mail_imap.rs"]
mod mail_imap;
#[path = "mail_ingest.rs"]
mod mail_ingest;
#[path = "mail_spam.rs"]
mod mail_spam;
#[path = "mail_transport.rs"]
mod mail_transport;
#[path = "man_completions.rs"]
mod man_completions;
#[path = "moves.rs"]
mod moves;
#[path = "pictures.rs"]
mod pictures;
#[path = "properties.rs"]
mod properties;
#[path = "protocol_vectors.rs"]
mod protocol_vectors;
#[path = "referee_bounds.rs"]
mod referee_bounds;
#[path = "repository.rs"]
mod repository;
#[path = "robot.rs"]
mod robot;
#[path = "robot_abuse.rs"]
mod robot_abuse;
#[path = "rules_replay.rs"]
mod rules_replay;
#[path = "schemas.rs"]
mod schemas;
#[path = "seat_numbers.rs"]
mod seat_numbers;
#[path = "serve.rs"]
mod serve;
#[path = "serve_browser.rs"]
mod serve_browser;
#[path = "signature_batch.rs"]
mod signature_batch;
#[path = "star_map_cli.rs"]
mod star_map_cli;
#[path = "star_map_draw.rs"]
mod star_map_draw;
#[path = "star_map_mail.rs"]
mod star_map_mail;
#[path = "star_map_referee.rs"]
mod star_map_referee;
#[path = "starry_night_cli.rs"]
mod starry_night_cli;
#[path = "starry_night_mail.rs"]
mod starry_night_mail;
#[path = "time_controls.rs"]
mod time_controls;
#[path = "vectors.rs"]
mod vectors;
#[path = "web_player_browser.rs"]
mod web_player_browser;
#[path = "web_player_games.rs"]
mod web_player_games;
