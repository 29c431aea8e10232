//! A second implementation of the protocol and of the rules of Starry Sky,
//! Starry Night and Star Map, written from `docs/` alone (no Rust read; Star
//! Map also reads the shipped data files `crates/core/src/games/star_map/discs.json` and
//! `parts.json` that its doc names), in Python with its standard library only:
//! `tests/independent/starry_check.py`. It recomputes every
//! value printed in docs/protocol.md section 9 and audits every vector and
//! example game; this test runs it, so that code, spec and vectors cannot
//! drift apart unseen.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn an_implementation_from_the_docs_agrees_on_every_vector() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var("STARRY_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(&python)
        .arg(root.join("tests/independent/starry_check.py"))
        .arg("vectors")
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("{python} is needed for this test (.ci/run installs it): {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
