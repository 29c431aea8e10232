//! Pictures through the real binary: `starry view --format svg|png|html` for
//! every game and any `--at`.
//!
//! - Golden SVGs (`tests/golden/pictures/`), one position per game and an own
//!   view with face-down tokens: the same position gives the same bytes.
//!   `STARRY_BLESS=1 cargo test --test suite pictures::` writes them again, and the
//!   README's pictures (`docs/pictures/`) with them.
//! - Every format, for positions across each example game: the SVG renders,
//!   the PNG is the SVG's rendering and carries pixels only (no text chunk
//!   that could hold a name or a secret), the HTML is one self-contained page.
//! - Secrecy: a face-down token's value appears in its owner's pictures and
//!   in nobody else's.

use crate::common;

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn example(name: &str) -> PathBuf {
    root().join("examples/games").join(name)
}

/// `starry view` as `who` (an example identity) or as a spectator.
fn view(who: Option<&str>, args: &[&str]) -> Output {
    let home = match who {
        Some(w) => common::example_home(w),
        None => tempfile::tempdir().unwrap().keep(),
    };
    let out = common::starry_in(&home, &[&["view"], args].concat());
    assert!(
        out.status.success(),
        "view {args:?} as {who:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn svg_of(who: Option<&str>, file: &Path, at: Option<u64>) -> String {
    let at = at.map(|n| n.to_string());
    let mut args = vec![file.to_str().unwrap(), "--format", "svg"];
    if let Some(n) = &at {
        args.extend(["--at", n]);
    }
    if who.is_none() {
        args.push("--spectator");
    }
    String::from_utf8(view(who, &args).stdout).unwrap()
}

/// The positions with golden pictures: name, log, entries, viewer.
const GOLDEN: [(&str, &str, Option<u64>, Option<&str>); 5] = [
    ("starry-sky", "in-progress-4p.jsonl", None, None),
    (
        "starry-sky-own-view",
        "in-progress-4p.jsonl",
        None,
        Some("anna"),
    ),
    (
        "starry-night",
        "starry-night-takeback.jsonl",
        Some(19),
        None,
    ),
    ("star-map", "star-map-4-players-teams.jsonl", Some(29), None),
    ("star-map-end", "star-map-3-players-hard.jsonl", None, None),
];

#[test]
fn golden_svg_per_game() {
    let bless = std::env::var_os("STARRY_BLESS").is_some();
    for (name, file, at, who) in GOLDEN {
        let got = svg_of(who, &example(file), at);
        assert_eq!(
            got,
            svg_of(who, &example(file), at),
            "{name}: the same position drew different bytes"
        );
        let path = root().join(format!("tests/golden/pictures/{name}.svg"));
        common::check_golden(&path, &got, "pictures");
        // The README shows the spectator pictures, made by the program.
        if bless && who.is_none() && !name.ends_with("-end") {
            let png = starry::picture::png::render(&got).unwrap();
            let readme = root().join(format!("docs/pictures/{name}.png"));
            std::fs::create_dir_all(readme.parent().unwrap()).unwrap();
            std::fs::write(readme, png).unwrap();
        }
    }
}

#[test]
fn the_readme_shows_one_picture_per_game_made_by_the_program() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for game in starry::games::registry::NAMES {
        let rel = format!("docs/pictures/{game}.png");
        assert!(readme.contains(&rel), "the README does not show {rel}");
        let png = std::fs::read(root().join(&rel)).unwrap();
        let golden =
            std::fs::read_to_string(root().join(format!("tests/golden/pictures/{game}.svg")))
                .unwrap();
        let (w, h) = size(&png);
        let rendered = starry::picture::png::render(&golden).unwrap();
        assert_eq!(
            (w, h),
            size(&rendered),
            "{rel} is not the rendering of the golden picture (STARRY_BLESS=1 makes it again)"
        );
        assert_eq!(
            png, rendered,
            "{rel} is not the rendering of the golden picture (STARRY_BLESS=1 makes it again)"
        );
    }
}

/// Width and height from a PNG's IHDR.
fn size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert_eq!(&png[12..16], b"IHDR");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&png[16..20]), be(&png[20..24]))
}

/// The chunk types of a PNG, in order.
fn chunks(png: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 8;
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]) as usize;
        out.push(String::from_utf8_lossy(&png[at + 4..at + 8]).to_string());
        at += 12 + len;
    }
    out
}

