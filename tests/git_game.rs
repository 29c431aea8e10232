//! A whole game of Starry Sky played through git with the real binary and
//! the real `git`: a bare repository and three clones, one per player. Each
//! player pulls, writes their entry with `--git-commit` and pushes. At the
//! end every clone has the same log, the audit is valid, and the history
//! has one commit per entry (the creator's commit holds the genesis and the
//! creator's join), each adding exactly one line, with a message naming the
//! game, the entry and the move, made as the player.

use crate::players;

use std::path::{Path, PathBuf};

use players::*;
use serde_json::Value;

/// Git with no system or global settings, so that no user name is set and
/// starry commits as the player's identity.
const GIT_ENV: [(&str, &str); 2] = [
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
];

fn setup(players: &mut Players) -> (PathBuf, Vec<PathBuf>) {
    let root = players.dir.path().to_path_buf();
    let origin = root.join("origin.git");
    git(
        &root,
        &[
            "init",
            "-q",
            "--bare",
            "-b",
            "main",
            origin.to_str().unwrap(),
        ],
    );
    let mut clones = Vec::new();
    for p in &players.p {
        let c = root.join(format!("clone-{}", p.name.to_lowercase()));
        git(
            &root,
            &["clone", "-q", origin.to_str().unwrap(), c.to_str().unwrap()],
        );
        git(&c, &["symbolic-ref", "HEAD", "refs/heads/main"]);
        clones.push(c);
    }
    players.set_env(&GIT_ENV);
    (origin, clones)
}

fn log_in(clone: &Path) -> PathBuf {
    clone.join("game.jsonl")
}

