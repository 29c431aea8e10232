//! Lines parsed and signatures verified ahead of a replay, on the other
//! cores.
//!
//! A replay is sequential: the chain, the turn order, the links and the
//! rules of entry `n` need entries `0..n`. Two costly steps do not: the
//! line's shape and canonical form (S2–S3) need only the line, and its
//! signature (S8) only the line and its author's key — together most of
//! what an audit costs (docs/performance.md). So while the replay walks the
//! log from the front, checking everything as it always did, helpers on
//! the pool's other threads take the lines just ahead of it, parse them
//! exactly as the replay would, and verify their signatures under the key
//! their author joined with; the replay takes over what they did.
//!
//! What the helpers hold is bounded by bytes, never by the number of
//! lines: a window of at most [`WINDOW_LINES`] lines and about
//! [`WINDOW_BYTES`] of their bytes just ahead of the replay, copied in as
//! the replay moves on (a helper needs nothing of the caller's, so the
//! replay never waits for one). A log of millions of tiny lines costs the
//! helpers no more than a short one (issue 31, item 7).
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

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_dalek::{Signature, VerifyingKey};
use serde::Deserialize;

use super::replay::{Check, Data, MAX_LINE_BYTES, Parsed, parse_line_as, signed_message};
use crate::error::LogFault;

/// Fewer lines left to check than this are not worth waking a helper for.
const MIN_LINES: usize = 16;

/// Most lines the helpers hold ahead of the replay: enough to keep them
/// busy for as long as the replay takes over a few hundred lines.
const WINDOW_LINES: usize = 256;

/// About the most line bytes the helpers hold ahead of the replay (one
/// longer line is still taken, alone). What a parsed line holds is a few
/// times its bytes, so this bounds the helpers' memory to a few MiB.
const WINDOW_BYTES: usize = 1 << 20;

/// A line as a helper left it: parsed (or its fault), and the key its
/// signature verified under, if it did.
type Done = (Result<Parsed, LogFault>, Option<[u8; 32]>);

/// The work done ahead of one replay of `lines` (line `n` is entry `n`).
pub struct Ahead<'a> {
    /// The caller's lines, borrowed for as long as the replay runs: the
    /// window is filled from them.
    lines: &'a [&'a [u8]],
    shared: Arc<Shared>,
    /// Most helpers at work at once (the pool's other threads).
    helpers: usize,
}

/// What the replay and its helpers share.
struct Shared {
    window: Mutex<Window>,
    /// Each seat's key as the joins say.
    keys: Keys,
    /// The replay is over (finished or failed): helpers stop.
    stop: AtomicBool,
}

/// The lines just ahead of the replay.
struct Window {
    /// Line `first + i` is `slots[i]`.
    first: usize,
    slots: VecDeque<Slot>,
    /// The next line to put in the window (none below the `from` of
    /// [`ahead`]: the genesis, which the replay checks first anyway, and a
    /// prefix the replay does not check in full).
    next: usize,
    /// Bytes of the lines in the window.
    bytes: usize,
    /// Helpers at work now.
    working: usize,
}

struct Slot {
    /// Where the caller's line is: the replay takes a helper's work only
    /// for that very slice.
    origin: usize,
    len: usize,
    /// The line's bytes until a helper takes them.
    line: Option<Vec<u8>>,
    /// What a helper did, until the replay takes it.
    done: Option<Done>,
}

