//! Protocol test vectors: `starry audit` on each file of tests/vectors/ gives
//! the expected outcome, exit code and entry, and never changes the file.

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn exit_code(fault: &str) -> i32 {
    match fault {
        "ok" => 0,
        "malformed" => 10,
        "truncated" => 11,
        "non-canonical" => 12,
        "broken-chain" => 13,
        "foreign-entry" => 14,
        "bad-signature" => 15,
        "bad-link" => 16,
        "bad-reveal" => 17,
        "impossible-token" => 18,
        "out-of-turn" => 19,
        "illegal-move" => 20,
        "unknown-version" => 21,
        "fork" => 22,
        other => panic!("unknown fault {other} in the manifest"),
    }
}

#[test]
fn every_vector_has_its_documented_outcome() {
    let dir = root().join("tests/vectors");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let vectors = manifest["vectors"].as_array().unwrap();
    let mut faults_seen = std::collections::BTreeSet::new();
    for v in vectors {
        let file = dir.join(v["file"].as_str().unwrap());
        let expect = v["expect"].as_str().unwrap();
        let before = std::fs::read(&file).unwrap();
        let out = Command::cargo_bin("starry")
            .unwrap()
            .arg("audit")
            .arg(&file)
            .arg("--json")
            .output()
            .unwrap();
        assert_eq!(
            std::fs::read(&file).unwrap(),
            before,
            "audit changed {}",
            file.display()
        );
        let code = out.status.code().unwrap();
        assert_eq!(
            code,
            exit_code(expect),
            "{}: exit code; stdout {}",
            file.display(),
            String::from_utf8_lossy(&out.stdout)
        );
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let f = &report["files"][0];
        if expect == "ok" {
            assert_eq!(f["valid"], true);
        } else {
            faults_seen.insert(expect.to_string());
            assert_eq!(f["valid"], false);
            assert_eq!(f["fault"]["fault"], expect, "{}", file.display());
            assert_eq!(
                f["fault"]["entry"],
                v["entry"],
                "{}: entry named",
                file.display()
            );
            let msg = f["fault"]["message"].as_str().unwrap();
            assert!(msg.contains(&format!("entry {}", v["entry"])), "{msg}");
            // The text form names the entry too.
            let text = Command::cargo_bin("starry")
                .unwrap()
                .arg("audit")
                .arg(&file)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&text.stdout);
            assert!(
                stdout.contains(&format!("entry {} (line", v["entry"])),
                "{stdout}"
            );
        }
    }
    for needed in [
        "bad-signature",
        "broken-chain",
        "non-canonical",
        "truncated",
        "foreign-entry",
        "unknown-version",
        "out-of-turn",
        "illegal-move",
        "bad-reveal",
        "impossible-token",
        "bad-link",
    ] {
        assert!(faults_seen.contains(needed), "no vector for {needed}");
    }
}

#[test]
fn copies_that_diverge_are_reported_as_a_fork() {
    let dir = root().join("tests/vectors");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let pairs = manifest["pairs"].as_array().unwrap();
    assert!(!pairs.is_empty());
    for p in pairs {
        let files: Vec<PathBuf> = p["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| dir.join(f.as_str().unwrap()))
            .collect();
        let out = Command::cargo_bin("starry")
            .unwrap()
            .arg("audit")
            .args(&files)
            .arg("--json")
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(exit_code(p["expect"].as_str().unwrap()))
        );
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["valid"], false);
        assert!(
            r["files"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["valid"] == true),
            "each copy is valid alone"
        );
        let fork = &r["forks"][0];
        assert_eq!(fork["entry"], p["entry"]);
        assert_eq!(fork["same_author"], p["same_author"]);
        let text = Command::cargo_bin("starry")
            .unwrap()
            .arg("audit")
            .args(&files)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&text.stdout);
        assert!(
            stdout.contains(&format!("fork at entry {}", p["entry"])) && stdout.contains("proof"),
            "{stdout}"
        );
        // Each alone is fine.
        for f in &files {
            assert!(
                Command::cargo_bin("starry")
                    .unwrap()
                    .arg("audit")
                    .arg(f)
                    .output()
                    .unwrap()
                    .status
                    .success()
            );
        }
    }
}