#[test]
fn every_format_for_every_game_at_positions_across_the_game() {
    let dir = tempfile::tempdir().unwrap();
    for file in [
        "finished-5p-compound-coins.jsonl",
        "in-progress-4p.jsonl",
        "starry-night-finished-area.jsonl",
        "starry-night-takeback.jsonl",
        "star-map-2-players.jsonl",
        "star-map-4-players-teams.jsonl",
    ] {
        let log = example(file);
        let entries = std::fs::read(&log)
            .unwrap()
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64;
        for at in [0, 2, entries / 2, entries - 1] {
            let n = at.to_string();
            let base = [log.to_str().unwrap(), "--at", &n, "--spectator"];
            // SVG: valid (it renders), and its PNG is exactly that rendering.
            let svg =
                String::from_utf8(view(None, &[&base[..], &["--format", "svg"]].concat()).stdout)
                    .unwrap();
            assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
            let rendered = starry::picture::png::render(&svg)
                .unwrap_or_else(|e| panic!("{file} at {at}: {e}"));
            let png = dir.path().join(format!("{file}-{at}.png"));
            let out = view(
                None,
                &[
                    &base[..],
                    &["--format", "png", "--out", png.to_str().unwrap()],
                ]
                .concat(),
            );
            assert!(String::from_utf8_lossy(&out.stdout).contains("Wrote"));
            let png = std::fs::read(&png).unwrap();
            assert_eq!(png, rendered, "{file} at {at}: the PNG is not the SVG's");
            let kinds = chunks(&png);
            assert_eq!(kinds.first().map(String::as_str), Some("IHDR"));
            assert_eq!(kinds.last().map(String::as_str), Some("IEND"));
            for c in chunks(&png) {
                assert!(
                    ["IHDR", "PLTE", "IDAT", "IEND"].contains(&c.as_str()),
                    "{file} at {at}: a {c} chunk in the PNG"
                );
            }
            // HTML: one page, the picture inline, the history in words, no
            // request to anywhere.
            let html =
                String::from_utf8(view(None, &[&base[..], &["--format", "html"]].concat()).stdout)
                    .unwrap();
            assert!(html.starts_with("<!DOCTYPE html>"));
            assert!(html.contains(&svg), "{file} at {at}: the page's picture");
            assert!(html.contains("Content-Security-Policy\" content=\"default-src 'none'"));
            assert_eq!(
                html.matches("<li>").count() as u64,
                at + 1,
                "{file} at {at}: one line of history per entry"
            );
            let without_ns = html.replace("http://www.w3.org/2000/svg", "");
            for external in ["http://", "https://", "src=\"//", "<script", "<link"] {
                assert!(
                    !without_ns.contains(external),
                    "{file} at {at}: `{external}` in the page"
                );
            }
        }
    }
}

/// `--out` writes a new file or replaces a picture of its own, and refuses
/// everything else, changing nothing: a log under any name, an identity,
/// a directory, a FIFO. `--out -` is standard output.
#[test]
fn out_replaces_only_its_own_pictures() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = example("in-progress-4p.jsonl");
    let run = |out: &Path, format: &str| {
        common::starry_in(
            d,
            &[
                "view",
                log.to_str().unwrap(),
                "--spectator",
                "--format",
                format,
                "--out",
                out.to_str().unwrap(),
            ],
        )
    };
    // A log, named as a log or not, and an identity: refused, unchanged.
    for name in ["game.jsonl", "game.log", "identity.json"] {
        let f = d.join(name);
        std::fs::copy(&log, &f).unwrap();
        let before = std::fs::read(&f).unwrap();
        let out = run(&f, "svg");
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert_eq!(std::fs::read(&f).unwrap(), before, "{name} changed");
    }
    let out = run(d, "png");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a directory"));
    let fifo = d.join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let out = run(&fifo, "png");
        assert_eq!(out.status.code(), Some(2));
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
    }
    // New files, and pictures of its own, in every format.
    for (name, format) in [("a.svg", "svg"), ("a.png", "png"), ("a.html", "html")] {
        let f = d.join(name);
        assert!(run(&f, format).status.success(), "{name}");
        assert!(run(&f, format).status.success(), "{name} again");
        // One format over another is fine too: both are its own.
        assert!(run(&f, "svg").status.success(), "{name} as svg");
    }
    // `-` is standard output.
    let out = common::starry_in(
        d,
        &[
            "view",
            log.to_str().unwrap(),
            "--spectator",
            "--format",
            "svg",
            "--out",
            "-",
        ],
    );
    assert!(out.stdout.starts_with(b"<svg "));
    assert!(!d.join("-").exists());
}

