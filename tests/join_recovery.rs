//! A join is two writes: the record of the join in `STARRY_HOME/joined/`
//! and the log. Whichever of them fails (a full disk, a killed process),
//! the next `join` must never write a second, different join entry: that
//! would fork the game and look like the player cheated.

use crate::common;
use starry::crypto::identity::Stored as _;

use common::Table;
use starry::app::act::{self, Do, Step};
use starry::crypto::identity::Identity;
use starry::crypto::os_random;
use starry::error::Error;
use starry::games::Draw;
use starry::games::starry_sky::StarrySky;
use starry::log::file::LockedLog;

/// The join record: `joined/<game id>` (a killed process may also leave a
/// temporary `.starry-record-*` beside it, which is not a record).
fn joined_record(t: &Table, seat: usize) -> Option<Vec<u8>> {
    let dir = t.homes[seat].join("joined");
    let entry = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .find(|e| !e.file_name().to_string_lossy().starts_with('.'))?;
    std::fs::read(entry.path()).ok()
}

#[test]
fn a_join_interrupted_at_any_step_is_finished_with_the_same_entry() {
    for failing in [Step::WriteRecord, Step::ReplaceLog] {
        let t = Table::new(3);
        t.create(&[]);
        let before = std::fs::read(&t.log).unwrap();
        let id = Identity::load(&t.homes[1]).unwrap();
        let result = act::act_with::<StarrySky>(
            act::Author {
                home: &t.homes[1],
                id: &id,
            },
            act::OpenLog {
                path: &t.log,
                locked: LockedLog::open(&t.log).unwrap(),
            },
            Do::Join(starry::log::entry::Notify::All),
            false,
            starry::log::replay::now(),
            &mut Draw::new(os_random()),
            &mut |step| {
                if step == failing {
                    Err(Error::Other(format!("injected failure at {step:?}")))
                } else {
                    Ok(())
                }
            },
        );
        assert!(result.is_err(), "{failing:?}");
        assert_eq!(
            std::fs::read(&t.log).unwrap(),
            before,
            "{failing:?}: log unchanged"
        );
        let record = joined_record(&t, 1);
        assert_eq!(record.is_some(), failing == Step::ReplaceLog, "{failing:?}");

        let out = t.starry(Some(1), &["join", t.log_str()]);
        assert!(
            out.status.success(),
            "{failing:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let after = std::fs::read(&t.log).unwrap();
        let new_line = &after[before.len()..];
        if let Some(r) = record {
            assert_eq!(new_line, r.as_slice(), "the recorded join, byte for byte");
        }
        assert_eq!(
            joined_record(&t, 1).unwrap(),
            new_line,
            "the record is the entry written"
        );
        // And a second join refuses; the log audits with one join by Ben.
        let out = t.starry(Some(1), &["join", t.log_str()]);
        assert_eq!(out.status.code(), Some(2));
        let audit = t.json(None, &["audit", t.log_str(), "--json"]);
        assert_eq!(audit["valid"], true);
        assert_eq!(audit["files"][0]["entries"], 3);
    }
}

#[test]
fn a_killed_join_never_forks() {
    // The real binary, stopped with SIGKILL at random moments of a join,
    // then run again: the log ends with exactly one join by seat 1, and it
    // is the one recorded.
    let t = Table::new(3);
    t.create(&[]);
    let before = std::fs::read(&t.log).unwrap();
    for delay_us in [
        0u64, 200, 500, 1000, 1500, 2000, 3000, 4000, 6000, 8000, 12000,
    ] {
        std::fs::write(&t.log, &before).unwrap();
        // A fresh trial: no record of the join, nor of the entry written.
        let _ = std::fs::remove_dir_all(t.homes[1].join("joined"));
        let _ = std::fs::remove_dir_all(t.homes[1].join("written"));
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("starry"))
            .env("STARRY_HOME", &t.homes[1])
            .args(["join", t.log_str()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_micros(delay_us));
        let _ = child.kill();
        let _ = child.wait();
        let out = t.starry(Some(1), &["join", t.log_str()]);
        let after = std::fs::read(&t.log).unwrap();
        // Either the killed run finished (and this one says "joined
        // already") or this run finished it; never two joins.
        assert!(
            out.status.success() || String::from_utf8_lossy(&out.stderr).contains("joined"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(after.len() > before.len(), "a join was written");
        assert_eq!(joined_record(&t, 1).unwrap(), &after[before.len()..]);
        let audit = t.json(None, &["audit", t.log_str(), "--json"]);
        assert_eq!(audit["files"][0]["entries"], 3, "one join by seat 1");
    }
}

#[test]
fn a_half_written_record_is_no_record() {
    // A killed process can leave the record's temporary file behind: the
    // next join ignores it, removes it, and writes a record of its own.
    let t = Table::new(3);
    t.create(&[]);
    let dir = t.homes[1].join("joined");
    std::fs::create_dir_all(&dir).unwrap();
    let game = std::fs::read_dir(t.homes[0].join("joined"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .file_name();
    let stale = dir.join(format!(".starry-{}.abcdefghij.tmp", game.to_str().unwrap()));
    std::fs::write(&stale, "{\"body\":{\"kind\":\"join\"").unwrap();
    let out = t.starry(Some(1), &["join", t.log_str()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stale.exists(), "the stale temporary record is removed");
    let log = std::fs::read(&t.log).unwrap();
    assert!(log.ends_with(&joined_record(&t, 1).unwrap()));
}
