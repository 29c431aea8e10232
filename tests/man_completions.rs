//! `starry man --dir` writes every page that any page refers to, and the
//! EXTRA section keeps each example on a line of its own; the completion
//! scripts offer the game names of `new` and ask `starry games --ids` for
//! the ids of the games in the games directory.

use crate::common::*;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command as Process;

/// Every `starry-NAME(1)` a page names, as roff writes it (`starry\-play(1)`).
fn referred(page: &str) -> BTreeSet<String> {
    let text = page.replace("\\-", "-");
    let mut out = BTreeSet::new();
    for (at, _) in text.match_indices("(1)") {
        let before = &text[..at];
        let start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .map_or(0, |i| i + 1);
        let name = &before[start..];
        if name.starts_with("starry") {
            out.insert(name.to_string());
        }
    }
    out
}

#[test]
fn man_dir_writes_every_page_referred_to() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("man1");
    let out = starry_in(home.path(), &["man", "--dir", dir.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut seen = BTreeSet::new();
    let mut refs = BTreeSet::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let page = std::fs::read_to_string(&path).unwrap();
        let stem = name.strip_suffix(".1").expect("NAME.1");
        assert!(page.contains(&format!(".TH {stem} 1")), "{name}");
        seen.insert(stem.to_string());
        refs.extend(referred(&page));
    }
    assert!(seen.contains("starry"), "{seen:?}");
    for command in ["play", "new", "audit", "id", "id-new", "man", "completions"] {
        assert!(
            seen.contains(&format!("starry-{command}")),
            "starry-{command} in {seen:?}"
        );
    }
    assert!(refs.len() >= 20, "{refs:?}");
    let missing: Vec<_> = refs.difference(&seen).collect();
    assert!(
        missing.is_empty(),
        "pages referred to but not written: {missing:?}"
    );
    assert!(!seen.contains("starry-help"), "no page for clap's help");
    // Each page is also what `starry man NAME` prints.
    let page = std::fs::read_to_string(dir.join("starry-id-new.1")).unwrap();
    let printed = starry_in(home.path(), &["man", "id-new"]);
    assert_eq!(
        String::from_utf8_lossy(&printed.stdout).trim_end(),
        page.trim_end()
    );
}

/// The page as man(1) lays it out, if man and groff are installed, without
/// the backspace overstrikes of a terminal page.
fn rendered(page: &Path) -> Option<String> {
    let out = Process::new("man")
        .arg("-l")
        .arg(page)
        .env("MANWIDTH", "100")
        .env("MAN_KEEP_FORMATTING", "0")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let mut text = String::new();
    for c in String::from_utf8_lossy(&out.stdout).chars() {
        if c == '\u{8}' {
            text.pop();
        } else {
            text.push(c);
        }
    }
    Some(text)
}

#[test]
fn the_extra_section_keeps_each_example_on_its_line() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("man1");
    let out = starry_in(home.path(), &["man", "--dir", dir.to_str().unwrap()]);
    assert!(out.status.success());
    let roff = std::fs::read_to_string(dir.join("starry-sync.1")).unwrap();
    // The examples are kept as lines (no fill), the prose is filled.
    let extra = &roff[roff.find(".SH EXTRA").expect("an EXTRA section")..];
    assert!(extra.contains(".nf\nstarry sync\n"), "{extra}");
    assert!(extra.contains("\nstarry sync \\-\\-json\n"), "{extra}");
    let Some(text) = rendered(&dir.join("starry-sync.1")) else {
        eprintln!("man -l is not available: the layout is checked in roff only");
        return;
    };
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for example in [
        "starry sync",
        "starry sync --json",
        "starry sync --maildir ~/Maildir   (mbsync, offlineimap, notmuch)",
    ] {
        assert!(
            lines.iter().any(|l| l.replace('‐', "-") == example),
            "`{example}` on a line of its own:\n{text}"
        );
    }
    // The top page: its two paragraphs stay apart, each filled.
    let top = rendered(&dir.join("starry.1")).unwrap();
    let extra = &top[top.find("EXTRA").expect("an EXTRA section")..];
    // Words as one line each: a filled paragraph's spacing is the
    // formatter's (justified lines get wider gaps).
    let paragraphs: Vec<String> = extra
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect();
    assert!(paragraphs[0].contains("Identities live in"), "{extra}");
    assert!(!paragraphs[0].contains("Exit codes"), "{extra}");
    assert!(paragraphs[1].starts_with("Exit codes: 0 ok"), "{extra}");
}

