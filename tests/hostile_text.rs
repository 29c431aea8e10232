//! Hostile text in a log, through the real binary: whatever a log holds
//! (escape sequences, one-byte C1 controls, text-direction overrides, a
//! 50 MB line), what starry prints holds no raw control or bidi character,
//! its `--json` output still parses, and an error stays short.

use crate::common;

use std::path::{Path, PathBuf};

use common::*;

/// ESC, DEL, CSI (C1, as UTF-8), RIGHT-TO-LEFT OVERRIDE, a bell, a line break.
const EVIL: &str = "Eve\u{1b}[2J\u{1b}]0;pwned\u{7}\u{9b}31m\u{202e}gro.live\u{7f}\u{2066}\nFAKE";

/// Whether `s` holds a character that must never reach a terminal raw.
fn raw_unsafe(s: &str) -> Option<char> {
    s.chars()
        .find(|&c| starry::text::is_unsafe(c) && c != '\n' && c != '\t')
}

/// The first line of an example log (a genesis), as JSON, made to claim the
/// protocol version this program implements so that it is read further.
fn example_genesis() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/games/in-progress-4p.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let mut g: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    g["body"]["data"]["protocol"] = starry::log::PROTOCOL_VERSION.into();
    g
}

fn line_of(g: &serde_json::Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(g).unwrap();
    line.push(b'\n');
    line
}

/// Ways to put hostile text into the first line of a log.
fn crafted_logs(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut write = |label: &str, bytes: Vec<u8>| {
        let p = dir.join(format!("{label}.jsonl"));
        std::fs::write(&p, bytes).unwrap();
        out.push((label.to_string(), p));
    };

    // 1. A genesis whose seat name decodes to the hostile text (ESC as the
    //    JSON escape \u001b, U+009B and U+202E raw).
    let mut g = example_genesis();
    g["body"]["data"]["seats"][0]["name"] = EVIL.into();
    g["body"]["data"]["seats"][1]["email"] = format!("ben{EVIL}@example.org").into();
    let line = line_of(&g);
    write("escaped", line.clone());

    // 2. The same bytes with the escapes undone: raw ESC, BEL, LF… inside a
    //    JSON string (invalid JSON; still never echoed raw).
    let raw = String::from_utf8(line)
        .unwrap()
        .replace("\\u001b", "\u{1b}")
        .replace("\\u0007", "\u{7}");
    write("raw", raw.into_bytes());

    // 3. A lone C1 byte (0x9B, the one-byte CSI) that is not UTF-8.
    let mut bytes = b"{\"body\":{\"name\":\"x\x9b2J\x1b[31m".to_vec();
    bytes.extend_from_slice("\u{202e}\"}}\n".as_bytes());
    write("not-utf8", bytes);

    // 4. The hostile name at the start of a 50 MB one.
    let mut g = example_genesis();
    g["body"]["data"]["seats"][0]["name"] = format!("{EVIL}{}", "x".repeat(50_000_000)).into();
    write("huge", line_of(&g));

    // 5. A hostile address alone, a hostile game name alone (an unknown game
    //    is reported by name), a hostile time.
    let mut g = example_genesis();
    g["body"]["data"]["seats"][1]["email"] = format!("ben{EVIL}@example.org").into();
    write("email", line_of(&g));
    let mut g = example_genesis();
    g["body"]["data"]["game"] = EVIL.into();
    write("game", line_of(&g));
    let mut g = example_genesis();
    g["body"]["time"] = EVIL.into();
    write("time", line_of(&g));

    // 6. A good genesis followed by a hostile second line.
    let mut bytes = line_of(&example_genesis());
    let mut second = example_genesis();
    second["body"]["kind"] = EVIL.into();
    bytes.extend(line_of(&second));
    write("second-line", bytes);
    out
}

fn check_clean(what: &str, bytes: &[u8]) {
    assert!(!bytes.contains(&0x1b), "{what}: raw ESC");
    assert!(!bytes.contains(&0x07), "{what}: raw BEL");
    let s = String::from_utf8_lossy(bytes);
    if let Some(c) = raw_unsafe(&s) {
        let at = s.find(c).unwrap();
        let before: String = s[..at].chars().rev().take(80).collect();
        let before: String = before.chars().rev().collect();
        panic!("{what}: raw U+{:04X} after …{before:?}", c as u32);
    }
}

