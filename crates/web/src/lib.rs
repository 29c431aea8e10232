//! The web player: starry's core behind one JSON call, for a page that
//! plays with nothing installed (docs/web.md).
//!
//! # The ABI (plain wasm32, no generated glue)
//!
//! ```text
//! export memory
//! export fn alloc(len: u32) -> *mut u8          // a buffer for the request
//! export fn dealloc(ptr: *mut u8, len: u32)     // frees a request or a reply
//! export fn call(ptr: *const u8, len: u32) -> u64   // (reply ptr << 32) | reply len
//! ```
//!
//! Why not wasm-bindgen: the core is pure and takes time and randomness as
//! values, so the whole boundary is one JSON request and one JSON reply; no
//! generated glue, no command-line tool whose version must match a crate's,
//! nothing to install in CI beyond the wasm32 target.
//!
//! The request is `{"op": "...", ...}`, the reply `{"ok": {...}}` or
//! `{"error": "<one paragraph, in the CLI's words>"}`. The page's script
//! does no cryptography and no rules: randomness (`random`: 64 hex digits
//! from `crypto.getRandomValues`) and time (`now`: RFC 3339 UTC) come in as
//! values, and nothing here keeps state between calls: the page passes the
//! stored texts in and stores what comes back.
//!
//! # Ops
//!
//! Every text field is a JSON string; `identity` is the identity file's
//! text (`starry id export`), `log` a whole log (JSON Lines).
//!
//! - `identity_new` `{name, email, random}` → `{file, name, email, key}`
//! - `identity_read` `{file}` → `{file, name, email, key}` (`key`: the
//!   public key's fingerprint, as `starry id show` prints it)
//! - `game_of` `{input}` → `{game}`: the game (64 hex digits) a link, an
//!   armored block or a `.jsonl` text belongs to
//! - `receive` `{input, stored}` (`stored`: the kept log or null) →
//!   `{game, log, added, entries, title}`: the kept log with the received
//!   entries appended, replayed whole by the audit's code
//! - `games` `{games: {<id>: log}, identity}` (identity may be null) →
//!   `{games: [{id, game, title, players, entries, action, to_act, yours,
//!   over}]}`
//! - `page` `{log, identity, query, now}` → `{title, html}`
//! - `act` `{log, identity, fields: {what, move, entries}, now, random,
//!   joined, player_url}` (`joined`: the join line kept for this game or
//!   null; `player_url`: this page's address or null) → `{log, new, entry,
//!   summary, joined, send}`; `send` is null when nobody is to be told, or
//!   `{to, names, subject, body, entries, file_name, mailto}`.
//!
//! A refusal changes nothing: the page stores only what an `ok` reply
//! returns.

mod clock;
pub mod ops;
pub mod page;

use serde_json::{Value, json};

/// The longest request accepted: a few whole logs; more is not a game.
pub const MAX_REQUEST_BYTES: usize = 32 << 20;

/// Answers one JSON request with one JSON reply (the whole ABI; native
/// callers, tests among them, call it directly).
pub fn call(request: &[u8]) -> Vec<u8> {
    let reply = match answer(request) {
        Ok(v) => json!({ "ok": v }),
        Err(e) => json!({ "error": e }),
    };
    serde_json::to_vec(&reply).unwrap_or_else(|_| br#"{"error":"internal error"}"#.to_vec())
}

fn answer(request: &[u8]) -> Result<Value, String> {
    if request.len() > MAX_REQUEST_BYTES {
        return Err(format!(
            "the request is larger than {} MB; no game is that long",
            MAX_REQUEST_BYTES >> 20
        ));
    }
    let req: Value = serde_json::from_slice(request).map_err(|e| {
        format!(
            "the request is not JSON (line {}, column {})",
            e.line(),
            e.column()
        )
    })?;
    let op = req.get("op").and_then(Value::as_str).unwrap_or_default();
    let done = match op {
        "identity_new" => ops::identity_new(&req),
        "identity_read" => ops::identity_read(&req),
        "game_of" => ops::game_of(&req),
        "receive" => ops::receive(&req),
        "games" => ops::games(&req),
        "page" => ops::page(&req),
        "act" => ops::act(&req),
        other => Err(ops::Refused(format!(
            "unknown op `{}`; the ops are identity_new, identity_read, game_of, receive, games, \
             page and act",
            starry_core::text::inline(other)
        ))),
    };
    done.map_err(|e| e.0)
}

/// The exports the page's script calls (wasm32 only).
#[cfg(target_arch = "wasm32")]
mod abi {
    /// A buffer of `len` bytes for the script to write a request into.
    #[unsafe(no_mangle)]
    pub extern "C" fn alloc(len: u32) -> *mut u8 {
        let b = vec![0u8; len as usize].into_boxed_slice();
        Box::into_raw(b) as *mut u8
    }

    /// Frees a buffer from [`alloc`] or a reply from [`call`].
    ///
    /// # Safety
    /// `ptr` and `len` are exactly those of one such buffer, freed once.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn dealloc(ptr: *mut u8, len: u32) {
        let slice = std::ptr::slice_from_raw_parts_mut(ptr, len as usize);
        drop(unsafe { Box::from_raw(slice) });
    }

    /// Answers the request at `ptr`: the reply's address in the high 32
    /// bits, its length in the low ones; the script frees it.
    ///
    /// # Safety
    /// `ptr` and `len` are a buffer from [`alloc`] the script wrote.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn call(ptr: *const u8, len: u32) -> u64 {
        let request = unsafe { std::slice::from_raw_parts(ptr, len as usize) };
        let reply = super::call(request).into_boxed_slice();
        let n = reply.len() as u64;
        let p = Box::into_raw(reply) as *mut u8 as usize as u64;
        (p << 32) | n
    }
}

#[cfg(test)]
mod tests;
