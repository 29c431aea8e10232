//! Issue 33, at the terminal, through the real binary: `view --at N` and
//! "Entry N" count alike; links in the games directory to logs that moved;
//! wording that misled (git games' advice, the computer's reasons, pending
//! draws, the command to run instead, names for seat numbers, the chooser
//! who chose themself, `games` lines, a misspelt game); `--dry-run` on every
//! writing command; one rule and one list for exit codes; and what the
//! clock says while a seat has not joined.

use crate::common;

use std::path::Path;

use crate::players::{flat, stderr, stdout};
use common::*;
use serde_json::Value;

/// A Starry Night game of Anna and Ben on 8 random stars, joined and ready:
/// Ben (seat 1) chooses who moves first.
fn night() -> Table {
    let t = Table::new(2);
    t.create_game("starry-night", &["--random-stars", "8"]);
    t.play_until(|s| s["action"] == "move");
    t
}

#[test]
fn view_at_n_is_the_position_after_the_entry_play_and_history_call_n() {
    let t = night();
    let log = t.log_str();
    let said = t.ok(1, &["play", log, "first 0"]);
    let n: u64 = said
        .split("Entry ")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .and_then(|k| k.parse().ok())
        .unwrap_or_else(|| panic!("no `Entry N:` in {said}"));
    let history = t.json(None, &["history", log, "--json"]);
    let told = history["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["entry"] == n)
        .unwrap();
    assert!(told["text"].as_str().unwrap().contains("chose"), "{told}");
    // `--at N`: after entry N, the position `play` just made.
    let at = t.json(None, &["view", log, "--at", &n.to_string(), "--json"]);
    let now = t.json(None, &["view", log, "--json"]);
    assert_eq!(at["at"], n);
    assert_eq!(now["at"], n, "the last entry is the one shown");
    assert_eq!(at["view"], now["view"]);
    assert_ne!(
        t.json(None, &["view", log, "--at", &(n - 1).to_string(), "--json"])["view"],
        now["view"],
        "entry {n} changed the position"
    );
    let text = t.ok(0, &["view", log, "--at", &n.to_string()]);
    assert!(text.contains(&format!("after entry {n}")), "{text}");
    // 0 is the genesis; one past the last is refused, naming the range.
    assert!(t.json(None, &["view", log, "--at", "0", "--json"])["view"].is_null());
    let out = t.starry(None, &["view", log, "--at", &(n + 1).to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("entries 0 to {n}")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn games_shows_the_real_file_and_prunes_only_dead_links() {
    let t = night();
    let anna = &t.homes[0];
    let games = anna.join("games");
    let id = t.status()["game_id"].as_str().unwrap().to_string();
    // `new --out` left a link to the log; `games` names the log itself.
    let link = games.join(format!("{id}.jsonl"));
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    let real = std::fs::canonicalize(&t.log).unwrap();
    let v = t.json(Some(0), &["games", "--json"]);
    assert_eq!(v["games"][0]["file"], real.display().to_string());
    assert_eq!(v["dead_links"], serde_json::json!([]));
    // A real log kept in the directory, and a link to a log that moved.
    let kept = games.join("kept.jsonl");
    std::fs::copy(&t.log, &kept).unwrap();
    let moved = t.dir.path().join("moved.jsonl");
    std::fs::copy(&t.log, &moved).unwrap();
    let dead = games.join(format!("{}.jsonl", "ab".repeat(32)));
    std::os::unix::fs::symlink(&moved, &dead).unwrap();
    std::fs::remove_file(&moved).unwrap();
    let out = t.starry(Some(0), &["games"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        !text.contains(&dead.display().to_string()),
        "a dead link is not a game: {text}"
    );
    assert!(flat(&text).contains("1 link in"), "{text}");
    assert!(text.contains("starry games --prune"), "{text}");
    // No line ends with a dash that leads nowhere.
    for line in text.lines() {
        assert!(!line.trim_end().ends_with('—'), "{line:?} in {text}");
    }
    let v = t.json(Some(0), &["games", "--json"]);
    assert_eq!(v["games"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(
        v["dead_links"],
        serde_json::json!([dead.display().to_string()])
    );
    let ids = stdout(&t.starry(Some(0), &["games", "--ids"]));
    assert!(
        !ids.contains(&"ab".repeat(8)),
        "completion offers a dead link: {ids}"
    );
    assert!(ids.contains(&id[..16]), "{ids}");
    // --prune removes the dead link only: the kept log, the live link and
    // the log it points to stay.
    let out = t.starry(Some(0), &["games", "--prune"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("Removed 1 link"), "{}", stdout(&out));
    assert!(std::fs::symlink_metadata(&dead).is_err());
    assert!(kept.is_file());
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert!(t.log.is_file());
    let again = t.starry(Some(0), &["games", "--prune"]);
    assert!(
        stdout(&again).contains("nothing removed"),
        "{}",
        stdout(&again)
    );
    assert!(kept.is_file() && link.exists() && t.log.is_file());
}

#[test]
fn a_git_game_ends_with_git_advice() {
    let t = night();
    let dir = t.dir.path();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir)
        .status();
    if !git.is_ok_and(|s| s.success()) {
        eprintln!("git is not available: skipped");
        return;
    }
    t.play_until(|s| s["over"] == true);
    for seat in [0, 1] {
        let text = t.ok(seat, &["status", t.log_str()]);
        let said = flat(&text);
        assert!(said.contains("countersign"), "{text}");
        assert!(said.contains("--git-commit"), "{text}");
        assert!(!said.contains("--mail"), "{text}");
        assert!(!said.contains("mail names you"), "{text}");
    }
}

#[test]
fn the_chooser_who_chooses_themself_is_told_so() {
    let t = night();
    t.ok(1, &["play", t.log_str(), "first 1"]);
    let history = t.json(None, &["history", t.log_str(), "--json"]);
    let last = history["events"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    // Ben, invited by address, is named by it ("ben") until he joins.
    assert_eq!(last["text"], "ben chose to move first.", "{last}");
}

#[test]
fn refusals_name_players_and_the_command_to_run_with_the_real_file() {
    let t = Table::new(3);
    t.create(&[]);
    // Everyone joined; the next entry due is a ready. A move now is refused
    // with the command to run, on the file as given, quoted for a shell.
    t.play_until(|s| s["action"] == "ready");
    let s = t.status();
    let who = t.seat_of(s["to_act"].as_str().unwrap());
    let spaced = t.dir.path().join("our games").join("sky 1.jsonl");
    std::fs::create_dir_all(spaced.parent().unwrap()).unwrap();
    std::fs::copy(&t.log, &spaced).unwrap();
    let file = spaced.to_str().unwrap();
    let out = t.starry(Some(who), &["play", file, "1 a:1"]);
    assert_eq!(out.status.code(), Some(19), "{}", stderr(&out));
    let err = flat(&stderr(&out));
    assert!(
        err.contains(&format!("(run `starry ready '{file}'`)")),
        "{err}"
    );
    assert!(!err.contains("FILE"), "{err}");
    // A star that holds a token: its owner by name, not by seat number.
    let t = Table::new(3);
    t.create(&[]);
    t.play_until(|s| s["action"] == "move" && s["entries"].as_u64().unwrap() > 8);
    let v = t.json(None, &["view", t.log_str(), "--json"]);
    let occupied = v["view"]["slots"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|slot| {
            slot["board"]["stars"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .find(|star| star.get("occupant").is_some_and(|o| !o.is_null()))
        .map(|star| star["label"].as_str().unwrap().to_string())
        .unwrap();
    let mover = t.seat_of(t.status()["to_act"].as_str().unwrap());
    let out = t.starry(
        Some(mover),
        &["play", t.log_str(), &format!("1 {occupied}")],
    );
    assert_eq!(out.status.code(), Some(20), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("already holds a token of "), "{err}");
    assert!(!err.contains("token of seat"), "{err}");
    let seats = t.status()["seats"].as_array().unwrap().clone();
    assert!(
        seats
            .iter()
            .any(|s| err.contains(&format!("token of {} ", s["name"].as_str().unwrap()))),
        "{err}"
    );
}

#[test]
fn dry_runs_of_ready_reveal_resign_abandon_and_countersign_write_nothing() {
    let t = Table::new(3);
    t.create(&[]);
    let log = t.log_str();
    t.play_until(|s| s["action"] == "ready");
    let who = t.seat_of(t.status()["to_act"].as_str().unwrap());
    let before = std::fs::read(&t.log).unwrap();
    let out = t.starry(Some(who), &["ready", log, "--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("Dry run, nothing written."),
        "{}",
        stdout(&out)
    );
    assert_eq!(std::fs::read(&t.log).unwrap(), before);
    // Resign: no question, nothing written, what would happen said.
    t.play_until(|s| s["action"] == "move");
    let who = t.seat_of(t.status()["to_act"].as_str().unwrap());
    let other = (who + 1) % 3;
    let before = std::fs::read(&t.log).unwrap();
    let out = t.starry(Some(who), &["resign", log, "--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.starts_with("Dry run, nothing written."), "{said}");
    assert!(said.contains("resigned"), "{said}");
    // Refused as the command itself would be: not now, 19.
    for args in [
        vec!["reveal", log, "--dry-run"],
        vec!["resign", log, "--dry-run"],
        vec!["countersign", log, "--dry-run"],
        vec!["abandon", log, "--dry-run"],
    ] {
        let out = t.starry(Some(other), &args);
        assert_eq!(out.status.code(), Some(19), "{args:?}: {}", stderr(&out));
    }
    // --dry-run writes nothing, so it takes no --mail or --yes.
    let out = t.starry(Some(who), &["resign", log, "--dry-run", "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&t.log).unwrap(), before);
    // A reveal, when one is due.
    let s = t.play_until(|s| s["action"] == "reveal");
    assert_eq!(
        s["action"], "reveal",
        "the game ended without a reveal: {s}"
    );
    let who = t.seat_of(s["to_act"].as_str().unwrap());
    let before = std::fs::read(&t.log).unwrap();
    let out = t.starry(Some(who), &["reveal", log, "--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("Dry run, nothing written."),
        "{}",
        stdout(&out)
    );
    assert_eq!(std::fs::read(&t.log).unwrap(), before);
    // A move now says which command is due, on this file.
    let out = t.starry(Some(who), &["play", log, "1 a:1"]);
    assert_eq!(out.status.code(), Some(19));
    assert!(
        flat(&stderr(&out)).contains(&format!("(run `starry reveal {log}`)")),
        "{}",
        stderr(&out)
    );
}

/// A Star Map game of Anna and Ben, set up, with the first placement made
/// (its draw is pending until Ben's entry).
fn map_after_a_placement() -> (Table, usize) {
    let t = Table::new(2);
    t.create_game("star-map", &[]);
    let s = t.play_until(|s| s["action"] == "move");
    let first = t.seat_of(s["to_act"].as_str().unwrap());
    t.ok(first, &["play", t.log_str(), "--auto"]);
    (t, 1 - first)
}

#[test]
fn star_map_says_who_resolves_a_pending_draw_and_counts_moves_as_moves_does() {
    let (t, next) = map_after_a_placement();
    let log = t.log_str();
    let s = t.status();
    assert_eq!(s["pending_events"], 1, "{s}");
    let name = s["to_act_name"].as_str().unwrap().to_string();
    // Everyone else: the next player's entry resolves it.
    let spectator = flat(&stdout(&t.starry(None, &["status", log])));
    assert!(
        spectator.contains(&format!("{name}'s next entry resolves it")),
        "{spectator}"
    );
    // The next player: their own entry, and their view shows it made.
    let own = flat(&t.ok(next, &["view", log]));
    assert!(own.contains("your next entry resolves it"), "{own}");
    assert!(own.contains("your view below shows already"), "{own}");
    assert!(!own.contains("pending until"), "{own}");
    // The view counts the moves `moves` lists.
    let v = t.json(Some(next), &["view", log, "--json"]);
    let listed = t.json(Some(next), &["moves", log, "--json"]);
    assert_eq!(v["view"]["legal_moves"], listed["count"], "{listed}");
}

#[test]
fn the_computers_reason_in_star_map_is_said_from_its_side() {
    let (t, next) = map_after_a_placement();
    let out = t.starry(
        Some(next),
        &["play", t.log_str(), "--bot", "2", "--dry-run"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let said = flat(&stdout(&out));
    assert!(
        said.contains("for its side than for the best other side"),
        "{said}"
    );
    assert!(!said.contains("on the other side"), "{said}");
}

#[test]
fn a_misspelt_game_gets_a_suggestion() {
    let t = Table::new(2);
    let out = t.starry(
        Some(0),
        &[
            "new",
            "starry-nite",
            "--players",
            &t.emails.join(","),
            "--out",
            t.log_str(),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean `starry-night`?"),
        "{}",
        stderr(&out)
    );
    assert!(!t.log.exists());
}

#[test]
fn every_exit_code_is_listed_and_a_short_id_says_what_an_id_needs() {
    let home = tempfile::tempdir().unwrap();
    let help = flat(&stdout(&starry_in(home.path(), &["--help"])));
    let man = flat(&stdout(&starry_in(home.path(), &["man"])).replace("\\-", "-"));
    for (code, what) in starry::error::EXIT_CODES {
        let item = flat(&format!("{code} {what}"));
        assert!(help.contains(&item), "--help lacks `{item}`: {help}");
        assert!(man.contains(&item), "man lacks `{item}`");
        // The README's table has a row for each.
        let readme =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
                .unwrap();
        assert!(
            readme.contains(&format!("\n| {code} | ")),
            "README lacks {code}"
        );
    }
    let t = Table::new(2);
    let out = t.starry(Some(0), &["status", "1a2b3c"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        flat(&stderr(&out)).contains("a game id needs 8 or more hex digits"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn not_now_is_exit_19_whatever_the_command() {
    let t = Table::new(2);
    t.create_game("starry-night", &["--random-stars", "8", "--deadline", "1d"]);
    let log = t.log_str();
    // Before everyone has joined.
    for args in [vec!["abandon", log, "--yes"], vec!["ready", log]] {
        let out = t.starry(Some(0), &args);
        assert_eq!(out.status.code(), Some(19), "{args:?}: {}", stderr(&out));
    }
    t.play_until(|s| s["action"] == "move");
    let s = t.status();
    let who = t.seat_of(s["to_act"].as_str().unwrap());
    let other = 1 - who;
    let before = std::fs::read(&t.log).unwrap();
    for (seat, args) in [
        (other, vec!["play", log, "--auto"]),
        (who, vec!["countersign", log]),
        // Before the awaited player's deadline.
        (other, vec!["abandon", log, "--yes"]),
        // The game waits for this very player.
        (who, vec!["abandon", log, "--yes"]),
        (who, vec!["remind", log]),
    ] {
        let out = t.starry(Some(seat), &args);
        assert_eq!(out.status.code(), Some(19), "{args:?}: {}", stderr(&out));
        assert_eq!(std::fs::read(&t.log).unwrap(), before, "{args:?}");
    }
}

#[test]
fn while_a_seat_has_not_joined_status_says_when_the_clock_starts() {
    let t = Table::new(2);
    t.create_game("starry-night", &["--random-stars", "8", "--deadline", "2h"]);
    let s = t.status();
    assert_eq!(s["action"], "join");
    assert_eq!(
        s["clock"],
        Value::Null,
        "no claim can come before the joins"
    );
    let left = s["time_left"].as_str().unwrap_or_default();
    assert!(left.starts_with("ben has not joined yet (invited"), "{s}");
    let text = flat(&stdout(&t.starry(None, &["status", t.log_str()])));
    assert!(
        text.contains("the clock of 2 hours an entry starts once everyone has joined"),
        "{text}"
    );
    let games = flat(&stdout(&t.starry(Some(0), &["games"])));
    assert!(games.contains("ben has not joined yet"), "{games}");
    // Once everyone has joined, the clock runs as before.
    t.ok(1, &["join", t.log_str(), "--min-deadline", "none"]);
    let s = t.status();
    assert!(s["clock"]["seconds_left"].as_i64().unwrap() > 0, "{s}");
}
