//! `Authentication-Results` (RFC 8601): what a receiving mail server found
//! when it checked a mail's DKIM signature, SPF and DMARC, written as a
//! header on top of the mail.
//!
//! The robot (`app::robot`) trusts a `From:` only when its own mail server
//! vouches for it: a header with the authserv-id configured for the robot
//! (`authserv_id` in `robot.toml`), saying that DKIM, SPF or DMARC passed
//! for the From's domain. Headers with any other authserv-id are ignored:
//! anybody can write one into the mail they send.
//!
//! Nor is every header with the robot's authserv-id the server's own.
//! RFC 8601 (section 5) asks the server to remove the ones with its id
//! from what it receives, but servers do not by default (Postfix keeps
//! them), so a stranger can write `spf=pass` under the server's id into
//! the mail they send. Only the headers the server itself added count: a
//! server prepends its `Authentication-Results` above every trace field it
//! adds (section 4.1), and everything the sender wrote sits below the
//! `Received` field of the host that took the mail from them. So only the
//! headers above the first `Received` field count ([`vouches_in`]); one
//! below it is never trusted, whatever its id. And when the server's own
//! headers contradict each other for the From's domain — a `pass` and a
//! `fail` of the same method — none of that method vouches: one check of
//! one mail has one result, so one of them was not the server's.
//!
//! The parser is small on purpose and reads only what that needs:
//!
//! ```text
//! Authentication-Results: mx.example.org 1; (comment)
//!   dkim=pass (good signature) header.d=example.org header.s=mail;
//!   spf=pass smtp.mailfrom="anna"@example.org;
//!   dmarc=pass policy.dmarc=none header.from=example.org
//! ```
//!
//! Comments (nested, with `\` escapes) go, quoted strings keep their
//! content, results are split at `;`, and each result is `method[/version]
//! = result` then `key = value` pairs (`reason = …`, `ptype.property = …`).
//! A result it cannot read is skipped, never guessed at.

/// One `Authentication-Results` header, read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthResults {
    /// Who checked: the receiving server's name, as it wrote it.
    pub authserv_id: String,
    pub results: Vec<MethodResult>,
}

/// One result: `dkim=pass header.d=example.org`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MethodResult {
    /// Lower case, without its version (`dkim`, `spf`, `dmarc`, …).
    pub method: String,
    /// Lower case (`pass`, `fail`, `none`, …).
    pub result: String,
    /// `(key, value)`, keys in lower case (`header.d`, `smtp.mailfrom`,
    /// `reason`), values as written (quotes removed).
    pub properties: Vec<(String, String)>,
}

impl MethodResult {
    /// The value of property `key` (lower case), if present.
    pub fn property(&self, key: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Longest header value read, in bytes: a real one is a few hundred.
pub const MAX_VALUE: usize = 8 * 1024;

/// Reads one header value (unfolded or not). `None` when it has no
/// authserv-id or is larger than [`MAX_VALUE`].
pub fn parse(value: &str) -> Option<AuthResults> {
    if value.len() > MAX_VALUE {
        return None;
    }
    let tokens = tokens(value);
    let mut segments = tokens.split(|t| *t == Tok::Semi);
    let authserv_id = match segments.next()?.first()? {
        Tok::Word(w) | Tok::Quoted(w) if !w.is_empty() => w.clone(),
        _ => return None,
    };
    let results = segments.filter_map(method_result).collect();
    Some(AuthResults {
        authserv_id,
        results,
    })
}

/// Which check of the robot's own server vouches for a `From:` in
/// `domain`, among a mail's header fields `fields` (names in any case,
/// values unfolded, in the mail's order, topmost first): only the
/// `Authentication-Results` fields above the first `Received` field count
/// (the server's own, see the module's documentation), and of those only
/// the ones whose authserv-id is `authserv_id`, as [`vouches`] reads them.
pub fn vouches_in<'a>(
    fields: impl IntoIterator<Item = (&'a str, &'a str)>,
    authserv_id: &str,
    domain: &str,
) -> Option<&'static str> {
    vouches(
        fields
            .into_iter()
            .take_while(|(name, _)| !name.trim().eq_ignore_ascii_case("received"))
            .filter(|(name, _)| name.trim().eq_ignore_ascii_case("authentication-results"))
            .map(|(_, value)| value),
        authserv_id,
        domain,
    )
}

