//! What a mail program makes of a `mailto:` link (RFC 6068): its
//! recipients, subject and body, percent-decoded; and the mail it would
//! send, as an RFC 5322 file (From, To, Subject, Date; the body as
//! text/plain) that `starry ingest` reads as it reads any mail. The web
//! player's "Mail it" is captured from its `href` and delivered this way.
//!
//! Strict where a link that a page wrote is wrong (a bad escape, bytes
//! that are not UTF-8, a raw `#` or space, two subjects): a test then
//! fails naming it, instead of a mail program guessing.
#![allow(dead_code)]

/// The longest link read: Chromium's own bound on an address.
const MAX_HREF: usize = 2 * 1024 * 1024;

/// A `mailto:` link, decoded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mailto {
    /// The addresses of the link's path and of its `to=` fields.
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub subject: String,
    /// As in the link: lines end with CRLF (`%0D%0A`).
    pub body: String,
    /// Any other field (`in-reply-to`, `references`, …): lower-case name
    /// and value, in order.
    pub other: Vec<(String, String)>,
}

/// Percent-decodes `s` (RFC 3986): `%XX` are bytes, which must be UTF-8;
/// `+` stays `+` (RFC 6068 is not a form's encoding).
pub fn percent_decode(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("a bad percent-escape at byte {i} of {s:?}"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|e| format!("not UTF-8 once decoded ({e}): {s:?}"))
}

/// Percent-encodes as JavaScript's `encodeURIComponent` does: all but
/// `A–Z a–z 0–9 - _ . ! ~ * ' ( )`.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if c.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&c) {
            out.push(c as char);
        } else {
            out.push_str(&format!("%{c:02X}"));
        }
    }
    out
}

/// The addresses of a comma-separated list, each checked.
fn addresses(list: &str) -> Result<Vec<String>, String> {
    let mut found = Vec::new();
    for a in list.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        let ok = a.matches('@').count() == 1
            && !a.starts_with('@')
            && !a.ends_with('@')
            && !a
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || "<>\"".contains(c));
        if !ok {
            return Err(format!("not a mail address: {a:?}"));
        }
        found.push(a.to_string());
    }
    Ok(found)
}

impl Mailto {
    /// Reads a `mailto:` link.
    pub fn parse(href: &str) -> Result<Mailto, String> {
        if href.len() > MAX_HREF {
            return Err(format!("a mailto: link of {} bytes", href.len()));
        }
        let rest = href
            .get(..7)
            .filter(|s| s.eq_ignore_ascii_case("mailto:"))
            .map(|_| &href[7..])
            .ok_or_else(|| format!("not a mailto: link: {:?}", start_of(href)))?;
        if let Some((i, c)) = rest
            .char_indices()
            .find(|&(_, c)| !c.is_ascii_graphic() || "#\"<>\\^`{|}".contains(c))
        {
            return Err(format!(
                "a raw {c:?} at byte {} of the mailto: link (it must be percent-encoded)",
                i + 7
            ));
        }
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        let mut m = Mailto {
            to: addresses(&percent_decode(path)?)?,
            ..Mailto::default()
        };
        let (mut subject, mut body) = (None, None);
        for field in query.split('&').filter(|f| !f.is_empty()) {
            let (name, value) = field.split_once('=').unwrap_or((field, ""));
            let name = percent_decode(name)?.to_ascii_lowercase();
            let value = percent_decode(value)?;
            match name.as_str() {
                "to" => m.to.extend(addresses(&value)?),
                "cc" => m.cc.extend(addresses(&value)?),
                "subject" | "body" => {
                    let slot = if name == "subject" {
                        &mut subject
                    } else {
                        &mut body
                    };
                    if slot.replace(value).is_some() {
                        return Err(format!("two `{name}` fields in the mailto: link"));
                    }
                }
                _ => m.other.push((name, value)),
            }
        }
        if m.to.is_empty() {
            return Err("a mailto: link to nobody".into());
        }
        m.subject = subject.unwrap_or_default();
        m.body = body.unwrap_or_default();
        Ok(m)
    }

