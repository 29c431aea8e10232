//! Lines parsed and signatures verified ahead of a replay, on the other
//! cores.
//!
//! A replay is sequential: the chain, the turn order, the links and the
//! rules of entry `n` need entries `0..n`. Two costly steps do not: the
//! line's shape and canonical form (S2–S3) need only the line, and its
//! signature (S8) only the line and its author's key — together most of
//! what an audit costs (docs/performance.md). So while the replay walks the
//! log from the front, checking everything as it always did, helpers on
//! the pool's other threads take lines from the back, parse them exactly
//! as the replay would, and verify their signatures under the key their
//! author joined with; the replay takes over what they did.
//!
//! Nothing here decides a fault. Parsing a line is a pure function of its
//! number, its bytes and the check asked for, so a line parsed by a helper
//! is the very value, or the very fault, the replay would have computed.
//! A verified signature is a hint: "this parsed line's signature verifies
//! under this key". The replay uses it only where its own check would have
//! run on that parsed line with that key, so the outcome is the same
//! computation done earlier on another core. Anything else — a line no
//! helper reached, a key guessed wrong, a signature that does not verify —
//! leaves the replay to do the work itself, in its usual place among the
//! other checks, so the fault reported, its entry and its order stay
//! exactly those of a sequential replay.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_dalek::{Signature, VerifyingKey};
use serde::Deserialize;

use super::replay::{Check, Data, MAX_LINE_BYTES, Parsed, parse_line_as, signed_message};
use crate::error::LogFault;

/// Fewer lines left to check than this are not worth waking a helper for.
const MIN_LINES: usize = 16;

/// A line as a helper left it: parsed (or its fault), and the key its
/// signature verified under, if it did.
type Done = (Result<Parsed, LogFault>, Option<[u8; 32]>);

/// The work done ahead of one replay of `lines` (line `n` is entry `n`).
pub struct Ahead {
    /// A copy of the lines, so that a helper needs nothing of the caller's
    /// and the replay never waits for one to finish (a helper the system
    /// has set aside would hold it up for a whole time slice).
    bytes: Vec<u8>,
    /// Each line's place in `bytes`.
    spans: Vec<(usize, usize)>,
    /// Where each of the caller's lines is: the replay takes a helper's
    /// work only for that very slice (borrowed, so unchanged, for as long
    /// as the replay runs).
    origin: Vec<usize>,
    /// Helpers take lines from the back: `next - 1` is the next one, and
    /// none below `from` (the genesis, which the replay checks first
    /// anyway, and a prefix the replay does not check in full).
    next: AtomicUsize,
    from: usize,
    /// Per line: someone (a helper, or the replay that reached it) has it.
    taken: Vec<AtomicBool>,
    /// Per line, what a helper did, until the replay takes it.
    done: Vec<Mutex<Option<Done>>>,
    /// Each seat's key as the joins say (made by the first helper to
    /// start; the others wait for it).
    keys: OnceLock<Keys>,
    /// The replay is over (finished or failed): helpers stop.
    stop: AtomicBool,
}

/// Runs `replay` (a sequential replay of `lines` that checks in full the
/// lines from `from` on) with one helper on each other thread of the
/// current rayon pool parsing lines and verifying signatures ahead of it.
/// `replay` gets `None` when there is no other thread or too little to
/// do: it then does all the work itself, as it would anyway.
pub fn ahead<R>(lines: &[&[u8]], from: usize, replay: impl FnOnce(Option<&Ahead>) -> R) -> R {
    let helpers = rayon::current_num_threads().saturating_sub(1);
    let from = from.max(1);
    if helpers == 0 || lines.len().saturating_sub(from) < MIN_LINES {
        return replay(None);
    }
    let mut bytes = Vec::with_capacity(lines.iter().map(|l| l.len()).sum());
    let mut spans = Vec::with_capacity(lines.len());
    for l in lines {
        spans.push((bytes.len(), l.len()));
        bytes.extend_from_slice(l);
    }
    let ahead = Arc::new(Ahead {
        bytes,
        spans,
        origin: lines.iter().map(|l| l.as_ptr() as usize).collect(),
        next: AtomicUsize::new(lines.len()),
        from,
        taken: lines.iter().map(|_| AtomicBool::new(false)).collect(),
        done: lines.iter().map(|_| Mutex::new(None)).collect(),
        keys: OnceLock::new(),
        stop: AtomicBool::new(false),
    });
    for _ in 0..helpers {
        let a = Arc::clone(&ahead);
        rayon::spawn(move || a.help());
    }
    let out = replay(Some(&ahead));
    // Whatever is left is of no use any more (the replay is done, or
    // stopped at a fault); a helper still at work drops its copy when done.
    ahead.stop.store(true, Ordering::Relaxed);
    out
}