#[test]
fn hostile_text_in_a_log_never_reaches_the_terminal_raw() {
    let t = Table::new(1);
    for (label, path) in crafted_logs(t.dir.path()) {
        let p = path.to_str().unwrap();
        for args in [
            vec!["audit", p],
            vec!["audit", p, "--json"],
            vec!["status", p],
            vec!["status", p, "--json"],
            vec!["view", p, "--spectator"],
            vec!["play", p, "--auto"],
            vec!["mail", p],
        ] {
            let out = t.starry(Some(0), &args);
            let what = format!("{label}: {args:?}");
            assert!(!out.status.success(), "{what}");
            check_clean(&format!("{what} stdout"), &out.stdout);
            check_clean(&format!("{what} stderr"), &out.stderr);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!err.contains("panicked"), "{what}: {err}");
            assert!(
                out.stderr.len() < 1024,
                "{what}: {} bytes on stderr",
                out.stderr.len()
            );
            if args.contains(&"--json") {
                let v: serde_json::Value = serde_json::from_slice(&out.stdout)
                    .unwrap_or_else(|e| panic!("{what}: --json output does not parse: {e}"));
                assert!(v.is_object(), "{what}");
            }
        }
        // The file was refused, not rewritten.
        assert!(path.exists());
    }
}

/// A line of 50 MB makes no output of 50 MB, on either stream.
#[test]
fn a_huge_bad_line_gives_short_output() {
    let t = Table::new(1);
    let logs = crafted_logs(t.dir.path());
    let (_, huge) = logs.iter().find(|(l, _)| l == "huge").unwrap();
    for args in [vec!["audit"], vec!["audit", "--json"], vec!["status"]] {
        let mut args = args.clone();
        args.insert(1, huge.to_str().unwrap());
        let out = t.starry(None, &args);
        assert!(out.stderr.len() < 1024, "{args:?}: {}", out.stderr.len());
        assert!(
            out.stdout.len() < 64 * 1024,
            "{args:?}: {}",
            out.stdout.len()
        );
    }
}

/// A file name is text from outside too (a saved attachment, a file in a
/// shared repository): it is shown in messages and in `--json`, and it is
/// the last line of defence in `main` that escapes it there.
#[cfg(unix)]
#[test]
fn a_hostile_file_name_is_escaped_in_text_and_in_json() {
    use std::os::unix::ffi::OsStrExt;
    let t = Table::new(1);
    let name = "evil\u{1b}[2J\u{9b}31m\u{202e}lmth.\u{7f}.jsonl";
    let path = t.dir.path().join(name);
    // A tampered genesis: every command refuses it, naming the file.
    let mut g = example_genesis();
    g["body"]["data"]["seats"][0]["name"] = "Mallory".into();
    std::fs::write(&path, line_of(&g)).unwrap();
    let p = std::ffi::OsStr::from_bytes(path.as_os_str().as_bytes());
    let run = |args: &[&std::ffi::OsStr]| {
        assert_cmd::Command::cargo_bin("starry")
            .unwrap()
            .env("STARRY_HOME", &t.nobody)
            .args(args)
            .output()
            .unwrap()
    };
    let os = std::ffi::OsStr::new;
    for args in [
        vec![os("audit"), p],
        vec![os("audit"), p, os("--json")],
        vec![os("status"), p],
        vec![os("status"), p, os("--json")],
        vec![os("view"), p, os("--spectator")],
    ] {
        let out = run(&args);
        let what = format!("{args:?}");
        check_clean(&format!("{what} stdout"), &out.stdout);
        check_clean(&format!("{what} stderr"), &out.stderr);
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if args.contains(&os("--json")) {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{what}: --json output does not parse: {e}"));
            // The same value as before escaping: the name is all there.
            let shown = v["files"][0]["file"]
                .as_str()
                .or(v["error"]["message"].as_str())
                .unwrap_or_else(|| panic!("{what}: {v}"));
            assert!(shown.contains(name), "{what}: {shown:?}");
            assert!(
                all.contains("\\u009b") && all.contains("\\u202e"),
                "{what}: {all}"
            );
        } else {
            assert!(
                all.contains("evil\\u{1b}[2J\\u{9b}31m\\u{202e}lmth.\\u{7f}.jsonl"),
                "{what}: {all}"
            );
        }
    }
}

/// The longest line a log may have (1 MiB) spent on a game name: reported
/// as an unknown game, quoting an excerpt of the name, not the name.
#[test]
fn a_huge_game_name_gives_short_output() {
    let t = Table::new(1);
    let mut g = example_genesis();
    g["body"]["data"]["game"] = format!("{EVIL}{}", "g".repeat(900_000)).into();
    let path = t.dir.path().join("game-name.jsonl");
    std::fs::write(&path, line_of(&g)).unwrap();
    let p = path.to_str().unwrap();
    for args in [
        vec!["status", p],
        vec!["status", p, "--json"],
        vec!["audit", p],
        vec!["audit", p, "--json"],
    ] {
        let out = t.starry(None, &args);
        assert!(!out.status.success(), "{args:?}");
        check_clean(&format!("{args:?} stdout"), &out.stdout);
        check_clean(&format!("{args:?} stderr"), &out.stderr);
        assert!(out.stderr.len() < 1024, "{args:?}: {}", out.stderr.len());
        assert!(
            out.stdout.len() < 16 * 1024,
            "{args:?}: {}",
            out.stdout.len()
        );
    }
}
