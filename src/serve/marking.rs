//! Issue 33, item 18: the mark of the places of the next click (the
//! style sheet's `--pick`) must not say anything the games' pictures say
//! with colour, and must be seen: WCAG contrast of 4.5:1 or more against
//! everything it is drawn on. Computed from the style sheet the server
//! sends and from the pictures the program draws of the example games, so
//! that a new colour in either is checked too.

use std::collections::BTreeSet;

use crate::log::replay::Replay;
use crate::picture::{PAPER, SEAT_COLOURS, SEAT_TINTS, SKY};
use crate::with_game;

/// The value of the custom property `name` in the served style sheet.
fn css_colour(name: &str) -> String {
    let sheet = super::pages::STYLE;
    let at = sheet
        .find(&format!("{name}:"))
        .unwrap_or_else(|| panic!("{name} is not in style.css"));
    let value = sheet[at + name.len() + 1..]
        .split(';')
        .next()
        .unwrap()
        .trim();
    assert!(is_hex(value), "{name}: {value} is not a #rrggbb colour");
    value.to_ascii_uppercase()
}

fn is_hex(c: &str) -> bool {
    c.len() == 7 && c.starts_with('#') && c[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

/// The channels of `#RRGGBB`, linear (sRGB decoded).
fn linear(c: &str) -> [f64; 3] {
    let ch = |i: usize| {
        let v = f64::from(u8::from_str_radix(&c[i..i + 2], 16).unwrap()) / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    [ch(1), ch(3), ch(5)]
}

/// WCAG 2's relative luminance.
fn luminance(c: &str) -> f64 {
    let [r, g, b] = linear(c);
    0.2126 * r + 0.7152 * g + 0.0722 * b
}

/// WCAG 2's contrast ratio.
fn contrast(a: &str, b: &str) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// How far apart two colours look (CIE76 ΔE in L*a*b*), as seen with
/// full colour vision, or through `seen` (a colour-vision deficiency,
/// Machado, Oliveira & Fernandes 2009, severity 1).
fn apart(a: &str, b: &str, seen: &[[f64; 3]; 3]) -> f64 {
    let lab = |c: &str| {
        let l = linear(c);
        let [r, g, b] = [0, 1, 2]
            .map(|i| (seen[i][0] * l[0] + seen[i][1] * l[1] + seen[i][2] * l[2]).clamp(0.0, 1.0));
        let xyz = [
            (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
            0.2126 * r + 0.7152 * g + 0.0722 * b,
            (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
        ];
        let f = xyz.map(|t| {
            if t > 0.008856 {
                t.cbrt()
            } else {
                7.787 * t + 16.0 / 116.0
            }
        });
        [
            116.0 * f[1] - 16.0,
            500.0 * (f[0] - f[1]),
            200.0 * (f[1] - f[2]),
        ]
    };
    let (p, q) = (lab(a), lab(b));
    (0..3).map(|i| (p[i] - q[i]).powi(2)).sum::<f64>().sqrt()
}

const FULL: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
const PROTANOPIA: [[f64; 3]; 3] = [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
];
const DEUTERANOPIA: [[f64; 3]; 3] = [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.011820, 0.042940, 0.968881],
];

/// The pictures of every example game (as a spectator sees them), at
/// its start, along the way and at its end.
fn example_pictures() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/games");
    let mut logs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    logs.sort();
    let mut out = Vec::new();
    for log in &logs {
        let svgs = crate::app::inspect::open(log, |bytes, game| {
            with_game!(game, G => {
                let lines = bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count();
                let mut svgs = Vec::new();
                for n in (1..lines).step_by(7).chain([lines]) {
                    let r = Replay::<G>::from_bytes_upto(bytes, n).unwrap();
                    if let Some(st) = &r.state {
                        svgs.push(G::render_svg(&G::view(st, None, None), &r.names()));
                    }
                }
                Ok(svgs)
            })
        })
        .unwrap();
        out.extend(svgs);
    }
    assert!(out.len() > 30, "{} pictures", out.len());
    out
}

/// Every `#RRGGBB` in `svg`, upper case.
fn colours_of(svg: &str, into: &mut BTreeSet<String>) {
    for (i, _) in svg.match_indices('#') {
        if let Some(c) = svg.get(i..i + 7).filter(|c| is_hex(c)) {
            into.insert(c.to_ascii_uppercase());
        }
    }
}

/// The fill of each square of a map: the places a ring is drawn between.
fn square_fills(svg: &str, into: &mut BTreeSet<String>) {
    for (i, _) in svg.match_indices("<g class=\"square") {
        let rest = &svg[i..];
        let rect = &rest[rest.find("<rect").unwrap()..];
        let fill = rect.split("fill=\"").nth(1).unwrap();
        into.insert(fill[..7].to_ascii_uppercase());
    }
}

#[test]
fn the_mark_of_a_choice_is_no_games_colour_and_stands_out() {
    let pick = css_colour("--pick");
    let hover = css_colour("--pick-hover");
    let picked = css_colour("--pick-fill");
    let ink = css_colour("--ink");

    let mut used: BTreeSet<String> = SEAT_COLOURS
        .iter()
        .chain(SEAT_TINTS.iter())
        .map(|c| c.to_string())
        .collect();
    let mut squares = BTreeSet::new();
    for svg in example_pictures() {
        colours_of(&svg, &mut used);
        square_fills(&svg, &mut squares);
    }
    // The pictures hold Star Map's star colours, its squares and every
    // seat's colour: the scan saw them.
    assert!(
        used.len() > 25 && squares.len() >= 3,
        "{used:?} {squares:?}"
    );
    assert!(used.contains("#D55E00"), "{used:?}");

    for (seen, name, least) in [
        (FULL, "full colour vision", 40.0),
        (PROTANOPIA, "protanopia", 30.0),
        (DEUTERANOPIA, "deuteranopia", 30.0),
    ] {
        for c in &used {
            let d = apart(&pick, c, &seen);
            assert!(
                d >= least,
                "--pick {pick} looks like {c}, a colour of the games' pictures, with {name} (ΔE {d:.0} < {least})"
            );
        }
    }
    for c in [&hover, &picked] {
        assert!(!used.contains(c), "{c} is a colour of the games' pictures");
    }

    // What the mark is drawn on: the paper and sky of every picture, a
    // seat's panel (Star Map's disc names), each kind of square, and the
    // mark's own fills under a place pointed at or picked.
    let mut grounds: BTreeSet<String> = [PAPER, SKY]
        .iter()
        .chain(SEAT_TINTS.iter())
        .map(|c| c.to_string())
        .collect();
    grounds.extend(squares);
    grounds.extend([hover.clone(), picked.clone()]);
    for g in &grounds {
        let c = contrast(&pick, g);
        assert!(c >= 4.5, "--pick {pick} on {g}: {c:.2}:1 < 4.5:1");
    }
    // The marks of a place picked or pointed at keep its text readable.
    for g in [&hover, &picked] {
        let c = contrast(&ink, g);
        assert!(c >= 4.5, "--ink on {g}: {c:.2}:1");
    }
}

/// The contrast computed is WCAG's: known pairs.
#[test]
fn contrast_is_wcags() {
    assert!((contrast("#000000", "#FFFFFF") - 21.0).abs() < 1e-9);
    assert!((contrast("#FFFFFF", "#FFFFFF") - 1.0).abs() < 1e-9);
    // #767676 on white is the classic 4.54:1.
    assert!((contrast("#767676", "#FFFFFF") - 4.54).abs() < 0.01);
    // The old mark, seat 1's colour, on seat 1's panel: the 2.3:1 the
    // issue measured.
    assert!((2.3..2.4).contains(&contrast("#D55E00", "#F2C0A0")));
    assert!(apart("#D55E00", "#D55E00", &FULL) < 1e-9);
}
