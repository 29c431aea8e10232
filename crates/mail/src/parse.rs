//! Getting the log out of whatever the user received: a raw mail (`.eml`, or
//! one mbox message starting with a `From ` line) or a pasted text holding an
//! armored block.
//!
//! MIME (multipart, quoted-printable, base64, charsets, nested forwarded
//! messages) is left to the `mail-parser` crate. What counts as a log:
//! - an attachment named `*.jsonl`, or typed `application/x-ndjson` or
//!   `application/jsonl` (the copy `compose` attaches);
//! - every armored block in a `text/plain` part (the copy in the body);
//! - armored blocks in `text/html` parts, only when nothing was found above.
//!
//! The attachment is the authoritative copy: when one is present, damage to
//! an armored copy in the text (a mail program rewrapping a quoted reply,
//! say) is not an error. Identical copies are merged.

use mail_parser::{Message, MessageParser, MimeHeaders, PartType};

use super::MailError;
use super::armor::dearmor_all;
use starry_core::text;

/// A sensible default for `limit`: 16 MiB, orders of magnitude more than a
/// finished game's log.
pub const DEFAULT_LIMIT: usize = 16 * 1024 * 1024;

/// Returns the log carried by `raw` (a mail or a pasted text), as a vector of
/// exactly one element.
///
/// Identical copies (attachment and armored body, or a block pasted twice)
/// are merged. Two different logs give [`MailError::SeveralLogs`], none gives
/// [`MailError::NoLog`]. An input, or a decoded log, larger than `limit`
/// bytes gives [`MailError::TooLarge`]. Damaged armor gives
/// [`MailError::Armor`]. A mail too
/// damaged for mail-parser gives [`MailError::UnreadableMail`].
///
/// Never panics, whatever the bytes: the few panics left in mail-parser on
/// damaged mails are caught here. The panic hook still prints such a panic;
/// the two found by fuzzing (a debug assertion and an overflow check) only
/// fire in debug builds.
pub fn extract_logs(raw: &[u8], limit: usize) -> Result<Vec<Vec<u8>>, MailError> {
    let logs = find_logs(raw, limit)?;
    match logs.len() {
        0 => Err(MailError::NoLog),
        1 => Ok(logs),
        count => Err(MailError::SeveralLogs { count }),
    }
}

/// Like [`extract_logs`], but returns every distinct log found (in order of
/// appearance; possibly none) instead of failing on zero or several. For a
/// caller that wants to choose itself, e.g. keep the longest when a quoted
/// earlier log is a prefix of the new one.
pub fn find_logs(raw: &[u8], limit: usize) -> Result<Vec<Vec<u8>>, MailError> {
    if raw.len() > limit {
        return Err(MailError::TooLarge { limit });
    }
    let mut found = Found::default();
    let mut unreadable = false;
    if let Some(mail) = mail_bytes(raw) {
        // mail-parser is meant never to panic, but some damaged mails still
        // make it panic (upstream issue #120, and a debug assertion found by
        // fuzzing); a broken mail must be an error here, not a crash.
        let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut found = Found::default();
            if let Some(message) = MessageParser::default().parse(mail) {
                collect(&message, &mut found, 0);
            }
            found
        }));
        match parsed {
            Ok(f) => found = f,
            Err(_) => unreadable = true,
        }
    }
    let mut logs = found.result()?;
    if logs.is_empty() {
        // Not a mail (or a mail whose structure hid the block): a pasted text.
        // Armor is ASCII, so a lossy decoding of other bytes does not matter.
        let text = String::from_utf8_lossy(raw);
        logs = dearmor_all(&text)?;
    }
    if logs.is_empty() && unreadable {
        return Err(MailError::UnreadableMail);
    }
    let mut distinct: Vec<Vec<u8>> = Vec::new();
    for log in logs {
        if log.len() > limit {
            return Err(MailError::TooLarge { limit });
        }
        if !distinct.contains(&log) {
            distinct.push(log);
        }
    }
    Ok(distinct)
}

/// The mail inside `raw` when `raw` looks like a mail: an optional mbox
/// `From ` line, then a header field (`Name: value`). `None` for a text.
fn mail_bytes(raw: &[u8]) -> Option<&[u8]> {
    let mut rest = raw
        .strip_prefix(b"\xef\xbb\xbf")
        .unwrap_or(raw)
        .trim_ascii_start();
    if rest.starts_with(b"From ") {
        let end = rest.iter().position(|&b| b == b'\n')?;
        rest = &rest[end + 1..];
    }
    let colon = rest.iter().position(|&b| b == b':')?;
    let name = &rest[..colon];
    let is_field_name = !name.is_empty() && name.iter().all(|&b| b.is_ascii_graphic() && b != b':');
    is_field_name.then_some(rest)
}

