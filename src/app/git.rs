//! `--git-commit`: one commit per entry, in the repository that holds the
//! log. This shells out to the `git` program, so the user's own settings
//! (identity, signing, hooks) apply; only when git knows no user name or
//! e-mail does the commit take the starry identity's.
//!
//! The commit names only the log file (`git commit -- FILE`), so whatever
//! else is staged in the repository stays staged and out of the commit.

use crate::crypto::identity::Stored as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::Output;
use super::report::GitReport;
use crate::crypto::identity::{self, Identity};
use crate::text;

/// Commits the log after an entry was written, and folds the outcome into
/// `out` (JSON `git`, a line of text; on failure exit code 6 and a message
/// for standard error saying the entry is kept).
pub fn after_entry(path: &Path, out: &mut Output) {
    let message = commit_message(&out.json);
    let report = commit(path, &message);
    let trimmed = out.text.trim_end().len();
    out.text.truncate(trimmed);
    match &report.error {
        None => {
            // The log travels by git, not by hand: what `new` says about
            // sending the file is replaced by what to do with the commit.
            if let Some(at) = out.text.find("Send the file to ") {
                let end = out.text[at..].find('\n').map_or(out.text.len(), |e| at + e);
                out.text.replace_range(at..end, "");
                let trimmed = out.text.trim_end().len();
                out.text.truncate(trimmed);
            }
            out.text.push_str(&format!(
                "\nCommitted {} in {} as {}: {}\n{}",
                path.display(),
                report.repository.as_deref().unwrap_or("?"),
                report
                    .commit
                    .as_deref()
                    .map_or("?", |c| &c[..c.len().min(12)]),
                report.message,
                next_in_git(&out.json, path)
            ));
        }
        Some(e) => {
            let entry = out.json["entry"].as_u64().unwrap_or_default();
            let warning = format!(
                "entry {entry} is written to {} and kept, but it was not committed: {e}",
                path.display()
            );
            out.text.push_str("\nNot committed (see the error below).");
            out.warning = Some(match out.warning.take() {
                Some(w) => format!("{w}\nerror: {warning}"),
                None => warning,
            });
            if out.code == 0 {
                out.code = 6;
            }
        }
    }
    out.json["git"] = serde_json::to_value(&report).expect("reports serialise");
}

/// Whether the log at `path` is played through git: it lies in a git work
/// tree (docs/git.md), and is not a copy kept in the games directory, which
/// came by mail (a home kept under git must not turn mail advice into git
/// advice). The advice then names git's commands, not mail's.
pub fn played_in_git(path: &Path) -> bool {
    let Ok(file) = std::fs::canonicalize(path) else {
        return false;
    };
    let Some(dir) = file.parent() else {
        return false;
    };
    let games = identity::home_dir()
        .ok()
        .and_then(|h| std::fs::canonicalize(super::games_dir(&h)).ok());
    games.as_deref() != Some(dir) && dir.ancestors().any(|a| a.join(".git").exists())
}

/// What to do once an entry is committed: push it, so that the others
/// pull it (and who must act next, with the command they run).
fn next_in_git(report: &serde_json::Value, path: &Path) -> String {
    let status = &report["status"];
    let file = path
        .file_name()
        .map(|f| text::inline(&f.to_string_lossy()).into_owned())
        .unwrap_or_default();
    let push = "Push it (`git push`) so that the others see it when they pull (`git pull`)";
    if status["over"].as_bool() == Some(true) {
        return format!("{push}.");
    }
    match (status["to_act_name"].as_str(), status["action"].as_str()) {
        (Some(who), Some(action)) => {
            let command = match action {
                "join" => format!("`starry join {file}`"),
                "ready" => format!("`starry ready {file}`"),
                "reveal" => format!("`starry reveal {file}`"),
                _ => format!("`starry play {file} MOVE`"),
            };
            format!(
                "{push}; {} is next: they pull and run {command} with --git-commit.",
                text::inline(who)
            )
        }
        _ => format!("{push}."),
    }
}

