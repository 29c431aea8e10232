//! The append-only log: entries, canonical encoding, the hash chain,
//! signatures, replay, and file I/O. Specified in `docs/protocol.md`.

pub mod canonical;
pub mod entry;
pub mod file;
pub mod fork;
pub mod replay;
pub mod verify;

pub use entry::{Kind, PROTOCOL_VERSION};
pub use replay::{Action, Ending, Phase, Replay};