/// Runs `replay` (a sequential replay of `lines` that checks in full the
/// lines from `from` on) with helpers on the other threads of the current
/// rayon pool parsing lines and verifying signatures just ahead of it.
/// `replay` gets `None` when there is no other thread or too little to
/// do: it then does all the work itself, as it would anyway.
pub fn ahead<R>(lines: &[&[u8]], from: usize, replay: impl FnOnce(Option<&Ahead>) -> R) -> R {
    let helpers = other_threads();
    let from = from.max(1);
    if helpers == 0 || lines.len().saturating_sub(from) < MIN_LINES {
        return replay(None);
    }
    let ahead = Ahead {
        lines,
        shared: Arc::new(Shared {
            window: Mutex::new(Window {
                first: from,
                slots: VecDeque::new(),
                next: from,
                bytes: 0,
                working: 0,
            }),
            keys: joined_keys(lines),
            stop: AtomicBool::new(false),
        }),
        helpers,
    };
    ahead.fill(from);
    let out = replay(Some(&ahead));
    // Whatever is left is of no use any more (the replay is done, or
    // stopped at a fault); a helper still at work drops its line when done.
    ahead.shared.stop.store(true, Ordering::Relaxed);
    if let Ok(mut w) = ahead.shared.window.lock() {
        w.slots.clear();
        w.bytes = 0;
    }
    out
}

impl Ahead<'_> {
    /// What a helper did for line `n`, whose bytes are `line`, checked as
    /// `check` says: the line parsed as [`parse_line_as`] parses it (or its
    /// fault), and the key its signature verified under, if it did. Once
    /// the replay has asked, no helper starts on the line: `None` means the
    /// replay does it all itself (no helper had it, or one is still at
    /// work: the replay does not wait, it would wait about as long). The
    /// window then moves on past `n`.
    pub fn take(&self, n: u64, line: &[u8], check: Check) -> Option<Done> {
        let n = usize::try_from(n).ok()?;
        let done = self.take_slot(n).and_then(|slot| {
            // The very line the helpers copied, not merely an equal one,
            // checked as they check it.
            (slot.origin == line.as_ptr() as usize
                && slot.len == line.len()
                && check == Check::Full)
                .then_some(slot.done)
                .flatten()
        });
        self.fill(n + 1);
        done
    }

    /// Takes line `n`'s slot out of the window, with those before it.
    fn take_slot(&self, n: usize) -> Option<Slot> {
        let mut w = self.shared.window.lock().ok()?;
        while w.first <= n {
            let slot = w.slots.pop_front()?;
            w.first += 1;
            w.bytes -= slot.len;
            if w.first == n + 1 {
                return Some(slot);
            }
        }
        None
    }

    /// Puts the lines from `at` on into the window, as far as it holds
    /// them, and wakes a helper if one is idle.
    fn fill(&self, at: usize) {
        let Ok(mut w) = self.shared.window.lock() else {
            return;
        };
        if w.slots.is_empty() && w.next < at {
            w.first = at;
            w.next = at;
        }
        while w.next < self.lines.len()
            && w.slots.len() < WINDOW_LINES
            && (w.slots.is_empty() || w.bytes + self.lines[w.next].len() <= WINDOW_BYTES)
        {
            let line = self.lines[w.next];
            w.slots.push_back(Slot {
                origin: line.as_ptr() as usize,
                len: line.len(),
                line: Some(line.to_vec()),
                done: None,
            });
            w.bytes += line.len();
            w.next += 1;
        }
        let waiting = w.slots.iter().any(|s| s.line.is_some());
        if waiting && w.working < self.helpers {
            w.working += 1;
            let shared = Arc::clone(&self.shared);
            spawn(move || shared.help());
        }
    }
}

/// The current rayon pool's other threads: none without the `parallel`
/// feature (a build for a browser, say), and the replay then checks every
/// line itself.
fn other_threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads().saturating_sub(1)
    }
    #[cfg(not(feature = "parallel"))]
    {
        0
    }
}

/// Starts a helper on another thread of the pool. Without threads there are
/// no helpers ([`other_threads`]), so this is never called; were it, doing
/// the work at once would still be right, only not ahead.
fn spawn(help: impl FnOnce() + Send + 'static) {
    #[cfg(feature = "parallel")]
    rayon::spawn(help);
    #[cfg(not(feature = "parallel"))]
    help();
}

#[cfg(test)]
impl Ahead<'_> {
    /// Whether a helper has finished line `n`.
    fn is_done(&self, n: usize) -> bool {
        let w = self.shared.window.lock().unwrap();
        n.checked_sub(w.first)
            .and_then(|i| w.slots.get(i))
            .is_some_and(|s| s.done.is_some())
    }
}

