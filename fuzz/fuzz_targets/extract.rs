//! Fuzzes the mail reading paths with arbitrary bytes: `extract_logs` (MIME
//! parsing through mail-parser, armor, limits) and `dearmor_all`. Neither may
//! panic, hang or allocate without bound; what they return must be
//! consistent.
//!
//! Run (stable toolchain, no sanitizer), from the repository root:
//!   cargo fuzz run extract fuzz/corpus/extract fuzz/seeds/extract -s none -- \
//!     -max_total_time=300 -dict=fuzz/extract.dict
//!
//! `extract_logs` contains panics of the mail-parser crate with
//! `catch_unwind` (it still has some on damaged mails, e.g. a debug
//! assertion in 0.11.9, parsers/message.rs:485). libfuzzer-sys aborts on
//! *every* panic, caught or not, so this target installs a hook that lets
//! panics located in mail-parser's own source unwind to that `catch_unwind`
//! (reporting each distinct location once on stderr) and aborts on any other
//! panic, as before.
#![no_main]

use std::collections::HashSet;
use std::sync::{Mutex, Once};

use libfuzzer_sys::fuzz_target;
use starry::mail::{MailError, armor, dearmor_all, extract_logs};

const LIMIT: usize = 64 * 1024;

static HOOK: Once = Once::new();
static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);

fn install_hook() {
    HOOK.call_once(|| {
        let abort_hook = std::panic::take_hook(); // libfuzzer-sys's: print, then abort
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
                return; // unwinds to extract_logs's catch_unwind
            }
            abort_hook(info);
        }));
    });
}

fuzz_target!(|data: &[u8]| {
    install_hook();
    match extract_logs(data, LIMIT) {
        Ok(logs) => {
            assert_eq!(logs.len(), 1, "extract_logs returns exactly one log");
            assert!(!logs[0].is_empty() && logs[0].len() <= LIMIT);
        }
        Err(MailError::TooLarge { limit }) => assert_eq!(limit, LIMIT),
        Err(e) => {
            // Every error is one paragraph.
            let text = e.to_string();
            assert!(!text.is_empty() && !text.contains('\n'), "{text:?}");
        }
    }

    let text = String::from_utf8_lossy(data);
    if let Ok(blocks) = dearmor_all(&text) {
        for block in blocks {
            // Whatever decodes, re-armors and decodes to the same bytes.
            assert_eq!(dearmor_all(&armor(&block)).unwrap(), vec![block]);
        }
    }
});