impl Ahead {
    fn line(&self, n: usize) -> &[u8] {
        let (at, len) = self.spans[n];
        &self.bytes[at..at + len]
    }

    /// What a helper did for line `n`, whose bytes are `line`, checked as
    /// `check` says: the line parsed as [`parse_line_as`] parses it (or its
    /// fault), and the key its signature verified under, if it did. Once
    /// the replay has asked, no helper starts on the line: `None` means the
    /// replay does it all itself (no helper had it, or one is still at
    /// work: the replay does not wait, it would wait about as long).
    pub fn take(&self, n: u64, line: &[u8], check: Check) -> Option<Done> {
        let n = usize::try_from(n).ok()?;
        let (&origin, &(_, len)) = self.origin.get(n).zip(self.spans.get(n))?;
        // The very line the helpers copied, not merely an equal one,
        // checked as they check it.
        if origin != line.as_ptr() as usize || len != line.len() || check != Check::Full {
            return None;
        }
        if n < self.from || !self.taken[n].swap(true, Ordering::AcqRel) {
            return None;
        }
        self.done[n].lock().ok()?.take()
    }

    /// A helper's work: lines from the back until none is left or the
    /// replay is over.
    fn help(&self) {
        if self.stop.load(Ordering::Relaxed) {
            return;
        }
        let keys = self.keys.get_or_init(|| {
            let lines: Vec<&[u8]> = (0..self.spans.len()).map(|n| self.line(n)).collect();
            joined_keys(&lines)
        });
        while !self.stop.load(Ordering::Relaxed) {
            let Ok(i) = self
                .next
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |i| {
                    (i > self.from).then(|| i - 1)
                })
            else {
                return;
            };
            let n = i - 1;
            if self.taken[n].swap(true, Ordering::AcqRel) {
                continue;
            }
            let parsed = parse_line_as(n as u64, self.line(n), Check::Full);
            let signed = parsed.as_ref().ok().and_then(|p| {
                let (bytes, key) = keys.of(p)?;
                verifies(p, key).then_some(*bytes)
            });
            // Read by the replay if it reaches the line after this (if it
            // came while the helper was at work, it did the line itself).
            if let Ok(mut slot) = self.done[n].lock() {
                *slot = Some((parsed, signed));
            }
        }
    }
}

/// Each seat's key as its join gives it, decoded: what signs the seat's
/// every other entry (docs/protocol.md, section 8, S8).
struct Keys {
    /// By seat (author number).
    seats: Vec<Option<usize>>,
    decoded: Vec<([u8; 32], VerifyingKey)>,
}

impl Keys {
    /// The key the replay checks `p`'s signature with, if it is a valid
    /// one: a join's own key, otherwise the key its author joined with.
    fn of(&self, p: &Parsed) -> Option<&([u8; 32], VerifyingKey)> {
        let i = match &p.data {
            Data::Join(j) => self.decoded.iter().position(|(b, _)| *b == j.key.0)?,
            Data::Genesis(_) => return None,
            _ => (*self.seats.get(p.line.body.author as usize)?)?,
        };
        self.decoded.get(i)
    }
}

/// What a helper reads of the first lines: a join's author and key.
#[derive(Deserialize)]
struct Light<'a> {
    #[serde(borrow)]
    body: LightBody<'a>,
}

#[derive(Deserialize)]
struct LightBody<'a> {
    author: u32,
    kind: &'a str,
    #[serde(borrow)]
    data: LightData<'a>,
}

#[derive(Deserialize)]
struct LightData<'a> {
    #[serde(default, borrow)]
    key: Option<&'a str>,
}

/// Most seats a helper looks for (more than any game has).
const MOST_SEATS: usize = 64;

/// The keys of the joins that follow the genesis, as far as the lines read
/// as joins: seats join one after another before anything else happens,
/// and whatever does not read as expected is left to the replay.
fn joined_keys(lines: &[&[u8]]) -> Keys {
    let mut keys = Keys {
        seats: Vec::new(),
        decoded: Vec::new(),
    };
    for line in lines.iter().skip(1) {
        let light = (line.len() <= MAX_LINE_BYTES)
            .then(|| serde_json::from_slice::<Light>(line).ok())
            .flatten();
        let Some(Light { body }) = light else { break };
        let (Some(hex), "join") = (body.data.key, body.kind) else {
            break;
        };
        let author = body.author as usize;
        if author >= MOST_SEATS {
            break;
        }
        if keys.seats.len() <= author {
            keys.seats.resize(author + 1, None);
        }
        if keys.seats[author].is_none() {
            keys.seats[author] = key_index(&mut keys.decoded, hex);
        }
    }
    keys
}

