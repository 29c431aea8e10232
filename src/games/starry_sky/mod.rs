//! Starry Sky (placeholder until the engine lands).
