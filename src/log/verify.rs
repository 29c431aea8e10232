//! Signatures verified ahead of a replay, on the other cores.
//!
//! A replay is sequential: the chain, the turn order, the links and the
//! rules of entry `n` need entries `0..n`. An entry's signature does not: it
//! needs only the line and its author's key, and it is most of what an
//! audit costs (docs/performance.md). So while the replay walks the log
//! from the front, checking everything as it always did, helpers on the
//! pool's other threads verify signatures from the back, and the replay
//! skips the signatures they found valid.
//!
//! Nothing here decides a fault. A helper's work is a hint: "this line's
//! signature verifies under this key, over these body bytes, with this
//! signature text". The replay uses it only where its own check would have
//! run with exactly that key, those bytes and that text, so the outcome is
//! the same computation done earlier on another core. Anything else — a line
//! a helper has not reached, a key it guessed wrong, a signature that does
//! not verify, a line it could not read — leaves the replay to check the
//! signature itself, in its usual place among the other checks, so the
//! fault reported, its entry and its order stay exactly those of a
//! sequential replay.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_dalek::{Signature, VerifyingKey};
use serde::Deserialize;

use super::replay::{MAX_LINE_BYTES, signed_message};

/// Fewer lines left to check than this are not worth waking a helper for
/// (a helper first reads every line for its author's key).
const MIN_LINES: usize = 16;

/// The signatures verified ahead of one replay of `lines` (line `n` is
/// entry `n`).
pub struct Ahead<'a> {
    lines: &'a [&'a [u8]],
    /// Helpers take lines from the back: `next - 1` is the next one, and
    /// none below `from` (the genesis, which the replay checks first
    /// anyway, and a prefix the replay does not check).
    next: AtomicUsize,
    from: usize,
    /// Per line: someone (a helper, or the replay that reached it) has it.
    taken: Vec<AtomicBool>,
    /// Per line: the key its signature verified under, if a helper found it
    /// valid.
    valid: Vec<OnceLock<[u8; 32]>>,
    /// Per line, the key its author signs with as far as the lines say
    /// (made by the first helper to start; the others wait for it).
    guesses: OnceLock<Guesses>,
    /// The replay is over (finished or failed): helpers stop.
    stop: AtomicBool,
}

/// The key each line is likely signed with, decoded.
struct Guesses {
    keys: Vec<([u8; 32], VerifyingKey)>,
    /// Per line, an index into `keys`.
    by_line: Vec<Option<usize>>,
}

/// Runs `replay` (a sequential replay of `lines` that checks in full the
/// lines from `from` on) with one helper on each other thread of the
/// current rayon pool verifying signatures ahead of it. `replay` gets
/// `None` when there is no other thread or too little to verify: it then
/// checks every signature itself, as it would anyway.
pub fn ahead<R>(lines: &[&[u8]], from: usize, replay: impl FnOnce(Option<&Ahead<'_>>) -> R) -> R {
    let helpers = rayon::current_num_threads().saturating_sub(1);
    let from = from.max(1);
    if helpers == 0 || lines.len().saturating_sub(from) < MIN_LINES {
        return replay(None);
    }
    let ahead = Ahead {
        lines,
        next: AtomicUsize::new(lines.len()),
        from,
        taken: lines.iter().map(|_| AtomicBool::new(false)).collect(),
        valid: lines.iter().map(|_| OnceLock::new()).collect(),
        guesses: OnceLock::new(),
        stop: AtomicBool::new(false),
    };
    rayon::in_place_scope(|s| {
        for _ in 0..helpers {
            s.spawn(|_| ahead.help());
        }
        let out = replay(Some(&ahead));
        // Whatever is left is of no use any more (the replay is done, or
        // stopped at a fault).
        ahead.stop.store(true, Ordering::Relaxed);
        out
    })
}

impl Ahead<'_> {
    /// Whether the signature of line `n`, whose bytes are `line`, is known
    /// to verify under `key` over `body` (the body's bytes the replay
    /// checks) with `sig` (the signature's text the replay decodes). Once
    /// the replay has asked, no helper starts on the line: `false` means
    /// the replay checks it itself.
    pub fn verified(&self, n: u64, line: &[u8], key: &[u8; 32], body: &[u8], sig: &str) -> bool {
        let Some(l) = usize::try_from(n).ok().and_then(|n| self.lines.get(n)) else {
            return false;
        };
        // The very line the helpers read, not merely an equal one.
        if l.as_ptr() != line.as_ptr() || l.len() != line.len() {
            return false;
        }
        let n = n as usize;
        if !self.taken[n].swap(true, Ordering::AcqRel) {
            // No helper got there: no verdict (and none will start now).
            return false;
        }
        // A helper has it; if it is still at work, the replay does not
        // wait (it would wait about as long as checking it itself).
        self.valid[n].get() == Some(key)
            && split(line).is_some_and(|(b, s)| b == body && s == sig.as_bytes())
    }

    /// A helper's work: guess the keys, then verify lines from the back
    /// until none is left or the replay is over.
    fn help(&self) {
        if self.stop.load(Ordering::Relaxed) {
            return;
        }
        let guesses = self.guesses.get_or_init(|| guess(self.lines));
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
            let Some(k) = guesses.by_line[n] else {
                continue;
            };
            let (key_bytes, key) = &guesses.keys[k];
            if verifies(self.lines[n], key) {
                let _ = self.valid[n].set(*key_bytes);
            }
        }
    }
}

