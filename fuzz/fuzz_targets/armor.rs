//! Fuzzes the armor: reading a log back out of text that mail programs and
//! people have handled. The input is used twice:
//!
//! - as arbitrary bytes, for `find_logs` (a mail or a pasted text) and
//!   `dearmor_all` (a text): neither may panic;
//! - as a recipe: a log (the first lines of an example game, or arbitrary
//!   bytes) is armored with `armor`, then transformed the way mail programs
//!   do: CRLF line endings, base64 rewrapped to another width or folded at
//!   odd places, `>` quoting, indentation, trailing blanks, blank lines, text
//!   around the block, a BOM, sent as a quoted-printable mail (`=3D`, `=\r\n`
//!   soft breaks), or damaged. Whenever every transformation applied is one
//!   the documentation says is tolerated (docs/mail.md, "Ingesting", and
//!   src/mail/armor.rs), the decoded log must equal the original; a damaged
//!   block must never decode to the original. A BOM in front of a pasted
//!   block is tolerated; in front of a whole mail's headers it is not
//!   documented either way, so there it is only checked not to panic.
//!
//! Run (stable toolchain, no sanitizer), from the repository root:
//!   cargo fuzz run armor fuzz/corpus/armor fuzz/seeds/armor -s none -- \
//!     -dict=fuzz/extract.dict -max_total_time=300
#![no_main]

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use starry::mail::armor::{BEGIN, END};
use starry::mail::{MailError, armor, dearmor_all, find_logs};

/// As `starry ingest`: 16 MiB.
const LIMIT: usize = 16 << 20;

const SEED: &[u8] = include_bytes!("../../examples/games/finished-3p-additive-coins.jsonl");

static HOOK: Once = Once::new();
static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// As in the `extract` target: panics located in mail-parser's own source
/// unwind to `find_logs`'s `catch_unwind` (each location reported once);
/// every other panic aborts, as libFuzzer expects.
fn install_hook() {
    HOOK.call_once(|| {
        let abort_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let location = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_default();
            if location.contains("/mail-parser-") {
                let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
                if seen
                    .get_or_insert_with(HashSet::new)
                    .insert(location.clone())
                {
                    eprintln!("contained mail-parser panic at {location}: {info}");
                }
                return;
            }
            abort_hook(info);
        }));
    });
}

