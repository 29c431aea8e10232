//! The text view read back: a parser that sees only the rendered string
//! recovers every edge and every captured sea (which sea, which captor) on
//! random skies played by the game's own rules, and checks that the drawing
//! never contradicts the lists under it.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;

use super::geometry::{strictly_inside, winding};
use super::*;
use crate::games::{Own, play_own, prelude::*};

type G = StarryNight;

/// A cell of the drawing: column and row, the same scale as the view uses.
type Cell = (i64, i64);

/// What a reader can take from the text alone.
#[derive(Debug, Default)]
struct Read {
    /// Each star's label and the cell of its first letter.
    stars: BTreeMap<String, Cell>,
    /// Every mark in the drawing that is not a star or a line.
    marks: Vec<(char, Cell)>,
    /// Every line glyph in the drawing.
    glyphs: Vec<Cell>,
    /// Each seat's mark, from the legend, in seat order.
    legend: Vec<char>,
    /// The edge list, each pair as written.
    edges: BTreeSet<(String, String)>,
    /// The edges the drawing left out.
    hidden: BTreeSet<(String, String)>,
    /// Captured seas: id → (border, captor's mark, marked in the drawing).
    seas: BTreeMap<usize, (Vec<String>, char, bool)>,
}

fn pair(word: &str) -> (String, String) {
    let (a, b) = word
        .split_once('-')
        .unwrap_or_else(|| panic!("`{word}` is no edge"));
    assert!(
        !a.is_empty() && !b.is_empty() && (a.len(), a) < (b.len(), b),
        "`{word}`: an edge is written with its first label first"
    );
    (a.to_string(), b.to_string())
}

/// The lines after the drawing, each with its wrapped continuation lines
/// (indented by two spaces, and no sea line) joined on.
fn paragraphs<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in lines {
        match out.last_mut() {
            Some(last)
                if line.starts_with("  ")
                    && !line.starts_with("  sea ")
                    && !line.trim().is_empty() =>
            {
                last.push(' ');
                last.push_str(line.trim());
            }
            _ => out.push(line.to_string()),
        }
    }
    out
}

fn words_after(p: &str, head: &str) -> Vec<String> {
    let rest = p[head.len()..].split_once(':').expect("a list after `:`").1;
    rest.split_whitespace()
        .filter(|w| *w != "none")
        .map(str::to_string)
        .collect()
}

fn read(text: &str) -> Read {
    let mut r = Read::default();
    let lines: Vec<&str> = text.lines().collect();
    let legend_at = lines
        .iter()
        .position(|l| l.starts_with("Stars are upper case"))
        .unwrap_or_else(|| panic!("no legend:\n{text}"));
    // Line 0 holds the x coordinates; then each row is 4 columns of y.
    for (row, line) in lines[1..legend_at].iter().enumerate() {
        let cells: Vec<char> = line.chars().skip(4).collect();
        let mut c = 0;
        while c < cells.len() {
            let ch = cells[c];
            let at = (c as i64, row as i64);
            if ch.is_ascii_uppercase() {
                let label: String = cells[c..]
                    .iter()
                    .take_while(|ch| ch.is_ascii_uppercase())
                    .collect();
                c += label.len();
                assert!(r.stars.insert(label.clone(), at).is_none(), "{label} twice");
                continue;
            }
            match ch {
                ' ' | '.' => {}
                '-' | '|' | '/' | '\\' => r.glyphs.push(at),
                _ => r.marks.push((ch, at)),
            }
            c += 1;
        }
    }
    for p in paragraphs(lines[legend_at..].iter().copied()) {
        if let Some(rest) = p.strip_prefix("Stars are upper case") {
            let list = rest.split_once("marked ").expect("marks").1;
            let list = list.strip_suffix('.').expect("a full stop");
            r.legend = list
                .split(", ")
                .map(|item| {
                    let mut chars = item.chars();
                    let mark = chars.next().expect("a mark");
                    assert_eq!(chars.next(), Some(' '), "`{item}`");
                    mark
                })
                .collect();
        } else if let Some(count) = p.strip_prefix("Edges (") {
            let n: usize = count.split(')').next().unwrap().parse().unwrap();
            let words = words_after(&p, "Edges");
            assert_eq!(words.len(), n, "the count of edges: {p}");
            r.edges = words.iter().map(|w| pair(w)).collect();
            assert_eq!(r.edges.len(), n, "an edge listed twice: {p}");
        } else if p.starts_with("Not drawn above") {
            r.hidden = words_after(&p, "Not drawn above")
                .iter()
                .map(|w| pair(w))
                .collect();
        } else if let Some(rest) = p.strip_prefix("  sea ") {
            let (id, rest) = rest.split_once(": ").unwrap();
            let (border, rest) = rest.split_once(" — ").unwrap();
            let Some(rest) = rest.strip_prefix("captured by ") else {
                continue;
            };
            let close = rest.find("), ").expect("the captor's mark");
            let mark: Vec<char> = rest[..close].chars().rev().take(2).collect();
            assert_eq!(mark[1], '(', "{p}");
            let border = border.split('-').map(str::to_string).collect();
            let marked = !rest.contains("too thin for its mark");
            r.seas
                .insert(id.parse().unwrap(), (border, mark[0], marked));
        }
    }
    r
}

