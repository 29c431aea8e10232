//! The remaining commands through the real binary, each `--json` output
//! validated against its checked-in schema.

use crate::common;

use std::path::PathBuf;

use common::*;
use serde_json::{Value, json};

fn validate(schema: &str, value: &Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("schemas")
        .join(schema);
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = v
        .iter_errors(value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn every_json_output_matches_its_schema() {
    let t = Table::new(3);
    let id = t.json(Some(0), &["id", "show", "--json"]);
    validate("id.json", &id);
    assert_eq!(id["email"], "anna@example.org");
    let secret: Value =
        serde_json::from_str(&std::fs::read_to_string(t.homes[0].join("identity.json")).unwrap())
            .unwrap();
    assert!(
        !id.to_string().contains(secret["secret"].as_str().unwrap()),
        "id show prints no secret"
    );

    let players = t.emails.join(",");
    let created = t.json(
        Some(0),
        &[
            "new",
            "starry-sky",
            "--players",
            &players,
            "--out",
            t.log_str(),
            "--json",
        ],
    );
    validate("entry-report.json", &created);
    assert_eq!(created["status"]["to_act"], "ben@example.org");
    assert_eq!(created["status"]["action"], "join");
    let joined = t.json(Some(1), &["join", t.log_str(), "--json"]);
    validate("entry-report.json", &joined);
    t.play_until(|s| s["entries"].as_u64().unwrap() > 20);
    validate("status.json", &t.status());
    validate(
        "starry-sky-view.json",
        &t.json(None, &["view", t.log_str(), "--json"]),
    );
    validate(
        "starry-sky-view.json",
        &t.json(Some(2), &["view", t.log_str(), "--json"]),
    );
    validate(
        "audit.json",
        &t.json(None, &["audit", t.log_str(), "--json"]),
    );
    validate(
        "rules-list.json",
        &t.json(None, &["rules", "list", "--json"]),
    );
}

#[test]
fn rules_list_names_the_game_and_its_variants() {
    let t = Table::new(3);
    let out = t.starry(None, &["rules", "list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    for needle in [
        "starry-sky",
        "3 to 5 players",
        "doubling=additive|compound",
        "tie=coins|nothing",
    ] {
        assert!(text.contains(needle), "{needle} in {text}");
    }
}

/// Seed 000's Abb 5 as a position: P1 6 next to two own double stars (24,
/// 3 tokens), P2 10 next to its double star (20), P3 1 + 10 (11, 2 tokens),
/// P4 6 (1 token); prizes 9/7. By hand: P1 gets 9 and pays P3 2 and P4 1
/// (+6), P2 +7, P3 +2, P4 +1.
fn abb5() -> Value {
    json!({
        "board": {"id": "abb5", "name": "Abb 5", "prizes": [9, 7],
                  "stars": [{"large": false, "at": [0, 0]}, {"large": false, "at": [10, 0]}, {"large": false, "at": [20, 0]},
                            {"large": false, "at": [0, 10]}, {"large": false, "at": [10, 10]}, {"large": false, "at": [0, 20]},
                            {"large": false, "at": [10, 20]}, {"large": false, "at": [20, 20]}],
                  "lines": [[1, 2], [1, 3], [4, 5], [6, 7], [7, 8]]},
        "tokens": [{"star": 1, "seat": 0, "token": "6"}, {"star": 2, "seat": 0, "token": "ds"}, {"star": 3, "seat": 0, "token": "ds"},
                   {"star": 4, "seat": 1, "token": "10"}, {"star": 5, "seat": 1, "token": "ds"},
                   {"star": 6, "seat": 2, "token": "1"}, {"star": 7, "seat": 2, "token": "10"}, {"star": 8, "seat": 3, "token": "6"}],
        "purses": [0, 0, 0, 0]
    })
}

#[test]
fn the_referee_scores_a_position_without_keys() {
    let t = Table::new(3);
    let pos = t.dir.path().join("abb5.json");
    std::fs::write(&pos, abb5().to_string()).unwrap();
    let r = t.json(None, &["rules", "score", pos.to_str().unwrap(), "--json"]);
    validate("starry-sky-referee.json", &r);
    let coins: Vec<i64> = r["score"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["coins"].as_i64().unwrap())
        .collect();
    assert_eq!(coins, [6, 7, 2, 1]);
    let totals: Vec<i64> = r["score"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["total"].as_i64().unwrap())
        .collect();
    assert_eq!(totals, [24, 20, 11, 6]);
    assert_eq!(r["purses"], json!([6, 7, 2, 1]));
    let out = t.starry(None, &["rules", "score", pos.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("seat 0 paid seat 2 2") && text.contains("seat 0 paid seat 3 1"),
        "{text}"
    );
    // From standard input too.
    let out = assert_cmd::Command::cargo_bin("starry")
        .unwrap()
        .args(["rules", "score", "-"])
        .write_stdin(abb5().to_string())
        .output()
        .unwrap();
    assert!(out.status.success());
    // A bad position names the problem.
    std::fs::write(
        &pos,
        r#"{"board":"leo","tokens":[{"star":99,"seat":0,"token":"10"}]}"#,
    )
    .unwrap();
    let out = t.starry(None, &["rules", "score", pos.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("99"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn demo_plays_a_whole_game_and_audits_it() {
    let t = Table::new(3);
    let out = t.starry(
        None,
        &[
            "demo",
            "--players",
            "4",
            "--variant",
            "doubling=compound",
            "--json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    validate("demo.json", &r);
    assert_eq!(r["audit"]["valid"], true);
    assert_eq!(r["audit"]["over"], true);
    assert_eq!(r["audit"]["standings"].as_array().unwrap().len(), 4);
    assert_eq!(r["audit"]["countersigned"], json!([0, 1, 2, 3]));
    // The directory is kept, with the picture and the page of the end.
    let dir = std::path::Path::new(r["dir"].as_str().unwrap());
    let png = std::fs::read(r["picture"].as_str().unwrap()).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let page = std::fs::read_to_string(r["page"].as_str().unwrap()).unwrap();
    assert!(page.contains("<svg") && page.contains("id=\"history\""));
    assert!(
        r["picture"]
            .as_str()
            .unwrap()
            .starts_with(dir.to_str().unwrap())
    );
    std::fs::remove_dir_all(dir).unwrap();
    let keep = t.dir.path().join("kept");
    let out = t.starry(None, &["demo", "--keep", keep.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Audit: valid") && text.contains("Final standings"),
        "{text}"
    );
    assert!(keep.join("starry-sky.jsonl").exists());
    let out = t.starry(None, &["demo", "--keep", keep.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "refuses a non-empty directory");
}

#[test]
fn audit_of_many_files_reports_each_and_fails_on_any() {
    let t = Table::new(3);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let good = root.join("examples/games/finished-3p-additive-coins.jsonl");
    let bad = root.join("tests/vectors/forged-signature.jsonl");
    let out = t.starry(
        None,
        &[
            "audit",
            good.to_str().unwrap(),
            bad.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(15));
    // Two games, one line each.
    let games = audit_games(&out.stdout);
    assert_eq!(games.len(), 2);
    assert_eq!(games[0]["valid"], true);
    assert_eq!(games[0]["files"][0]["valid"], true);
    assert_eq!(games[1]["valid"], false);
    assert_eq!(games[1]["fault"], "bad-signature");
    assert_eq!(games[1]["code"], 15);
}

/// `starry ARGS…` with no identity, requiring success; standard output.
fn stdout_of(args: &[&str]) -> String {
    let home = tempfile::tempdir().unwrap();
    let out = starry_in(home.path(), args);
    assert!(
        out.status.success(),
        "starry {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The words of an example command line as a shell splits them, up to a
/// redirection, a pipe, `&&` or a comment in parentheses; double quotes
/// group.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    if matches!(word.as_str(), ">" | "<" | "|" | "&&") || word.starts_with('(') {
                        return words;
                    }
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any && !word.starts_with('(') {
        words.push(word);
    }
    words
}

#[test]
fn every_command_s_help_shows_examples() {
    use clap::{CommandFactory, Parser};
    let cli = starry::cli::Cli::command();
    let mut seen = 0;
    for sub in cli.get_subcommands() {
        let name = sub.get_name();
        if name == "help" {
            continue;
        }
        // The command's own subcommands too (`id new`, `rules score`).
        let mut paths = vec![vec![name]];
        paths.extend(sub.get_subcommands().map(|s| vec![name, s.get_name()]));
        for path in paths {
            for flag in ["--help", "-h"] {
                let mut args = path.clone();
                args.push(flag);
                let help = stdout_of(&args);
                let examples = help
                    .split_once("Examples:")
                    .unwrap_or_else(|| panic!("starry {args:?} shows no Examples:\n{help}"))
                    .1;
                let first = path.join(" ");
                assert!(
                    examples.contains(&format!("starry {first}")),
                    "the examples of `starry {first}` run it:\n{help}"
                );
                // Each example is a command line the program accepts.
                for line in examples.lines().map(str::trim) {
                    let Some(at) = line.find("starry ") else {
                        continue;
                    };
                    let words = shell_words(&line[at..]);
                    if let Err(e) = starry::cli::Cli::try_parse_from(&words) {
                        panic!("`{line}` ({words:?}) does not parse: {e}");
                    }
                }
            }
            seen += 1;
        }
    }
    assert!(seen >= 20, "{seen} commands");
    // What a command said after its options before is still said.
    assert!(stdout_of(&["mail", "--help"]).contains("readable by you alone (chmod 600)"));
    assert!(stdout_of(&["new", "--help"]).contains("Starry Night's sky: --stars"));
    assert!(stdout_of(&["rules", "replay", "--help"]).contains("Exit codes: 0 every action"));
    assert!(stdout_of(&["--help"]).contains("Exit codes: 0 ok"));
}

#[test]
fn completions_and_the_manual_page_are_printed() {
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout_of(&["completions", shell]);
        assert!(script.len() > 1000, "{shell}: {} bytes", script.len());
        assert!(script.contains("starry"), "{shell}");
        // Every command can be completed.
        for command in ["play", "resign", "countersign", "completions"] {
            assert!(script.contains(command), "{shell}: {command}");
        }
    }
    let out = starry_in(
        tempfile::tempdir().unwrap().path(),
        &["completions", "tcsh"],
    );
    assert_eq!(out.status.code(), Some(2), "an unknown shell is wrong use");

    let man = stdout_of(&["man"]);
    assert!(
        man.starts_with(".ie") || man.starts_with(".TH"),
        "roff: {}",
        &man[..man.len().min(200)]
    );
    assert!(man.contains(".TH starry"), "{}", &man[..man.len().min(400)]);
    assert!(man.contains("starry"));
    for command in ["play", "resign", "audit"] {
        assert!(man.contains(command), "the page lists {command}");
        // ...and refers to its page starry-COMMAND(1), which exists.
        assert!(man.contains(&format!("starry\\-{command}(1)")), "{command}");
        let page = stdout_of(&["man", command]);
        assert!(
            page.contains(&format!(".TH starry-{command} 1")),
            "{}",
            &page[..page.len().min(300)]
        );
    }
    let out = assert_cmd::Command::cargo_bin("starry")
        .unwrap()
        .args(["man", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the commands are id, new"));
}

/// `starry mail setup --player-url`: alone, it sets only `player_url` (no
/// server asked for, nothing tried), keeps the other settings, refuses a
/// bad address with the reason and nothing written, and "" removes it.
#[test]
fn mail_setup_sets_the_player_url_alone() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join("mail.toml");
    let setup = |url: &str| {
        assert_cmd::Command::cargo_bin("starry")
            .unwrap()
            .env("STARRY_HOME", home.path())
            .env_remove("STARRY_PLAYER_URL")
            .args(["mail", "setup", "--player-url", url])
            .output()
            .unwrap()
    };
    for bad in [
        "http://example.org/",
        "https://example.org/#x",
        "javascript:alert(1)",
    ] {
        let out = setup(bad);
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{e}");
        assert!(
            e.contains(&format!("--player-url {bad}: the player address ")),
            "{e}"
        );
        assert!(e.contains("nothing was changed"), "{e}");
        assert!(!settings.exists());
    }
    std::fs::write(&settings, "from = \"Anna <anna@example.org>\"\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let out = setup("https://example.org/starry/");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("player_url set to https://example.org/starry/"),
        "{said}"
    );
    let written: toml::Table = std::fs::read_to_string(&settings).unwrap().parse().unwrap();
    assert_eq!(
        written["player_url"].as_str(),
        Some("https://example.org/starry/")
    );
    assert_eq!(written["from"].as_str(), Some("Anna <anna@example.org>"));
    assert!(written.get("smtp").is_none(), "{written}");

    let out = setup("");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written: toml::Table = std::fs::read_to_string(&settings).unwrap().parse().unwrap();
    assert!(written.get("player_url").is_none(), "{written}");
    assert_eq!(written["from"].as_str(), Some("Anna <anna@example.org>"));
}
