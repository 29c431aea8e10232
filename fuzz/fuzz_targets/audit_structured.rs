//! Structure-aware fuzzing of the audit. The input is a list of mutations
//! of a valid, finished game (`examples/games/finished-3p-additive-coins.jsonl`):
//! drop a field, change a field's JSON type, put an extreme number or an odd
//! string in it, splice in an entry of another game, duplicate, remove or
//! swap lines, change a revealed value or a move. After mutating, every
//! entry is signed again by its author (the example identities, whose
//! secrets are public) and chained again (`n`, `prev`, `game`), so that the
//! replay gets past the signature and chain checks to the deeper ones: turn
//! order, beacon links, commitments and reveals, the rules. A few raw byte
//! edits afterwards (a space, an escape, a CR, …) test the canonical-form
//! check.
//!
//! `Replay::from_bytes` must never panic; when the mutated log replays, every
//! line must be in canonical form (re-encoding it gives the same bytes); and
//! every fault must be safe to print.
//!
//! Run (stable toolchain, no sanitizer), from the repository root:
//!   cargo fuzz run audit_structured fuzz/corpus/audit_structured -s none -- \
//!     -max_total_time=300
#![no_main]

use starry::crypto::identity::Stored as _;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use arbitrary::{Arbitrary, Unstructured};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use starry::crypto::identity::{self, Identity};
use starry::games::starry_sky::StarrySky;
use starry::log::entry::Body;
use starry::log::{Replay, canonical, replay};

const SEED: &[u8] = include_bytes!("../../examples/games/finished-3p-additive-coins.jsonl");
const OTHER: &[u8] = include_bytes!("../../examples/games/finished-4p-compound-nothing.jsonl");
const IDENTITIES: [(&str, &str); 5] = [
    (
        "anna",
        include_str!("../../examples/games/identities/anna/identity.json"),
    ),
    (
        "ben",
        include_str!("../../examples/games/identities/ben/identity.json"),
    ),
    (
        "cleo",
        include_str!("../../examples/games/identities/cleo/identity.json"),
    ),
    (
        "dan",
        include_str!("../../examples/games/identities/dan/identity.json"),
    ),
    (
        "eve",
        include_str!("../../examples/games/identities/eve/identity.json"),
    ),
];

/// Most mutations and raw edits applied to one log.
const MAX_MUTATIONS: usize = 8;
/// Deepest a path goes below `body` or `body.data`.
const MAX_DEPTH: usize = 4;

struct Fixture {
    /// The seed game: each line's JSON and bytes (with the newline).
    seed: Vec<(Value, Vec<u8>)>,
    /// The other game's lines.
    other: Vec<Value>,
    /// Anna, Ben, Cleo, Dan, Eve.
    ids: Vec<Identity>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let ids = IDENTITIES
            .iter()
            .map(|(name, json)| {
                let d = dir.path().join(name);
                std::fs::create_dir_all(&d).unwrap();
                std::fs::write(d.join(identity::FILE_NAME), json).unwrap();
                Identity::load(&d).expect("the example identities load")
            })
            .collect();
        let parse = |log: &'static [u8]| -> Vec<(Value, Vec<u8>)> {
            log.split_inclusive(|&b| b == b'\n')
                .map(|l| (serde_json::from_slice(l).expect("a JSON line"), l.to_vec()))
                .collect()
        };
        let seed = parse(SEED);
        Replay::<StarrySky>::from_bytes(SEED).expect("the seed log replays");
        Fixture {
            seed,
            other: parse(OTHER).into_iter().map(|(v, _)| v).collect(),
            ids,
        }
    })
}

