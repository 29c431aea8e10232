//! Copies of one game that fork: the first six entries of the example
//! `finished-5p-compound-coins.jsonl`, then an entry 6 (seat 4's `ready`)
//! signed again by that seat with its time `i` seconds later — a different
//! valid entry 6 in each copy, as a cheating seat could sign them (issue
//! 31, item 8). Shared by the archive tests and the memory bench.

use starry::crypto::identity::Stored as _;
use std::path::Path;

use starry::crypto::identity::Identity;
use starry::log::entry::Line;
use starry::log::replay::sign_line;

/// `count` copies; copy `i` has the `i`-th entry 6.
pub fn forked_copies(count: usize) -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let game = std::fs::read(root.join("examples/games/finished-5p-compound-coins.jsonl"))
        .expect("the example game");
    let lines: Vec<&[u8]> = game.split_inclusive(|&b| b == b'\n').collect();
    let head: Vec<u8> = lines[..6].concat();
    let six: Line = serde_json::from_slice(lines[6]).expect("entry 6");
    let key = {
        let join: serde_json::Value =
            serde_json::from_slice(lines[1 + six.body.author as usize]).expect("the seat's join");
        join["body"]["data"]["key"]
            .as_str()
            .expect("a key")
            .to_string()
    };
    let signer = ["anna", "ben", "cleo", "dan", "eve"]
        .iter()
        .filter_map(|n| Identity::load(&root.join("examples/games/identities").join(n)).ok())
        .find(|id| hex::encode(id.public_key()) == key)
        .expect("the seat's example identity");
    let at = chrono::DateTime::parse_from_rfc3339(&six.body.time).expect("a time");
    (0..count)
        .map(|i| {
            let mut body = six.body.clone();
            body.time = (at + chrono::Duration::seconds(i as i64 + 1))
                .to_utc()
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            [head.as_slice(), &sign_line(&signer, body)].concat()
        })
        .collect()
}