/// The squared distance from `p` to the segment `a b`.
fn distance2(a: Cell, b: Cell, p: Cell) -> f64 {
    let (ax, ay, bx, by) = (a.0 as f64, a.1 as f64, b.0 as f64, b.1 as f64);
    let (px, py) = (p.0 as f64, p.1 as f64);
    let (dx, dy) = (bx - ax, by - ay);
    let t = (((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
    (ax + t * dx - px).powi(2) + (ay + t * dy - py).powi(2)
}

/// Checks the text against the state: what the parser recovered must be
/// exactly the edges and captured seas there are, and the drawing must not
/// say otherwise.
fn check(state: &State, names: &[String]) {
    let view = G::view(state, None, None);
    let text = G::render_text(&view, names);
    let r = read(&text);
    check_stars_and_edges(state, &r, &text);
    check_legend(&r, names, &text);
    check_seas(&view, &r, &text);
    check_marks(&r, &text);
    check_glyphs(&r, &text);
}

/// [`check`]: the stars and edges read are the state's.
fn check_stars_and_edges(state: &State, r: &Read, text: &str) {
    let ctx = || format!("\n{text}");

    // Every star where it is.
    let stars: BTreeMap<String, Cell> = state
        .map()
        .stars()
        .iter()
        .enumerate()
        .map(|(i, p)| (label(i), (1 + 4 * p.x(), 2 * p.y())))
        .collect();
    assert_eq!(r.stars, stars, "the stars{}", ctx());

    // Every edge, and nothing else.
    let edges: BTreeSet<(String, String)> = state
        .drawn()
        .iter()
        .map(|d| {
            let (a, b) = (d.stars.0.min(d.stars.1), d.stars.0.max(d.stars.1));
            (label(a), label(b))
        })
        .collect();
    assert_eq!(r.edges, edges, "the edge list{}", ctx());
    assert!(
        r.hidden.is_subset(&r.edges),
        "hidden edges are edges{}",
        ctx()
    );
}

/// [`check`]: the legend.
fn check_legend(r: &Read, names: &[String], text: &str) {
    let ctx = || format!("\n{text}");

    // The legend's marks, one per seat and distinct, and what `initials`
    // gives.
    assert_eq!(r.legend, view::initials(names), "the legend{}", ctx());
    assert_ne!(r.legend[0], r.legend[1]);
    for m in &r.legend {
        assert!(
            m.is_ascii_lowercase() || m.is_ascii_digit(),
            "a mark is no star label{}",
            ctx()
        );
    }
}

/// [`check`]: the captured seas listed are the view's.
fn check_seas(view: &view::View, r: &Read, text: &str) {
    let ctx = || format!("\n{text}");

    // Every captured sea: its number, its border and its captor.
    let seas: BTreeMap<usize, (Vec<String>, char)> = view
        .seas
        .iter()
        .filter_map(|s| Some((s.id, (s.boundary.clone(), r.legend[s.captor?]))))
        .collect();
    let read_seas: BTreeMap<usize, (Vec<String>, char)> = r
        .seas
        .iter()
        .map(|(&id, (b, m, _))| (id, (b.clone(), *m)))
        .collect();
    assert_eq!(read_seas, seas, "the captured seas{}", ctx());
}

/// [`check`]: the seas' marks in the drawing.
fn check_marks(r: &Read, text: &str) {
    let ctx = || format!("\n{text}");

    // Each mark in the drawing lies inside exactly one captured sea, its
    // captor's; each sea the list says is marked holds exactly one mark.
    let polygon = |border: &[String]| -> Vec<Point> {
        border
            .iter()
            .map(|l| {
                let (c, r) = r.stars[l];
                Point(c as i32, r as i32)
            })
            .collect()
    };
    let mut marks_in: BTreeMap<usize, usize> = BTreeMap::new();
    for &(m, (c, row)) in &r.marks {
        assert!(r.legend.contains(&m), "`{m}` is in the legend{}", ctx());
        let p = Point(c as i32, row as i32);
        let inside: Vec<usize> = r
            .seas
            .iter()
            .filter(|(_, (border, _, _))| {
                let corners = polygon(border);
                let walk =
                    (0..corners.len()).map(|i| (corners[i], corners[(i + 1) % corners.len()]));
                let on = (0..corners.len()).any(|i| {
                    let (u, w) = (corners[i], corners[(i + 1) % corners.len()]);
                    u == p || strictly_inside(u, w, p)
                });
                assert!(!on, "mark `{m}` at {c},{row} lies on a border{}", ctx());
                winding(walk, p) != 0
            })
            .map(|(&id, _)| id)
            .collect();
        assert_eq!(
            inside.len(),
            1,
            "mark `{m}` at {c},{row} is in one sea{}",
            ctx()
        );
        assert_eq!(
            r.seas[&inside[0]].1,
            m,
            "sea {}'s captor{}",
            inside[0],
            ctx()
        );
        *marks_in.entry(inside[0]).or_default() += 1;
    }
    for (id, (_, _, marked)) in &r.seas {
        let n = marks_in.get(id).copied().unwrap_or(0);
        assert_eq!(n, usize::from(*marked), "marks in sea {id}{}", ctx());
    }
}

/// [`check`]: the edges' glyphs in the drawing.
fn check_glyphs(r: &Read, text: &str) {
    let ctx = || format!("\n{text}");

    // The drawing agrees with the list: every glyph lies on a listed edge
    // (within half a cell: the lines are rounded to cells), and a glyph
    // beside a star lies on a listed edge that ends there.
    let on_edge =
        |g: Cell, e: &(String, String)| distance2(r.stars[&e.0], r.stars[&e.1], g) <= 0.25 + 1e-9;
    for &g in &r.glyphs {
        assert!(
            r.edges.iter().any(|e| on_edge(g, e)),
            "the glyph at {g:?} is on no listed edge{}",
            ctx()
        );
        for (l, &(c, row)) in &r.stars {
            let beside = (g.1 - row).abs() <= 1 && g.0 >= c - 1 && g.0 <= c + l.len() as i64;
            if beside {
                assert!(
                    r.edges
                        .iter()
                        .any(|e| (&e.0 == l || &e.1 == l) && on_edge(g, e)),
                    "the glyph at {g:?} touches {l} but no listed edge of {l} runs there{}",
                    ctx()
                );
            }
        }
    }
}

fn names(pick: usize) -> Vec<String> {
    // Distinct initials, equal ones, and one that is not plain ASCII.
    let pairs = [
        ("Anna", "Ben"),
        ("Bob", "bea"),
        ("Åsa", "Zoe"),
        ("yves", "Xia"),
    ];
    let (a, b) = pairs[pick % pairs.len()];
    vec![a.to_string(), b.to_string()]
}

/// A random sky played to its end by random legal moves (takebacks
/// included), the text checked after every move.
fn random_game(count: u32, width: u32, height: u32, seed: u64, names: &[String]) {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_be_bytes());
    let mut draw = Draw::new(bytes);
    let options = Options {
        sky: Sky::Random {
            count,
            width,
            height,
        },
        score: if seed.is_multiple_of(2) {
            Score::Count
        } else {
            Score::Area
        },
    };
    let mut state = G::setup(&options, 2, &mut draw).unwrap();
    check(&state, names);
    for step in 0..=4 * count as u64 + 30 {
        let Turn::Move(seat) = G::turn(&state) else {
            return;
        };
        let mut all = G::intents(&state, seat, &Own::default());
        let intent = all.swap_remove(draw.below(all.len()));
        play_own::<G>(&mut state, seat, &intent, &mut Own::default(), step).unwrap();
        check(&state, names);
    }
    panic!("the game did not end");
}

proptest! {
    // 64 whole games each (the text is read after every move of each), a
    // minute of a debug build's time fewer than 256; no failure file is
    // written into the work tree (a failure prints its seed).
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_text_alone_gives_every_edge_and_captured_sea(
        count in 3u32..=40,
        width in 1u32..=30,
        height in 1u32..=30,
        seed in any::<u64>(),
        pick in 0usize..4,
    ) {
        let count = count.min(width * height);
        prop_assume!(count >= 3);
        random_game(count, width, height, seed, &names(pick));
    }

    #[test]
    fn the_text_alone_gives_every_edge_and_captured_sea_on_crowded_skies(
        count in 20u32..=40,
        side in 6u32..=9,
        seed in any::<u64>(),
        pick in 0usize..4,
    ) {
        random_game(count.min(side * side), side, side, seed, &names(pick));
    }
}

fn sky(stars: &[(i32, i32)], moves: &[&str]) -> State {
    let stars: Vec<Point> = stars.iter().map(|&(x, y)| Point(x, y)).collect();
    let options = Options {
        sky: Sky::Stars {
            width: stars.iter().map(|p| p.0).max().unwrap() as u32 + 1,
            height: stars.iter().map(|p| p.1).max().unwrap() as u32 + 1,
            stars,
        },
        score: Score::Count,
    };
    let mut s = G::setup(&options, 2, &mut Draw::new([0; 32])).unwrap();
    for mv in ["first 0"].iter().chain(moves) {
        let seat = s.to_act().unwrap();
        let intent = G::parse_intent(&s, mv).unwrap();
        play_own::<G>(&mut s, seat, &intent, &mut Own::default(), 0).unwrap();
    }
    s
}

#[test]
fn an_edge_that_passes_beside_a_star_is_listed_not_drawn() {
    // The reported sky: B-D from 7,1 to 2,2 runs through the row of E at
    // 3,2, and was drawn `D---E/`.
    let names = names(0);
    let s = sky(&[(0, 0), (7, 1), (0, 2), (2, 2), (3, 2)], &["B-D"]);
    let text = G::render_text(&G::view(&s, None, None), &names);
    assert!(!text.contains("D---E"), "{text}");
    assert!(text.contains("Edges (1): B-D\n"), "{text}");
    assert!(
        text.contains("Not drawn above, too close to another line or star at this scale: B-D\n"),
        "{text}"
    );
    check(&s, &names);
}

#[test]
fn a_clear_triangle_is_drawn_and_its_sea_marked_in_lower_case() {
    let names = names(0);
    let s = sky(&[(0, 0), (4, 0), (0, 4), (8, 8)], &["A-B", "B-C", "C-A"]);
    let text = G::render_text(&G::view(&s, None, None), &names);
    assert!(text.contains("A---------------B"), "{text}");
    assert!(text.contains("Edges (3): A-B A-C B-C\n"), "{text}");
    assert!(!text.contains("Not drawn"), "{text}");
    assert!(
        text.contains("Stars are upper case; captured seas are marked a Anna, b Ben.\n"),
        "{text}"
    );
    assert!(text.contains("captured by Anna (a), 8 squares\n"), "{text}");
    let drawing = text.split("Stars are").next().unwrap();
    assert_eq!(drawing.matches('a').count(), 1, "{text}");
    check(&s, &names);
}

#[test]
fn clashing_initials_mark_seas_with_seat_numbers_and_the_legend_says_so() {
    let names = names(1);
    let s = sky(&[(0, 0), (4, 0), (0, 4), (8, 8)], &["A-B", "B-C", "C-A"]);
    let text = G::render_text(&G::view(&s, None, None), &names);
    assert!(
        text.contains("Stars are upper case; captured seas are marked 0 Bob, 1 bea.\n"),
        "{text}"
    );
    assert!(text.contains("captured by Bob (0)"), "{text}");
    check(&s, &names);
}

#[test]
fn the_parser_notices_a_wrong_label_or_edge() {
    // The check must be able to fail: feed it a text with an edge renamed.
    let names = names(0);
    let s = sky(&[(0, 0), (4, 0), (0, 4), (8, 8)], &["A-B", "B-C", "C-A"]);
    let text = G::render_text(&G::view(&s, None, None), &names);
    let wrong = text.replace("Edges (3): A-B A-C B-C", "Edges (3): A-B A-D B-C");
    assert_ne!(read(&wrong).edges, read(&text).edges);
    let wrong = text.replace("captured by Anna (a)", "captured by Anna (b)");
    assert_ne!(read(&wrong).seas, read(&text).seas);
}