/// `starry-sky 3f2a9c1e: entry 17 — Ben placed 10 on leo:3`, from an entry report.
fn commit_message(report: &serde_json::Value) -> String {
    let author = author_name(report).unwrap_or_else(|| "?".into());
    message_of(report, &author)
}

/// The commit message for `report` written by `author`: one line, every
/// piece taken from the log (game, id, name, summary) made [`text::inline`],
/// so a name cannot add a line (a `Signed-off-by:` trailer, say) and no
/// control character reaches `git log`.
fn message_of(report: &serde_json::Value, author: &str) -> String {
    let status = &report["status"];
    let game = text::inline(status["game"].as_str().unwrap_or("starry"));
    let id: String = status["game_id"]
        .as_str()
        .unwrap_or("")
        .chars()
        .take(8)
        .collect();
    let entry = report["entry"].as_u64().unwrap_or_default();
    let summary = report["summary"].as_str().unwrap_or("");
    // The summary is a verb phrase ("placed 10 on leo:3", "joined"); the
    // two that are not read as one after a name are said in full.
    let said = match (report["kind"].as_str(), entry) {
        (Some("join"), 0 | 1) => {
            let seats = status["seats"].as_array().map_or(0, Vec::len);
            let title = super::history::title(status["game"].as_str().unwrap_or("starry"));
            if seats > 0 {
                format!("started a game of {title} for {seats} players")
            } else {
                format!("started a game of {title}")
            }
        }
        (Some("ready"), _) => "is ready (gave a share of the setup randomness)".to_string(),
        _ => summary.to_string(),
    };
    format!(
        "{game} {}: entry {entry} — {} {}",
        text::inline(&id),
        text::inline(author),
        text::inline(&said)
    )
}

/// The name of whoever wrote the entry: the player whose identity runs this.
fn author_name(report: &serde_json::Value) -> Option<String> {
    let home = identity::home_dir().ok()?;
    let id = Identity::load(&home).ok()?;
    let seats = report["status"]["seats"].as_array()?;
    seats
        .iter()
        .find(|s| {
            s["email"]
                .as_str()
                .is_some_and(|e| e.eq_ignore_ascii_case(&id.email))
        })
        .and_then(|s| s["name"].as_str().map(str::to_string))
        .or(Some(id.name))
}

/// Runs `git add` and `git commit` for `path`. The message is made one
/// [`text::inline`] line whatever the caller passes.
pub fn commit(path: &Path, message: &str) -> GitReport {
    let message = &*text::inline(message);
    let mut report = GitReport {
        committed: false,
        repository: None,
        commit: None,
        message: message.to_string(),
        error: None,
    };
    match try_commit(path, message, &mut report) {
        Ok(hash) => {
            report.committed = true;
            report.commit = Some(hash);
        }
        Err(e) => report.error = Some(e),
    }
    report
}

