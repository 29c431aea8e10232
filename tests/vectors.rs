//! Protocol test vectors: `starry audit` on each file of tests/vectors/ gives
//! the expected outcome, exit code and entry, and never changes the file.

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `starry audit FILES [--json]`.
fn audit(files: &[&std::path::Path], json: bool) -> std::process::Output {
    let mut cmd = Command::cargo_bin("starry").unwrap();
    cmd.arg("audit").args(files);
    if json {
        cmd.arg("--json");
    }
    cmd.output().unwrap()
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
        "backward-time" => 23,
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
        let out = audit(&[file.as_path()], true);
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
            let text = audit(&[file.as_path()], false);
            let stdout = String::from_utf8_lossy(&text.stdout);
            assert!(
                stdout.contains(&format!("entry {} (line", v["entry"])),
                "{stdout}"
            );
        }
    }
    // One vector (at least) per row of the fault table; fork is the pairs'.
    for needed in [
        "malformed",
        "truncated",
        "non-canonical",
        "broken-chain",
        "foreign-entry",
        "bad-signature",
        "bad-link",
        "bad-reveal",
        "impossible-token",
        "out-of-turn",
        "illegal-move",
        "unknown-version",
    ] {
        assert!(faults_seen.contains(needed), "no vector for {needed}");
    }
    // Valid games that ended otherwise than by being played out.
    for e in manifest["endings"].as_array().unwrap() {
        let file = dir.join(e["file"].as_str().unwrap());
        let out = audit(&[file.as_path()], true);
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            r["files"][0]["ending"]["how"],
            e["ending"],
            "{}",
            file.display()
        );
        let text = audit(&[file.as_path()], false);
        let stdout = String::from_utf8_lossy(&text.stdout);
        assert!(stdout.contains(e["ending"].as_str().unwrap()), "{stdout}");
    }
}

const TABLE_BEGIN: &str = "<!-- BEGIN GENERATED VECTOR LIST -->";
const TABLE_END: &str = "<!-- END GENERATED VECTOR LIST -->";

/// The list of vectors in docs/protocol.md, section 9, is the manifest's.
#[test]
fn the_spec_lists_every_vector() {
    let dir = root().join("tests/vectors");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let mut block = String::from("| file | expected | entry | what |\n|---|---|---|---|\n");
    for v in manifest["vectors"].as_array().unwrap() {
        block.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            v["file"].as_str().unwrap(),
            v["expect"].as_str().unwrap(),
            v["entry"]
                .as_u64()
                .map_or("—".to_string(), |e| e.to_string()),
            v["about"].as_str().unwrap()
        ));
    }
    for p in manifest["pairs"].as_array().unwrap() {
        let files: Vec<String> = p["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| format!("`{}`", f.as_str().unwrap()))
            .collect();
        block.push_str(&format!(
            "| {} together | {} | {} | {} |\n",
            files.join(" + "),
            p["expect"].as_str().unwrap(),
            p["entry"],
            match p["resolution"].as_str() {
                Some(r) => format!("a fork that resolves by rule: {r}"),
                None if p["same_author"] == true =>
                    "a fork; the same seat signed both entries".into(),
                None => "a fork".into(),
            }
        ));
    }
    let path = root().join("docs/protocol.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (start, end) = (
        doc.find(TABLE_BEGIN).expect("begin marker"),
        doc.find(TABLE_END).expect("end marker"),
    );
    let block = format!("{TABLE_BEGIN}\n{block}{TABLE_END}");
    let current = &doc[start..end + TABLE_END.len()];
    if std::env::var_os("STARRY_BLESS").is_some() {
        std::fs::write(&path, doc.replace(current, &block)).unwrap();
    } else {
        assert_eq!(
            current, block,
            "docs/protocol.md vector list is stale: STARRY_BLESS=1 cargo test --test suite vectors::"
        );
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
        let out = audit(&files.iter().map(|f| f.as_path()).collect::<Vec<_>>(), true);
        assert_eq!(
            out.status.code(),
            Some(exit_code(p["expect"].as_str().unwrap()))
        );
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        let fork = &r["forks"][0];
        if let Some(resolution) = p["resolution"].as_str() {
            assert_eq!(r["valid"], true, "a fork that resolves by rule is no fault");
            assert_eq!(fork["resolution"], resolution);
            assert_eq!(fork["entry"], p["entry"]);
            continue;
        }
        assert_eq!(r["valid"], false);
        assert!(
            r["files"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["valid"] == true),
            "each copy is valid alone"
        );
        assert_eq!(fork["entry"], p["entry"]);
        assert_eq!(fork["same_author"], p["same_author"]);
        let text = audit(
            &files.iter().map(|f| f.as_path()).collect::<Vec<_>>(),
            false,
        );
        let stdout = String::from_utf8_lossy(&text.stdout);
        assert!(
            stdout.contains(&format!("fork at entry {}", p["entry"]))
                && (p["same_author"] == false || stdout.contains("proof")),
            "{stdout}"
        );
        // Each alone is fine.
        for f in &files {
            assert!(audit(&[f.as_path()], false).status.success());
        }
    }
}