/// Which check vouches for a `From:` in `domain`, among the header values
/// `values` (the `Authentication-Results` fields the server itself added:
/// [`vouches_in`] picks them from a mail): only headers whose authserv-id
/// is `authserv_id` count (compared without regard to case), and in them
/// `dkim=pass header.d=DOMAIN`, `spf=pass smtp.mailfrom=…@DOMAIN` (or a
/// bare `DOMAIN`), or `dmarc=pass header.from=DOMAIN` — unless the same
/// method has another result for the same domain in them too (a forged
/// `pass` beside the server's own `fail`). Returns the method's name, or
/// `None`.
pub fn vouches<'a>(
    values: impl IntoIterator<Item = &'a str>,
    authserv_id: &str,
    domain: &str,
) -> Option<&'static str> {
    let want = norm_domain(domain);
    if want.is_empty() || authserv_id.trim().is_empty() {
        return None;
    }
    let same = |v: Option<&str>| v.is_some_and(|d| norm_domain(d) == want);
    // Each method's results about this domain: (passed, something else).
    let mut seen = [(false, false); 3];
    const METHODS: [&str; 3] = ["dkim", "spf", "dmarc"];
    for ar in values.into_iter().filter_map(parse) {
        if !ar.authserv_id.eq_ignore_ascii_case(authserv_id.trim()) {
            continue;
        }
        for r in &ar.results {
            let about_domain = match r.method.as_str() {
                "dkim" => same(r.property("header.d")),
                "spf" => same(
                    r.property("smtp.mailfrom")
                        .map(|m| m.rsplit_once('@').map_or(m, |(_, d)| d)),
                ),
                "dmarc" => same(r.property("header.from")),
                _ => false,
            };
            let Some(k) = METHODS.iter().position(|m| *m == r.method) else {
                continue;
            };
            if r.result == "pass" && about_domain {
                seen[k].0 = true;
            } else if about_domain || r.method == "spf" {
                // An SPF check is of the mail's one envelope sender: any
                // other result of it, or a pass for another domain,
                // contradicts a pass for this one.
                seen[k].1 = true;
            }
        }
    }
    METHODS
        .iter()
        .zip(seen)
        .find(|(_, (passed, other))| *passed && !*other)
        .map(|(m, _)| *m)
}

/// A domain for comparison: trimmed, lower case, without a final dot.
fn norm_domain(d: &str) -> String {
    d.trim().trim_end_matches('.').to_ascii_lowercase()
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Word(String),
    Quoted(String),
    Eq,
    Semi,
}

/// The header value as tokens: comments dropped, quoted strings unquoted
/// (a quoted local part directly followed by `@domain` is one word).
fn tokens(s: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    let mut word = String::new();
    // Whether `word` holds a quoted string still open to an `@domain`.
    let mut quoted = false;
    let flush = |word: &mut String, quoted: &mut bool, out: &mut Vec<Tok>| {
        if *quoted {
            out.push(Tok::Quoted(std::mem::take(word)));
        } else if !word.is_empty() {
            out.push(Tok::Word(std::mem::take(word)));
        }
        *quoted = false;
    };
    while let Some(c) = chars.next() {
        match c {
            '(' => {
                flush(&mut word, &mut quoted, &mut out);
                let mut depth = 1;
                while depth > 0 {
                    match chars.next() {
                        Some('\\') => {
                            chars.next();
                        }
                        Some('(') => depth += 1,
                        Some(')') => depth -= 1,
                        Some(_) => {}
                        None => break,
                    }
                }
            }
            '"' => {
                flush(&mut word, &mut quoted, &mut out);
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some(e) = chars.next() {
                                word.push(e);
                            }
                        }
                        '"' => break,
                        c => word.push(c),
                    }
                }
                quoted = true;
                if chars.peek() == Some(&'@') {
                    // `"local part"@example.org`: one value.
                    quoted = false;
                }
            }
            '=' => {
                flush(&mut word, &mut quoted, &mut out);
                out.push(Tok::Eq);
            }
            ';' => {
                flush(&mut word, &mut quoted, &mut out);
                out.push(Tok::Semi);
            }
            c if c.is_whitespace() => flush(&mut word, &mut quoted, &mut out),
            c => {
                if quoted {
                    flush(&mut word, &mut quoted, &mut out);
                }
                word.push(c);
            }
        }
    }
    flush(&mut word, &mut quoted, &mut out);
    out
}

