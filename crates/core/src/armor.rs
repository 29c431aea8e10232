//! ASCII armor for a log, so it survives being pasted into any mail or chat
//! (the turn mails of `starry` and the web player's "Mail it" both write it;
//! `starry ingest` and the web player both read it).
//!
//! ```text
//! -----BEGIN STARRY LOG-----
//! eyJib2R5Ijp7ImtpbmQiOiJnZW5lc2lzIn0sInNpZyI6IiJ9Cg==
//! -----END STARRY LOG-----
//! ```
//!
//! The body is the log in standard, padded base64, wrapped at 64 columns.
//! Every line, the last one included, ends in `\n`. Reading is lenient about
//! what mail programs do to text: `>` quote markers, indentation, trailing
//! blanks, CRLF, a byte-order mark, blank lines and a different wrapping
//! width are all accepted.
//! Damage is not: a block without its END line, a character outside the
//! base64 alphabet, a wrong length or non-canonical padding is an error that
//! names the line.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// Why an armored block cannot be read, in the words `starry ingest` uses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArmorError {
    /// An armored block starts but never ends.
    #[error(
        "the armored starry log that begins on line {line} is cut off: its \
         `-----END STARRY LOG-----` line is missing; copy the whole block again, from the \
         BEGIN line to the END line"
    )]
    Truncated {
        /// 1-based line of the `BEGIN` marker.
        line: usize,
    },
    /// An armored block is damaged.
    #[error(
        "the armored starry log is damaged on line {line}: {reason}; copy the block again \
         exactly as received, from the BEGIN line to the END line"
    )]
    Bad {
        /// 1-based line where the damage was found.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
}

/// First line of an armored block.
pub const BEGIN: &str = "-----BEGIN STARRY LOG-----";
/// Last line of an armored block.
pub const END: &str = "-----END STARRY LOG-----";
/// Width of the base64 lines written by [`armor`].
pub const WIDTH: usize = 64;

/// Armors `log`: BEGIN line, base64 in lines of 64 columns, END line, each
/// line ending in `\n`.
pub fn armor(log: &[u8]) -> String {
    let b64 = STANDARD.encode(log);
    let mut out =
        String::with_capacity(b64.len() + b64.len() / WIDTH + BEGIN.len() + END.len() + 4);
    out.push_str(BEGIN);
    out.push('\n');
    // base64 output is ASCII, so byte chunks are char boundaries.
    for chunk in b64.as_bytes().chunks(WIDTH) {
        out.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
        out.push('\n');
    }
    out.push_str(END);
    out.push('\n');
    out
}

/// Removes what mail programs put around a line: indentation, any number of
/// `>` quote markers (with or without spaces), trailing blanks and `\r`.
fn clean_line(line: &str) -> &str {
    // A byte-order mark is what a Windows editor puts before pasted text.
    let mut s = line.trim().trim_start_matches('\u{feff}').trim_start();
    while let Some(rest) = s.strip_prefix('>') {
        s = rest.trim_start();
    }
    s
}

/// Finds and decodes every armored block in `text`, in order.
///
/// Text outside the blocks is ignored; no block at all gives an empty vector.
/// Errors: a BEGIN line without its END line ([`ArmorError::Truncated`]),
/// and any damage inside a block, or an empty block ([`ArmorError::Bad`]),
/// each naming the 1-based line of `text`.
pub fn dearmor_all(text: &str) -> Result<Vec<Vec<u8>>, ArmorError> {
    let mut out = Vec::new();
    let mut open: Option<OpenBlock> = None;
    for (index, raw_line) in text.split('\n').enumerate() {
        let line_no = index + 1;
        let line = clean_line(raw_line);
        match open.as_mut() {
            None => {
                if line == BEGIN {
                    open = Some(OpenBlock {
                        begin: line_no,
                        data: String::new(),
                        starts: Vec::new(),
                    });
                }
            }
            Some(block) => {
                if line == END {
                    out.push(block.decode(line_no)?);
                    open = None;
                } else if line == BEGIN {
                    return Err(ArmorError::Truncated { line: block.begin });
                } else if !line.is_empty() {
                    if let Some(bad) = line
                        .chars()
                        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=')))
                    {
                        return Err(ArmorError::Bad {
                            line: line_no,
                            reason: format!("{} is not a base64 character", describe_char(bad)),
                        });
                    }
                    if line.contains("=3D") {
                        return Err(ArmorError::Bad {
                            line: line_no,
                            reason: "it is still quoted-printable encoded (`=3D` stands for `=`): \
                                     copy the block from the mail as your mail program shows it, \
                                     not from the mail's source"
                                .into(),
                        });
                    }
                    block.starts.push((block.data.len(), line_no));
                    block.data.push_str(line);
                }
            }
        }
    }
    match open {
        Some(block) => Err(ArmorError::Truncated { line: block.begin }),
        None => Ok(out),
    }
}