fn try_commit(path: &Path, message: &str, report: &mut GitReport) -> Result<String, String> {
    let dir: PathBuf = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| format!("{} names no file", path.display()))?
        .to_os_string();
    let git = |args: &[&std::ffi::OsStr]| -> Result<String, String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(&dir)
            .args(args)
            .output()
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    "the `git` program is not installed (or not on PATH)".to_string()
                } else {
                    format!("cannot run git: {e}")
                }
            })?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
        } else {
            let said = String::from_utf8_lossy(&out.stderr);
            let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
            Err(format!(
                "`git {}` failed ({})",
                args.iter()
                    .map(|a| a.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(" "),
                if said.is_empty() {
                    format!("exit status {}", out.status.code().unwrap_or(-1))
                } else {
                    format!("git said: {said}")
                }
            ))
        }
    };
    let os = |s: &str| std::ffi::OsString::from(s);
    let top = git(&[&os("rev-parse"), &os("--show-toplevel")]).map_err(|e| {
        if e.contains("not a git repository") {
            format!(
                "{} is not inside a git repository; put the log in a clone of the game's \
                 shared repository (see docs/git.md), or run `git init` in {}, or leave out \
                 --git-commit",
                path.display(),
                dir.display()
            )
        } else {
            e
        }
    })?;
    report.repository = Some(top);
    git(&[&os("add"), &os("--"), &name])?;
    // Without a git identity, commit as the starry identity (git would
    // refuse to commit at all).
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    let has_user = git(&[&os("config"), &os("user.email")]).is_ok_and(|e| !e.is_empty())
        && git(&[&os("config"), &os("user.name")]).is_ok_and(|n| !n.is_empty());
    if !has_user
        && let Ok(home) = identity::home_dir()
        && let Ok(id) = Identity::load(&home)
    {
        args.push(os("-c"));
        args.push(os(&format!("user.name={}", text::inline(&id.name))));
        args.push(os("-c"));
        args.push(os(&format!("user.email={}", text::inline(&id.email))));
    }
    args.extend([
        os("commit"),
        os("--quiet"),
        os("-m"),
        os(message),
        os("--"),
        name,
    ]);
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    git(&refs)?;
    git(&[&os("rev-parse"), &os("HEAD")])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(name_in_summary: &str) -> serde_json::Value {
        serde_json::json!({
            "entry": 17,
            "summary": format!("10 on leo:3 \u{1b}[2J{name_in_summary}"),
            "status": { "game": "starry-sky", "game_id": "3f2a9c1e77aa", "seats": [] },
        })
    }

    const EVIL: &str =
        "Mallory\nSigned-off-by: Mallory <m@evil.org>\r\n\u{1b}]0;pwned\u{7}\u{202e}";

    #[test]
    fn commit_messages_are_one_safe_line() {
        let m = message_of(&report(EVIL), EVIL);
        assert!(
            m.starts_with("starry-sky 3f2a9c1e: entry 17 — Mallory"),
            "{m}"
        );
        assert!(!m.chars().any(text::is_unsafe), "{m:?}");
        assert_eq!(m.lines().count(), 1);
        assert!(m.contains("Mallory\\u{a}Signed-off-by: Mallory"), "{m}");
        // A new game and a ready read as sentences.
        let mut r = report("");
        r["kind"] = "join".into();
        r["entry"] = 1.into();
        r["status"]["game"] = "starry-night".into();
        r["status"]["seats"] = serde_json::json!([{}, {}]);
        assert_eq!(
            message_of(&r, "Dora"),
            "starry-night 3f2a9c1e: entry 1 — Dora started a game of Starry Night for 2 players"
        );
        r["kind"] = "ready".into();
        r["entry"] = 3.into();
        assert!(
            message_of(&r, "Ben")
                .ends_with("— Ben is ready (gave a share of the setup randomness)"),
            "{}",
            message_of(&r, "Ben")
        );
        // A game id that is not hex cannot make the slicing panic.
        let mut r = report("");
        r["status"]["game_id"] = "ééééééééé".into();
        assert!(message_of(&r, "Ben").contains("éééééééé:"));
    }

    /// Through real git: the commit has no trailer and no control character.
    #[test]
    fn a_hostile_name_adds_no_trailer_to_a_real_commit() {
        let d = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| {
            std::process::Command::new("git")
                .arg("-C")
                .arg(d.path())
                .args(args)
                .output()
        };
        let Ok(out) = run(&["init", "-q"]) else {
            eprintln!("git is not installed: skipped");
            return;
        };
        assert!(out.status.success());
        run(&["config", "user.name", "T"]).unwrap();
        run(&["config", "user.email", "t@example.org"]).unwrap();
        let log = d.path().join("game.jsonl");
        std::fs::write(&log, b"{}\n").unwrap();
        let message = message_of(&report(EVIL), EVIL);
        let rep = commit(
            &log,
            &format!("{message}\n\nSigned-off-by: Raw <r@evil.org>"),
        );
        assert!(rep.committed, "{:?}", rep.error);
        let body = run(&["log", "-1", "--format=%B"]).unwrap().stdout;
        let body = String::from_utf8(body).unwrap();
        assert_eq!(body.trim_end().lines().count(), 1, "{body:?}");
        assert!(!body.trim_end().chars().any(text::is_unsafe), "{body:?}");
        let trailers = run(&["log", "-1", "--format=%(trailers)"]).unwrap().stdout;
        assert!(String::from_utf8_lossy(&trailers).trim().is_empty());
    }
}