impl Shared {
    /// A helper's work: the lines in the window no one has taken, until
    /// none is left (the replay wakes another when it fills the window) or
    /// the replay is over.
    fn help(&self) {
        loop {
            let Some((n, line)) = self.next_line() else {
                return;
            };
            let parsed = parse_line_as(n as u64, &line, Check::Full);
            drop(line);
            let signed = parsed.as_ref().ok().and_then(|p| {
                let (bytes, key) = self.keys.of(p)?;
                verifies(p, key).then_some(*bytes)
            });
            // Read by the replay if it reaches the line after this (if it
            // came while the helper was at work, it did the line itself).
            if let Ok(mut w) = self.window.lock()
                && let Some(i) = n.checked_sub(w.first)
                && let Some(slot) = w.slots.get_mut(i)
            {
                slot.done = Some((parsed, signed));
            }
        }
    }

    /// The first line in the window no one has taken, taken; `None` (and
    /// the helper counted off) when there is none or the replay is over.
    fn next_line(&self) -> Option<(usize, Vec<u8>)> {
        let mut w = self.window.lock().ok()?;
        if !self.stop.load(Ordering::Relaxed) {
            let first = w.first;
            for (i, slot) in w.slots.iter_mut().enumerate() {
                if let Some(line) = slot.line.take() {
                    return Some((first + i, line));
                }
            }
        }
        w.working -= 1;
        None
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

/// Whether `p`'s signature verifies strictly under the Ed25519 key whose
/// bytes are `key` (a weak or invalid key verifies nothing): what the
/// audit uses on the lines after a copy's damage (docs/protocol.md, forks).
pub fn signed_by(p: &Parsed, key: &[u8; 32]) -> bool {
    VerifyingKey::from_bytes(key).is_ok_and(|k| !k.is_weak() && verifies(p, &k))
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
        std::fs::read(format!("{}/examples/games/{name}", crate::REPO)).unwrap()
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
        let n = 5;
        let copy = ls[n].to_vec();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let run = |f: &(dyn Fn(&Ahead) -> Option<Done> + Sync)| {
            pool.install(|| {
                ahead(&ls, 1, |a| {
                    let a = a.expect("two threads and a long log: a helper");
                    // The helper starts from the front: wait for line n.
                    let t = std::time::Instant::now();
                    while !a.is_done(n) && t.elapsed().as_secs() < 10 {
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
        // Taken once only, and never once the replay has passed it.
        assert!(
            run(&|a| {
                let first = a.take(n as u64, ls[n], Check::Full);
                assert!(first.is_some());
                a.take(n as u64, ls[n], Check::Full)
            })
            .is_none()
        );
        assert!(
            run(&|a| {
                a.take(n as u64 + 1, ls[n + 1], Check::Full);
                a.take(n as u64, ls[n], Check::Full)
            })
            .is_none()
        );
    }

    /// The helpers hold a bounded window of lines, whatever the number of
    /// lines: a million tiny ones, or lines of half a MiB.
    #[test]
    fn the_window_is_bounded_by_bytes_not_lines() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let tiny = vec![b"{}".as_slice(); 1_000_000];
        let big_line = vec![b'x'; 1 << 19];
        let big = vec![big_line.as_slice(); 64];
        for ls in [&tiny, &big] {
            pool.install(|| {
                ahead(ls, 1, |a| {
                    let a = a.unwrap();
                    for n in [1, 2, 100, 5000].into_iter().filter(|&n| n < ls.len()) {
                        a.take(n as u64, ls[n], Check::Full);
                        let w = a.shared.window.lock().unwrap();
                        assert!(w.slots.len() <= WINDOW_LINES);
                        assert!(w.bytes <= WINDOW_BYTES.max(ls[n].len()));
                        assert_eq!(w.first, n + 1);
                        assert_eq!(w.next, w.first + w.slots.len());
                    }
                })
            });
        }
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
