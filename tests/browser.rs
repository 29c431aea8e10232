//! The HTML view in a real browser: headless Chromium loads the page of
//! each game from disk, and the test checks that it loads with no console
//! message (no error, no blocked request, no policy violation), that the
//! picture has the elements the view holds, and that a screenshot is not
//! blank.
//!
//! Needs Chromium: `chromium-headless-shell` or `chromium` on the PATH, or
//! STARRY_CHROMIUM=/path/to/it (`.ci/run` installs Debian's
//! chromium-headless-shell). Without it the tests fail, saying how to
//! install it; STARRY_SKIP_BROWSER_TESTS=1 turns that into a loud skip.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("STARRY_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for name in [
        "chromium-headless-shell",
        "chromium",
        "chromium-browser",
        "chrome-headless-shell",
        "google-chrome",
    ] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

pub fn browser_or_skip() -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        let text = "\n\n##########################################################\n\
                    ## browser test: no Chromium found (chromium-headless-shell,\n\
                    ## chromium, or STARRY_CHROMIUM=PATH). On Debian:\n\
                    ##   apt-get install chromium-headless-shell\n\
                    ## STARRY_SKIP_BROWSER_TESTS=1 skips these tests knowingly.\n\
                    ##########################################################\n";
        if std::env::var("STARRY_SKIP_BROWSER_TESTS").is_ok_and(|v| !v.is_empty() && v != "0") {
            eprintln!("{text}SKIPPED");
        } else {
            panic!("{text}");
        }
    }
    found
}

/// What the browser made of a page.
struct Loaded {
    dom: String,
    /// Every console message the page caused.
    console: Vec<String>,
    screenshot: Vec<u8>,
}

/// The flags this machine needs: headless, no network calls of its own,
/// no sandbox (as root), nothing from a profile.
pub const CHROMIUM_FLAGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
];

/// Runs Chromium with [`CHROMIUM_FLAGS`] and a fresh profile.
fn chromium_run(browser: &Path, profile: &Path, extra: &[&str], page: &Path) -> (String, String) {
    let out = Command::new(browser)
        .args(CHROMIUM_FLAGS)
        .args(["--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn load(browser: &Path, page: &Path) -> Loaded {
    let dir = tempfile::tempdir().unwrap();
    let (dom, log) = chromium_run(browser, &dir.path().join("p1"), &["--dump-dom"], page);
    let shot = dir.path().join("shot.png");
    let (_, log2) = chromium_run(
        browser,
        &dir.path().join("p2"),
        &[
            "--window-size=1200,1400",
            &format!("--screenshot={}", shot.display()),
        ],
        page,
    );
    let console = log
        .lines()
        .chain(log2.lines())
        .filter(|l| l.contains(":CONSOLE"))
        .map(String::from)
        .collect();
    Loaded {
        dom,
        console,
        screenshot: std::fs::read(&shot).unwrap_or_default(),
    }
}

/// Non-white pixels and distinct colours of a screenshot.
pub fn ink(png: &[u8]) -> (usize, usize) {
    let px = resvg::tiny_skia::Pixmap::decode_png(png).expect("the screenshot is a PNG");
    let mut colours = std::collections::BTreeSet::new();
    let mut dark = 0;
    for p in px.pixels() {
        colours.insert((p.red(), p.green(), p.blue()));
        if (p.red() as u32 + p.green() as u32 + p.blue() as u32) < 600 {
            dark += 1;
        }
    }
    (dark, colours.len())
}

/// The HTML view of an example game, written by the program.
pub fn page_of(dir: &Path, file: &str, at: Option<&str>) -> PathBuf {
    let log = root().join("examples/games").join(file);
    let page = dir.join(format!("{file}.html"));
    let mut args = vec![
        "view",
        log.to_str().unwrap(),
        "--spectator",
        "--format",
        "html",
        "--out",
        page.to_str().unwrap(),
    ];
    if let Some(n) = at {
        args.extend(["--at", n]);
    }
    let out = common::starry_in(dir, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    page
}

fn spectator_json(file: &str, at: Option<&str>) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let log = root().join("examples/games").join(file);
    let mut args = vec!["view", log.to_str().unwrap(), "--spectator", "--json"];
    if let Some(n) = at {
        args.extend(["--at", n]);
    }
    serde_json::from_slice(&common::starry_in(dir.path(), &args).stdout).unwrap()
}

/// A page to load: the log, `--at`, and how many elements of each class
/// the picture must hold.
type Case<'a> = (&'a str, Option<&'a str>, &'a [(&'a str, usize)]);

#[test]
fn every_games_page_loads_cleanly_with_its_picture() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // (log, --at, class counted in the picture, how many the view holds)
    let sky = spectator_json("in-progress-4p.jsonl", None);
    let sky_stars: usize = sky["view"]["slots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["board"]["stars"].as_array().map_or(0, Vec::len))
        .sum();
    let night = spectator_json("starry-night-takeback.jsonl", Some("19"));
    let night_stars = night["view"]["stars"].as_array().unwrap().len();
    let night_edges = night["view"]["edges"].as_array().unwrap().len();
    let cases: [Case; 3] = [
        ("in-progress-4p.jsonl", None, &[("star", sky_stars)]),
        (
            "starry-night-takeback.jsonl",
            Some("19"),
            &[("star", night_stars), ("edge", night_edges)],
        ),
        (
            "star-map-4-players-teams.jsonl",
            Some("29"),
            &[("square", 144)],
        ),
    ];
    for (file, at, counts) in cases {
        let page = page_of(dir.path(), file, at);
        let got = load(&browser, &page);
        assert!(
            got.console.is_empty(),
            "{file}: the page logged to the console:\n{}",
            got.console.join("\n")
        );
        assert!(got.dom.contains("<svg"), "{file}: no picture in the page");
        assert!(got.dom.contains("id=\"history\""), "{file}: no history");
        for (class, n) in counts {
            assert!(*n > 0, "{file}: nothing to count for {class}");
            assert_eq!(
                got.dom.matches(&format!("<g class=\"{class}\"")).count(),
                *n,
                "{file}: `{class}` elements in the loaded picture"
            );
        }
        let (dark, colours) = ink(&got.screenshot);
        assert!(
            dark > 10_000 && colours > 8,
            "{file}: the screenshot looks blank ({dark} dark pixels, {colours} colours)"
        );
    }
}

/// The console check can fail: a page that breaks its own policy is caught.
#[test]
fn a_page_with_an_error_is_caught() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("bad.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" \
         content=\"default-src 'none'\"></head><body><p>x</p>\
         <script>console.error('boom')</script></body></html>",
    )
    .unwrap();
    let got = load(&browser, &page);
    assert!(!got.console.is_empty(), "a blocked script went unnoticed");
    let (dark, _) = ink(&got.screenshot);
    assert!(
        dark < 10_000,
        "a nearly empty page is not blank enough: {dark}"
    );
}
