//! The primitive test vectors of docs/protocol.md (section 9) are what the
//! code computes. The block between the markers in the spec is generated
//! here; `STARRY_BLESS=1 cargo test --test protocol_vectors` rewrites it.

use std::fmt::Write as _;
use std::path::PathBuf;

use starry::crypto::{beacon, commitment, lp_hash};
use starry::draw::Draw;
use starry::log::replay::signed_message;

const BEGIN: &str = "<!-- BEGIN GENERATED VECTORS -->";
const END: &str = "<!-- END GENERATED VECTORS -->";

fn vectors() -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "```");
    let _ = writeln!(
        w,
        "LP(\"ab\", \"\")                       = {}",
        "000000026162".to_string() + "00000000"
    );
    let _ = writeln!(
        w,
        "lp_hash(\"ab\", \"\")                  = {}",
        hex::encode(lp_hash(&[b"ab", b""]))
    );
    let _ = writeln!(
        w,
        "step(00×32)                        = {}",
        hex::encode(beacon::step(&[0; 32]))
    );
    let seed = beacon::seed(&[4; 32]);
    let _ = writeln!(
        w,
        "chain seed(game secret 04×32)      = {}",
        hex::encode(seed)
    );
    let _ = writeln!(
        w,
        "tip(that seed)                     = {}",
        hex::encode(beacon::tip(&seed))
    );
    let _ = writeln!(
        w,
        "first link after the join          = {}",
        hex::encode(beacon::link_for(&seed, 1).unwrap())
    );
    let salt = commitment::salt(&[4; 32], 5, 0);
    let _ = writeln!(
        w,
        "salt(04×32, entry 5, slot 0)       = {}",
        hex::encode(salt)
    );
    let c = commitment::commit(
        commitment::Slot {
            game: &[1; 32],
            author_key: &[2; 32],
            entry: 5,
            slot: 0,
        },
        b"\"10\"",
        &[3; 32],
    );
    let _ = writeln!(
        w,
        "commit(game 01×32, key 02×32, entry 5, slot 0, \"10\", salt 03×32)"
    );
    let _ = writeln!(w, "                                   = {}", hex::encode(c));
    let _ = writeln!(
        w,
        "signed message for body {{}}         = {}",
        hex::encode(signed_message(b"{}"))
    );
    let mut d = Draw::new([0; 32]);
    let picks: Vec<String> = (0..8).map(|_| d.below(12).to_string()).collect();
    let _ = writeln!(
        w,
        "Draw(00×32): below(12) ×8          = {}",
        picks.join(" ")
    );
    let mut d = Draw::new([0; 32]);
    let mut v: Vec<u32> = (0..12).collect();
    d.shuffle(&mut v);
    let v: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    let _ = writeln!(w, "Draw(00×32): shuffle(0..12)        = {}", v.join(" "));
    let mut d = Draw::new([0; 32]);
    let _ = writeln!(
        w,
        "Draw(00×32): below(3) ×8           = {}",
        (0..8)
            .map(|_| d.below(3).to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let _ = writeln!(w, "setup seed(game 01×32, links 0a×32, 0b×32, 0c×32)");
    let _ = writeln!(
        w,
        "                                   = {}",
        hex::encode(lp_hash(&[
            b"starry/1 setup",
            &[1; 32],
            &[10; 32],
            &[11; 32],
            &[12; 32]
        ]))
    );
    let _ = writeln!(w, "```");
    out
}

#[test]
fn the_spec_lists_what_the_code_computes() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/protocol.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (start, end) = (
        doc.find(BEGIN).expect("begin marker"),
        doc.find(END).expect("end marker"),
    );
    let block = format!("{BEGIN}\n{}{END}", vectors());
    let current = &doc[start..end + END.len()];
    if std::env::var_os("STARRY_BLESS").is_some() {
        std::fs::write(&path, doc.replace(current, &block)).unwrap();
    } else {
        assert_eq!(
            current, block,
            "docs/protocol.md vectors are stale: STARRY_BLESS=1 cargo test --test protocol_vectors"
        );
    }
}

#[test]
fn the_lp_encoding_is_as_written() {
    // The one value above written by hand: check it against the hash.
    let mut bytes = hex::decode("00000002616200000000").unwrap();
    assert_eq!(starry::crypto::sha256(&bytes), lp_hash(&[b"ab", b""]));
    bytes.pop();
    assert_ne!(starry::crypto::sha256(&bytes), lp_hash(&[b"ab", b""]));
}
