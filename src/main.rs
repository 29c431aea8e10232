//! Thin entry point: parse arguments, run, print, map errors to exit codes.
//!
//! Printing is the last line of defence against hostile text (names, e-mail
//! addresses and anything else read from a log or a mail): whatever goes to
//! standard output or standard error passes through [`text::terminal`], and
//! `--json` output has every C1 control, DEL and bidi formatting character
//! escaped as `\uXXXX` (the same JSON value, never a raw control byte). A
//! closed pipe (`starry … | head`) stops the printing quietly, and the exit
//! code stays the command's.

use std::io::{self, Write};

use clap::Parser;
use starry::text;

/// Longest line written to standard error, in characters: a message that
/// quotes a whole hostile input is cut (the quote should already be an
/// excerpt; this is only a backstop against flooding a terminal).
const MAX_ERROR_LINE_CHARS: usize = 4000;

/// Exit code when the output itself cannot be written (disk full behind a
/// redirection): the same class as any other I/O failure.
const OUTPUT_FAILED: i32 = 3;

fn main() {
    let cli = starry::cli::Cli::parse();
    let json = cli.json;
    let (mut code, stdout, stderr) = match starry::cli::run(cli) {
        Ok(out) if !json && out.bytes.is_some() => {
            // A picture, as it is; nothing in it is text for a terminal
            // (PNG is refused on a terminal before this).
            let bytes = out.bytes.unwrap_or_default();
            let mut w = io::stdout().lock();
            if let Err(e) = w.write_all(&bytes).and_then(|()| w.flush())
                && e.kind() != io::ErrorKind::BrokenPipe
            {
                let _ = print(
                    &mut io::stderr().lock(),
                    &format!("error: cannot write the output: {e}"),
                );
                std::process::exit(OUTPUT_FAILED);
            }
            (out.code, None, None)
        }
        Ok(out) => {
            let stdout = if json && out.json_lines {
                Some(json_lines(&out.json))
            } else if json {
                Some(json_text(&out.json))
            } else {
                (!out.text.is_empty()).then_some(out.text)
            };
            // The main work was done, something after it failed (a mail not
            // sent, a commit not made): say so where errors go.
            (out.code, stdout, out.warning.map(|w| format!("error: {w}")))
        }
        Err(e) => {
            let code = e.exit_code();
            let message = e.to_string();
            let stdout = json.then(|| {
                json_text(&serde_json::json!({ "error": { "code": code, "message": message } }))
            });
            (code, stdout, Some(format!("error: {message}")))
        }
    };
    if let Some(s) = stdout
        && let Err(e) = print(&mut io::stdout().lock(), &text::terminal(&s))
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        let _ = print(
            &mut io::stderr().lock(),
            &format!("error: cannot write the output: {e}"),
        );
        if code == 0 {
            code = OUTPUT_FAILED;
        }
    }
    if let Some(s) = stderr {
        // Nowhere is left to complain to if standard error fails too.
        let _ = print(&mut io::stderr().lock(), &for_stderr(&s));
    }
    std::process::exit(code);
}

/// Writes `s` and a line break, and flushes. A closed pipe is an error like
/// any other here; the caller decides to stay quiet about it.
fn print(w: &mut impl Write, s: &str) -> io::Result<()> {
    w.write_all(s.as_bytes())?;
    w.write_all(b"\n")?;
    w.flush()
}

/// `value` as pretty JSON, with every character that [`text::is_unsafe`]
/// names and serde_json leaves raw (DEL, C1 controls, bidi formatting)
/// escaped as `\uXXXX`. Such characters only occur inside JSON strings
/// (never right after an escaping backslash, since serde_json writes a
/// backslash as `\\`), so the text still parses to the same value.
fn json_text(value: &serde_json::Value) -> String {
    let s = serde_json::to_string_pretty(value).unwrap_or_else(|e| {
        format!("{{\"error\":{{\"code\":1,\"message\":\"cannot print JSON: {e}\"}}}}")
    });
    text::json_safe(&s).into_owned()
}

/// Each element of the array `value` compact on a line of its own (JSON
/// Lines), escaped as [`json_text`] does.
fn json_lines(value: &serde_json::Value) -> String {
    let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
    let lines: Vec<String> = items
        .iter()
        .map(|v| {
            serde_json::to_string(v).unwrap_or_else(|e| {
                format!("{{\"error\":{{\"code\":1,\"message\":\"cannot print JSON: {e}\"}}}}")
            })
        })
        .collect();
    text::json_safe(&lines.join("\n")).into_owned()
}

/// A message for standard error: made safe for a terminal, and each line
/// cut to [`MAX_ERROR_LINE_CHARS`].
fn for_stderr(s: &str) -> String {
    let safe = text::terminal(s);
    if safe.len() <= MAX_ERROR_LINE_CHARS {
        return safe.into_owned();
    }
    safe.split('\n')
        .map(|line| {
            if line.chars().count() <= MAX_ERROR_LINE_CHARS {
                line.to_string()
            } else {
                let head: String = line.chars().take(MAX_ERROR_LINE_CHARS).collect();
                format!("{head}… (a line of {} bytes, cut)", line.len())
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has_raw_unsafe(s: &str) -> bool {
        s.chars()
            .any(|c| text::is_unsafe(c) && !matches!(c, '\n' | '\t'))
    }

    #[test]
    fn json_output_escapes_c1_del_and_bidi_and_parses_to_the_same_value() {
        let name = "Eve\u{1b}[2J\u{9b}31m\u{202e}gro.live\u{7f}\u{2066}\\\u{85}\"\n";
        let v = serde_json::json!({ "name": name, name: [name, 1] });
        let s = json_text(&v);
        assert!(!has_raw_unsafe(&s), "{s:?}");
        assert!(s.contains("\\u009b") && s.contains("\\u202e") && s.contains("\\u007f"));
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
        // Nothing to escape: unchanged.
        let plain = serde_json::json!({ "a": "Zoë ★" });
        assert_eq!(
            json_text(&plain),
            serde_json::to_string_pretty(&plain).unwrap()
        );
    }

    #[test]
    fn stderr_is_safe_and_bounded() {
        let s = for_stderr("error: \u{1b}]0;owned\u{7}\nsecond\tline \u{9b}2J");
        assert!(!has_raw_unsafe(&s), "{s:?}");
        assert!(s.contains('\n') && s.contains('\t'));
        let huge = format!("error: {}\nnext", "x".repeat(10_000_000));
        let s = for_stderr(&huge);
        assert!(s.len() < MAX_ERROR_LINE_CHARS + 100, "{}", s.len());
        assert!(s.ends_with("\nnext") && s.contains("cut"));
    }

    /// A writer whose reader went away.
    struct ClosedPipe;
    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
    }

    #[test]
    fn a_closed_pipe_is_an_error_value_not_a_panic() {
        let e = print(&mut ClosedPipe, "hello").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
        let mut v = Vec::new();
        print(&mut v, "a").unwrap();
        assert_eq!(v, b"a\n");
    }
}