#[test]
fn games_ids_lists_the_games_directory() {
    let home = tempfile::tempdir().unwrap();
    let games = home.path().join("games");
    std::fs::create_dir_all(&games).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/games");
    let mut want = Vec::new();
    for name in ["in-progress-4p.jsonl", "star-map-2-players.jsonl"] {
        let line = std::fs::read_to_string(root.join(name)).unwrap();
        let first: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
        // The game id is the hash of the genesis line: `status` says it.
        let status = starry_in(
            home.path(),
            &["status", root.join(name).to_str().unwrap(), "--json"],
        );
        let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
        let id = status["game_id"].as_str().unwrap().to_string();
        assert_eq!(first["body"]["kind"], "genesis");
        std::fs::copy(root.join(name), games.join(format!("{id}.jsonl"))).unwrap();
        want.push(id[..16].to_string());
    }
    // Not a game's name: left out, and never printed.
    std::fs::write(games.join("notes\u{1b}[2J.jsonl"), b"x").unwrap();
    want.sort();
    let out = starry_in(home.path(), &["games", "--ids"]);
    assert!(out.status.success());
    let got: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(got, want);
    // Each id names its game.
    for id in &want {
        let out = starry_in(home.path(), &["status", id]);
        assert!(out.status.success(), "{id}");
    }
}

#[test]
fn completion_scripts_offer_game_names_and_ids() {
    let home = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let out = starry_in(home.path(), &["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for game in starry::games::registry::NAMES {
            assert!(script.contains(game), "{shell}: {game}");
        }
        assert!(script.contains("starry games --ids 2>/dev/null"), "{shell}");
    }
    let zsh = String::from_utf8(starry_in(home.path(), &["completions", "zsh"]).stdout).unwrap();
    assert!(
        zsh.contains(":_starry_game_files'"),
        "the FILE arguments use the helper"
    );
    assert!(zsh.contains("_starry_game_files() {"));
    let fish = String::from_utf8(starry_in(home.path(), &["completions", "fish"]).stdout).unwrap();
    let line = fish
        .lines()
        .find(|l| l.contains("starry games --ids 2>/dev/null"))
        .unwrap();
    for command in ["play", "join", "status", "view", "history"] {
        assert!(line.contains(&format!(" {command}")), "{line}");
    }
    assert!(!line.contains(" new "), "`new` takes no game log: {line}");
}

/// The bash script run by bash itself: completing `starry new s` offers the
/// games, `starry play ` the id of the game in the games directory.
#[test]
fn bash_completes_game_names_and_ids() {
    if Process::new("bash").arg("--version").output().is_err() {
        eprintln!("bash is not installed: skipped");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let games = home.path().join("games");
    std::fs::create_dir_all(&games).unwrap();
    let id = "8c09e41c2c8d7e120388f1d272202a074c37579a8d6ab5e5c7d2ce6c31dfda76";
    std::fs::write(games.join(format!("{id}.jsonl")), b"").unwrap();
    let script = home.path().join("starry.bash");
    std::fs::write(
        &script,
        starry_in(home.path(), &["completions", "bash"]).stdout,
    )
    .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("starry");
    let complete = |words: &[&str]| -> Vec<String> {
        let program = format!(
            "starry() {{ {bin:?} \"$@\"; }}\n\
             source {script:?}\n\
             COMP_WORDS=({words})\n\
             COMP_CWORD={cword}\n\
             COMP_LINE=\"${{COMP_WORDS[*]}}\"\n\
             COMP_POINT=${{#COMP_LINE}}\n\
             _starry_with_games starry \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
             printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
            words = words
                .iter()
                .map(|w| format!("{w:?}"))
                .collect::<Vec<_>>()
                .join(" "),
            cword = words.len() - 1,
        );
        let out = Process::new("bash")
            .arg("-c")
            .arg(&program)
            .env("STARRY_HOME", home.path())
            .current_dir(home.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    };
    let names = complete(&["starry", "new", "star"]);
    let star = starry::games::registry::NAMES.into_iter();
    for game in star.filter(|g| g.starts_with("star")) {
        assert!(names.contains(&game.to_string()), "{names:?}");
    }
    let ids = complete(&["starry", "play", "8c"]);
    assert_eq!(ids, ["8c09e41c2c8d7e12"], "{ids:?}");
}
