//! Building a turn mail:
//!
//! ```text
//! multipart/mixed
//! ├── multipart/alternative
//! │   ├── text/plain                the text the caller wrote
//! │   └── multipart/related         (when there is a picture)
//! │       ├── text/html             refers to the picture as cid:board…
//! │       └── image/png             the board, inline
//! └── application/x-ndjson          the log (or the entries the recipient lacks)
//! ```
//!
//! Without a picture, the `text/html` part stands in the
//! `multipart/alternative` itself; without an HTML part, the `text/plain`
//! part stands in the `multipart/mixed`.
//!
//! The log travels once, as the attachment. (Older mails also carried it
//! armored at the end of the text; `starry ingest` still reads those.)

use lettre::Message;
use lettre::message::header::{ContentTransferEncoding, ContentType};
use lettre::message::{Attachment, Body, Mailbox, MultiPart, SinglePart};

use super::MailError;
use super::armor::armor;
use starry_core::text;

/// Content type of the attached log (newline-delimited JSON).
pub const LOG_CONTENT_TYPE: &str = "application/x-ndjson";

/// The header every starry mail carries (its value: the attached log's file
/// name), so that a server can find starry's own mails by their header
/// (`SEARCH HEADER X-Starry-Log ""`, a Sieve rule) whatever their subject.
pub const HEADER: &str = "X-Starry-Log";

/// The word in the last line of every starry mail's text (and HTML) part.
/// A header of the mail is gone once the mail is forwarded as an attachment
/// or inline, and servers do not search the headers of MIME parts
/// (Dovecot's `SEARCH BODY` does not find `x-ndjson` there); the text of
/// every part is what every server indexes, so `SEARCH BODY "starrylog"`
/// finds a starry mail forwarded either way. One word of letters, so that a
/// full-text index (which splits at punctuation) finds it too.
pub const MARKER: &str = "starrylog";

/// The last line of the text part: the marker, with words that say what it
/// is to the person reading the mail. It follows a signature separator
/// (`-- `), which mail programs leave out of a reply's quote, so a
/// person's reply that quotes the mail rarely carries the marker on.
pub fn marker_line(log_file_name: &str) -> String {
    format!(
        "{MARKER} {log_file_name}: this mail carries the game's log; `starry sync` or `starry \
         ingest` takes it in."
    )
}

/// Everything a turn mail needs. The caller fills the text and the subject.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TurnMail {
    /// Sender's display name; may be empty.
    pub from_name: String,
    /// Sender's address, `user@domain`.
    pub from_email: String,
    /// Recipient's display name; may be empty.
    pub to_name: String,
    /// Recipient's address, `user@domain`.
    pub to_email: String,
    /// Subject line (any Unicode).
    pub subject: String,
    /// The text part (any Unicode).
    pub body_text: String,
    /// The HTML part, if any; it may show the picture as
    /// `<img src="cid:CONTENT-ID">` with [`TurnMail::picture_id`].
    pub body_html: Option<String>,
    /// The board as PNG, shown inline by the HTML part.
    pub picture: Option<Vec<u8>>,
    /// The picture's Content-ID (without angle brackets).
    pub picture_id: String,
    /// The Message-ID, without angle brackets (`local@domain`); None makes
    /// a random one.
    pub message_id: Option<String>,
    /// Message-IDs this mail answers (In-Reply-To: the first; References:
    /// all, oldest first), without angle brackets.
    pub references: Vec<String>,
    /// File name of the attached log, e.g. `starry-sky-1a2b3c.jsonl`.
    pub log_file_name: String,
    /// The log, attached byte for byte.
    pub log: Vec<u8>,
    /// Sent by a program on its own (the robot): the mail says so with
    /// `Auto-Submitted: auto-replied` (RFC 3834), so that vacation
    /// responders and other robots do not answer it.
    pub auto_submitted: bool,
}

/// `text`, then a blank line, then the armored `log`, so a reader whose mail
/// program loses the attachment can still paste the block into
/// `starry ingest`.
pub fn body_with_armor(text: &str, log: &[u8]) -> String {
    let mut out = text.trim_end().to_string();
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(&armor(log));
    out
}

/// Longest display name put into a header, in characters: a name from a
/// log has at most [`text::MAX_NAME_CHARS`], but one from the settings or
/// a received mail could be any length.
pub const MAX_DISPLAY_NAME: usize = text::MAX_NAME_CHARS;

