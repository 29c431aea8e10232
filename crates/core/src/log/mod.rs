//! The append-only log: entries, canonical encoding, the hash chain,
//! signatures, replay and forks. Specified in `docs/protocol.md`. Reading and
//! writing log files is the program's (`starry::log::file`).

pub mod canonical;
pub mod entry;
pub mod fork;
pub mod replay;
pub mod verify;
pub mod write;

pub use entry::{Kind, PROTOCOL_VERSION};
pub use replay::{Action, Ending, Phase, Replay};