/// `method[/version] = result` then `key = value` pairs; `None` for
/// anything else (`none`, an empty segment, a damaged result).
fn method_result(seg: &[Tok]) -> Option<MethodResult> {
    let (Tok::Word(method), Tok::Eq, Tok::Word(result)) = (seg.first()?, seg.get(1)?, seg.get(2)?)
    else {
        return None;
    };
    let method = method.split('/').next().unwrap_or_default().trim();
    if method.is_empty() {
        return None;
    }
    let mut properties = Vec::new();
    let mut rest = &seg[3..];
    while let [
        Tok::Word(key),
        Tok::Eq,
        Tok::Word(value) | Tok::Quoted(value),
        tail @ ..,
    ] = rest
    {
        properties.push((key.to_ascii_lowercase(), value.clone()));
        rest = tail;
    }
    Some(MethodResult {
        method: method.to_ascii_lowercase(),
        result: result.to_ascii_lowercase(),
        properties,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_several_results_with_comments_and_quotes() {
        let ar = parse(
            "mx.example.org 1; (checked (twice) \\) here)\r\n\tdkim=pass (good \"sig\"; yes) \
             header.d=Example.ORG header.s=mail;\r\n spf=pass smtp.mailfrom=\"anna smith\"@example.org;\
             dmarc=pass policy.dmarc=none header.from=example.org; auth=none reason=\"no; auth\"",
        )
        .unwrap();
        assert_eq!(ar.authserv_id, "mx.example.org");
        let methods: Vec<(&str, &str)> = ar
            .results
            .iter()
            .map(|r| (r.method.as_str(), r.result.as_str()))
            .collect();
        assert_eq!(
            methods,
            [
                ("dkim", "pass"),
                ("spf", "pass"),
                ("dmarc", "pass"),
                ("auth", "none")
            ]
        );
        assert_eq!(ar.results[0].property("header.d"), Some("Example.ORG"));
        assert_eq!(ar.results[0].property("header.s"), Some("mail"));
        assert_eq!(
            ar.results[1].property("smtp.mailfrom"),
            Some("anna smith@example.org")
        );
        assert_eq!(ar.results[3].property("reason"), Some("no; auth"));
    }

    #[test]
    fn none_and_damaged_results() {
        let ar = parse("\"mx example\"; none").unwrap();
        assert_eq!(ar.authserv_id, "mx example");
        assert!(ar.results.is_empty());
        // A damaged result is skipped, the others are kept.
        let ar = parse("mx; dkim pass; =fail; spf=pass smtp.mailfrom=a@b.org").unwrap();
        assert_eq!(ar.results.len(), 1);
        assert_eq!(ar.results[0].method, "spf");
        assert_eq!(parse(""), None);
        assert_eq!(parse("  (only a comment)  ; dkim=pass"), None);
        assert_eq!(parse(&"x".repeat(MAX_VALUE + 1)), None);
        // An unclosed comment or quote ends the value, without a panic.
        assert_eq!(parse("mx; dkim=pass (open").unwrap().results.len(), 1);
        assert_eq!(
            parse("mx; dkim=pass header.d=\"open")
                .unwrap()
                .results
                .len(),
            1
        );
    }

    #[test]
    fn vouches_only_with_our_authserv_id_and_the_froms_domain() {
        let ours = "mx.robot.org; dkim=pass header.d=example.org";
        assert_eq!(vouches([ours], "mx.robot.org", "example.org"), Some("dkim"));
        assert_eq!(vouches([ours], "MX.Robot.Org", "EXAMPLE.org"), Some("dkim"));
        // Another domain, another result, another server: no.
        assert_eq!(vouches([ours], "mx.robot.org", "evil.org"), None);
        assert_eq!(
            vouches(
                ["mx.robot.org; dkim=fail header.d=example.org"],
                "mx.robot.org",
                "example.org"
            ),
            None
        );
        // A forged header (the sender wrote it, with another id) does not
        // count, even beside a real one that does not vouch.
        let forged =
            "mx.evil.org; dkim=pass header.d=example.org; dmarc=pass header.from=example.org";
        let real = "mx.robot.org; dkim=none; spf=fail smtp.mailfrom=x@example.org";
        assert_eq!(vouches([forged, real], "mx.robot.org", "example.org"), None);
        // Nor does a forged one whose id merely contains ours, or a comment
        // or a quoted value that looks like a result.
        for v in [
            "mx.robot.org.evil.org; dkim=pass header.d=example.org",
            "evil (mx.robot.org); dkim=pass header.d=example.org",
            "mx.robot.org; (dkim=pass header.d=example.org) dkim=fail header.d=example.org",
            "mx.robot.org; dkim=fail reason=\"dkim=pass header.d=example.org\"",
        ] {
            assert_eq!(vouches([v], "mx.robot.org", "example.org"), None, "{v}");
        }
        // SPF: the domain of the envelope sender (or a bare domain); DMARC:
        // the header From's domain.
        assert_eq!(
            vouches(
                ["mx.robot.org; spf=pass smtp.mailfrom=bounce+x@Example.org."],
                "mx.robot.org",
                "example.org"
            ),
            Some("spf")
        );
        assert_eq!(
            vouches(
                ["mx.robot.org; spf=pass smtp.mailfrom=example.org"],
                "mx.robot.org",
                "example.org"
            ),
            Some("spf")
        );
        assert_eq!(
            vouches(
                ["mx.robot.org; spf=pass smtp.mailfrom=x@sub.example.org"],
                "mx.robot.org",
                "example.org"
            ),
            None
        );
        assert_eq!(
            vouches(
                [
                    "mx.robot.org; dkim=fail header.d=example.org; dmarc=pass header.from=example.org"
                ],
                "mx.robot.org",
                "example.org"
            ),
            Some("dmarc")
        );
        // No authserv-id configured, or no domain: nothing is vouched for.
        assert_eq!(vouches([ours], "", "example.org"), None);
        assert_eq!(vouches([ours], "mx.robot.org", ""), None);
    }

    #[test]
    fn only_the_servers_own_fields_above_the_first_received_count() {
        let id = "mx.robot.org";
        let received = (
            "Received",
            "from evil.example (evil.example [192.0.2.9]) by mx.robot.org (Postfix) with ESMTP",
        );
        let fail = (
            "Authentication-Results",
            "mx.robot.org; spf=fail smtp.mailfrom=victim@example.org",
        );
        let forged = (
            "Authentication-Results",
            "mx.robot.org; spf=pass smtp.mailfrom=victim@example.org",
        );
        let dkim = (
            "Authentication-Results",
            "mx.robot.org; dkim=pass header.d=example.org",
        );
        let top = [
            ("Return-Path", "<victim@example.org>"),
            ("Delivered-To", "robo@robot.org"),
        ];
        let on = |fields: &[(&'static str, &'static str)]| {
            vouches_in(fields.iter().copied(), id, "example.org")
        };
        // The server's own, on top (above its Received, and above what the
        // final delivery adds above that): counted.
        assert_eq!(on(&[top[0], top[1], dkim, received]), Some("dkim"));
        assert_eq!(on(&[forged, received]), Some("spf"));
        // Below a Received line: never, whatever its id (the attack: a
        // forged pass below the server's own fail).
        assert_eq!(on(&[fail, received, forged]), None);
        assert_eq!(on(&[received, forged]), None);
        assert_eq!(on(&[received, dkim]), None);
        assert_eq!(on(&[top[0], received, dkim, received]), None);
        // A field name in any case is the same field.
        assert_eq!(on(&[("RECEIVED", received.1), dkim]), None);
        // Above it, a forged pass beside the server's own fail (a server
        // that does not remove what it receives, with no Received line of
        // its own): one check has one result, so neither counts.
        assert_eq!(on(&[fail, forged]), None);
        assert_eq!(on(&[forged, fail]), None);
        // Nor a pass for the From's domain beside a pass for the mail's
        // real envelope sender.
        assert_eq!(
            on(&[
                forged,
                (
                    "Authentication-Results",
                    "mx.robot.org; spf=pass smtp.mailfrom=stranger@evil.example"
                )
            ]),
            None
        );
        // Another method's fail does not cancel a pass, nor does a DKIM
        // result about another domain (a mail may carry several signatures).
        assert_eq!(
            on(&[(
                "Authentication-Results",
                "mx.robot.org; dkim=fail header.d=list.example; dkim=pass header.d=example.org; \
                 spf=softfail smtp.mailfrom=x@list.example"
            )]),
            Some("dkim")
        );
        assert_eq!(
            on(&[(
                "Authentication-Results",
                "mx.robot.org; dkim=fail header.d=example.org; dkim=pass header.d=example.org"
            )]),
            None
        );
        // No fields, or none of ours: nothing.
        assert_eq!(on(&[]), None);
        assert_eq!(on(&[received]), None);
    }
}