#[derive(Default)]
struct Found {
    attached: Vec<Vec<u8>>,
    in_text: Vec<Vec<u8>>,
    text_error: Option<MailError>,
    in_html: Vec<Vec<u8>>,
    html_error: Option<MailError>,
}

impl Found {
    fn result(self) -> Result<Vec<Vec<u8>>, MailError> {
        if !self.attached.is_empty() {
            let mut all = self.attached;
            all.extend(self.in_text);
            return Ok(all);
        }
        if let Some(e) = self.text_error {
            return Err(e);
        }
        if !self.in_text.is_empty() {
            return Ok(self.in_text);
        }
        if let Some(e) = self.html_error {
            return Err(e);
        }
        Ok(self.in_html)
    }
}

/// The headers of a received mail that a robot answering it needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Headers {
    /// The first `From` address and its display name.
    pub from: Option<(String, String)>,
    /// Every address in `To` and `Cc`, as written.
    pub recipients: Vec<String>,
    /// Without angle brackets.
    pub message_id: Option<String>,
    pub subject: Option<String>,
    /// Whether starry wrote this mail as it stands (its own header
    /// [`crate::compose::HEADER`], or, from before that header, a
    /// `User-Agent: starry/…`), as opposed to a mail a person wrote or
    /// forwarded, which may hold a starry mail or log inside.
    pub starry_made: bool,
}

/// Reads the headers of `raw`; `None` when it is not a mail (a pasted
/// text, or a mail too damaged to parse). Never panics (see
/// [`extract_logs`]).
pub fn headers(raw: &[u8]) -> Option<Headers> {
    let mail = mail_bytes(raw)?;
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let message = MessageParser::default().parse_headers(mail)?;
        let list = |a: Option<&mail_parser::Address<'_>>| -> Vec<(String, String)> {
            a.map(|a| {
                a.iter()
                    .filter_map(|addr| {
                        Some((
                            addr.name().unwrap_or_default().to_string(),
                            addr.address()?.to_string(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default()
        };
        let mut recipients: Vec<String> = list(message.to()).into_iter().map(|(_, e)| e).collect();
        recipients.extend(list(message.cc()).into_iter().map(|(_, e)| e));
        Some(Headers {
            from: list(message.from()).into_iter().next(),
            recipients,
            message_id: message.message_id().map(str::to_string),
            subject: message.subject().map(str::to_string),
            starry_made: is_starry_made(&message),
        })
    }))
    .ok()
    .flatten()
}

fn is_starry_made(message: &Message<'_>) -> bool {
    message.header_raw(crate::compose::HEADER).is_some()
        || message
            .header_raw("User-Agent")
            .is_some_and(|ua| ua.trim_start().starts_with("starry/"))
}

/// The fragment (`log=…`, ready for [`starry_core::link::entries_of`]) of
/// the first player link in `raw` — a mail (its text parts, decoded) or a
/// text (a link alone, or a message holding one) — or none. A link that a
/// mail program wrapped, with or without quote markers, is joined again:
/// candidates come longest first, the caller keeps the first that decodes.
/// Bounded by the input's size.
pub fn find_link(raw: &[u8]) -> Vec<String> {
    let texts: Vec<String> = match mail_bytes(raw) {
        Some(mail) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            MessageParser::default()
                .parse(mail)
                .map(|m| {
                    (0..m.text_body_count())
                        .filter_map(|i| m.body_text(i).map(|t| t.into_owned()))
                        .collect()
                })
                .unwrap_or_default()
        }))
        .unwrap_or_default(),
        None => Vec::new(),
    };
    // The input as text too: a link alone (`https://…` looks like a header
    // field to a mail parser).
    texts
        .iter()
        .find_map(|t| link_in(t))
        .or_else(|| link_in(&String::from_utf8_lossy(raw)))
        .unwrap_or_default()
}

