//! The web player (crates/web), measured where a friend meets it: the
//! built player served from a loopback static server to headless Chromium,
//! timed inside the page with `performance.now()`.
//!
//! - `open 125 entries`: a 5-player Starry Sky game of 125 entries (the
//!   first 125 lines of `examples/games/finished-5p-compound-coins.jsonl`,
//!   as the serve and cli benches take it) pasted into an empty player as
//!   Ben, who acts next: from the click on "receive" (every entry parsed,
//!   its signature verified, the game replayed, the list of games and the
//!   game's page drawn into the DOM) to the next frame painted.
//! - `preview a move`, `sign a move`: the first 124 of those lines, as Eve
//!   to move: the last click of a move (the page with the move's dry run
//!   and the board after it), then the preview's button (the entry signed,
//!   the new log kept, the page drawn again), each to the next frame.
//! - `cold start`: the player's module decoded from the page's base64,
//!   compiled and instantiated, as the page does once when it loads.
//! - The WebAssembly's size, raw and gzipped (`gzip -9`), from the built
//!   player's index.html, and the page itself gzipped.
//!
//! Below each end-to-end row, the page's own measures (player.js times
//! every call into the WebAssembly): which op took the time.
//!
//! The player is STARRY_WEB_DIR, or built as the browser tests build it
//! (`sh crates/web/build.sh`, the size-tuned `player` profile). The host
//! side only drives the browser, so the profile this file is built with
//! does not change a figure:
//!
//!     cargo bench --bench web_player
//!     STARRY_WEB_DIR=target/web cargo bench --profile dev --bench web_player

#[allow(dead_code, unused_imports)]
#[path = "../tests/browser.rs"]
mod browser;
#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/devtools/mod.rs"]
mod devtools;
#[path = "../tests/mailto/mod.rs"]
mod mailto;
#[path = "../tests/static_server/mod.rs"]
mod static_server;
#[path = "../tests/web_player/mod.rs"]
mod web_player;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use base64::Engine;
use devtools::Browser;
use serde_json::{Value, json};
use static_server::StaticServer;

/// Samples of each row (each on a freshly loaded page).
const RUNS: usize = 15;

/// Waits for the frame after the one the change is drawn in: the page's
/// layout and paint are inside the time.
const NEXT_PAINT: &str = "await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));";

fn main() {
    let Some(chromium) = browser::browser_or_skip() else {
        return;
    };
    let dir = web_player::web_player();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/games");
    let whole = std::fs::read_to_string(examples.join("finished-5p-compound-coins.jsonl")).unwrap();
    let first = |n: usize| -> String { whole.split_inclusive('\n').take(n).collect() };
    let identity = |who: &str| {
        std::fs::read_to_string(examples.join("identities").join(who).join("identity.json"))
            .unwrap()
    };

    let server = StaticServer::start(&dir);
    let mut b = Browser::start(&chromium);
    b.goto(&server.url());
    ready(&mut b);

    let sizes = sizes(&dir.join("index.html"));
    let cold = cold_start(&mut b);
    let (open, open_ops) = open_game(&mut b, &identity("ben"), &first(125));
    let (preview, sign, move_ops) = preview_and_sign(&mut b, &identity("eve"), &first(124));
    let troubles: Vec<&String> = b
        .console
        .iter()
        .filter(|m| !m.contains("favicon"))
        .collect();
    assert!(troubles.is_empty(), "the page complained: {troubles:#?}");
    drop(b);
    drop(server);

    println!("\nThe web player in headless Chromium ({RUNS} runs each, ms)\n");
    println!("{:<42} {:>9} {:>9} {:>9}", "", "median", "max", "target");
    row("cold start (decode, compile, instantiate)", &cold, None);
    row("open 125 entries (receive to painted)", &open, Some(300.0));
    ops(&open_ops);
    row(
        "preview a move (last click to painted)",
        &preview,
        Some(100.0),
    );
    row("sign a move (button to painted)", &sign, Some(100.0));
    row(
        "preview + sign",
        &preview
            .iter()
            .zip(&sign)
            .map(|(p, s)| p + s)
            .collect::<Vec<_>>(),
        Some(100.0),
    );
    ops(&move_ops);
    println!();
    for (what, raw, gz, target) in sizes {
        let verdict = target.map_or(String::new(), |t| {
            format!(" (target {} KB: {})", t / 1000, met(gz as f64 <= t as f64))
        });
        println!(
            "{what:<42} {raw:>9} bytes, {gz:>9} bytes gzipped ({:.0} KB){verdict}",
            gz as f64 / 1000.0
        );
    }
}

fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "MISSED" }
}

fn ready(b: &mut Browser) {
    b.wait_for(
        "document.documentElement.dataset.ready === '1'",
        "the player is ready",
    );
}

/// Empties the player's storage but for `keep`, and loads it afresh.
fn fresh_page(b: &mut Browser, keep: &[(&str, &str)]) {
    b.eval(&format!(
        "localStorage.clear(); for (const [k, v] of {}) localStorage.setItem(k, v); true",
        json!(keep)
    ));
    b.reload();
    ready(b);
    b.eval("performance.clearMeasures(); true");
}

/// The page's measures of its calls since the last clear, summed by op.
fn call_measures(b: &mut Browser) -> BTreeMap<String, f64> {
    let mut by_op = BTreeMap::new();
    for (name, ms) in b.measures() {
        if let Some(op) = name.strip_prefix("call ") {
            *by_op.entry(op.to_string()).or_insert(0.0) += ms;
        }
    }
    b.eval("performance.clearMeasures(); true");
    by_op
}

fn cold_start(b: &mut Browser) -> Vec<f64> {
    (0..RUNS)
        .map(|_| {
            b.eval(
                r##"(async () => {
                    const t0 = performance.now();
                    const raw = atob(document.getElementById("wasm").textContent.trim());
                    const bytes = new Uint8Array(raw.length);
                    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
                    await WebAssembly.instantiate(bytes, {});
                    return performance.now() - t0;
                })()"##,
            )
            .as_f64()
            .unwrap()
        })
        .collect()
}

/// Each run: an empty player with `who`'s identity; `log` pasted, then
/// the timed click on "receive".
fn open_game(b: &mut Browser, who: &str, log: &str) -> (Vec<f64>, Vec<BTreeMap<String, f64>>) {
    let mut times = Vec::new();
    let mut ops = Vec::new();
    for _ in 0..RUNS {
        fresh_page(b, &[("starry/identity", who)]);
        b.set_value("#receive-text", log);
        let t = timed_click(b, r#"document.getElementById("receive-go")"#);
        assert_eq!(b.entries(), 125, "the game shown has its 125 entries");
        times.push(t);
        ops.push(call_measures(b));
    }
    (times, ops)
}

/// Each run: `who` holds `log`; the game opened from the list, the move
/// clicked through its choices (the first each time) up to the last click,
/// which is timed with the preview it brings, then the preview's button.
fn preview_and_sign(
    b: &mut Browser,
    who: &str,
    log: &str,
) -> (Vec<f64>, Vec<f64>, Vec<BTreeMap<String, f64>>) {
    // The game's id and its stored copy: as the page keeps it once received.
    fresh_page(b, &[("starry/identity", who)]);
    b.set_value("#receive-text", log);
    b.eval("document.getElementById('receive-go').click(); true");
    let id = b
        .attr("a[data-game]", "data-game")
        .expect("the game is kept");
    let log = b.eval(&format!("localStorage.getItem('starry/game/{id}')"));
    let log = log.as_str().expect("the kept log");
    let (mut previews, mut signs, mut ops) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        fresh_page(
            b,
            &[
                ("starry/identity", who),
                (&format!("starry/game/{id}"), log),
            ],
        );
        b.eval(&format!(
            "document.querySelector('a[data-game=\"{id}\"]').click(); true"
        ));
        let mut preview = None;
        for _ in 0..8 {
            let t = b.eval(&format!(
                r##"(async () => {{
                    const a = document.querySelector("#game .choices a");
                    if (!a) return null;
                    const t0 = performance.now();
                    a.click();
                    {NEXT_PAINT}
                    return performance.now() - t0;
                }})()"##
            ));
            match t.as_f64() {
                Some(ms) => preview = Some(ms),
                None => break,
            }
            if b.exists("#game .preview") {
                break;
            }
        }
        assert!(b.exists("#game .preview"), "no preview: {}", b.page_text());
        let preview = preview.expect("at least one click to the preview");
        b.eval("performance.clearMeasures(); true");
        let before: Value = b.eval("document.getElementById('notice').textContent");
        let sign = timed_click(
            b,
            r##"document.querySelector("#game .preview form button, #game .preview + form button")"##,
        );
        assert_ne!(
            b.eval("document.getElementById('notice').textContent"),
            before,
            "the entry is written"
        );
        assert_eq!(b.entries(), 125, "the move is the game's 125th entry");
        previews.push(preview);
        signs.push(sign);
        ops.push(call_measures(b));
    }
    (previews, signs, ops)
}