/// A place in an entry: `body` (or `body.data`), then child after child,
/// each step picking a field of an object (in key order) or an element of an
/// array, modulo their number.
#[derive(Arbitrary, Debug)]
struct Path {
    in_data: bool,
    steps: Vec<u8>,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum JsonType {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
    /// The value wrapped in an array.
    Wrapped,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Extreme {
    Zero,
    MinusOne,
    I64Max,
    I64Min,
    U64Max,
    U32Max,
    U32MaxPlusOne,
    TwoPow53PlusOne,
    Half,
    Small(u8),
    Any(i64),
}

#[derive(Arbitrary, Debug)]
enum Text {
    Empty,
    Long,
    Control,
    ZeroHash,
    UpperHash,
    Bidi,
    Any(String),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum TokenName {
    One,
    Three,
    Five,
    Six,
    Seven,
    Ten,
    BlackHole,
    DoubleStar,
    Eleven,
    Upper,
    Empty,
    Number,
}

#[derive(Arbitrary, Debug)]
enum ActionChange {
    /// `star` becomes `board:number` of a shipped board.
    Star {
        board: u8,
        number: u8,
    },
    Token(TokenName),
    DropStar,
    DropToken,
    Extra,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum KindName {
    Genesis,
    Join,
    Ready,
    Move,
    Reveal,
    Resign,
    Countersign,
    Abandon,
    Unknown,
}

#[derive(Arbitrary, Debug)]
enum Mutation {
    /// Removes the value at the path from its object or array.
    Drop {
        line: u16,
        path: Path,
    },
    /// Replaces the value at the path with one of another JSON type.
    Retype {
        line: u16,
        path: Path,
        to: JsonType,
    },
    /// Replaces the value at the path with an extreme number.
    Number {
        line: u16,
        path: Path,
        value: Extreme,
    },
    /// Replaces the value at the path with an odd string.
    Text {
        line: u16,
        path: Path,
        value: Text,
    },
    /// Puts an entry of the other game (4 players, compound doubling) at `at`.
    Splice {
        from: u16,
        at: u16,
        replace: bool,
    },
    Duplicate {
        line: u16,
        at: u16,
    },
    Remove {
        line: u16,
    },
    Swap {
        a: u16,
        b: u16,
    },
    /// Keeps only the first lines.
    Truncate {
        keep: u16,
    },
    /// Changes a revealed value (in this or the next entry that reveals).
    Reveal {
        line: u16,
        index: u8,
        value: TokenName,
    },
    /// Changes the action of this or the next move.
    Action {
        line: u16,
        change: ActionChange,
    },
    Author {
        line: u16,
        author: u8,
    },
    Kind {
        line: u16,
        kind: KindName,
    },
}

/// Byte edits after signing, which a canonical-form check must catch.
#[derive(Arbitrary, Debug)]
enum RawEdit {
    /// A space after the `at`-th `:` or `,`.
    Space { line: u16, at: u16 },
    /// The `at`-th ASCII letter inside a string written as `\u00XX`.
    Escape { line: u16, at: u16 },
    /// A CR before the newline.
    Crlf { line: u16 },
    /// `"sig"` before `"body"`.
    SigFirst { line: u16 },
    /// The `at`-th integer written with `.0` or as `1e0`-style.
    Float { line: u16, at: u16, exponent: bool },
    /// Leading zero on the `at`-th integer.
    LeadingZero { line: u16, at: u16 },
}

#[derive(Arbitrary, Debug)]
struct Input {
    mutations: Vec<Mutation>,
    raw: Vec<RawEdit>,
    /// Low bits: 0 leaves `n`/`prev`/`game` as mutated instead of chaining
    /// again; 1 leaves every signature as it was (1 in 8 each).
    fidelity: u8,
}

fuzz_target!(|data: &[u8]| {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let f = fixture();
    let mut lines: Vec<Value> = f.seed.iter().map(|(v, _)| v.clone()).collect();
    for m in input.mutations.iter().take(MAX_MUTATIONS) {
        mutate(&mut lines, m, &f.other);
    }
    let rechain = input.fidelity % 8 != 0;
    let resign = input.fidelity % 8 != 1;
    let mut log: Vec<Vec<u8>> = encode(&lines, f, rechain, resign);
    for edit in input.raw.iter().take(MAX_MUTATIONS) {
        raw_edit(&mut log, edit);
    }
    let bytes = log.concat();

    let result = Replay::<StarrySky>::from_bytes(&bytes);
    stats(&input, &result);
    match result {
        Ok(r) => {
            assert_eq!(r.len() as usize, log.len());
            // Only canonical lines replay: re-encoding gives the same bytes.
            for (i, line) in log.iter().enumerate() {
                let text = line.strip_suffix(b"\n").expect("a whole line");
                let value: Value = serde_json::from_slice(text)
                    .unwrap_or_else(|e| panic!("line {i} replays but is not JSON: {e}"));
                assert_eq!(
                    canonical::to_bytes(&value),
                    text,
                    "line {i} replays but is not canonical"
                );
            }
            replay::read_genesis(&bytes).expect("a log that replays has a genesis");
        }
        Err(fault) => check_message(&fault.to_string()),
    }
});

/// Runs, runs with a mutation, mutated logs that replay, and faults by
/// kind; printed now and then when `STARRY_FUZZ_STATS` is set, to see which
/// checks the mutations reach.
static RUNS: [AtomicU64; 3] = [const { AtomicU64::new(0) }; 3];
static FAULTS: OnceLock<std::sync::Mutex<std::collections::BTreeMap<String, u64>>> =
    OnceLock::new();

fn stats(input: &Input, result: &Result<Replay<StarrySky>, starry::error::LogFault>) {
    if std::env::var_os("STARRY_FUZZ_STATS").is_none() {
        return;
    }
    let mutated = !input.mutations.is_empty();
    RUNS[0].fetch_add(1, Ordering::Relaxed);
    if mutated {
        RUNS[1].fetch_add(1, Ordering::Relaxed);
        match result {
            Ok(_) => {
                RUNS[2].fetch_add(1, Ordering::Relaxed);
            }
            Err(f) => {
                let mut faults = FAULTS
                    .get_or_init(Default::default)
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                *faults.entry(f.fault.name().to_string()).or_default() += 1;
            }
        }
    }
    let all = RUNS[0].load(Ordering::Relaxed);
    if all.is_power_of_two() {
        let faults = FAULTS.get_or_init(Default::default).lock().unwrap().clone();
        eprintln!(
            "runs {all}: mutated {}, mutated and replays {}; faults {faults:?}",
            RUNS[1].load(Ordering::Relaxed),
            RUNS[2].load(Ordering::Relaxed)
        );
    }
}

fn check_message(text: &str) {
    assert!(!text.is_empty());
    assert!(
        !text.chars().any(starry::text::is_unsafe),
        "unsafe character in the fault: {text:?}"
    );
    assert!(text.len() <= 4000, "a fault of {} bytes", text.len());
}

fn at(len: usize, i: u16) -> Option<usize> {
    (len > 0).then(|| i as usize % len)
}

/// Where a path starts: `body`, or `body.data`.
fn start<'a>(v: &'a mut Value, path: &Path) -> Option<&'a mut Value> {
    let body = v.get_mut("body")?;
    if path.in_data {
        body.get_mut("data")
    } else {
        Some(body)
    }
}

fn child_count(v: &Value) -> usize {
    match v {
        Value::Object(m) => m.len(),
        Value::Array(a) => a.len(),
        _ => 0,
    }
}

fn child(v: &mut Value, i: usize) -> &mut Value {
    match v {
        Value::Object(m) => m.values_mut().nth(i).expect("in range"),
        Value::Array(a) => &mut a[i],
        _ => unreachable!("only containers have children"),
    }
}

/// The indices a path takes: it stops at a value without children.
fn steps(v: &mut Value, path: &Path) -> Option<Vec<usize>> {
    let mut cur = start(v, path)?;
    let mut taken = Vec::new();
    for &step in path.steps.iter().take(MAX_DEPTH) {
        let len = child_count(cur);
        if len == 0 {
            break;
        }
        let i = step as usize % len;
        taken.push(i);
        cur = child(cur, i);
    }
    Some(taken)
}

/// The value a path leads to.
fn walk<'a>(v: &'a mut Value, path: &Path) -> Option<&'a mut Value> {
    let taken = steps(v, path)?;
    let mut cur = start(v, path)?;
    for i in taken {
        cur = child(cur, i);
    }
    Some(cur)
}