/// [`find_link`] in one text: the link as it stands, and, when its line
/// ends with it and the lines after it are of the fragment's alphabet
/// alone, joined with them.
fn link_in(text: &str) -> Option<Vec<String>> {
    let key = starry_core::link::KEY;
    let at = text.find(&format!("#{key}"))? + 1;
    let alphabet = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let rest = &text[at + key.len()..];
    let end = rest.find(|c: char| !alphabet(c)).unwrap_or(rest.len());
    let alone = format!("{key}{}", &rest[..end]);
    let mut joined = alone.clone();
    let mut lines = rest[end..].split('\n');
    // The link's own line must end with it (blanks and a `\r` aside).
    if lines.next().is_some_and(|l| l.trim().is_empty()) {
        for line in lines {
            let mut l = line.trim();
            while let Some(r) = l.strip_prefix('>') {
                l = r.trim_start();
            }
            if l.is_empty() || !l.chars().all(alphabet) {
                break;
            }
            joined.push_str(l);
        }
    }
    Some(if joined.len() > alone.len() {
        vec![joined, alone]
    } else {
        vec![alone]
    })
}

/// Longest note [`personal_note`] returns, in characters.
pub const NOTE_CHARS: usize = 300;

/// What a person wrote in a mail that carries a starry log they forwarded or
/// pasted ("Here is our game, your move!"): the mail's own text (its text
/// parts, not those of a message attached to it), up to where the
/// forwarded or quoted text, a signature or an armored log begins; cut to
/// [`NOTE_CHARS`] characters, lines joined by a space. `None` for a mail
/// starry wrote itself, a forward with no words of its own, or no mail.
/// Never panics; the work is bounded by the mail's size.
pub fn personal_note(raw: &[u8]) -> Option<String> {
    let mail = mail_bytes(raw)?;
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // Starry's own mails (most of them) cost only their header.
        if is_starry_made(&MessageParser::default().parse_headers(mail)?) {
            return None;
        }
        let message = MessageParser::default().parse(mail)?;
        let mut words: Vec<String> = Vec::new();
        let mut chars = 0;
        // Where the paragraph being read began in `words`.
        let mut paragraph = 0;
        let link_key = format!("#{}", starry_core::link::KEY);
        'parts: for i in 0..message.text_body_count() {
            let Some(text) = message.body_text(i) else {
                continue;
            };
            for line in text.lines() {
                let line = line.trim();
                // A player link and the words that bring it (the web
                // player's mail, docs/mail.md) are no one's note.
                if line.contains(&link_key) {
                    words.truncate(paragraph);
                    break 'parts;
                }
                if ends_the_note(line) {
                    break 'parts;
                }
                if line.is_empty() {
                    paragraph = words.len();
                    continue;
                }
                if line.starts_with('>') {
                    continue;
                }
                chars += line.chars().count() + 1;
                words.push(line.to_string());
                if chars > NOTE_CHARS {
                    break 'parts;
                }
            }
        }
        let note = words.join(" ");
        let mut cut: String = note.chars().take(NOTE_CHARS).collect();
        if cut.len() < note.len() {
            cut.push('…');
        }
        (!cut.is_empty()).then(|| text::inline(&cut).into_owned())
    }))
    .ok()
    .flatten()
}

/// Where a person's own words end in a mail that forwards or quotes
/// another: the separators mail programs write above a forwarded or
/// quoted mail, a signature, an armored log.
fn ends_the_note(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    line == "--"
        || lower.contains("forwarded message")
        || lower.contains("original message")
        || lower.starts_with("begin forwarded message")
        || (line.len() >= 10 && line.bytes().all(|b| b == b'_' || b == b'-'))
        || line.starts_with(crate::armor::BEGIN)
        || (lower.starts_with("on ") && lower.ends_with(" wrote:"))
        || lower.starts_with(crate::compose::MARKER)
}

/// Nesting limit for forwarded messages (mail-parser has its own as well).
const MAX_DEPTH: usize = 8;