/// A display name as every mail shows it: [`text::inline`], trimmed, and
/// cut to [`MAX_DISPLAY_NAME`] characters with "…". Every header is built
/// through [`mailbox`], so no mail of any kind carries a longer name.
pub fn display_name(name: &str) -> String {
    let name = text::inline(name.trim());
    let name = name.trim();
    if name.chars().count() <= MAX_DISPLAY_NAME {
        return name.to_string();
    }
    let mut cut: String = name.chars().take(MAX_DISPLAY_NAME - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// A mailbox for a header. The display name comes from a log and is hostile:
/// it is made [`display_name`] (no line break, control or bidi character can
/// reach the header, and it is short) before lettre encodes it; the address
/// is parsed, and a bad one is an error quoting at most an excerpt. Never
/// panics.
fn mailbox(field: &'static str, name: &str, email: &str) -> Result<Mailbox, MailError> {
    let address = email
        .trim()
        .parse()
        .map_err(|e: lettre::address::AddressError| MailError::Address {
            field,
            value: text::excerpt(email),
            reason: e.to_string(),
        })?;
    let name = display_name(name);
    Ok(Mailbox::new((!name.is_empty()).then_some(name), address))
}

/// Builds the turn mail: `multipart/mixed` with the text part and the log as
/// a base64 attachment of type `application/x-ndjson` named
/// `m.log_file_name`. Date and Message-ID are set.
///
/// Every header value is made [`text::inline`] (names, subject), so text
/// from a log can neither add a header nor put a control character into
/// one; the text part is made [`text::terminal`], so no escape sequence
/// reaches a terminal mail reader.
pub fn compose(m: &TurnMail) -> Result<Message, MailError> {
    let from = mailbox("sender", &m.from_name, &m.from_email)?;
    let to = mailbox("recipient", &m.to_name, &m.to_email)?;
    let file_name = m.log_file_name.trim();
    if file_name.is_empty()
        || file_name.contains(['/', '\\'])
        || file_name.chars().any(text::is_unsafe)
    {
        return Err(MailError::Build(format!(
            "the attachment name `{}` must be a plain file name",
            text::excerpt(&m.log_file_name)
        )));
    }
    let content_type = ContentType::parse(LOG_CONTENT_TYPE)
        .map_err(|e| MailError::Build(format!("content type: {e}")))?;
    // Always base64: mail servers may rewrap or re-encode anything else, and
    // a log must arrive byte for byte.
    let log_body = Body::new_with_encoding(m.log.clone(), ContentTransferEncoding::Base64)
        .map_err(|_| MailError::Build("cannot encode the log as base64".into()))?;
    let attachment = Attachment::new(file_name.to_string()).body(log_body, content_type);
    let message_id = match &m.message_id {
        Some(id) => format!("<{}>", message_id_part(id)?),
        None => {
            // The Message-ID names the sender's domain, not this computer's
            // host name.
            let mut id = [0u8; 16];
            getrandom::fill(&mut id)
                .map_err(|e| MailError::Build(format!("no randomness: {e}")))?;
            format!("<{}.starry@{}>", hex::encode(id), from.email.domain())
        }
    };
    let body = body_part(m, &marker_line(file_name))?;
    let mut builder = Message::builder()
        .message_id(Some(message_id))
        .from(from)
        .to(to)
        .subject(text::inline(&m.subject).into_owned())
        .date_now()
        .user_agent(format!("starry/{}", env!("CARGO_PKG_VERSION")))
        .raw_header(lettre::message::header::HeaderValue::new(
            lettre::message::header::HeaderName::new_from_ascii_str(HEADER),
            header_value(file_name),
        ));
    if m.auto_submitted {
        builder = builder.raw_header(lettre::message::header::HeaderValue::new(
            lettre::message::header::HeaderName::new_from_ascii_str("Auto-Submitted"),
            "auto-replied".into(),
        ));
    }
    if let Some(parent) = m.references.last() {
        builder = builder.in_reply_to(format!("<{}>", message_id_part(parent)?));
        let all = m
            .references
            .iter()
            .map(|r| message_id_part(r).map(|r| format!("<{r}>")))
            .collect::<Result<Vec<_>, _>>()?;
        builder = builder.references(all.join(" "));
    }
    let mixed = match body {
        Part::Single(text) => MultiPart::mixed().singlepart(text),
        Part::Multi(alternative) => MultiPart::mixed().multipart(alternative),
    };
    builder
        .multipart(mixed.singlepart(attachment))
        .map_err(|e| MailError::Build(e.to_string()))
}

/// The [`HEADER`]'s value: the log's file name when it is printable ASCII
/// (starry's are hex digits and `.jsonl`), else a fixed word: a header
/// value carries no encoded words.
fn header_value(file_name: &str) -> String {
    if file_name.len() <= 200 && file_name.bytes().all(|b| b.is_ascii_graphic()) {
        file_name.to_string()
    } else {
        "attached".to_string()
    }
}

/// `html` with the marker line as its last paragraph (before `</body>`,
/// when there is one), escaped.
fn with_marker(html: &str, marker: &str) -> String {
    let escaped = marker
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;");
    let paragraph = format!("<p style=\"color:#555\">{escaped}</p>\n");
    match html.to_ascii_lowercase().rfind("</body>") {
        Some(at) => format!("{}{paragraph}{}", &html[..at], &html[at..]),
        None => format!("{html}\n{paragraph}"),
    }
}

/// The body of a mail, before the attachment.
enum Part {
    Single(SinglePart),
    Multi(MultiPart),
}

/// The body: the text part alone when there is no HTML; else the text and
/// the HTML as `multipart/alternative`, the HTML inside
/// `multipart/related` with the picture only when there is a picture — a
/// `multipart/related` holding nothing but the HTML is no structure any
/// mail program expects. A picture the HTML does not show (no
/// `cid:PICTURE-ID` in it) would arrive as a nameless attachment: refused.
fn body_part(m: &TurnMail, marker: &str) -> Result<Part, MailError> {
    let plain = SinglePart::plain(format!(
        "{}\n\n-- \n{marker}\n",
        text::terminal(&m.body_text).trim_end()
    ));
    let Some(html) = &m.body_html else {
        if m.picture.is_some() {
            return Err(MailError::Build(
                "a picture needs an HTML part that shows it".into(),
            ));
        }
        return Ok(Part::Single(plain));
    };
    let html_part = SinglePart::html(with_marker(&text::terminal(html), marker));
    let Some(png) = &m.picture else {
        return Ok(Part::Multi(
            MultiPart::alternative()
                .singlepart(plain)
                .singlepart(html_part),
        ));
    };
    let cid = message_id_part(&m.picture_id)?;
    if !html.contains(&format!("cid:{cid}")) {
        return Err(MailError::Build(format!(
            "the HTML part does not show the picture `{}` (no `cid:` refers to it)",
            text::excerpt(cid)
        )));
    }
    let png_type = ContentType::parse("image/png")
        .map_err(|e| MailError::Build(format!("content type: {e}")))?;
    let related = MultiPart::related().singlepart(html_part).singlepart(
        Attachment::new_inline_with_name(cid.to_string(), "board.png".into())
            .body(png.clone(), png_type),
    );
    Ok(Part::Multi(
        MultiPart::alternative()
            .singlepart(plain)
            .multipart(related),
    ))
}

/// A Message-ID or Content-ID without its angle brackets: `local@domain`
/// of printable ASCII, no blank, no bracket; refused otherwise, since it
/// goes into a header.
fn message_id_part(id: &str) -> Result<&str, MailError> {
    let ok = id.len() <= 200
        && id.matches('@').count() == 1
        && !id.starts_with('@')
        && !id.ends_with('@')
        && id.bytes().all(|b| {
            b.is_ascii_graphic()
                && !matches!(
                    b,
                    b'<' | b'>' | b'"' | b'\\' | b'(' | b')' | b',' | b';' | b':' | b'[' | b']'
                )
        });
    if ok {
        Ok(id)
    } else {
        Err(MailError::Build(format!(
            "`{}` is not a usable message id",
            text::excerpt(id)
        )))
    }
}

/// The message as it goes on the wire (RFC 5322, CRLF line ends): what to
/// write to a `.eml` file.
pub fn to_eml(msg: &Message) -> Vec<u8> {
    msg.formatted()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::extract_logs;

    pub(crate) fn sample() -> TurnMail {
        let log = [
            b"{\"body\":{\"kind\":\"genesis\",\"game\":\"starry-sky\"},\"sig\":\"AAAA\"}\n".as_slice(),
            b"{\"body\":{\"kind\":\"move\",\"text\":\"caf\xc3\xa9 \xe2\x98\x85\"},\"sig\":\"BBBB\"}\n",
        ]
        .concat();
        TurnMail {
            from_name: "Alice Ärger".into(),
            from_email: "alice@example.org".into(),
            to_name: "Bob".into(),
            to_email: "bob@example.org".into(),
            subject: "Starry Sky ★ game 1a2b: your turn".into(),
            body_text: body_with_armor("Bob, it is your turn.\nÉtoile!", &log),
            log_file_name: "starry-sky-1a2b.jsonl".into(),
            log,
            ..Default::default()
        }
    }

    #[test]
    fn round_trip_through_parse() {
        let m = sample();
        let eml = to_eml(&compose(&m).unwrap());
        assert!(eml.is_ascii(), "the wire form is 7-bit");
        let text = String::from_utf8(eml.clone()).unwrap();
        assert!(text.contains("multipart/mixed"));
        assert!(text.contains("application/x-ndjson"));
        assert!(text.contains("starry-sky-1a2b.jsonl"));
        assert!(
            text.contains("Message-ID: <") && text.contains(".starry@example.org>"),
            "{text}"
        );
        assert_eq!(extract_logs(&eml, 1 << 20).unwrap(), vec![m.log.clone()]);
    }

    #[test]
    fn attachment_alone_round_trips() {
        let mut m = sample();
        m.body_text = "no armor here".into();
        let eml = to_eml(&compose(&m).unwrap());
        assert_eq!(extract_logs(&eml, 1 << 20).unwrap(), vec![m.log]);
    }

    #[test]
    fn envelope() {
        let msg = compose(&sample()).unwrap();
        let env = msg.envelope();
        assert_eq!(env.from().unwrap().to_string(), "alice@example.org");
        assert_eq!(env.to()[0].to_string(), "bob@example.org");
    }

    #[test]
    fn bad_addresses() {
        let mut m = sample();
        m.to_email = "bob at example".into();
        let err = compose(&m).unwrap_err();
        assert!(
            matches!(
                err,
                MailError::Address {
                    field: "recipient",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("bob at example"));
        let mut m = sample();
        m.from_email = "".into();
        assert!(matches!(
            compose(&m).unwrap_err(),
            MailError::Address {
                field: "sender",
                ..
            }
        ));
    }

    #[test]
    fn bad_file_name() {
        let mut m = sample();
        m.log_file_name = "../x.jsonl".into();
        assert!(matches!(compose(&m).unwrap_err(), MailError::Build(_)));
    }

    /// The header section of a wire-form mail, unfolded: one entry per field.
    fn header_fields(eml: &[u8]) -> Vec<String> {
        let text = String::from_utf8(eml.to_vec()).unwrap();
        let head = &text[..text.find("\r\n\r\n").unwrap()];
        let mut fields: Vec<String> = Vec::new();
        for line in head.split("\r\n") {
            if line.starts_with([' ', '\t']) {
                fields.last_mut().unwrap().push_str(line);
            } else {
                fields.push(line.to_string());
            }
        }
        fields
    }

    #[test]
    fn hostile_names_cannot_add_headers_or_reach_a_terminal() {
        let evil = "Eve\r\nBcc: x@evil.org\u{1b}[2J";
        let mut m = sample();
        m.to_name = evil.into();
        m.from_name = format!("Mallory\n\u{202e}\u{9b}31m{evil}");
        m.subject = format!("[starry] starry-sky 1a2b: entry 3 — {evil}, your move");
        m.body_text = body_with_armor(&format!("Hello {evil},\n\u{7}\u{9b}2J done"), &m.log);
        let eml = to_eml(&compose(&m).expect("a hostile name is no reason to panic or fail"));
        let fields = header_fields(&eml);
        let count = |name: &str| {
            fields
                .iter()
                .filter(|f| f.to_ascii_lowercase().starts_with(&format!("{name}:")))
                .count()
        };
        assert_eq!(count("subject"), 1, "{fields:#?}");
        assert_eq!(count("to"), 1, "{fields:#?}");
        assert_eq!(count("from"), 1, "{fields:#?}");
        assert_eq!(count("bcc"), 0, "{fields:#?}");
        for f in &fields {
            assert!(!f.contains(['\r', '\n', '\u{1b}']), "{f:?}");
        }
        // Decoded (encoded words undone), the header values are still clean,
        // and the mail still has exactly one recipient.
        let parsed = mail_parser::MessageParser::default().parse(&eml).unwrap();
        let to = parsed.to().unwrap();
        assert_eq!(to.iter().count(), 1);
        assert_eq!(to.first().unwrap().address(), Some("bob@example.org"));
        assert!(parsed.bcc().is_none());
        let shown = [
            to.first().unwrap().name().unwrap_or_default(),
            parsed
                .from()
                .unwrap()
                .first()
                .unwrap()
                .name()
                .unwrap_or_default(),
            parsed.subject().unwrap(),
        ];
        for s in shown {
            assert!(!s.chars().any(text::is_unsafe), "{s:?}");
            // The sender's name, escaped, is longer than a display name may
            // be: it is cut.
            assert!(
                s.contains("Eve\\u{d}\\u{a}Bcc: x@evil.org\\u{1b}[2J")
                    || (s.starts_with("Mallory\\u{a}\\u{202e}\\u{9b}31mEve\\u{d}\\u{a}Bcc")
                        && s.ends_with('…')
                        && s.chars().count() == MAX_DISPLAY_NAME),
                "{s:?}"
            );
        }
        // The text part: no escape sequence, no bell, no one-byte CSI; the
        // log itself, attached and armored, is untouched.
        // (The wire's CRLF line ends are the mail's own.)
        let body = parsed.body_text(0).unwrap().replace("\r\n", "\n");
        assert!(
            !body
                .chars()
                .any(|c| text::is_unsafe(c) && c != '\n' && c != '\t'),
            "{body:?}"
        );
        // compose keeps line breaks in the text (the caller makes names
        // inline where it inserts them); the CR and the ESC are escaped.
        assert!(
            body.contains("Hello Eve\\u{d}\nBcc: x@evil.org\\u{1b}[2J"),
            "{body}"
        );
        assert_eq!(extract_logs(&eml, 1 << 20).unwrap(), vec![m.log.clone()]);
        // The envelope is what the addresses say, nothing more.
        let msg = compose(&m).unwrap();
        assert_eq!(msg.envelope().to().len(), 1);
    }

    #[test]
    fn errors_quote_at_most_an_excerpt() {
        let mut m = sample();
        m.to_email = format!("\u{1b}[2J{}", "x".repeat(100_000));
        let err = compose(&m).unwrap_err().to_string();
        assert!(err.len() < 400, "{}", err.len());
        assert!(!err.contains('\u{1b}'));
        let mut m = sample();
        m.log_file_name = format!("a\u{1b}{}.jsonl", "y".repeat(100_000));
        let err = compose(&m).unwrap_err().to_string();
        assert!(err.len() < 400 && !err.contains('\u{1b}'), "{err}");
    }

    #[test]
    fn auto_submitted_only_when_asked_and_names_are_capped() {
        let eml = String::from_utf8(to_eml(&compose(&sample()).unwrap())).unwrap();
        assert!(!eml.contains("Auto-Submitted"), "{eml}");
        let mut m = sample();
        m.auto_submitted = true;
        m.from_name = "R".repeat(10_000);
        m.to_name = format!("{} x", "é".repeat(64));
        let eml = to_eml(&compose(&m).unwrap());
        assert!(eml.len() < 4000, "{}", eml.len());
        let fields = header_fields(&eml);
        assert!(fields.contains(&"Auto-Submitted: auto-replied".to_string()));
        let parsed = mail_parser::MessageParser::default().parse(&eml).unwrap();
        let from = parsed.from().unwrap().first().unwrap().name().unwrap();
        assert_eq!(from, format!("{}…", "R".repeat(63)));
        let to = parsed.to().unwrap().first().unwrap().name().unwrap();
        assert_eq!(to, format!("{}…", "é".repeat(63)));
        assert_eq!(display_name("  Anna  "), "Anna");
        assert_eq!(display_name(&"a".repeat(64)), "a".repeat(64));
    }

    /// The MIME structure of a wire-form mail as mail_parser reads it, e.g.
    /// `multipart/mixed[text/plain,application/x-ndjson]`.
    fn tree(eml: &[u8]) -> String {
        fn walk(m: &mail_parser::Message, id: usize) -> String {
            use mail_parser::MimeHeaders;
            let part = &m.parts[id];
            let ty = part.content_type().map_or("text/plain".into(), |c| {
                format!("{}/{}", c.ctype(), c.subtype().unwrap_or_default())
            });
            match &part.body {
                mail_parser::PartType::Multipart(children) => format!(
                    "{ty}[{}]",
                    children
                        .iter()
                        .map(|&c| walk(m, c as usize))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                _ => ty,
            }
        }
        walk(
            &mail_parser::MessageParser::default().parse(eml).unwrap(),
            0,
        )
    }

    #[test]
    fn multipart_related_only_around_a_picture_the_html_shows() {
        // No HTML: the text stands in the mixed part on its own.
        let eml = to_eml(&compose(&sample()).unwrap());
        assert_eq!(
            tree(&eml),
            "multipart/mixed[text/plain,application/x-ndjson]"
        );
        // HTML without a picture: text and HTML are the two alternatives,
        // with no multipart/related around the HTML alone.
        let mut m = sample();
        m.body_html = Some("<p>Bob, it is your turn.</p>".into());
        let eml = to_eml(&compose(&m).unwrap());
        assert_eq!(
            tree(&eml),
            "multipart/mixed[multipart/alternative[text/plain,text/html],application/x-ndjson]"
        );
        // HTML showing the picture: the two in multipart/related, the
        // picture inline under the Content-ID the HTML refers to.
        m.picture_id = "board.1a2b.3@example.org".into();
        m.picture = Some(b"\x89PNG\r\n\x1a\n".to_vec());
        m.body_html = Some("<p><img src=\"cid:board.1a2b.3@example.org\"></p>".into());
        let eml = to_eml(&compose(&m).unwrap());
        assert_eq!(
            tree(&eml),
            "multipart/mixed[multipart/alternative[text/plain,\
             multipart/related[text/html,image/png]],application/x-ndjson]"
        );
        let parsed = mail_parser::MessageParser::default().parse(&eml).unwrap();
        let png = parsed
            .parts
            .iter()
            .find(|p| mail_parser::MimeHeaders::is_content_type(*p, "image", "png"))
            .unwrap();
        assert_eq!(
            mail_parser::MimeHeaders::content_id(png),
            Some("board.1a2b.3@example.org")
        );
        assert_eq!(extract_logs(&eml, 1 << 20).unwrap(), vec![m.log.clone()]);
        // A picture that nothing shows would arrive as a nameless
        // attachment: refused, with or without an HTML part.
        m.body_html = Some("<p>no picture here</p>".into());
        assert!(matches!(compose(&m).unwrap_err(), MailError::Build(_)));
        m.body_html = None;
        assert!(matches!(compose(&m).unwrap_err(), MailError::Build(_)));
    }

    #[test]
    fn every_mail_carries_the_header_and_the_marker_in_each_text_part() {
        let mut m = sample();
        m.body_html = Some("<html><body><p>Bob, it is your turn.</p></BODY></html>".into());
        let eml = to_eml(&compose(&m).unwrap());
        let fields = header_fields(&eml);
        assert!(
            fields.contains(&"X-Starry-Log: starry-sky-1a2b.jsonl".to_string()),
            "{fields:#?}"
        );
        let parsed = mail_parser::MessageParser::default().parse(&eml).unwrap();
        let text = parsed.body_text(0).unwrap().replace("\r\n", "\n");
        assert!(
            text.ends_with(&format!(
                "\n\n-- \n{}\n",
                marker_line("starry-sky-1a2b.jsonl")
            )),
            "{text}"
        );
        assert!(text.starts_with("Bob, it is your turn."), "{text}");
        let html = parsed.body_html(0).unwrap();
        let at = html.find(MARKER).expect("the marker in the HTML part");
        assert!(at < html.find("</BODY>").unwrap(), "{html}");
        // The log is still the one attached.
        assert_eq!(extract_logs(&eml, 1 << 20).unwrap(), vec![m.log.clone()]);
        // A file name that is no plain ASCII is not put into the header.
        m.log_file_name = "étoile.jsonl".into();
        let fields = header_fields(&to_eml(&compose(&m).unwrap()));
        assert!(fields.contains(&"X-Starry-Log: attached".to_string()));
        assert_eq!(
            with_marker("<p>x</p>", "a<b"),
            "<p>x</p>\n<p style=\"color:#555\">a&lt;b</p>\n"
        );
    }

    #[test]
    fn body_with_armor_layout() {
        let b = body_with_armor("Hi\n\n", b"x");
        assert!(b.starts_with("Hi\n\n-----BEGIN STARRY LOG-----\n"));
        assert!(b.ends_with("-----END STARRY LOG-----\n"));
        assert!(body_with_armor("", b"x").starts_with("-----BEGIN"));
    }
}