/// Removes the value a path leads to from its object or array; a path of no
/// step drops `data`, or else the signature.
fn drop_at(v: &mut Value, path: &Path) {
    let Some(mut taken) = steps(v, path) else {
        return;
    };
    let Some(last) = taken.pop() else {
        if path.in_data {
            if let Some(body) = v.get_mut("body").and_then(Value::as_object_mut) {
                body.remove("data");
            }
        } else if let Some(line) = v.as_object_mut() {
            line.remove("sig");
        }
        return;
    };
    let Some(mut parent) = start(v, path) else {
        return;
    };
    for i in taken {
        parent = child(parent, i);
    }
    match parent {
        Value::Object(m) => {
            let key = m.keys().nth(last).cloned().expect("in range");
            m.remove(&key);
        }
        Value::Array(a) => {
            a.remove(last);
        }
        _ => {}
    }
}

fn retype(v: &Value, to: JsonType) -> Value {
    match to {
        JsonType::Null => Value::Null,
        JsonType::Bool => Value::Bool(v.as_bool().is_none_or(|b| !b)),
        JsonType::Number => match v {
            Value::String(s) => s
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or_else(|_| Value::from(s.len())),
            Value::Array(a) => Value::from(a.len()),
            Value::Object(m) => Value::from(m.len()),
            Value::Bool(b) => Value::from(*b as u8),
            Value::Null => Value::from(0),
            Value::Number(n) => Value::from(n.as_i64().map_or(1, |n| n.wrapping_add(1))),
        },
        JsonType::String => match v {
            Value::String(s) => Value::from(format!("{s}x")),
            Value::Number(n) => Value::from(n.to_string()),
            other => Value::from(other.to_string()),
        },
        JsonType::Array => match v {
            Value::Object(m) => Value::Array(m.values().cloned().collect()),
            Value::Array(a) => Value::Array(a.iter().rev().cloned().collect()),
            other => json!([other]),
        },
        JsonType::Object => match v {
            Value::Array(a) => Value::Object(
                a.iter()
                    .enumerate()
                    .map(|(i, x)| (i.to_string(), x.clone()))
                    .collect::<Map<_, _>>(),
            ),
            Value::Object(m) => {
                let mut m = m.clone();
                m.insert("extra".into(), Value::Null);
                Value::Object(m)
            }
            other => json!({ "value": other }),
        },
        JsonType::Wrapped => json!([v]),
    }
}

