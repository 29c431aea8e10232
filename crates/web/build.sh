#!/bin/sh
# Builds the web player into a folder of static files (default
# target/web): the core as WebAssembly (the size-tuned `player` profile of the
# workspace's Cargo.toml), then the assembler, which writes index.html
# (self-contained: it works opened from disk), sw.js, manifest.webmanifest
# and icon.svg and prints each file's SHA-256. docs/web.md says how to
# host the folder.
#   sh crates/web/build.sh [OUT]
set -eu
here="$(pwd)"
out="${1:-}"
cd "$(dirname "$0")/../.."
case "$out" in
    "") out="target/web" ;;
    /*) ;;
    *) out="$here/$out" ;;
esac
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || {
        echo "build.sh: the Rust target wasm32-unknown-unknown is missing: rustup target add wasm32-unknown-unknown" >&2
        exit 1
    }
fi
cargo build --locked -q -p starry-web --lib --target wasm32-unknown-unknown --profile player
wasm="target/wasm32-unknown-unknown/player/starry_web.wasm"
cargo run --locked -q -p starry-web --bin starry-web-assemble -- "$wasm" "$out"
raw=$(wc -c < "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
echo "the player's WebAssembly: $raw bytes, $gz bytes gzipped; the player is in $out"
