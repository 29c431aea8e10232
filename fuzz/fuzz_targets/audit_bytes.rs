//! Fuzzes the audit of a log from arbitrary bytes: `Replay::from_bytes`
//! (every check `starry audit` makes) and `read_genesis`. Neither may panic,
//! whatever the bytes; what they return must agree, and every fault must be
//! a message that is safe to print.
//!
//! Run (stable toolchain, no sanitizer), from the repository root:
//!   cargo fuzz run audit_bytes fuzz/corpus/audit_bytes fuzz/seeds/audit_bytes -s none -- \
//!     -dict=fuzz/audit.dict -max_len=131072 -max_total_time=300
#![no_main]

use libfuzzer_sys::fuzz_target;
use starry::games::starry_sky::StarrySky;
use starry::log::Replay;
use starry::log::replay::read_genesis;

fuzz_target!(|data: &[u8]| {
    let replay = Replay::<StarrySky>::from_bytes(data);
    let genesis = read_genesis(data);
    match &replay {
        Ok(r) => {
            // A log that replays has a genesis, and one entry per line.
            assert!(genesis.is_ok(), "replays but has no genesis");
            let lines = data.split(|&b| b == b'\n').count() - 1;
            assert_eq!(r.len() as usize, lines);
            assert_eq!(data.last(), Some(&b'\n'));
        }
        Err(fault) => check_message(&fault.to_string()),
    }
    if let Err(fault) = &genesis {
        check_message(&fault.to_string());
    }
});

/// A fault is one paragraph with nothing raw from the input that could
/// repaint a terminal, and it quotes the input only in short excerpts.
fn check_message(text: &str) {
    assert!(!text.is_empty());
    assert!(
        !text.chars().any(starry::text::is_unsafe),
        "unsafe character in the fault: {text:?}"
    );
    assert!(text.len() <= 4000, "a fault of {} bytes", text.len());
}