fn extreme(e: Extreme) -> Value {
    match e {
        Extreme::Zero => json!(0),
        Extreme::MinusOne => json!(-1),
        Extreme::I64Max => json!(i64::MAX),
        Extreme::I64Min => json!(i64::MIN),
        Extreme::U64Max => json!(u64::MAX),
        Extreme::U32Max => json!(u32::MAX),
        Extreme::U32MaxPlusOne => json!(u64::from(u32::MAX) + 1),
        Extreme::TwoPow53PlusOne => json!((1u64 << 53) + 1),
        Extreme::Half => json!(0.5),
        Extreme::Small(n) => json!(n),
        Extreme::Any(n) => json!(n),
    }
}

fn text(t: &Text) -> Value {
    match t {
        Text::Empty => json!(""),
        Text::Long => Value::from("a".repeat(100_000)),
        Text::Control => json!("\u{1b}[2J\u{1b}]0;x\u{7}\r\nforged: line"),
        Text::ZeroHash => Value::from("0".repeat(64)),
        Text::UpperHash => Value::from("AB".repeat(32)),
        Text::Bidi => json!("\u{202e}evil\u{2066}"),
        Text::Any(s) => Value::from(s.chars().take(200).collect::<String>()),
    }
}

fn token_name(t: TokenName) -> Value {
    match t {
        TokenName::One => json!("1"),
        TokenName::Three => json!("3"),
        TokenName::Five => json!("5"),
        TokenName::Six => json!("6"),
        TokenName::Seven => json!("7"),
        TokenName::Ten => json!("10"),
        TokenName::BlackHole => json!("bh"),
        TokenName::DoubleStar => json!("ds"),
        TokenName::Eleven => json!("11"),
        TokenName::Upper => json!("BH"),
        TokenName::Empty => json!(""),
        TokenName::Number => json!(10),
    }
}

