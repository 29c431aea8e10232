//! The repository's own examples stay sound: `starry audit examples/games`
//! passes as a whole (the directory, every log below it), and nothing in
//! it is a link — a link left there by a tool or a test points into a
//! temporary directory that is gone on any other machine.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/games")
}

#[test]
fn the_examples_directory_audits() {
    let out = Command::cargo_bin("starry")
        .unwrap()
        .arg("audit")
        .arg(examples())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "starry audit examples/games:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("INVALID"), "{text}");
    assert!(text.contains("valid "), "{text}");
}

fn links_below(dir: &Path, found: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let t = e.file_type().unwrap();
        if t.is_symlink() {
            found.push(e.path());
        } else if t.is_dir() {
            links_below(&e.path(), found);
        }
    }
}

#[test]
fn no_links_in_the_examples() {
    let mut found = Vec::new();
    links_below(&examples(), &mut found);
    assert!(found.is_empty(), "links in examples/games: {found:?}");
}