/// A block whose BEGIN line has been seen, not yet its END line.
struct OpenBlock {
    /// 1-based line of the BEGIN marker.
    begin: usize,
    /// The base64 text so far, without line breaks.
    data: String,
    /// (offset in `data`, line number) of each base64 line.
    starts: Vec<(usize, usize)>,
}

fn describe_char(c: char) -> String {
    if c.is_ascii_graphic() {
        format!("`{c}`")
    } else {
        format!("the character U+{:04X}", c as u32)
    }
}

impl OpenBlock {
    fn decode(&self, end: usize) -> Result<Vec<u8>, ArmorError> {
        let (begin, data, starts) = (self.begin, &self.data, &self.starts);
        if data.is_empty() {
            return Err(ArmorError::Bad {
                line: begin,
                reason: format!("the block ending on line {end} is empty"),
            });
        }
        let line_of = |offset: usize| -> usize {
            let i = starts.partition_point(|&(start, _)| start <= offset);
            starts[i.saturating_sub(1)].1
        };
        let last_line = starts.last().map_or(begin, |&(_, l)| l);
        STANDARD.decode(data).map_err(|e| {
            let (line, reason) = match e {
                base64::DecodeError::InvalidByte(offset, b'=') => (
                    line_of(offset),
                    "a padding `=` appears before the end of the base64 text (a character \
                     is missing or extra, so the base64 text has the wrong length)"
                        .to_string(),
                ),
                base64::DecodeError::InvalidByte(offset, byte) => (
                    line_of(offset),
                    format!("{} is not a base64 character", describe_char(byte as char)),
                ),
                base64::DecodeError::InvalidLength(_) | base64::DecodeError::InvalidPadding => (
                    last_line,
                    "the base64 text has the wrong length (a character is missing or extra, \
                     or the `=` padding is wrong)"
                        .to_string(),
                ),
                base64::DecodeError::InvalidLastSymbol { offset, .. } => (
                    line_of(offset),
                    "the last base64 character before the padding is not a valid ending"
                        .to_string(),
                ),
            };
            ArmorError::Bad { line, reason }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const LOG: &[u8] =
        b"{\"body\":{\"kind\":\"genesis\",\"game\":\"starry-sky\"},\"sig\":\"abc\"}\n\
{\"body\":{\"kind\":\"join\",\"seat\":1},\"sig\":\"def\"}\n";

    #[test]
    fn armor_shape() {
        let a = armor(LOG);
        let lines: Vec<&str> = a.split_terminator('\n').collect();
        assert_eq!(lines[0], BEGIN);
        assert_eq!(*lines.last().unwrap(), END);
        assert!(a.ends_with("-----END STARRY LOG-----\n"));
        for l in &lines[1..lines.len() - 1] {
            assert!(l.len() <= WIDTH);
        }
        assert!(lines[1..lines.len() - 2].iter().all(|l| l.len() == WIDTH));
        assert_eq!(
            lines[1..lines.len() - 1].concat(),
            STANDARD.encode(LOG),
            "standard padded base64"
        );
    }

    #[test]
    fn round_trip() {
        assert_eq!(dearmor_all(&armor(LOG)).unwrap(), vec![LOG.to_vec()]);
        for n in 0..200usize {
            let log: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
            if n == 0 {
                continue;
            }
            assert_eq!(dearmor_all(&armor(&log)).unwrap(), vec![log]);
        }
    }

    #[test]
    fn no_block_is_empty() {
        assert!(dearmor_all("hello\nworld\n").unwrap().is_empty());
        assert!(dearmor_all("").unwrap().is_empty());
    }

    #[test]
    fn crlf_quotes_indent_blank_lines() {
        let a = armor(LOG);
        let crlf = a.replace('\n', "\r\n");
        assert_eq!(dearmor_all(&crlf).unwrap(), vec![LOG.to_vec()]);

        let quoted: String = a.lines().map(|l| format!("> {l}\r\n")).collect();
        assert_eq!(dearmor_all(&quoted).unwrap(), vec![LOG.to_vec()]);

        let double: String = a.lines().map(|l| format!(">> > {l}  \n")).collect();
        assert_eq!(dearmor_all(&double).unwrap(), vec![LOG.to_vec()]);

        let bom = format!("\u{feff}{a}");
        assert_eq!(dearmor_all(&bom).unwrap(), vec![LOG.to_vec()]);

        let spaced: String = a.lines().map(|l| format!("    {l}\n\n")).collect();
        let text = format!("Your turn!\n\n{spaced}\n-- \nAlice\n");
        assert_eq!(dearmor_all(&text).unwrap(), vec![LOG.to_vec()]);
    }

    #[test]
    fn rewrapped_block() {
        let b64 = STANDARD.encode(LOG);
        let lines: Vec<String> = b64
            .as_bytes()
            .chunks(76)
            .map(|c| String::from_utf8(c.to_vec()).unwrap())
            .collect();
        let text = format!("{BEGIN}\n{}\n{END}\n", lines.join("\n"));
        assert_eq!(dearmor_all(&text).unwrap(), vec![LOG.to_vec()]);
    }

    #[test]
    fn several_blocks() {
        let text = format!("a\n{}b\n{}", armor(b"one\n"), armor(b"two\n"));
        assert_eq!(
            dearmor_all(&text).unwrap(),
            vec![b"one\n".to_vec(), b"two\n".to_vec()]
        );
    }

    #[test]
    fn truncated() {
        let a = armor(LOG);
        let cut: String = a.lines().take(3).map(|l| format!("{l}\n")).collect();
        let text = format!("hi\n{cut}");
        let err = dearmor_all(&text).unwrap_err();
        assert!(matches!(err, ArmorError::Truncated { line: 2 }), "{err:?}");
        assert!(err.to_string().contains("line 2"));
        assert!(err.to_string().contains("END STARRY LOG"));

        // A second BEGIN before the first END.
        let text = format!("{cut}{a}");
        assert!(matches!(
            dearmor_all(&text).unwrap_err(),
            ArmorError::Truncated { line: 1 }
        ));
    }

    #[test]
    fn bad_base64_names_the_line() {
        let a = armor(LOG);
        let mut lines: Vec<String> = a.lines().map(str::to_string).collect();
        lines[2].replace_range(5..6, "#");
        let text = format!("intro\n{}\n", lines.join("\n"));
        let err = dearmor_all(&text).unwrap_err();
        match &err {
            ArmorError::Bad { line, reason } => {
                assert_eq!(*line, 4);
                assert!(reason.contains("`#`"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().contains("line 4"), "{err}");
    }

    #[test]
    fn missing_character_is_a_length_error() {
        let a = armor(LOG);
        let mut lines: Vec<String> = a.lines().map(str::to_string).collect();
        lines[1].remove(0);
        let err = dearmor_all(&lines.join("\n")).unwrap_err();
        assert!(matches!(err, ArmorError::Bad { .. }), "{err:?}");
        assert!(err.to_string().contains("wrong length"), "{err}");
    }

    #[test]
    fn padding_in_the_middle() {
        let text = format!("{BEGIN}\nQUJD\nQQ==\nQUJD\n{END}\n");
        let err = dearmor_all(&text).unwrap_err();
        assert!(matches!(err, ArmorError::Bad { line: 3, .. }), "{err:?}");
    }

    #[test]
    fn empty_block() {
        let err = dearmor_all(&format!("{BEGIN}\n\n{END}\n")).unwrap_err();
        assert!(matches!(err, ArmorError::Bad { line: 1, .. }), "{err:?}");
    }

    #[test]
    fn non_ascii_inside() {
        let text = format!("{BEGIN}\nQUJ\u{e9}\n{END}\n");
        let err = dearmor_all(&text).unwrap_err();
        assert!(err.to_string().contains("U+00E9"), "{err}");
    }

    proptest! {
        #[test]
        fn round_trip_any(log in proptest::collection::vec(any::<u8>(), 1..2000)) {
            prop_assert_eq!(dearmor_all(&armor(&log)).unwrap(), vec![log]);
        }

        /// Any single-byte change inside the base64 lines either fails to
        /// decode or decodes to different bytes: armor never silently hides a
        /// change.
        #[test]
        fn one_byte_change_is_never_silent(
            log in proptest::collection::vec(any::<u8>(), 1..600),
            pos in any::<prop::sample::Index>(),
            byte in any::<u8>(),
        ) {
            let a = armor(&log);
            let body_start = BEGIN.len() + 1;
            let body_end = a.len() - END.len() - 1;
            // The positions of the base64 characters (not the line breaks).
            let positions: Vec<usize> = (body_start..body_end)
                .filter(|&i| a.as_bytes()[i] != b'\n')
                .collect();
            let i = positions[pos.index(positions.len())];
            let mut bytes = a.clone().into_bytes();
            prop_assume!(bytes[i] != byte);
            bytes[i] = byte;
            let changed = String::from_utf8_lossy(&bytes);
            match dearmor_all(&changed) {
                Err(_) => {}
                Ok(logs) => prop_assert!(logs != vec![log.clone()], "change at {} to {:?} went unnoticed", i, byte),
            }
        }
    }
}