const BOARDS: [&str; 13] = [
    "aries",
    "taurus",
    "gemini",
    "cancer",
    "leo",
    "virgo",
    "libra",
    "scorpio",
    "sagittarius",
    "capricorn",
    "aquarius",
    "pisces",
    "ophiuchus",
];

/// The first line from `start` on (cyclically) whose `body.data` has `key`.
fn find_with(lines: &[Value], start: usize, key: &str) -> Option<usize> {
    (0..lines.len())
        .map(|k| (start + k) % lines.len())
        .find(|&i| lines[i]["body"]["data"].get(key).is_some())
}

fn mutate(lines: &mut Vec<Value>, m: &Mutation, other: &[Value]) {
    let len = lines.len();
    match m {
        Mutation::Drop { line, path } => {
            if let Some(i) = at(len, *line) {
                drop_at(&mut lines[i], path);
            }
        }
        Mutation::Retype { line, path, to } => {
            if let Some(v) = at(len, *line).and_then(|i| walk(&mut lines[i], path)) {
                *v = retype(v, *to);
            }
        }
        Mutation::Number { line, path, value } => {
            if let Some(v) = at(len, *line).and_then(|i| walk(&mut lines[i], path)) {
                *v = extreme(*value);
            }
        }
        Mutation::Text { line, path, value } => {
            if let Some(v) = at(len, *line).and_then(|i| walk(&mut lines[i], path)) {
                *v = text(value);
            }
        }
        Mutation::Splice {
            from,
            at: to,
            replace,
        } => {
            let entry = other[*from as usize % other.len()].clone();
            let to = (*to as usize) % (len + 1);
            if *replace && to < len {
                lines[to] = entry;
            } else {
                lines.insert(to, entry);
            }
        }
        Mutation::Duplicate { line, at: to } => {
            if let Some(i) = at(len, *line) {
                let copy = lines[i].clone();
                lines.insert(*to as usize % (len + 1), copy);
            }
        }
        Mutation::Remove { line } => {
            if let Some(i) = at(len, *line) {
                lines.remove(i);
            }
        }
        Mutation::Swap { a, b } => {
            if let (Some(a), Some(b)) = (at(len, *a), at(len, *b)) {
                lines.swap(a, b);
            }
        }
        Mutation::Truncate { keep } => lines.truncate(*keep as usize),
        Mutation::Reveal { line, index, value } => {
            let Some(start) = at(len, *line) else { return };
            let has_reveals = |v: &Value| {
                v["body"]["data"]["reveals"]
                    .as_array()
                    .is_some_and(|r| !r.is_empty())
            };
            let Some(i) = (0..len)
                .map(|k| (start + k) % len)
                .find(|&i| has_reveals(&lines[i]))
            else {
                return;
            };
            if let Some(reveals) = lines[i]["body"]["data"]["reveals"].as_array_mut() {
                let n = reveals.len();
                if let Some(o) = reveals[*index as usize % n].as_object_mut() {
                    o.insert("value".into(), token_name(*value));
                }
            }
        }
        Mutation::Action { line, change } => {
            let Some(start) = at(len, *line) else { return };
            let Some(i) = find_with(lines, start, "action") else {
                return;
            };
            let Some(action) = lines[i]["body"]["data"]["action"].as_object_mut() else {
                return;
            };
            match change {
                ActionChange::Star { board, number } => {
                    let b = BOARDS[*board as usize % BOARDS.len()];
                    action.insert("star".into(), json!(format!("{b}:{}", number % 13)));
                }
                ActionChange::Token(t) => {
                    action.insert("token".into(), token_name(*t));
                }
                ActionChange::DropStar => {
                    action.remove("star");
                }
                ActionChange::DropToken => {
                    action.remove("token");
                }
                ActionChange::Extra => {
                    action.insert("face".into(), json!("up"));
                }
            }
        }
        Mutation::Author { line, author } => {
            if let Some(i) = at(len, *line)
                && let Some(body) = lines[i].get_mut("body").and_then(Value::as_object_mut)
            {
                body.insert("author".into(), json!(author % 8));
            }
        }
        Mutation::Kind { line, kind } => {
            if let Some(i) = at(len, *line)
                && let Some(body) = lines[i].get_mut("body").and_then(Value::as_object_mut)
            {
                let k = match kind {
                    KindName::Genesis => "genesis",
                    KindName::Join => "join",
                    KindName::Ready => "ready",
                    KindName::Move => "move",
                    KindName::Reveal => "reveal",
                    KindName::Resign => "resign",
                    KindName::Countersign => "countersign",
                    KindName::Abandon => "abandon",
                    KindName::Unknown => "pass",
                };
                body.insert("kind".into(), json!(k));
            }
        }
    }
}

