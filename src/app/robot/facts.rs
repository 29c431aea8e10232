//! What the robot reads from a mail's header before anything else: to whom
//! it is, from whom, whether it is automatic (RFC 3834), and the fields its
//! mail server added. Read once, never trusted beyond what the rules ask,
//! and never a panic, however the mail is made.

use crate::text;

/// What the robot needs from a mail's header.
#[derive(Default)]
pub(super) struct Facts {
    /// The first address of `From:`.
    pub(super) from: Option<String>,
    /// `From:` is one field holding one address.
    pub(super) single_from: bool,
    /// Every address in `To` and `Cc`.
    pub(super) recipients: Vec<String>,
    /// Every header field: the name in lower case, the value as written
    /// (unfolded), at most [`MAX_FIELDS`] of them.
    pub(super) fields: Vec<(String, String)>,
}

/// Header fields read at most.
const MAX_FIELDS: usize = 500;

impl Facts {
    /// Never panics (mail-parser's few panics on damaged mails are caught,
    /// as in `crate::mail::parse`); a mail it cannot read has no facts.
    pub(super) fn of(raw: &[u8]) -> Facts {
        let mut mail = raw.strip_prefix(b"\xef\xbb\xbf").unwrap_or(raw);
        // An mbox `From ` line first.
        if mail.starts_with(b"From ")
            && let Some(end) = mail.iter().position(|&b| b == b'\n')
        {
            mail = &mail[end + 1..];
        }
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let m = mail_parser::MessageParser::default().parse_headers(mail)?;
            let addresses = |a: Option<&mail_parser::Address<'_>>| -> Vec<String> {
                a.map(|a| {
                    a.iter()
                        .filter_map(|x| x.address().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
            };
            let from = addresses(m.from());
            let mut recipients = addresses(m.to());
            recipients.extend(addresses(m.cc()));
            let fields: Vec<(String, String)> = m
                .headers()
                .iter()
                .take(MAX_FIELDS)
                .map(|h| {
                    let value = mail
                        .get(h.offset_start as usize..h.offset_end as usize)
                        .unwrap_or_default();
                    let value = String::from_utf8_lossy(value).replace(['\r', '\n'], "");
                    (h.name.as_str().to_ascii_lowercase(), value)
                })
                .collect();
            let from_fields = fields.iter().filter(|(n, _)| n == "from").count();
            Some(Facts {
                single_from: from.len() == 1 && from_fields == 1,
                from: from.into_iter().next(),
                recipients,
                fields,
            })
        }))
        .ok()
        .flatten()
        .unwrap_or_default()
    }

    /// Why the mail is automatic (RFC 3834, section 2): `Auto-Submitted`
    /// other than `no`, a list's header, `Precedence: bulk|list|junk`, or
    /// an empty or MAILER-DAEMON/postmaster return path. `None`: a person's.
    pub(super) fn automatic(&self) -> Option<String> {
        for (name, value) in &self.fields {
            let v = value.trim().to_ascii_lowercase();
            match name.as_str() {
                "auto-submitted" => {
                    // `no`, perhaps with a comment or parameters after it.
                    let kind = v
                        .split(|c: char| c == ';' || c == '(' || c.is_whitespace())
                        .next()
                        .unwrap_or_default();
                    if kind != "no" {
                        return Some(format!("Auto-Submitted: {}", text::excerpt(kind)));
                    }
                }
                "precedence" if matches!(v.as_str(), "bulk" | "list" | "junk") => {
                    return Some(format!("Precedence: {v}"));
                }
                "return-path" => {
                    let path = v.trim_start_matches('<').trim_end_matches('>').trim();
                    let local = path.split('@').next().unwrap_or_default();
                    if path.is_empty() || local == "mailer-daemon" || local == "postmaster" {
                        return Some(format!("Return-Path: <{}>", text::excerpt(path)));
                    }
                }
                n if n.starts_with("list-") => {
                    return Some(format!("a mailing list's mail ({})", text::excerpt(n)));
                }
                _ => {}
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automatic_mails() {
        let facts = |head: &str| Facts::of(format!("{head}\r\n\r\nbody\r\n").as_bytes());
        let person = "From: a@example.org\r\nTo: r@example.org\r\nAuto-Submitted: No";
        assert_eq!(facts(person).automatic(), None);
        let commented = "From: a@example.org\r\nAuto-Submitted: no (a person)";
        assert_eq!(facts(commented).automatic(), None);
        assert_eq!(facts(person).from.as_deref(), Some("a@example.org"));
        assert!(facts(person).single_from);
        for head in [
            "From: a@example.org\r\nAuto-Submitted: auto-replied; owner=x",
            "From: a@example.org\r\nAuto-Submitted: auto-generated",
            "From: a@example.org\r\nAuto-Submitted: nothing-we-know",
            "From: a@example.org\r\nList-Id: <games.example.org>",
            "From: a@example.org\r\nList-Unsubscribe: <mailto:u@example.org>",
            "From: a@example.org\r\nPrecedence: Bulk",
            "Return-Path: <>\r\nFrom: a@example.org",
            "Return-Path: <MAILER-DAEMON@mx.example.org>\r\nFrom: a@example.org",
            "Return-Path: <postmaster@example.org>\r\nFrom: a@example.org",
        ] {
            assert!(facts(head).automatic().is_some(), "{head}");
        }
        let two = facts("From: a@example.org, b@evil.org\r\nTo: r@example.org");
        assert!(!two.single_from);
        let twice = facts("From: a@example.org\r\nFrom: b@evil.org\r\nTo: r@example.org");
        assert!(!twice.single_from);
        // Damaged bytes have no facts, and no panic.
        assert!(Facts::of(b"\xff\xfe\x00").from.is_none());
    }
}