fn collect(message: &Message<'_>, found: &mut Found, depth: usize) {
    for part in &message.parts {
        let is_log = part
            .attachment_name()
            .is_some_and(|n| n.trim().to_ascii_lowercase().ends_with(".jsonl"))
            || part.content_type().is_some_and(|ct| {
                ct.ctype().eq_ignore_ascii_case("application")
                    && ct.subtype().is_some_and(|s| {
                        s.eq_ignore_ascii_case("x-ndjson") || s.eq_ignore_ascii_case("jsonl")
                    })
            });
        match &part.body {
            PartType::Multipart(_) => {}
            PartType::Message(inner) => {
                if depth < MAX_DEPTH {
                    collect(inner, found, depth + 1);
                }
            }
            _ if is_log => {
                // An empty attachment carries nothing; look elsewhere.
                if !part.contents().is_empty() {
                    found.attached.push(part.contents().to_vec());
                }
            }
            PartType::Text(text) => match dearmor_all(text) {
                Ok(logs) => found.in_text.extend(logs),
                Err(e) => {
                    found.text_error.get_or_insert(e);
                }
            },
            PartType::Html(html) => {
                let text = mail_parser::decoders::html::html_to_text(html);
                match dearmor_all(&text) {
                    Ok(logs) => found.in_html.extend(logs),
                    Err(e) => {
                        found.html_error.get_or_insert(e);
                    }
                }
            }
            PartType::Binary(_) | PartType::InlineBinary(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_link_is_found_even_wrapped_and_is_nobody_s_note() {
        let entries = b"{\"body\":{\"n\":1}}\n{\"body\":{\"n\":2}}\n";
        let link = starry_core::link::link_of("https://example.org/p/", entries);
        let decode = |raw: &[u8]| {
            find_link(raw)
                .into_iter()
                .find_map(|f| starry_core::link::entries_of(&f).ok())
        };
        assert_eq!(decode(link.as_bytes()).as_deref(), Some(&entries[..]));
        assert_eq!(
            decode(format!(" {link}\n").as_bytes()).as_deref(),
            Some(&entries[..])
        );
        // Wrapped at 30 columns and quoted, then a word after a blank line.
        let (head, frag) = link.split_at(40);
        let wrapped: Vec<String> = frag
            .as_bytes()
            .chunks(30)
            .map(|c| format!("> {}", std::str::from_utf8(c).unwrap()))
            .collect();
        let text = format!("> Your move:\n> {head}\n{}\n\nThanks\n", wrapped.join("\n"));
        assert_eq!(decode(text.as_bytes()).as_deref(), Some(&entries[..]));
        // A word right under the link is not part of it.
        let text = format!("{link}\nThanks\n");
        assert_eq!(decode(text.as_bytes()).as_deref(), Some(&entries[..]));
        assert!(find_link(b"no link here").is_empty());

        // In a mail: its sentence and link are not a note; words above are.
        let mail = |body: &str| {
            format!(
                "From: Ann <ann@example.org>\r\nTo: ben@example.org\r\nSubject: [starry] \
                 Starry Sky 3f2a9c1e\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; \
                 charset=utf-8\r\n\r\n{body}"
            )
        };
        let plain = mail(&format!(
            "I played. Play in your browser, nothing to install:\r\n{link}\r\n"
        ));
        assert_eq!(personal_note(plain.as_bytes()), None);
        assert_eq!(decode(plain.as_bytes()).as_deref(), Some(&entries[..]));
        let with_words = mail(&format!(
            "Good luck!\r\n\r\nI played. Play in your browser:\r\n{link}\r\n"
        ));
        assert_eq!(
            personal_note(with_words.as_bytes()).as_deref(),
            Some("Good luck!")
        );
    }
    use crate::armor::armor;
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;

    const LOG: &[u8] = b"{\"body\":{\"kind\":\"genesis\",\"game\":\"starry-sky\",\"v\":1},\"sig\":\"c2lnbmF0dXJl\"}\n\
{\"body\":{\"kind\":\"join\",\"seat\":1,\"name\":\"B\xc3\xa9a\"},\"sig\":\"b3RoZXI=\"}\n";
    const OTHER: &[u8] =
        b"{\"body\":{\"kind\":\"genesis\",\"game\":\"star-map\"},\"sig\":\"eA==\"}\n";
    const LIMIT: usize = 1 << 20;

    fn wrap76(data: &[u8]) -> String {
        STANDARD
            .encode(data)
            .as_bytes()
            .chunks(76)
            .map(|c| format!("{}\r\n", std::str::from_utf8(c).unwrap()))
            .collect()
    }

    /// A multipart mail as a typical client sends it: text part in
    /// quoted-printable with the armored copy, the log as a base64
    /// attachment, CRLF line ends.
    fn multipart_eml(text_body: &str, attachment: &[u8]) -> Vec<u8> {
        let mut s = String::new();
        s.push_str("Return-Path: <alice@example.org>\r\n");
        s.push_str("From: Alice <alice@example.org>\r\n");
        s.push_str("To: Bob <bob@example.org>\r\n");
        s.push_str("Subject: =?UTF-8?Q?Starry_Sky:_your_turn_=E2=98=85?=\r\n");
        s.push_str("Date: Tue, 4 Mar 2025 10:00:00 +0100\r\n");
        s.push_str("Message-ID: <abc@example.org>\r\n");
        s.push_str("MIME-Version: 1.0\r\n");
        s.push_str("Content-Type: multipart/mixed; boundary=\"XyZ\"\r\n\r\n");
        s.push_str("This is a multi-part message in MIME format.\r\n");
        s.push_str("--XyZ\r\n");
        s.push_str("Content-Type: text/plain; charset=utf-8\r\n");
        s.push_str("Content-Transfer-Encoding: quoted-printable\r\n\r\n");
        s.push_str(&qp(text_body));
        s.push_str("\r\n--XyZ\r\n");
        s.push_str("Content-Type: application/x-ndjson; name=\"game-1.jsonl\"\r\n");
        s.push_str("Content-Disposition: attachment; filename=\"game-1.jsonl\"\r\n");
        s.push_str("Content-Transfer-Encoding: base64\r\n\r\n");
        s.push_str(&wrap76(attachment));
        s.push_str("--XyZ--\r\n");
        s.into_bytes()
    }

    /// A quoted-printable encoder that really escapes `=` (as `=3D`), so the
    /// armor's padding only survives if the parser decodes QP.
    fn qp(text: &str) -> String {
        let mut out = String::new();
        for line in text.split('\n') {
            let mut col = 0;
            for b in line.bytes() {
                let piece = if b == b'=' || !(32..127).contains(&b) {
                    format!("={b:02X}")
                } else {
                    (b as char).to_string()
                };
                if col + piece.len() > 73 {
                    out.push_str("=\r\n");
                    col = 0;
                }
                col += piece.len();
                out.push_str(&piece);
            }
            out.push_str("\r\n");
        }
        out
    }

    fn body_with(log: &[u8]) -> String {
        format!("Bob, it is your turn.\n\n{}\n-- \nstarry\n", armor(log))
    }

    /// A turn mail made by another MIME implementation (Python's `email`
    /// package, policy SMTP): CRLF, quoted-printable text with the armored
    /// copy, base64 `application/x-ndjson` attachment, encoded-word headers.
    #[test]
    fn python_email_fixture() {
        let eml: &[u8] = include_bytes!("testdata/python-email-multipart.eml");
        assert_eq!(extract_logs(eml, LIMIT).unwrap(), vec![LOG.to_vec()]);
        let lf = String::from_utf8(eml.to_vec())
            .unwrap()
            .replace("\r\n", "\n");
        assert_eq!(
            extract_logs(lf.as_bytes(), LIMIT).unwrap(),
            vec![LOG.to_vec()]
        );
        // Without the attachment, the quoted-printable armored copy alone.
        let cut = &eml[..find(eml, b"Content-Type: application/x-ndjson").unwrap()];
        assert_eq!(extract_logs(cut, LIMIT).unwrap(), vec![LOG.to_vec()]);
    }

    fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
        hay.windows(needle.len()).position(|w| w == needle)
    }

    #[test]
    fn pasted_mail_source_with_leading_blank_line() {
        let eml = multipart_eml(&body_with(LOG), LOG);
        let mut pasted = b"\n\n  ".to_vec();
        pasted.extend_from_slice(&eml);
        assert_eq!(extract_logs(&pasted, LIMIT).unwrap(), vec![LOG.to_vec()]);
    }

    #[test]
    fn armor_copied_from_quoted_printable_source() {
        let eml = multipart_eml(&body_with(LOG), LOG);
        let s = String::from_utf8(eml).unwrap();
        let start = s.find("-----BEGIN").unwrap();
        let end = s.find("-----END STARRY LOG-----").unwrap() + 24;
        let err = extract_logs(&s.as_bytes()[start..end], LIMIT).unwrap_err();
        assert!(err.to_string().contains("quoted-printable"), "{err}");
    }

    #[test]
    fn pasted_text() {
        let text = format!("here you go:\n{}thanks", armor(LOG));
        assert_eq!(
            extract_logs(text.as_bytes(), LIMIT).unwrap(),
            vec![LOG.to_vec()]
        );
    }

    #[test]
    fn pasted_text_that_starts_like_a_header() {
        let text = format!("Note: my move\n{}", armor(LOG));
        assert_eq!(
            extract_logs(text.as_bytes(), LIMIT).unwrap(),
            vec![LOG.to_vec()]
        );
    }

    #[test]
    fn pasted_crlf_and_quoted() {
        let text: String = armor(LOG).lines().map(|l| format!("> {l}\r\n")).collect();
        assert_eq!(
            extract_logs(text.as_bytes(), LIMIT).unwrap(),
            vec![LOG.to_vec()]
        );
    }

    #[test]
    fn multipart_with_attachment_and_armor_merged() {
        let eml = multipart_eml(&body_with(LOG), LOG);
        let s = String::from_utf8(eml.clone()).unwrap();
        assert!(s.contains("=3D"), "the QP encoder must escape the padding");
        assert_eq!(extract_logs(&eml, LIMIT).unwrap(), vec![LOG.to_vec()]);
    }

    #[test]
    fn mbox_from_line_and_lf() {
        let eml = multipart_eml(&body_with(LOG), LOG);
        let lf = String::from_utf8(eml).unwrap().replace("\r\n", "\n");
        let mbox = format!("From alice@example.org Tue Mar  4 10:00:00 2025\n{lf}");
        assert_eq!(
            extract_logs(mbox.as_bytes(), LIMIT).unwrap(),
            vec![LOG.to_vec()]
        );
    }

    #[test]
    fn attachment_only() {
        let eml = multipart_eml("Your turn (log attached).\n", LOG);
        assert_eq!(extract_logs(&eml, LIMIT).unwrap(), vec![LOG.to_vec()]);
    }

    #[test]
    fn attachment_by_name_only() {
        let eml = multipart_eml("Your turn.\n", LOG);
        let s = String::from_utf8(eml)
            .unwrap()
            .replace("application/x-ndjson", "application/octet-stream");
        assert_eq!(
            extract_logs(s.as_bytes(), LIMIT).unwrap(),
            vec![LOG.to_vec()]
        );
    }

    #[test]
    fn attachment_by_type_only() {
        let eml = multipart_eml("Your turn.\n", LOG);
        let s = String::from_utf8(eml)
            .unwrap()
            .replace("game-1.jsonl", "game-1.txt")
            .replace("application/x-ndjson", "application/jsonl");
        assert_eq!(
            extract_logs(s.as_bytes(), LIMIT).unwrap(),
            vec![LOG.to_vec()]
        );
    }

    #[test]
    fn quoted_printable_single_part() {
        let eml = format!(
            "From: a@example.org\r\nTo: b@example.org\r\nSubject: turn\r\nMIME-Version: 1.0\r\n\
             Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n{}",
            qp(&body_with(LOG))
        );
        assert!(eml.contains("=3D"));
        assert_eq!(
            extract_logs(eml.as_bytes(), LIMIT).unwrap(),
            vec![LOG.to_vec()]
        );
    }

    #[test]
    fn latin1_body_decoded_by_charset() {
        let mut eml = b"From: a@example.org\r\nTo: b@example.org\r\nSubject: tour\r\n\
Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n\
\xc0 toi de jouer, Ren\xe9e !\r\n"
            .to_vec();
        eml.extend_from_slice(armor(LOG).replace('\n', "\r\n").as_bytes());
        eml.extend_from_slice(b"\xe0 bient\xf4t\r\n");
        assert!(std::str::from_utf8(&eml).is_err());
        assert_eq!(extract_logs(&eml, LIMIT).unwrap(), vec![LOG.to_vec()]);
    }

    #[test]
    fn non_utf8_without_charset_and_without_log() {
        let eml = b"From: a@example.org\r\nSubject: x\r\n\r\n\xff\xfe\xc0 nothing here\r\n";
        assert!(matches!(extract_logs(eml, LIMIT), Err(MailError::NoLog)));
        let text = b"\xff\xfe\xc0\x00 nothing";
        assert!(matches!(extract_logs(text, LIMIT), Err(MailError::NoLog)));
    }

    #[test]
    fn latin1_pasted_text_with_armor() {
        let mut text = b"Voil\xe0:\n".to_vec();
        text.extend_from_slice(armor(LOG).as_bytes());
        assert_eq!(extract_logs(&text, LIMIT).unwrap(), vec![LOG.to_vec()]);
    }

    #[test]
    fn html_only() {
        let html = format!(
            "<html><body><p>Your turn</p><pre>{}</pre></body></html>",
            armor(LOG).replace('\n', "<br>\n")
        );
        let eml = format!(
            "From: a@example.org\r\nTo: b@example.org\r\nSubject: turn\r\nMIME-Version: 1.0\r\n\
             Content-Type: text/html; charset=utf-8\r\n\r\n{html}"
        );
        assert_eq!(
            extract_logs(eml.as_bytes(), LIMIT).unwrap(),
            vec![LOG.to_vec()]
        );
    }

    #[test]
    fn forwarded_message() {
        let inner = String::from_utf8(multipart_eml("Your turn.\n", LOG)).unwrap();
        let eml = format!(
            "From: c@example.org\r\nTo: b@example.org\r\nSubject: Fwd: turn\r\nMIME-Version: 1.0\r\n\
             Content-Type: multipart/mixed; boundary=\"outer\"\r\n\r\n--outer\r\n\
             Content-Type: text/plain\r\n\r\nforwarding\r\n--outer\r\nContent-Type: message/rfc822\r\n\r\n\
             {inner}\r\n--outer--\r\n"
        );
        assert_eq!(
            extract_logs(eml.as_bytes(), LIMIT).unwrap(),
            vec![LOG.to_vec()]
        );
    }

    #[test]
    fn a_persons_note_and_what_is_not_one() {
        let forward = |note: &str, extra_headers: &str| {
            format!(
                "From: Ben <ben@x.example>\r\nSubject: Fwd: a game\r\n{extra_headers}\
                 Content-Type: multipart/mixed; boundary=\"o\"\r\n\r\n--o\r\n\
                 Content-Type: text/plain\r\n\r\n{note}\r\n--o\r\n\
                 Content-Type: message/rfc822\r\n\r\nSubject: [starry] x\r\n\
                 X-Starry-Log: g.jsonl\r\n\r\nIt is your turn.\r\n\r\n--o--\r\n"
            )
            .into_bytes()
        };
        assert_eq!(
            personal_note(&forward("Here it is,\r\n\r\nyour move!", "")).as_deref(),
            Some("Here it is, your move!")
        );
        // A forward with nothing of its own, and what follows the markers
        // of quoted or forwarded text, a signature, or an armored log.
        assert_eq!(personal_note(&forward("", "")), None);
        for tail in [
            "---------- Forwarded message ---------\r\nFrom: Anna",
            "-------- Forwarded Message --------\r\nSubject: x",
            "-----Original Message-----\r\nFrom: Anna",
            "Begin forwarded message:\r\n\r\nFrom: Anna",
            "On Monday, Anna wrote:\r\n> It is your turn",
            "-- \r\nBen's signature",
            "-----BEGIN STARRY LOG-----\r\nAAAA",
            "> quoted only",
        ] {
            assert_eq!(personal_note(&forward(tail, "")), None, "{tail}");
            assert_eq!(
                personal_note(&forward(&format!("Hi!\r\n{tail}"), "")).as_deref(),
                Some("Hi!"),
                "{tail}"
            );
        }
        // A mail starry wrote holds no person's note, even with text.
        assert_eq!(
            personal_note(&forward("Hi", "X-Starry-Log: g.jsonl\r\n")),
            None
        );
        assert_eq!(
            personal_note(&forward("Hi", "User-Agent: starry/0.9\r\n")),
            None
        );
        assert!(
            headers(&forward("Hi", "X-Starry-Log: g.jsonl\r\n"))
                .unwrap()
                .starry_made
        );
        assert!(!headers(&forward("Hi", "")).unwrap().starry_made);
        // Cut, and made one safe line.
        let long = format!("\u{1b}[2J{}", "word ".repeat(200));
        let note = personal_note(&forward(&long, "")).unwrap();
        assert!(
            note.chars().count() <= NOTE_CHARS + 12 && note.ends_with('…'),
            "{note}"
        );
        assert!(!note.contains('\u{1b}'), "{note}");
        assert_eq!(personal_note(b"just text, no mail"), None);
    }

    #[test]
    fn two_different_logs() {
        let eml = multipart_eml(&body_with(OTHER), LOG);
        let err = extract_logs(&eml, LIMIT).unwrap_err();
        assert!(
            matches!(err, MailError::SeveralLogs { count: 2 }),
            "{err:?}"
        );
        assert!(err.to_string().contains("2 different"));
        assert_eq!(
            find_logs(&eml, LIMIT).unwrap(),
            vec![LOG.to_vec(), OTHER.to_vec()]
        );

        let text = format!("{}\n{}", armor(LOG), armor(OTHER));
        assert!(matches!(
            extract_logs(text.as_bytes(), LIMIT),
            Err(MailError::SeveralLogs { count: 2 })
        ));
    }

    #[test]
    fn identical_duplicates_merged() {
        let text = format!(
            "{}\n> {}\n{}",
            armor(LOG),
            armor(LOG).replace('\n', "\n> "),
            armor(LOG)
        );
        assert_eq!(
            extract_logs(text.as_bytes(), LIMIT).unwrap(),
            vec![LOG.to_vec()]
        );
    }

    #[test]
    fn no_log() {
        let err = extract_logs(b"just some words\n", LIMIT).unwrap_err();
        assert!(matches!(err, MailError::NoLog));
        let msg = err.to_string();
        assert!(
            msg.contains(".jsonl") && msg.contains("BEGIN STARRY LOG"),
            "{msg}"
        );
        let eml = b"From: a@example.org\r\nSubject: hello\r\n\r\nno game here\r\n";
        assert!(matches!(extract_logs(eml, LIMIT), Err(MailError::NoLog)));
        assert!(matches!(extract_logs(b"", LIMIT), Err(MailError::NoLog)));
    }

    #[test]
    fn too_large() {
        let text = armor(LOG);
        let err = extract_logs(text.as_bytes(), 100).unwrap_err();
        assert!(matches!(err, MailError::TooLarge { limit: 100 }), "{err:?}");
        assert!(err.to_string().contains("100 bytes"));
        // The input fits, the decoded log does not.
        let limit = text.len();
        let err = extract_logs(text.as_bytes(), LOG.len() - 1).unwrap_err();
        assert!(matches!(err, MailError::TooLarge { .. }));
        assert!(extract_logs(text.as_bytes(), limit).is_ok());
    }

    #[test]
    fn truncated_armor_in_mail() {
        let cut: String = armor(LOG)
            .lines()
            .take(2)
            .map(|l| format!("{l}\n"))
            .collect();
        let eml = format!(
            "From: a@example.org\r\nSubject: turn\r\n\r\nhello\r\n{}",
            cut.replace('\n', "\r\n")
        );
        let err = extract_logs(eml.as_bytes(), LIMIT).unwrap_err();
        assert!(
            matches!(
                err,
                MailError::Armor(crate::armor::ArmorError::Truncated { line: 2 })
            ),
            "{err:?}"
        );
    }

    #[test]
    fn bad_base64_in_pasted_text() {
        let mut lines: Vec<String> = armor(LOG).lines().map(str::to_string).collect();
        lines[1].replace_range(0..1, "*");
        let err = extract_logs(lines.join("\n").as_bytes(), LIMIT).unwrap_err();
        assert!(
            matches!(
                err,
                MailError::Armor(crate::armor::ArmorError::Bad { line: 2, .. })
            ),
            "{err:?}"
        );
    }

    #[test]
    fn damaged_text_copy_ignored_when_attached() {
        let mut body = body_with(LOG);
        body = body.replacen("-----END STARRY LOG-----", "", 1);
        let eml = multipart_eml(&body, LOG);
        assert_eq!(extract_logs(&eml, LIMIT).unwrap(), vec![LOG.to_vec()]);
    }

    /// Found by the fuzzer: makes mail-parser 0.11.9 panic (a debug
    /// assertion, "Invalid part ID, could not find multipart"). In a debug
    /// build the panic happens and must be contained.
    #[test]
    fn mail_parser_panic_is_contained() {
        let eml: &[u8] = include_bytes!("testdata/mail-parser-panic.eml");
        match extract_logs(eml, LIMIT) {
            Ok(logs) => assert_eq!(logs.len(), 1),
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }

    /// Also found by the fuzzer: a soft line break right before the boundary
    /// makes mail-parser 0.11.9 subtract with overflow
    /// (decoders/quoted_printable.rs:138) in a debug build.
    #[test]
    fn mail_parser_qp_overflow_is_contained() {
        let eml: &[u8] = include_bytes!("testdata/mail-parser-qp-overflow.eml");
        assert!(matches!(
            extract_logs(eml, LIMIT),
            Err(MailError::UnreadableMail | MailError::NoLog)
        ));
    }

    #[test]
    fn garbage_never_panics() {
        let samples: [&[u8]; 8] = [
            b"From \n",
            b"From:",
            b"a:\r\n\r\n--",
            b"Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\n--x--",
            b"Content-Type: message/rfc822\r\n\r\nContent-Type: message/rfc822\r\n\r\n",
            b"-----BEGIN STARRY LOG-----",
            b"\xff\xff:\xff",
            b"X: y\r\nContent-Transfer-Encoding: base64\r\n\r\n====",
        ];
        for s in samples {
            let _ = extract_logs(s, LIMIT);
        }
    }
}