/// The identity that signs for `author`: the one whose address the genesis
/// gives that seat, else the seat number's example player.
fn signer<'a>(f: &'a Fixture, genesis: Option<&Value>, author: &Value) -> &'a Identity {
    let Some(seat) = author.as_u64() else {
        return &f.ids[0];
    };
    let email = genesis
        .and_then(|g| g["body"]["data"]["seats"].get(seat as usize))
        .and_then(|s| s["email"].as_str());
    if let Some(email) = email
        && let Some(id) = f.ids.iter().find(|id| id.email == email)
    {
        return id;
    }
    &f.ids[seat as usize % f.ids.len()]
}

fn hex(h: &[u8]) -> String {
    hex::encode(h)
}

/// Encodes the lines: chained again (`n`, `prev`, `game`) and signed again
/// by their authors, unless told not to. Lines the mutations did not change
/// and whose predecessors are unchanged keep their bytes (signing is
/// deterministic, so signing them again would give the same bytes).
fn encode(lines: &[Value], f: &Fixture, rechain: bool, resign: bool) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::with_capacity(lines.len());
    let mut same_prefix = true;
    let mut genesis_id: Option<String> = None;
    for (i, v) in lines.iter().enumerate() {
        let original = f.seed.get(i).filter(|(sv, _)| same_prefix && sv == v);
        let bytes = match original {
            Some((_, bytes)) => bytes.clone(),
            None => {
                same_prefix = false;
                let mut v = v.clone();
                if rechain
                    && i > 0
                    && let Some(body) = v.get_mut("body").and_then(Value::as_object_mut)
                {
                    body.insert("n".into(), json!(i));
                    let prev = out[i - 1].strip_suffix(b"\n").expect("a whole line");
                    body.insert("prev".into(), json!(hex(&starry::crypto::sha256(prev))));
                    if let Some(g) = &genesis_id {
                        body.insert("game".into(), json!(g));
                    }
                }
                match (resign, v.get("body")) {
                    (true, Some(body)) if body.is_object() => {
                        let id = signer(f, lines.first(), &body["author"]);
                        sign(id, body)
                    }
                    _ => {
                        let mut b = canonical::to_bytes(&v);
                        b.push(b'\n');
                        b
                    }
                }
            }
        };
        if i == 0 {
            genesis_id = Some(hex(&starry::crypto::sha256(
                bytes.strip_suffix(b"\n").unwrap(),
            )));
        }
        out.push(bytes);
    }
    out
}

