//! The core's pictures ([`starry_core::picture`]: SVG, HTML, PNG).
pub use starry_core::picture::*;