/// The index in `keys` of the key written `hex`, decoded and added if new;
/// `None` for one that is not a valid, strong Ed25519 key (the replay
/// refuses it with its own words).
fn key_index(keys: &mut Vec<([u8; 32], VerifyingKey)>, hex: &str) -> Option<usize> {
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(hex, &mut bytes).ok()?;
    if let Some(i) = keys.iter().position(|(b, _)| *b == bytes) {
        return Some(i);
    }
    let key = VerifyingKey::from_bytes(&bytes).ok()?;
    if key.is_weak() {
        return None;
    }
    keys.push((bytes, key));
    Some(keys.len() - 1)
}

/// Whether `p`'s signature verifies strictly under `key`: the replay's own
/// check (`verify_strict` of the signed message of the body's bytes, the
/// signature decoded from canonical base64), on the same parsed line.
fn verifies(p: &Parsed, key: &VerifyingKey) -> bool {
    let Some(raw) = B64
        .decode(&p.line.sig)
        .ok()
        .and_then(|b| <[u8; 64]>::try_from(b).ok())
    else {
        return false;
    };
    key.verify_strict(&signed_message(&p.body_bytes), &Signature::from_bytes(&raw))
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(name: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/examples/games/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    fn lines(bytes: &[u8]) -> Vec<&[u8]> {
        super::super::replay::split_lines(bytes).unwrap()
    }

    /// The keys the helpers find are the keys the replay checks with, and
    /// every line's signature verifies under its key.
    #[test]
    fn helpers_find_the_replays_keys_and_verify_every_line() {
        use crate::games::starry_sky::StarrySky;
        let bytes = example("finished-5p-compound-coins.jsonl");
        let ls = lines(&bytes);
        let r = crate::log::Replay::<StarrySky>::from_bytes(&bytes).unwrap();
        let keys = joined_keys(&ls);
        assert_eq!(keys.decoded.len(), r.seat_count());
        for (n, l) in ls.iter().enumerate().skip(1) {
            let p = super::super::replay::parse_line(n as u64, l).unwrap();
            let author = r.entries[n].author;
            let (bytes, key) = keys.of(&p).expect("every line of a valid game has a key");
            assert_eq!(*bytes, r.seats[author].key.unwrap(), "line {n}");
            assert!(verifies(&p, key), "line {n}");
        }
    }

    /// A changed body, a changed signature or another key: no verdict.
    #[test]
    fn a_changed_line_or_another_key_does_not_verify() {
        use super::super::replay::parse_line;
        let bytes = example("finished-5p-compound-coins.jsonl");
        let ls = lines(&bytes);
        let keys = joined_keys(&ls);
        let line = ls[10];
        let p = parse_line(10, line).unwrap();
        let (_, key) = keys.of(&p).unwrap();
        assert!(verifies(&p, key));
        let other = keys.decoded.iter().find(|(_, k)| k != key).unwrap();
        assert!(!verifies(&p, &other.1));
        let text = String::from_utf8(line.to_vec()).unwrap();
        let time = text.find("\"time\":\"").unwrap() + 8;
        let mut body_changed = line.to_vec();
        body_changed[time + 3] ^= 1; // a digit of the year
        assert!(!verifies(&parse_line(10, &body_changed).unwrap(), key));
        let sig = text.rfind(",\"sig\":\"").unwrap() + 8;
        let mut sig_changed = line.to_vec();
        sig_changed[sig] = if sig_changed[sig] == b'A' { b'B' } else { b'A' };
        assert!(!verifies(&parse_line(10, &sig_changed).unwrap(), key));
    }

    /// The replay gets a helper's work only for the very line the helper
    /// read, checked in full, past the genesis — and it is what the replay
    /// would have computed.
    #[test]
    fn the_replay_takes_only_the_lines_helpers_did() {
        use super::super::replay::parse_line;
        let bytes = example("finished-5p-compound-coins.jsonl");
        let ls = lines(&bytes);
        let n = ls.len() - 1;
        let copy = ls[n].to_vec();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let run = |f: &(dyn Fn(&Ahead) -> Option<Done> + Sync)| {
            pool.install(|| {
                ahead(&ls, 1, |a| {
                    let a = a.expect("two threads and a long log: a helper");
                    // The helper starts from the back: wait for the last line.
                    let t = std::time::Instant::now();
                    while a.done[n].lock().unwrap().is_none() && t.elapsed().as_secs() < 10 {
                        std::thread::yield_now();
                    }
                    f(a)
                })
            })
        };
        let (p, signed) = run(&|a| a.take(n as u64, ls[n], Check::Full)).unwrap();
        let p = p.unwrap();
        let mine = parse_line(n as u64, ls[n]).unwrap();
        assert_eq!(
            (p.id, &p.body_bytes, &p.line),
            (mine.id, &mine.body_bytes, &mine.line)
        );
        let keys = joined_keys(&ls);
        assert_eq!(signed, Some(keys.of(&mine).unwrap().0));
        assert!(run(&|a| a.take(n as u64, &copy, Check::Full)).is_none());
        assert!(run(&|a| a.take(n as u64, ls[n], Check::Known)).is_none());
        assert!(run(&|a| a.take(n as u64 - 1, ls[n], Check::Full)).is_none());
        assert!(run(&|a| a.take(0, ls[0], Check::Full)).is_none());
        // Taken once only.
        assert!(
            run(&|a| {
                let first = a.take(n as u64, ls[n], Check::Full);
                assert!(first.is_some());
                a.take(n as u64, ls[n], Check::Full)
            })
            .is_none()
        );
    }

    /// Whatever is wrong with a long log, a replay with helpers names the
    /// same fault, entry, author and words as one without: bytes changed
    /// at random (in bodies, signatures, keys), lines swapped, dropped or
    /// taken from another game.
    #[test]
    fn helpers_never_change_the_fault_a_replay_reports() {
        use crate::draw::Draw;
        use crate::games::starry_sky::StarrySky;
        let bytes = example("finished-5p-compound-coins.jsonl");
        let other = example("in-progress-4p.jsonl");
        let ls = lines(&bytes);
        let others = lines(&other);
        let pools: Vec<rayon::ThreadPool> = [1, 3]
            .iter()
            .map(|&n| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .unwrap()
            })
            .collect();
        let mut draw = Draw::new([3; 32]);
        let mut faults = 0;
        for case in 0..100 {
            let mut ls: Vec<Vec<u8>> = ls.iter().map(|l| l.to_vec()).collect();
            let n = 1 + draw.below(ls.len() - 1);
            match case % 5 {
                // A byte of the line, often the signature's or a key's.
                0 | 1 => {
                    let at = draw.below(ls[n].len());
                    const SOME: &[u8] = b"0123456789abcdefABCDEF+/=\\\"{}:,";
                    ls[n][at] = SOME[draw.below(SOME.len())];
                }
                2 => {
                    let m = 1 + draw.below(ls.len() - 1);
                    ls.swap(n, m);
                }
                3 => drop(ls.remove(n)),
                _ => ls[n] = others[draw.below(others.len())].to_vec(),
            }
            // And sometimes a second fault further on.
            if case % 3 == 0 && n < ls.len() {
                let m = n + draw.below(ls.len() - n);
                let at = ls[m].len() - 3 - draw.below(40);
                ls[m][at] ^= 1;
            }
            let mut log = Vec::new();
            for l in &ls {
                log.extend_from_slice(l);
                log.push(b'\n');
            }
            let run = |pool: &rayon::ThreadPool| {
                pool.install(|| {
                    crate::log::Replay::<StarrySky>::from_bytes(&log)
                        .err()
                        .map(|f| format!("{} {:?} {:?} {}", f.entry, f.fault, f.author, f.detail))
                })
            };
            let alone = run(&pools[0]);
            faults += usize::from(alone.is_some());
            for p in &pools[1..] {
                assert_eq!(run(p), alone, "case {case}");
            }
        }
        assert!(faults > 80, "{faults} of 100 changed logs refused");
    }

    /// One thread, or a short log: no helper, the replay checks everything.
    #[test]
    fn no_helper_on_one_thread_or_for_a_short_log() {
        let bytes = example("finished-5p-compound-coins.jsonl");
        let ls = lines(&bytes);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        assert!(one.install(|| ahead(&ls, 0, |a| a.is_none())));
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        assert!(two.install(|| ahead(&ls[..MIN_LINES], 0, |a| a.is_none())));
        assert!(two.install(|| ahead(&ls, ls.len() - 3, |a| a.is_none())));
        assert!(two.install(|| ahead(&ls, 0, |a| a.is_some())));
    }
}