    /// The link again, encoded as a page's script would
    /// (`encodeURIComponent` of each part).
    pub fn href(&self) -> String {
        let mut fields = Vec::new();
        if !self.cc.is_empty() {
            fields.push(("cc".to_string(), self.cc.join(",")));
        }
        fields.push(("subject".into(), self.subject.clone()));
        fields.push(("body".into(), self.body.clone()));
        fields.extend(self.other.iter().cloned());
        let to: Vec<String> = self.to.iter().map(|a| percent_encode(a)).collect();
        let query: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v)))
            .collect();
        format!("mailto:{}?{}", to.join(","), query.join("&"))
    }

    /// The mail a mail program sends for this link, from `from_name
    /// <from_email>`, dated `date` (RFC 5322, e.g. [`now`]'s): CRLF line
    /// ends, the subject and a non-ASCII name as RFC 2047 words, the body
    /// as UTF-8 text/plain (quoted-printable when a line is long or not
    /// ASCII, as mail programs send it). Line breaks in the subject become
    /// spaces, as mail programs make them.
    pub fn mail_file(&self, from_name: &str, from_email: &str, date: &str) -> Vec<u8> {
        let mut head = vec![
            format!("From: {} <{from_email}>", phrase(from_name)),
            format!("To: {}", self.to.join(", ")),
        ];
        if !self.cc.is_empty() {
            head.push(format!("Cc: {}", self.cc.join(", ")));
        }
        head.push(format!("Subject: {}", header_text(&self.subject)));
        head.push(format!("Date: {date}"));
        for (name, value) in &self.other {
            // Only the threading fields a mail program takes from a link.
            let name = match name.as_str() {
                "in-reply-to" => "In-Reply-To",
                "references" => "References",
                _ => continue,
            };
            head.push(format!("{name}: {}", one_line(value)));
        }
        let text = self.body.replace("\r\n", "\n").replace('\r', "\n");
        let plain = text.is_ascii() && text.lines().all(|l| l.len() <= 998);
        head.push("MIME-Version: 1.0".into());
        head.push("Content-Type: text/plain; charset=utf-8".into());
        head.push(format!(
            "Content-Transfer-Encoding: {}",
            if plain { "7bit" } else { "quoted-printable" }
        ));
        let body: Vec<String> = if plain {
            text.split('\n').map(String::from).collect()
        } else {
            text.split('\n').map(quoted_printable).collect()
        };
        format!("{}\r\n\r\n{}", head.join("\r\n"), body.join("\r\n")).into_bytes()
    }
}

/// The date of now, as a mail's `Date:` field writes it.
pub fn now() -> String {
    chrono::Utc::now().to_rfc2822()
}

fn start_of(s: &str) -> &str {
    let end = s.char_indices().nth(20).map_or(s.len(), |(i, _)| i);
    &s[..end]
}

/// A header's text on one line.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Unstructured header text (a subject): as it is if short ASCII, else
/// RFC 2047 base64 words of at most 75 characters, folded.
fn header_text(s: &str) -> String {
    let s = one_line(s);
    if s.is_ascii() && s.len() <= 900 {
        return s;
    }
    encoded_words(&s)
}

fn encoded_words(s: &str) -> String {
    use base64::Engine;
    let mut words = Vec::new();
    let mut chunk = String::new();
    // 42 bytes of UTF-8 are 56 of base64: a word of 68 characters, 77
    // with `Subject: `. A character is never split between two words.
    for c in s.chars() {
        if chunk.len() + c.len_utf8() > 42 {
            words.push(std::mem::take(&mut chunk));
        }
        chunk.push(c);
    }
    words.push(chunk);
    words
        .iter()
        .map(|w| {
            let b = base64::engine::general_purpose::STANDARD.encode(w);
            format!("=?UTF-8?B?{b}?=")
        })
        .collect::<Vec<_>>()
        .join("\r\n ")
}

/// A display name: an atom's words as they are, else quoted, or encoded
/// words if not ASCII.
fn phrase(name: &str) -> String {
    let name = one_line(name);
    if !name.is_ascii() {
        return encoded_words(&name);
    }
    if name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || " !#$%&'*+-/=?^_`{|}~".contains(c))
    {
        return name;
    }
    format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
}

/// One line (without its line end) quoted-printable (RFC 2045): lines of
/// at most 76 characters, soft breaks between escapes, never inside one.
fn quoted_printable(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::new();
    let mut width = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let last = i + 1 == bytes.len();
        let token = if (b == b' ' || b == b'\t') && last {
            // A space at a line's end would be lost in transport.
            format!("={b:02X}")
        } else if (33..=126).contains(&b) && b != b'=' || b == b' ' || b == b'\t' {
            (b as char).to_string()
        } else {
            format!("={b:02X}")
        };
        // Room for the token, and for a soft break's `=` after it unless
        // it ends the line.
        let room = if last { 76 } else { 75 };
        if width + token.len() > room {
            out.push_str("=\r\n");
            width = 0;
        }
        width += token.len();
        out.push_str(&token);
    }
    out
}
