//! Writes the web player's folder (crates/web/build.sh runs it after the
//! wasm32 build): `starry-web-assemble PLAYER.wasm OUT_DIR`.
//!
//! `index.html` is self-contained, so that it works opened from disk
//! (file:// cannot fetch): the style and the script inline, the
//! WebAssembly inline as base64 in a block the browser does not execute,
//! and a Content-Security-Policy that allows exactly that script and that
//! style (by their SHA-256) and the compilation of WebAssembly, and no
//! request but for the player's own files. Beside it, for a host:
//! `sw.js` (offline), `manifest.webmanifest`, `icon.svg`. Prints each file
//! with its SHA-256, by which a player pins a copy they trust.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

const INDEX: &str = include_str!("../../static/index.html");
const SCRIPT: &str = include_str!("../../static/player.js");
const STYLE: &str = include_str!("../../static/player.css");
const SW: &str = include_str!("../../static/sw.js");
const MANIFEST: &str = include_str!("../../static/manifest.webmanifest");
const ICON: &str = include_str!("../../static/icon.svg");

fn sha256_b64(text: &str) -> String {
    STANDARD.encode(Sha256::digest(text.as_bytes()))
}

/// The policy: nothing by default; this script, this style, WebAssembly
/// compiled from the page's own bytes; the player's own icon, manifest and
/// service worker; no connection anywhere (no `connect-src`), no form
/// posted anywhere, no `<base>`.
fn csp(script: &str, style: &str) -> String {
    format!(
        "default-src 'none'; script-src 'sha256-{}' 'wasm-unsafe-eval'; style-src 'sha256-{}'; \
         img-src 'self' blob: data:; manifest-src 'self'; worker-src 'self'; base-uri 'none'; \
         form-action 'none'; object-src 'none'",
        sha256_b64(script),
        sha256_b64(style)
    )
}

/// index.html with the style, the script and the WebAssembly inline.
fn index_html(wasm: &[u8]) -> String {
    INDEX
        .replace("{{CSP}}", &csp(SCRIPT, STYLE))
        .replace("{{STYLE}}", STYLE)
        .replace("{{WASM}}", &STANDARD.encode(wasm))
        .replace("{{SCRIPT}}", SCRIPT)
}

fn write(out: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    let path = out.join(name);
    std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("{}  {name}", hex::encode(Sha256::digest(bytes)));
    Ok(())
}

fn run(wasm: &Path, out: &Path) -> Result<(), String> {
    let bytes = std::fs::read(wasm).map_err(|e| format!("cannot read {}: {e}", wasm.display()))?;
    if !bytes.starts_with(b"\0asm") {
        return Err(format!("{} is not WebAssembly", wasm.display()));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let index = index_html(&bytes);
    let version = &hex::encode(Sha256::digest(index.as_bytes()))[..16];
    write(out, "index.html", index.as_bytes())?;
    write(out, "sw.js", SW.replace("{{VERSION}}", version).as_bytes())?;
    write(out, "manifest.webmanifest", MANIFEST.as_bytes())?;
    write(out, "icon.svg", ICON.as_bytes())?;
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [wasm, out] = args.as_slice() else {
        eprintln!("usage: starry-web-assemble PLAYER.wasm OUT_DIR");
        return ExitCode::from(2);
    };
    match run(wasm, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("starry-web-assemble: {e}");
            ExitCode::FAILURE
        }
    }
}