/// The face-down tokens `who` sees as their own: star label → token.
fn own_face_down(who: &str, file: &Path) -> Vec<(String, String)> {
    let v: Value =
        serde_json::from_slice(&view(Some(who), &[file.to_str().unwrap(), "--json"]).stdout)
            .unwrap();
    let mut out = Vec::new();
    for slot in v["view"]["slots"].as_array().into_iter().flatten() {
        for star in slot["board"]["stars"].as_array().into_iter().flatten() {
            let occ = &star["occupant"];
            if occ["face"] == "face-down-own" {
                out.push((
                    star["label"].as_str().unwrap().to_string(),
                    occ["token"].as_str().unwrap().to_string(),
                ));
            }
        }
    }
    out
}

/// The `<g class="star">` group of the star `label` in a Starry Sky
/// picture (its title starts with the label): from its opening tag to its
/// closing one.
fn star_group<'a>(svg: &'a str, label: &str) -> &'a str {
    let open = format!("<g class=\"star\"><title>{label} ");
    let start = svg
        .find(&open)
        .unwrap_or_else(|| panic!("no star group for {label}"));
    let end = start + svg[start..].find("</g>").unwrap();
    &svg[start..end]
}

#[test]
fn a_face_down_token_is_drawn_for_its_owner_alone() {
    let file = example("in-progress-4p.jsonl");
    let players = ["anna", "ben", "cleo", "dan"];
    let spectator = svg_of(None, &file, None);
    let svgs: Vec<String> = players
        .iter()
        .map(|p| svg_of(Some(p), &file, None))
        .collect();
    let mut checked = 0;
    for (s, who) in players.iter().enumerate() {
        for (label, token) in own_face_down(who, &file) {
            // The owner sees the value on that star...
            assert!(
                star_group(&svgs[s], &label).contains(&format!(">{token}<")),
                "{who} does not see their own {token} on {label}"
            );
            // ...and nobody else does: not another player, not a spectator.
            for (o, other) in svgs.iter().enumerate().filter(|(o, _)| *o != s) {
                assert!(
                    !star_group(other, &label).contains(&format!(">{token}<")),
                    "{} sees {who}'s face-down {token} on {label}",
                    players[o]
                );
            }
            assert!(!star_group(&spectator, &label).contains(&format!(">{token}<")));
            checked += 1;
        }
    }
    assert!(checked >= 4, "only {checked} face-down tokens checked");
}

/// A finished game's picture names who won, as the audit ranks them, in
/// every game: in its description and in its drawn text.
#[test]
fn a_final_picture_names_the_winner_in_every_game() {
    for log in [
        "finished-3p-additive-coins.jsonl",
        "finished-4p-compound-nothing.jsonl",
        "star-map-3-players-hard.jsonl",
        "star-map-4-players-teams.jsonl",
        "starry-night-finished-area.jsonl",
        "starry-night-finished-count.jsonl",
    ] {
        let svg = svg_of(None, &example(log), None);
        let home = tempfile::tempdir().unwrap();
        let out = common::starry_in(
            home.path(),
            &["audit", example(log).to_str().unwrap(), "--json"],
        );
        let audit: Value = serde_json::from_slice(&out.stdout).unwrap();
        let firsts: Vec<&str> = audit["files"][0]["standings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["rank"] == 1)
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert!(!firsts.is_empty(), "{log}");
        let desc = &svg[svg.find("<desc>").unwrap()..svg.find("</desc>").unwrap()];
        let says = if firsts.len() == 1 {
            format!("{} win", firsts[0])
        } else {
            firsts.join(" and ")
        };
        assert!(desc.contains(&says), "{log}: `{says}` not in {desc}");
        let drawn: String = svg
            .split("<text")
            .skip(1)
            .map(|t| &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()])
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            firsts.iter().all(|n| drawn.contains(n)) && drawn.contains(" win"),
            "{log}: the winner is not drawn: {drawn}"
        );
    }
}
