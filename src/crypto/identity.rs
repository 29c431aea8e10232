//! Identity file.