/// The milliseconds from a click on `element` (a JavaScript expression)
/// to the next frame painted; the page must not refuse it.
fn timed_click(b: &mut Browser, element: &str) -> f64 {
    let t = b.eval(&format!(
        r##"(async () => {{
            const t0 = performance.now();
            {element}.click();
            {NEXT_PAINT}
            return performance.now() - t0;
        }})()"##
    ));
    assert_eq!(
        b.eval("document.getElementById('problem').hidden"),
        true,
        "refused: {:?}",
        b.text("#problem")
    );
    t.as_f64().expect("a time")
}

fn median_max(samples: &[f64]) -> (f64, f64) {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    (s[s.len() / 2], s[s.len() - 1])
}

fn row(what: &str, samples: &[f64], target: Option<f64>) {
    let (median, max) = median_max(samples);
    let target = target.map_or(String::new(), |t| format!("{t:>9.0}  {}", met(median <= t)));
    println!("{what:<42} {median:>9.1} {max:>9.1} {target}");
}

/// The medians of the page's calls, by op, under the row they belong to.
fn ops(runs: &[BTreeMap<String, f64>]) {
    let mut by_op: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for run in runs {
        for (op, ms) in run {
            by_op.entry(op).or_default().push(*ms);
        }
    }
    for (op, samples) in by_op {
        let (median, max) = median_max(&samples);
        println!(
            "{:<42} {median:>9.1} {max:>9.1}",
            format!("  of which call {op}")
        );
    }
}

/// (what, raw bytes, gzipped bytes, target in bytes) of the module and
/// of the page that carries it.
fn sizes(index: &Path) -> Vec<(&'static str, usize, usize, Option<usize>)> {
    let page = std::fs::read_to_string(index).unwrap();
    let start = page
        .find(r#"id="wasm">"#)
        .expect("index.html carries the module")
        + r#"id="wasm">"#.len();
    let end = start + page[start..].find("</script>").unwrap();
    let wasm = base64::engine::general_purpose::STANDARD
        .decode(page[start..end].trim())
        .expect("the module's base64");
    vec![
        ("the WebAssembly", wasm.len(), gzipped(&wasm), Some(800_000)),
        (
            "index.html (the module in base64)",
            page.len(),
            gzipped(page.as_bytes()),
            None,
        ),
    ]
}

fn gzipped(bytes: &[u8]) -> usize {
    let mut gz = Command::new("gzip")
        .arg("-9")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("gzip runs");
    let mut stdin = gz.stdin.take().unwrap();
    let input = bytes.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let out = gz.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert!(out.status.success());
    out.stdout.len()
}