/// Signs a body given as JSON, as `replay::sign_line` signs a typed one.
fn sign(id: &Identity, body: &Value) -> Vec<u8> {
    let body_bytes = canonical::to_bytes(body);
    let sig = id.sign(&replay::signed_message(&body_bytes));
    let mut line = canonical::to_bytes(&json!({ "body": body, "sig": B64.encode(sig) }));
    line.push(b'\n');
    // Where the body is a protocol body that re-encodes to itself, this is
    // exactly what the program's own signing writes. (`to_value` refuses
    // floats with a debug assertion: the program never writes one.)
    if canonical::find_float(body, &mut String::new()).is_none()
        && let Ok(typed) = serde_json::from_value::<Body>(body.clone())
        && canonical::to_value(&typed) == *body
    {
        assert_eq!(replay::sign_line(id, typed), line, "sign_line differs");
    }
    line
}

/// The byte offsets in `line` just after each of `chars`.
fn offsets(line: &[u8], pred: impl Fn(u8) -> bool) -> Vec<usize> {
    line.iter()
        .enumerate()
        .filter(|&(_, &b)| pred(b))
        .map(|(i, _)| i + 1)
        .collect()
}

/// Offsets of the integers in a line (start, end), outside strings.
fn integers(line: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            i += 1;
        } else if b == b'"' {
            in_string = true;
            i += 1;
        } else if b.is_ascii_digit() || b == b'-' {
            let start = i;
            i += 1;
            while i < line.len() && line[i].is_ascii_digit() {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

fn raw_edit(log: &mut [Vec<u8>], edit: &RawEdit) {
    let len = log.len();
    let line_of = |l: u16| at(len, l);
    match edit {
        RawEdit::Space { line, at: k } => {
            if let Some(i) = line_of(*line) {
                let o = offsets(&log[i], |b| b == b':' || b == b',');
                if let Some(&p) = o.get(*k as usize % o.len().max(1)) {
                    log[i].insert(p, b' ');
                }
            }
        }
        RawEdit::Escape { line, at: k } => {
            if let Some(i) = line_of(*line) {
                // ASCII letters right after a `"` are inside a string (a key
                // or a value).
                let o: Vec<usize> = offsets(&log[i], |b| b == b'"')
                    .into_iter()
                    .filter(|&p| log[i].get(p).is_some_and(|b| b.is_ascii_alphabetic()))
                    .collect();
                if let Some(&p) = o.get(*k as usize % o.len().max(1)) {
                    let c = log[i][p];
                    let esc = format!("\\u{:04x}", c);
                    log[i].splice(p..=p, esc.into_bytes());
                }
            }
        }
        RawEdit::Crlf { line } => {
            if let Some(i) = line_of(*line) {
                let n = log[i].len();
                log[i].insert(n - 1, b'\r');
            }
        }
        RawEdit::SigFirst { line } => {
            if let Some(i) = line_of(*line) {
                let text = log[i].clone();
                if let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(&text)
                    && let (Some(body), Some(sig)) = (m.get("body"), m.get("sig"))
                {
                    let mut s = format!(
                        "{{\"sig\":{},\"body\":{}}}",
                        serde_json::to_string(sig).unwrap(),
                        String::from_utf8(canonical::to_bytes(body)).unwrap()
                    )
                    .into_bytes();
                    s.push(b'\n');
                    log[i] = s;
                }
            }
        }
        RawEdit::Float {
            line,
            at: k,
            exponent,
        } => {
            if let Some(i) = line_of(*line) {
                let ints = integers(&log[i]);
                if let Some(&(_, end)) = ints.get(*k as usize % ints.len().max(1)) {
                    let add: &[u8] = if *exponent { b"e0" } else { b".0" };
                    log[i].splice(end..end, add.iter().copied());
                }
            }
        }
        RawEdit::LeadingZero { line, at: k } => {
            if let Some(i) = line_of(*line) {
                let ints = integers(&log[i]);
                if let Some(&(start, _)) = ints.get(*k as usize % ints.len().max(1)) {
                    let p = if log[i][start] == b'-' {
                        start + 1
                    } else {
                        start
                    };
                    log[i].insert(p, b'0');
                }
            }
        }
    }
}
