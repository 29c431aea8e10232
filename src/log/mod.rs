//! The core's log protocol ([`starry_core::log`]), and reading and writing
//! log files ([`file`]).

pub use starry_core::log::*;

pub mod file;

/// The core's replay, and the clock a program reads to date an entry.
pub mod replay {
    pub use starry_core::log::replay::*;

    /// The current time in the log's format.
    pub fn now() -> String {
        chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
    }
}