/// What a helper reads of a line: just enough to know whose key signs it.
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
    #[serde(default, borrow)]
    creator_key: Option<&'a str>,
}

/// The key of each line, as the protocol assigns it (docs/protocol.md,
/// section 8, S8): the creator's key for the genesis, a join's own key,
/// otherwise the key its author joined with. Lines that do not read as
/// expected get no guess (the replay checks them itself).
fn guess(lines: &[&[u8]]) -> Guesses {
    let mut keys: Vec<([u8; 32], VerifyingKey)> = Vec::new();
    let mut seats: Vec<(u32, usize)> = Vec::new();
    let mut by_line = Vec::with_capacity(lines.len());
    for (n, line) in lines.iter().enumerate() {
        let light = (line.len() <= MAX_LINE_BYTES)
            .then(|| serde_json::from_slice::<Light>(line).ok())
            .flatten();
        let Some(Light { body }) = light else {
            by_line.push(None);
            continue;
        };
        let own = match (n, body.kind) {
            (0, "genesis") => body.data.creator_key,
            (_, "join") => body.data.key,
            _ => None,
        };
        let k = match own {
            Some(hex) => key_index(&mut keys, hex),
            None => seats
                .iter()
                .find(|(a, _)| *a == body.author)
                .map(|&(_, k)| k),
        };
        if body.kind == "join"
            && let Some(k) = k
            && !seats.iter().any(|(a, _)| *a == body.author)
        {
            seats.push((body.author, k));
        }
        by_line.push(k);
    }
    Guesses { keys, by_line }
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

/// The body's bytes and the signature's text of a line
/// `{"body":BODY,"sig":"SIG"}`, as the bytes stand (the replay compares
/// them with what it parsed before using a verdict).
fn split(line: &[u8]) -> Option<(&[u8], &[u8])> {
    const HEAD: &[u8] = b"{\"body\":";
    const TAIL: &[u8] = b",\"sig\":\"";
    let inner = line.strip_prefix(HEAD)?.strip_suffix(b"\"}")?;
    let end = inner.windows(TAIL.len()).rposition(|w| w == TAIL)?;
    Some((&inner[..end], &inner[end + TAIL.len()..]))
}

/// Whether `line`'s signature, as its bytes stand, verifies strictly under
/// `key` — the same check the replay makes (`verify_strict` of the signed
/// message of the body's bytes).
fn verifies(line: &[u8], key: &VerifyingKey) -> bool {
    let Some((body, sig)) = split(line) else {
        return false;
    };
    let Some(raw) = B64
        .decode(sig)
        .ok()
        .and_then(|b| <[u8; 64]>::try_from(b).ok())
    else {
        return false;
    };
    key.verify_strict(&signed_message(body), &Signature::from_bytes(&raw))
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

    /// The guesses of a real game are the keys the replay uses, and every
    /// line's signature verifies under its guess.
    #[test]
    fn helpers_guess_the_replays_keys_and_verify_every_line() {
        use crate::games::starry_sky::StarrySky;
        let bytes = example("finished-5p-compound-coins.jsonl");
        let ls = lines(&bytes);
        let r = crate::log::Replay::<StarrySky>::from_bytes(&bytes).unwrap();
        let g = guess(&ls);
        for (n, l) in ls.iter().enumerate() {
            let author = r.entries[n].author;
            let want = if n == 0 {
                r.genesis.creator_key.0
            } else {
                r.seats[author].key.unwrap()
            };
            let k = g.by_line[n].expect("every line of a valid game has a guess");
            assert_eq!(g.keys[k].0, want, "line {n}");
            assert!(verifies(l, &g.keys[k].1), "line {n}");
        }
        assert_eq!(g.keys.len(), r.seat_count());
    }

    /// A changed body, a changed signature or another key: no verdict.
    #[test]
    fn a_changed_line_or_another_key_does_not_verify() {
        let bytes = example("finished-5p-compound-coins.jsonl");
        let ls = lines(&bytes);
        let g = guess(&ls);
        let line = ls[10];
        let key = &g.keys[g.by_line[10].unwrap()].1;
        assert!(verifies(line, key));
        let other = g
            .keys
            .iter()
            .find(|(_, k)| k != key)
            .map(|(_, k)| k)
            .unwrap();
        assert!(!verifies(line, other));
        let text = String::from_utf8(line.to_vec()).unwrap();
        let time = text.find("\"time\":\"").unwrap() + 8;
        let mut body_changed = line.to_vec();
        body_changed[time + 3] ^= 1; // a digit of the year
        assert!(!verifies(&body_changed, key));
        let sig = text.rfind(",\"sig\":\"").unwrap() + 8;
        let mut sig_changed = line.to_vec();
        sig_changed[sig] = if sig_changed[sig] == b'A' { b'B' } else { b'A' };
        assert!(!verifies(&sig_changed, key));
        assert!(!verifies(b"{\"body\":{},\"sig\":\"\"}", key));
        assert!(!verifies(b"", key));
    }

    /// The replay gets a verdict only for the very line a helper read, with
    /// the key, body and signature text the helper verified.
    #[test]
    fn a_verdict_holds_only_for_the_same_line_key_body_and_signature() {
        let bytes = example("finished-5p-compound-coins.jsonl");
        let ls = lines(&bytes);
        let g = guess(&ls);
        let n = ls.len() - 1;
        let (key, _) = g.keys[g.by_line[n].unwrap()];
        let (body, sig) = split(ls[n]).unwrap();
        let sig = std::str::from_utf8(sig).unwrap();
        let run = |f: &(dyn Fn(&Ahead<'_>) -> bool + Sync)| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .unwrap();
            pool.install(|| {
                ahead(&ls, 1, |a| {
                    let a = a.expect("two threads and a long log: a helper");
                    // The helper starts from the back: wait for the last line.
                    let t = std::time::Instant::now();
                    while a.valid[n].get().is_none() && t.elapsed().as_secs() < 10 {
                        std::thread::yield_now();
                    }
                    f(a)
                })
            })
        };
        assert!(run(&|a| a.verified(n as u64, ls[n], &key, body, sig)));
        let copy = ls[n].to_vec();
        assert!(!run(&|a| a.verified(n as u64, &copy, &key, body, sig)));
        assert!(!run(&|a| a.verified(n as u64, ls[n], &[7; 32], body, sig)));
        assert!(!run(&|a| a.verified(n as u64, ls[n], &key, &body[1..], sig)));
        assert!(!run(&|a| a.verified(n as u64, ls[n], &key, body, "AAAA")));
        assert!(!run(&|a| a.verified(n as u64 - 1, ls[n], &key, body, sig)));
        // The genesis is never a helper's: the replay checks it first.
        assert!(!run(&|a| {
            let (b0, s0) = split(ls[0]).unwrap();
            let k0 = g.keys[g.by_line[0].unwrap()].0;
            a.verified(0, ls[0], &k0, b0, std::str::from_utf8(s0).unwrap())
        }));
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
