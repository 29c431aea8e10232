//! The crates are the layers, and an arrow may only point down:
//! starry-core (the protocol, the rules, the games, their bots and
//! pictures), then starry-mail, then the web player (starry-web: the
//! core in WebAssembly, beside the command line, never under it), then
//! starry (the command line, the use cases, files, `serve`). Cargo refuses a cycle between crates by itself;
//! these tests refuse what Cargo would accept: an upper layer reached from
//! a lower one, and I/O creeping into the core, by a dependency or by a
//! call into the standard library's I/O.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The workspace's crates, lowest layer first.
const LAYERS: [&str; 4] = ["starry-core", "starry-mail", "starry-web", "starry"];

/// Crates the core must never depend on, even through another crate:
/// files, processes, the network, terminals, threads, clocks and the
/// operating system's random source belong to the shells. (rayon, resvg
/// and png come in only through the core's optional features.)
const NOT_IN_CORE: &[&str] = &[
    "axum",
    "clap",
    "dirs",
    "getrandom",
    "hyper",
    "imap",
    "indicatif",
    "lettre",
    "libc",
    "mail-parser",
    "rayon",
    "resvg",
    "rpassword",
    "rustls",
    "tempfile",
    "tokio",
    "webbrowser",
];

/// What the core's own code may not call (outside its tests): the
/// standard library's files, processes, network, environment, threads and
/// clocks, and printing.
const NOT_IN_CORE_CODE: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::env",
    "std::thread",
    "std::io::stdin",
    "std::io::stdout",
    "std::io::stderr",
    "SystemTime",
    "Instant::now",
    "Utc::now",
    "Local::now",
    "println!",
    "eprintln!",
    "print!(",
    "eprint!(",
    "dbg!",
];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(args)
        .arg("--locked")
        .current_dir(repo())
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("cargo prints UTF-8")
}

#[test]
fn every_arrow_between_the_crates_points_down() {
    let meta: Value =
        serde_json::from_str(&cargo(&["metadata", "--format-version", "1", "--no-deps"])).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let mut names: Vec<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    names.sort();
    let mut layers = LAYERS.to_vec();
    layers.sort();
    assert_eq!(
        names, layers,
        "a crate was added to or removed from the workspace: give it its place in LAYERS \
         (tests/layers.rs) and in the workspace's comment (Cargo.toml)"
    );
    let mut wrong = Vec::new();
    for p in packages {
        let name = p["name"].as_str().unwrap();
        let level = LAYERS.iter().position(|l| *l == name).unwrap();
        for d in p["dependencies"].as_array().unwrap() {
            let dep = d["name"].as_str().unwrap();
            let Some(dep_level) = LAYERS.iter().position(|l| *l == dep) else {
                continue;
            };
            // A crate's tests may use the crate itself with features.
            if dep_level >= level && dep != name {
                wrong.push(format!("{name} -> {dep} ({})", d["kind"]));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "arrows pointing up the layers {LAYERS:?}: {wrong:?}; move what the lower crate \
         needs down into it instead"
    );
}

/// The web player runs in a browser: of the workspace it holds the core
/// alone (no mail transport, nothing of the command line), and neither
/// the command line nor the mail layer depends on it.
#[test]
fn the_web_player_holds_only_the_core() {
    let meta: Value =
        serde_json::from_str(&cargo(&["metadata", "--format-version", "1", "--no-deps"])).unwrap();
    let mut arrows = Vec::new();
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        for d in p["dependencies"].as_array().unwrap() {
            let dep = d["name"].as_str().unwrap();
            if LAYERS.contains(&dep) && (name == "starry-web" || dep == "starry-web") {
                arrows.push(format!("{name} -> {dep}"));
            }
        }
    }
    assert_eq!(
        arrows,
        ["starry-web -> starry-core"],
        "the web player's arrows"
    );
}

#[test]
fn the_core_depends_on_nothing_that_does_io() {
    // The core alone, as the browser build gets it (no features), for this
    // machine and for the browser.
    let mut tree = String::new();
    for target in [&[][..], &["--target", "wasm32-unknown-unknown"][..]] {
        let mut args = vec![
            "tree",
            "-p",
            "starry-core",
            "-e",
            "normal",
            "--prefix",
            "none",
        ];
        args.extend_from_slice(target);
        tree += &cargo(&args);
    }
    let found: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| NOT_IN_CORE.contains(c))
        .collect();
    assert!(
        found.is_empty(),
        "starry-core depends on {found:?}, which does I/O; keep it in the shells \
         (starry, starry-mail), or behind one of the core's optional features"
    );
    // And the tree was read at all.
    assert!(tree.contains("ed25519-dalek"), "{tree}");
}

#[test]
fn the_core_code_does_no_io() {
    let mut found = Vec::new();
    let test_files = test_module_files(&repo().join("crates/core/src"));
    let mut stack = vec![repo().join("crates/core/src")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !name.ends_with(".rs") || test_files.contains(&path) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (no, line) in outside_tests(&text) {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                for w in NOT_IN_CORE_CODE {
                    if code.contains(w) {
                        let rel = path.strip_prefix(repo()).unwrap().display().to_string();
                        found.push(format!("{rel}:{}: {w}", no + 1));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the core does I/O (it gets times, randomness and files' bytes as values from the \
         shells instead): {found:#?}"
    );
}

/// The files of the modules declared `#[cfg(test)] mod NAME;` under `root`:
/// only tests compile them.
fn test_module_files(root: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            // A module's children live beside `mod.rs` and `lib.rs`, and in
            // a folder named after any other file.
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            let children = if name == "mod" || name == "lib" {
                dir.clone()
            } else {
                dir.join(&name)
            };
            let text = std::fs::read_to_string(&path).unwrap();
            let mut lines = text.lines();
            while let Some(line) = lines.next() {
                if line.trim() != "#[cfg(test)]" {
                    continue;
                }
                let next = lines.next().unwrap_or_default().trim();
                let declared = next.strip_prefix("pub ").unwrap_or(next);
                if let Some(module) = declared
                    .strip_prefix("mod ")
                    .and_then(|m| m.strip_suffix(';'))
                {
                    files.push(children.join(format!("{module}.rs")));
                    files.push(children.join(module).join("mod.rs"));
                }
            }
        }
    }
    files
}

/// The lines of `text`, numbered from 0, without the items marked
/// `#[cfg(test)]` (a test module, or a test-only `impl`).
fn outside_tests(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut skipping = false;
    let mut depth = 0i64;
    let mut opened = false;
    for (no, line) in text.lines().enumerate() {
        if !skipping && line.trim() == "#[cfg(test)]" {
            skipping = true;
            depth = 0;
            opened = false;
            continue;
        }
        if skipping {
            for c in line.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            // An item ends with its braces closed, or with `;` (a `use`).
            if (opened && depth <= 0) || (!opened && line.trim_end().ends_with(';')) {
                skipping = false;
            }
            continue;
        }
        out.push((no, line));
    }
    out
}

#[test]
fn outside_tests_skips_test_items_only() {
    let text = "fn a() {}\n#[cfg(test)]\nimpl X {\n    fn t() { std::fs::read(\"\"); }\n}\nfn b() {}\n#[cfg(test)]\nuse std::fs;\nfn c() {}\n";
    let kept: Vec<&str> = outside_tests(text).into_iter().map(|(_, l)| l).collect();
    assert_eq!(kept, ["fn a() {}", "fn b() {}", "fn c() {}"]);
}