#[test]
fn a_whole_game_through_git_one_commit_per_entry() {
    let mut players = Players::new(3);
    let (_origin, clones) = setup(&mut players);
    let ps = &players.p;

    let out = ps[0].run(&[
        "new",
        "starry-sky",
        "--players",
        &players.emails(),
        "--out",
        log_in(&clones[0]).to_str().unwrap(),
        "--git-commit",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // In a git game the file is not sent: the commit is pushed and pulled.
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("Send the file"), "{text}");
    assert!(
        text.contains("Push it (`git push`) so that the others see it when they pull")
            && text.contains(&format!(
                "{} is next: they pull and run `starry join game.jsonl`",
                ps[1].name
            )),
        "{text}"
    );
    let v = ps[0].json(&["status", log_in(&clones[0]).to_str().unwrap(), "--json"]);
    let game_id = v["game_id"].as_str().unwrap().to_string();
    assert_eq!(
        git(&clones[0], &["log", "-1", "--format=%s"]).trim(),
        format!(
            "starry-sky {}: entry 1 — {} started a game of Starry Sky for 3 players",
            &game_id[..8],
            ps[0].name
        )
    );
    git(&clones[0], &["push", "-q", "origin", "main"]);

    let mut entries = 2;
    let mut last = 0;
    let mut staged_checked = false;
    loop {
        let status = ps[last].json(&["status", log_in(&clones[last]).to_str().unwrap(), "--json"]);
        if status["over"] == true {
            break;
        }
        let who = players.seat_of(status["to_act"].as_str().unwrap());
        let clone = &clones[who];
        git(clone, &["pull", "-q", "--ff-only", "origin", "main"]);
        assert_eq!(
            std::fs::read(log_in(clone)).unwrap(),
            std::fs::read(log_in(&clones[last])).unwrap(),
            "the pull brought the latest log"
        );

        // Once: something else staged in the clone stays out of the commit.
        let staged = !staged_checked && entries > 20;
        if staged {
            std::fs::write(clone.join("notes.txt"), "my notes\n").unwrap();
            git(clone, &["add", "notes.txt"]);
        }
        let out = ps[who].run(&[
            "play",
            log_in(clone).to_str().unwrap(),
            "--auto",
            "--git-commit",
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let entry = v["entry"].as_u64().unwrap();
        assert_eq!(entry, entries as u64);
        let g = &v["git"];
        assert_eq!(g["committed"], true, "{v}");
        // "Ben joined", "Ben placed 10 on leo:3": each reads as a sentence.
        let said = match v["kind"].as_str().unwrap() {
            "ready" => "is ready (gave a share of the setup randomness)",
            _ => v["summary"].as_str().unwrap(),
        };
        let message = format!(
            "starry-sky {}: entry {entry} — {} {said}",
            &game_id[..8],
            ps[who].name,
        );
        assert_eq!(g["message"], message.as_str());
        assert_eq!(
            git(clone, &["log", "-1", "--format=%H %an <%ae>%n%s"]).trim(),
            format!(
                "{} {} <{}>\n{message}",
                g["commit"].as_str().unwrap(),
                ps[who].name,
                ps[who].email
            )
        );
        if staged {
            assert_eq!(
                git(clone, &["show", "--name-only", "--format=", "HEAD"]).trim(),
                "game.jsonl"
            );
            assert_eq!(
                git(clone, &["diff", "--cached", "--name-only"]).trim(),
                "notes.txt"
            );
            git(clone, &["rm", "-q", "--cached", "notes.txt"]);
            std::fs::remove_file(clone.join("notes.txt")).unwrap();
            staged_checked = true;
        }
        git(clone, &["push", "-q", "origin", "main"]);
        entries += 1;
        last = who;
        assert!(entries < 2000, "the game does not end");
    }
    assert!(staged_checked);

    // Everybody pulls: the same log everywhere, valid, over.
    let final_log = std::fs::read(log_in(&clones[last])).unwrap();
    for (p, clone) in ps.iter().zip(&clones) {
        git(clone, &["pull", "-q", "--ff-only", "origin", "main"]);
        assert_eq!(std::fs::read(log_in(clone)).unwrap(), final_log);
        let a = p.json(&["audit", log_in(clone).to_str().unwrap(), "--json"]);
        assert_eq!(a["valid"], true, "{a}");
        assert_eq!(a["files"][0]["over"], true);
        assert_eq!(a["files"][0]["entries"], entries as u64);
    }

    // One commit per entry: the first holds entries 0 and 1.
    let clone = &clones[0];
    let oneline = git(clone, &["log", "--oneline"]);
    assert_eq!(oneline.lines().count(), entries - 1, "{oneline}");
    // Each later commit adds exactly one line to the log and changes nothing else.
    let numstat = git(clone, &["log", "--format=@%s", "--numstat"]);
    let mut commits = 0;
    for block in numstat.split('@').filter(|b| !b.trim().is_empty()) {
        let mut lines = block.lines().filter(|l| !l.trim().is_empty());
        let subject = lines.next().unwrap();
        let stats: Vec<&str> = lines.collect();
        assert_eq!(stats.len(), 1, "{subject}: {stats:?}");
        let expected_added = if subject.contains(": entry 1 — ") {
            "2"
        } else {
            "1"
        };
        assert_eq!(
            stats[0].split_whitespace().collect::<Vec<_>>(),
            vec![expected_added, "0", "game.jsonl"],
            "{subject}"
        );
        assert!(subject.starts_with(&format!("starry-sky {}: entry ", &game_id[..8])));
        commits += 1;
    }
    assert_eq!(commits, entries - 1);
    // The authors are the players.
    let authors = git(clone, &["log", "--format=%an"]);
    for p in ps {
        assert!(authors.lines().any(|a| a == p.name), "{authors}");
    }
}

#[test]
fn git_commit_outside_a_repository_keeps_the_entry() {
    let mut players = Players::new(3);
    players.set_env(&GIT_ENV);
    let dir = players.dir.path().join("not-a-repo");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("game.jsonl");
    let out = players.p[0].run(&[
        "new",
        "starry-sky",
        "--players",
        &players.emails(),
        "--out",
        log.to_str().unwrap(),
        "--git-commit",
    ]);
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(6), "{e}");
    assert!(e.contains("entry 1 is written to"), "{e}");
    assert!(e.contains("not inside a git repository"), "{e}");
    assert!(e.contains("git init"), "{e}");
    assert!(log.exists());
    let out = players.p[1].run(&["join", log.to_str().unwrap(), "--git-commit", "--json"]);
    assert_eq!(out.status.code(), Some(6));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["git"]["committed"], false);
    assert!(
        v["git"]["error"]
            .as_str()
            .unwrap()
            .contains("not inside a git repository")
    );
    let a = players.p[1].json(&["audit", log.to_str().unwrap(), "--json"]);
    assert_eq!(a["files"][0]["entries"], 3, "the join is kept");

    // A dry run writes nothing, so it cannot be committed or mailed.
    let out = players.p[2].run(&[
        "play",
        log.to_str().unwrap(),
        "--auto",
        "--dry-run",
        "--git-commit",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
