//! The built web player, for the browser tests: the folder STARRY_WEB_DIR
//! names (`.ci/run` builds it once and exports it), or else built once per
//! test run with `sh crates/web/build.sh DIR` into the cargo target
//! directory (never among the sources), under a file lock so that
//! parallel tests, and parallel test runs, build it once at a time.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The files every build of the player holds.
pub const PLAYER_FILES: [&str; 4] = ["index.html", "sw.js", "manifest.webmanifest", "icon.svg"];

/// The built player's folder (with [`PLAYER_FILES`] in it).
pub fn web_player() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = match std::env::var_os("STARRY_WEB_DIR").filter(|d| !d.is_empty()) {
                Some(dir) => PathBuf::from(dir),
                None => build_player(&target_dir().join("web-player-tests")),
            };
            check_player(&dir);
            dir
        })
        .clone()
}

/// The cargo target directory this test binary was built in
/// (`target/debug/deps/suite-…` → `target`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.ancestors()
        .nth(3)
        .expect("the test binary is in TARGET/PROFILE/deps")
        .to_path_buf()
}

/// Runs `sh crates/web/build.sh OUT` from the repository.
fn build_player(out: &Path) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    build_with(&root.join("crates/web/build.sh"), &root, out)
}

/// Runs `sh SCRIPT OUT` in `root`, under a lock (`OUT.lock`) so that
/// builds into OUT take turns: what it built replaces OUT only once it
/// succeeded.
pub fn build_with(script: &Path, root: &Path, out: &Path) -> PathBuf {
    assert!(
        script.is_file(),
        "no {}: this tree has no web player to build; set STARRY_WEB_DIR to a built one",
        script.display()
    );
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let lock = std::fs::File::create(out.with_extension("lock")).unwrap();
    lock.lock().expect("the web player's build lock");
    let fresh = out.with_extension("new");
    let _ = std::fs::remove_dir_all(&fresh);
    let built = Command::new("sh")
        .arg(script)
        .arg(&fresh)
        .current_dir(root)
        .output()
        .expect("sh runs");
    assert!(
        built.status.success(),
        "sh {} failed ({}):\n{}\n{}",
        script.display(),
        built.status,
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    let _ = std::fs::remove_dir_all(out);
    std::fs::rename(&fresh, out).unwrap();
    drop(lock);
    out.to_path_buf()
}

/// Fails, naming what is missing, unless `dir` holds a built player.
pub fn check_player(dir: &Path) {
    for f in PLAYER_FILES {
        assert!(
            dir.join(f).is_file(),
            "the web player at {} has no {f} (STARRY_WEB_DIR, or a build by crates/web/build.sh)",
            dir.display()
        );
    }
}