#[derive(Arbitrary, Debug)]
enum LogChoice {
    /// The first 1 to 3 lines of the example game.
    Seed(u8),
    /// Any bytes.
    Bytes(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct Quote {
    /// 1 to 3 levels of `>`.
    levels: u8,
    /// `> ` rather than `>`.
    space: bool,
}

#[derive(Arbitrary, Debug)]
enum Damage {
    /// A base64 character replaced by another character.
    Change { at: u16, to: u8 },
    /// A base64 character removed.
    Delete { at: u16 },
    /// The END line removed.
    NoEnd,
}

#[derive(Arbitrary, Debug)]
struct Recipe {
    log: LogChoice,
    /// Base64 lines rewrapped to this width (1 to 200).
    width: Option<u8>,
    /// Base64 lines also folded at these offsets, the rest indented by one
    /// space (a fold as mail programs make it).
    folds: Vec<u16>,
    quote: Option<Quote>,
    /// Spaces and tabs before every line (bit 7: tabs).
    indent: u8,
    /// Spaces and tabs after every line.
    trailing: u8,
    /// Blank lines inserted among the base64 lines, after these ones.
    blanks: Vec<u8>,
    crlf: bool,
    /// Text before and after the block (letters, spaces, line breaks).
    prefix: Vec<u8>,
    suffix: Vec<u8>,
    bom: bool,
    /// Sent as a quoted-printable mail, soft line breaks at these columns.
    qp: Option<Vec<u8>>,
    damage: Option<Damage>,
}

fuzz_target!(|data: &[u8]| {
    install_hook();

    // The bytes as they are.
    match find_logs(data, LIMIT) {
        Ok(logs) => assert!(logs.iter().all(|l| !l.is_empty() && l.len() <= LIMIT)),
        Err(e) => check_error(&e),
    }
    if let Ok(blocks) = dearmor_all(&String::from_utf8_lossy(data)) {
        for block in blocks {
            assert_eq!(dearmor_all(&armor(&block)).unwrap(), vec![block]);
        }
    }

    // The bytes as a recipe.
    let Ok(recipe) = Recipe::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let log: Vec<u8> = match &recipe.log {
        LogChoice::Seed(n) => SEED
            .split_inclusive(|&b| b == b'\n')
            .take(1 + *n as usize % 3)
            .flatten()
            .copied()
            .collect(),
        LogChoice::Bytes(b) => b.clone(),
    };
    let (text, tolerated) = transform(&log, &recipe);
    let text_bytes = text.as_bytes();

    let found = find_logs(text_bytes, LIMIT);
    if let Err(e) = &found {
        check_error(e);
    }
    let pasted = recipe.qp.is_none().then(|| dearmor_all(&text));
    if let Some(Err(e)) = &pasted {
        check_error(e);
    }
    let expected = vec![log.clone()];
    stats(&recipe, tolerated && !log.is_empty(), found.is_ok());
    if recipe.damage.is_some() {
        assert!(
            found.as_ref().ok() != Some(&expected),
            "a damaged block decoded to the original: {recipe:?}"
        );
    } else if tolerated && !log.is_empty() {
        assert_eq!(
            found.as_ref().ok(),
            Some(&expected),
            "find_logs: {found:?}\nrecipe: {recipe:?}\ntext: {text:?}"
        );
        if let Some(pasted) = &pasted {
            assert_eq!(
                pasted.as_ref().ok(),
                Some(&expected),
                "dearmor_all: {pasted:?}\nrecipe: {recipe:?}\ntext: {text:?}"
            );
        }
    }
});

/// Runs that checked a tolerated block, a damaged one, a quoted-printable
/// mail; printed now and then when `STARRY_FUZZ_STATS` is set, to see that
/// the checks are reached.
static RUNS: [AtomicU64; 5] = [const { AtomicU64::new(0) }; 5];

fn stats(r: &Recipe, tolerated: bool, found: bool) {
    if std::env::var_os("STARRY_FUZZ_STATS").is_none() {
        return;
    }
    let damaged = r.damage.is_some();
    for (i, yes) in [
        true,
        tolerated && !damaged,
        damaged,
        tolerated && !damaged && r.qp.is_some(),
        found,
    ]
    .into_iter()
    .enumerate()
    {
        if yes {
            RUNS[i].fetch_add(1, Ordering::Relaxed);
        }
    }
    let all = RUNS[0].load(Ordering::Relaxed);
    if all.is_power_of_two() {
        let n: Vec<u64> = RUNS.iter().map(|r| r.load(Ordering::Relaxed)).collect();
        eprintln!(
            "recipes {}: tolerated {}, damaged {}, tolerated quoted-printable {}, a log found {}",
            n[0], n[1], n[2], n[3], n[4]
        );
    }
}

/// Every error is one paragraph.
fn check_error(e: &MailError) {
    let text = e.to_string();
    assert!(!text.is_empty() && !text.contains('\n'), "{text:?}");
}

/// Letters, spaces and line breaks only: no `:` (a mail header), no `>` or
/// `-` (armor), no `=`.
fn safe_text(bytes: &[u8]) -> String {
    bytes
        .iter()
        .take(200)
        .map(|b| match b % 16 {
            0 => '\n',
            1 | 2 => ' ',
            x => (b'a' + x) as char,
        })
        .collect()
}

/// Applies the recipe to the armored `log`. Returns the text, and whether
/// every transformation applied is documented as tolerated.
fn transform(log: &[u8], r: &Recipe) -> (String, bool) {
    let armored = armor(log);
    let mut armor_lines: Vec<String> = armored.lines().map(str::to_string).collect();
    // BEGIN, base64 lines, END.
    let end = armor_lines.pop().expect("END");
    let begin = armor_lines.remove(0);
    debug_assert_eq!((begin.as_str(), end.as_str()), (BEGIN, END));
    let mut base64: Vec<String> = armor_lines;

    if let Some(w) = r.width {
        let w = 1 + w as usize % 200;
        let all: String = base64.concat();
        base64 = all
            .as_bytes()
            .chunks(w)
            .map(|c| String::from_utf8(c.to_vec()).unwrap())
            .collect();
    }
    // Folds: a line split in two, the second part indented.
    for (k, &at) in r.folds.iter().take(16).enumerate() {
        if base64.is_empty() {
            break;
        }
        let i = (at as usize + k) % base64.len();
        let line = base64[i].clone();
        let cut = 1 + (at as usize) % line.len().max(1);
        if cut < line.len() {
            base64[i] = line[..cut].to_string();
            base64.insert(i + 1, format!(" {}", &line[cut..]));
        }
    }
    let mut block: Vec<String> = Vec::new();
    block.push(begin);
    let blanks: HashSet<usize> = r
        .blanks
        .iter()
        .take(8)
        .map(|&b| b as usize % (base64.len() + 1))
        .collect();
    for (i, line) in base64.into_iter().enumerate() {
        if blanks.contains(&i) {
            block.push(String::new());
        }
        block.push(line);
    }
    match &r.damage {
        Some(Damage::Change { at, to }) => damage_char(&mut block, *at, |line, p| {
            let old = line.as_bytes()[p];
            // Another base64 character, or one outside the alphabet; never
            // a blank, a line break or `>`, which reading may drop.
            let mut new = match to % 4 {
                0 => b"!#$%&*.:;?@[]^_`{|}~"[*to as usize % 20],
                _ => {
                    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
                        [*to as usize % 65]
                }
            };
            if new == old {
                new = if old == b'A' { b'B' } else { b'A' };
            }
            line.replace_range(p..=p, &(new as char).to_string());
        }),
        Some(Damage::Delete { at }) => damage_char(&mut block, *at, |line, p| {
            line.remove(p);
        }),
        Some(Damage::NoEnd) | None => {}
    }
    if !matches!(r.damage, Some(Damage::NoEnd)) {
        block.push(end);
    }

    // Text around the block, on lines of its own.
    let prefix = safe_text(&r.prefix);
    let suffix = safe_text(&r.suffix);
    let mut lines: Vec<String> = Vec::new();
    if !prefix.is_empty() {
        lines.extend(prefix.split('\n').map(str::to_string));
    }
    lines.extend(block);
    if !suffix.is_empty() {
        lines.extend(suffix.split('\n').map(str::to_string));
    }

    // What mail programs do to every line.
    let indent: String = if r.indent & 0x80 != 0 {
        "\t".repeat((r.indent & 3) as usize)
    } else {
        " ".repeat((r.indent & 7) as usize)
    };
    let trailing: String = [" ", "\t"]
        .iter()
        .cycle()
        .take((r.trailing % 5) as usize)
        .copied()
        .collect();
    let quote = r.quote.as_ref().map(|q| {
        let mark = if q.space { "> " } else { ">" };
        mark.repeat(1 + q.levels as usize % 3)
    });
    let lines: Vec<String> = lines
        .into_iter()
        .map(|l| {
            let mut out = String::new();
            if let Some(q) = &quote {
                out.push_str(q);
            }
            out.push_str(&indent);
            out.push_str(&l);
            out.push_str(&trailing);
            out
        })
        .collect();

    let newline = if r.crlf { "\r\n" } else { "\n" };
    let mut text = String::new();
    if r.bom {
        text.push('\u{feff}');
    }
    let tolerated = !r.bom || r.qp.is_none();
    match &r.qp {
        None => {
            for l in &lines {
                text.push_str(l);
                text.push_str(newline);
            }
        }
        Some(breaks) => {
            // A whole mail: the headers, then the text quoted-printable.
            for h in [
                "From: Anna <anna@example.org>",
                "To: Ben <ben@example.org>",
                "Subject: [starry] your move",
                "MIME-Version: 1.0",
                "Content-Type: text/plain; charset=utf-8",
                "Content-Transfer-Encoding: quoted-printable",
                "",
            ] {
                text.push_str(h);
                text.push_str(newline);
            }
            for l in &lines {
                text.push_str(&quoted_printable(l, breaks, newline));
                text.push_str(newline);
            }
        }
    }
    (text, tolerated)
}

/// Applies `f` to the `at`-th base64 character of the block (blanks and
/// the BEGIN line skipped), given its line and byte offset.
fn damage_char(block: &mut [String], at: u16, f: impl FnOnce(&mut String, usize)) {
    let is_b64 = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=');
    let total: usize = block[1..]
        .iter()
        .map(|l| l.bytes().filter(is_b64).count())
        .sum();
    if total == 0 {
        return;
    }
    let mut at = at as usize % total;
    for line in block[1..].iter_mut() {
        let positions: Vec<usize> = line
            .bytes()
            .enumerate()
            .filter(|(_, b)| is_b64(b))
            .map(|(i, _)| i)
            .collect();
        if at < positions.len() {
            f(line, positions[at]);
            return;
        }
        at -= positions.len();
    }
}

/// One line in quoted-printable: `=`, controls, non-ASCII and blanks at the
/// end encoded; soft breaks (`=` at the end of a line) at the given columns
/// and wherever a line would pass 76 characters.
fn quoted_printable(line: &str, breaks: &[u8], newline: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::new();
    let mut col = 0;
    let mut next_break = breaks.iter().map(|&b| 1 + b as usize % 70).peekable();
    let mut since_break = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let last_blanks = bytes[i..].iter().all(|&c| c == b' ' || c == b'\t');
        let piece =
            if b == b'=' || !(b == b' ' || b == b'\t' || (33..=126).contains(&b)) || last_blanks {
                format!("={b:02X}")
            } else {
                (b as char).to_string()
            };
        let want_break = next_break.peek().is_some_and(|&n| since_break >= n);
        if want_break || col + piece.len() > 75 {
            if want_break {
                next_break.next();
            }
            out.push('=');
            out.push_str(newline);
            col = 0;
            since_break = 0;
        }
        out.push_str(&piece);
        col += piece.len();
        since_break += 1;
    }
    out
}
