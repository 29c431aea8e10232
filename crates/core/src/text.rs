//! Text that came from outside: names and addresses in a genesis, strings in
//! a mail, anything quoted back in an error. Two independent defences:
//!
//! - **Refuse at the source.** A name or address that could repaint a
//!   terminal, fake a line or a header, or reorder what a reader sees is not
//!   allowed into a log (`docs/protocol.md`, section 3.4) and is refused by
//!   `starry id new` and `starry new`.
//! - **Escape at every sink.** Older or foreign logs, mails and hand-edited
//!   files can still carry such text, so whatever is shown on a terminal or
//!   put into a header or a commit message goes through [`inline`] (one line)
//!   or [`terminal`] (a whole output), and every quote of bad input is an
//!   [`excerpt`].

use std::borrow::Cow;

/// Longest name, in characters (Unicode scalar values).
pub const MAX_NAME_CHARS: usize = 64;
/// Longest e-mail address, in bytes (RFC 5321's path limit less the brackets).
pub const MAX_EMAIL_BYTES: usize = 254;
/// How much of a bad input an error message quotes, in characters.
pub const EXCERPT_CHARS: usize = 60;

/// Characters that must never reach a terminal or a header raw:
/// - C0 controls (including CR, LF and TAB), DEL, and C1 controls
///   (U+0080–U+009F, among them the one-byte CSI);
/// - the line and paragraph separators U+2028, U+2029;
/// - the bidirectional formatting characters that can make text display in
///   an order other than the one it has: U+061C, U+200E, U+200F,
///   U+202A–U+202E, U+2066–U+2069;
/// - invisible characters that make look-alike names: U+00AD, U+034F,
///   U+115F, U+1160, U+17B4, U+17B5, U+180B–U+180F, U+200B, U+2060–U+206F,
///   U+3164, U+FEFF, U+FFA0, U+FFF9–U+FFFB, U+E0000–U+E007F. (The
///   zero-width joiner and non-joiner U+200C, U+200D stay allowed: some
///   scripts and emoji need them.)
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{ad}'
        | '\u{34f}'
        | '\u{61c}'
        | '\u{115f}'
        | '\u{1160}'
        | '\u{17b4}'
        | '\u{17b5}'
        | '\u{180b}'..='\u{180f}'
        | '\u{200b}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}'
        | '\u{3164}'
        | '\u{feff}'
        | '\u{ffa0}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{e0000}'..='\u{e007f}')
}

/// The Unicode noncharacters: U+FDD0–U+FDEF and the last two code points
/// of each of the 17 planes (U+FFFE, U+FFFF, U+1FFFE, U+1FFFF, …,
/// U+10FFFE, U+10FFFF). Unicode sets them aside for a program's internal
/// use; XML 1.0 cannot hold U+FFFE and U+FFFF at all, so a name holding one
/// would make the game's pictures ill-formed. Names may not contain them
/// (`docs/protocol.md`, section 3.4); they are not [`is_unsafe`], since a
/// terminal shows them as harmless marks.
pub fn is_noncharacter(c: char) -> bool {
    let u = u32::from(c);
    (0xfdd0..=0xfdef).contains(&u) || u & 0xfffe == 0xfffe
}

fn escape_into(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = write!(out, "\\u{{{:x}}}", c as u32);
}

/// `s` with every character for which `bad` holds written as `\u{…}`.
fn escape_where(s: &str, bad: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(&bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if bad(c) {
            escape_into(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` on one line: every unsafe character (line breaks included) written
/// as a visible `\u{…}` escape, so a name cannot fake a line of output.
pub fn inline(s: &str) -> Cow<'_, str> {
    escape_where(s, is_unsafe)
}

/// A whole output for a terminal: line breaks and tabs that the program
/// itself wrote stay, every other unsafe character is escaped. A last line
/// of defence; text from a log is made [`inline`] where it is inserted.
pub fn terminal(s: &str) -> Cow<'_, str> {
    escape_where(s, |c| is_unsafe(c) && c != '\n' && c != '\t')
}

/// JSON text (as serde_json writes it) with every unsafe character that
/// serde_json leaves raw (DEL, C1 controls, separators, bidi and invisible
/// characters) written as a `\uXXXX` escape — as a surrogate pair beyond
/// the Basic Multilingual Plane — so that it parses to the same value. Such
/// characters occur only inside strings, and never right after an escaping
/// backslash (serde_json writes a backslash as `\\`). Raw line breaks are
/// the pretty printer's, between values, and stay.
pub fn json_safe(json: &str) -> Cow<'_, str> {
    use std::fmt::Write;
    if !json.chars().any(|c| is_unsafe(c) && c != '\n') {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_unsafe(c) && c != '\n' {
            for unit in c.encode_utf16(&mut [0; 2]) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A short, safe quote of bad input for an error message: at most
/// `max` characters, made [`inline`], with the size said when cut.
pub fn excerpt_of(s: &str, max: usize) -> String {
    let count = s.chars().count();
    if count <= max {
        return inline(s).into_owned();
    }
    let head: String = s.chars().take(max).collect();
    format!("{}… ({} bytes in all)", inline(&head), s.len())
}

/// [`excerpt_of`] with the default length.
pub fn excerpt(s: &str) -> String {
    excerpt_of(s, EXCERPT_CHARS)
}

/// [`excerpt`] of bytes that may not be UTF-8.
pub fn excerpt_bytes(b: &[u8]) -> String {
    let cut = &b[..b.len().min(EXCERPT_CHARS * 4)];
    let s = String::from_utf8_lossy(cut);
    let mut e = excerpt_of(&s, EXCERPT_CHARS);
    if cut.len() < b.len() && !e.ends_with(')') {
        e.push_str(&format!("… ({} bytes in all)", b.len()));
    }
    e
}

/// The protocol's rule for a player's name: 1 to 64 characters, no unsafe
/// character (see [`is_unsafe`]), no noncharacter (see
/// [`is_noncharacter`]), not blank, no white space at either end.
pub fn check_name(name: &str) -> Result<(), String> {
    let count = name.chars().count();
    if name.trim().is_empty() {
        return Err("a name must not be empty".into());
    }
    if count > MAX_NAME_CHARS {
        return Err(format!(
            "the name `{}` has {count} characters; at most {MAX_NAME_CHARS} are allowed",
            excerpt(name)
        ));
    }
    if let Some(c) = name.chars().find(|&c| is_unsafe(c)) {
        return Err(format!(
            "the name `{}` holds the control or text-direction character U+{:04X}, which could \
             disguise what a terminal or a mail shows; names may not contain such characters",
            excerpt(name),
            c as u32
        ));
    }
    if let Some(c) = name.chars().find(|&c| is_noncharacter(c)) {
        // Quoted with the noncharacters escaped too: the message names them.
        return Err(format!(
            "the name `{}` holds U+{:04X}, a Unicode noncharacter (U+FDD0 to U+FDEF and the \
             last two code points of every plane, such as U+FFFE and U+FFFF): these are kept \
             for programs' internal use, and a picture of the game cannot hold them; choose a \
             name without it",
            escape_where(&excerpt(name), is_noncharacter),
            c as u32
        ));
    }
    if name.trim() != name {
        return Err(format!(
            "the name `{}` begins or ends with white space",
            excerpt(name)
        ));
    }
    Ok(())
}

/// The protocol's rule for an e-mail address (section 3.4 of the spec):
/// `LOCAL@DOMAIN`, at most 254 bytes, ASCII only;
/// LOCAL is 1 to 64 of `A–Z a–z 0–9 ! # $ % & ' * + - / = ^ _ { | } ~ .`,
/// not beginning or ending with `.` and without `..`;
/// DOMAIN is one or more labels separated by `.`, each 1 to 63 of
/// `A–Z a–z 0–9 -`, not beginning or ending with `-`.
/// Whatever passes is also accepted by lettre's address parser, which the
/// mail layer uses (a property test of `starry-mail` checks it, so the two
/// cannot drift apart unseen).
pub fn check_email(email: &str) -> Result<(), String> {
    let bad = |why: &str| {
        Err(format!(
            "`{}` is not an e-mail address: {why} (expected name@example.org)",
            excerpt(email)
        ))
    };
    if email.len() > MAX_EMAIL_BYTES {
        return bad(&format!("it is longer than {MAX_EMAIL_BYTES} bytes"));
    }
    let Some((local, domain)) = email.split_once('@') else {
        return bad("it has no `@`");
    };
    if domain.contains('@') {
        return bad("it has more than one `@`");
    }
    let local_ok = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-/=^_{|}~.".contains(c);
    if local.is_empty() || local.len() > 64 {
        return bad("the part before `@` must have 1 to 64 characters");
    }
    if let Some(c) = local.chars().find(|&c| !local_ok(c)) {
        return bad(&format!(
            "`{}` is not allowed before the `@`",
            inline(&c.to_string())
        ));
    }
    if local.starts_with('.') || local.ends_with('.') || local.contains("..") {
        return bad("the part before `@` may not begin or end with `.` or hold `..`");
    }
    if domain.is_empty() {
        return bad("there is nothing after the `@`");
    }
    for label in domain.split('.') {
        if label.is_empty() || label.len() > 63 {
            return bad("the domain's parts between dots must have 1 to 63 characters");
        }
        if let Some(c) = label
            .chars()
            .find(|&c| !(c.is_ascii_alphanumeric() || c == '-'))
        {
            return bad(&format!(
                "`{}` is not allowed in the domain",
                inline(&c.to_string())
            ));
        }
        if label.starts_with('-') || label.ends_with('-') {
            return bad("a domain part may not begin or end with `-`");
        }
    }
    Ok(())
}

/// Wraps a paragraph at `width` columns, indenting continuation lines.
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    for para in text.split_inclusive('\n') {
        let trimmed = para.trim_end_matches('\n');
        let lead: String = trimmed.chars().take_while(|c| *c == ' ').collect();
        let mut line = lead.clone();
        for word in trimmed.split_whitespace() {
            if line.trim().is_empty() {
                line.push_str(word);
            } else if line.chars().count() + 1 + word.chars().count() > width {
                out.push_str(&line);
                out.push('\n');
                line = format!("{indent}{word}");
            } else {
                line.push(' ');
                line.push_str(word);
            }
        }
        out.push_str(&line);
        if para.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// `n` and the noun, singular for exactly one: `count(1, "coin", "coins")`
/// is `1 coin`, `count(0, …)` is `0 coins`.
pub fn count(n: impl std::fmt::Display, one: &str, many: &str) -> String {
    let s = n.to_string();
    let unit = if s == "1" || s == "+1" || s == "-1" {
        one
    } else {
        many
    };
    format!("{s} {unit}")
}

/// `n` with a comma between groups of three digits: `1,849`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The edit distance between two words: the fewest insertions, deletions,
/// substitutions and swaps of two neighbouring characters that turn one into
/// the other (optimal string alignment), so `frist` is one slip from `first`.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: the distance between the first i of a and the first j of b.
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The one candidate closest to `word`, if it is close (at most one edit
/// in a short word, two in one of six characters or more, case ignored) and
/// no other candidate is as close: the "did you mean …?" of an error
/// message.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    // A long word is no slip of the keyboard (and would be slow to compare).
    if word.len() > 64 {
        return None;
    }
    let word = word.to_lowercase();
    let most = if word.chars().count() >= 6 { 2 } else { 1 };
    let mut best: Option<(usize, &str)> = None;
    let mut tied = false;
    for c in candidates {
        let d = edit_distance(&word, &c.to_lowercase());
        if d == 0 || d > most {
            continue;
        }
        match best {
            Some((b, x)) if d == b && x != c => tied = true,
            Some((b, _)) if d >= b => {}
            _ => {
                best = Some((d, c));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        for (n, s) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1849, "1,849"),
            (1234567, "1,234,567"),
        ] {
            assert_eq!(thousands(n), s);
        }
    }

    #[test]
    fn unsafe_characters_are_escaped_on_one_line() {
        assert_eq!(inline("Ann"), "Ann");
        assert_eq!(inline("A\nB"), "A\\u{a}B");
        assert_eq!(inline("\u{1b}[2J"), "\\u{1b}[2J");
        assert_eq!(inline("x\u{202e}y"), "x\\u{202e}y");
        assert_eq!(inline("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(terminal("a\nb\tc\u{7}"), "a\nb\tc\\u{7}");
    }

    #[test]
    fn json_stays_the_same_value_without_raw_unsafe_characters() {
        let name = "Eve\u{1b}\u{9b}\u{202e}\u{7f}\u{2028}\u{e0041}\\\"\n";
        let v = serde_json::json!({ "name": name, name: [name, 1] });
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        let safe = json_safe(&pretty);
        assert!(!safe.chars().any(|c| is_unsafe(c) && c != '\n'), "{safe:?}");
        assert!(safe.contains("\\udb40\\udc41"), "a surrogate pair: {safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, v);
        assert!(matches!(json_safe("{\"a\": \"Zoë ★\"}"), Cow::Borrowed(_)));
    }

    #[test]
    fn excerpts_are_short() {
        let long = "x".repeat(50_000_000);
        let e = excerpt(&long);
        assert!(e.len() < 120, "{e}");
        assert!(e.contains("50000000 bytes"));
        assert_eq!(excerpt("short"), "short");
        assert!(excerpt_bytes(&[0xff; 1000]).len() < 400);
    }

    #[test]
    fn names() {
        for ok in ["Ann", "Zoë Ünal", "李小龍", "Ana\u{200d}", &"n".repeat(64)] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "  ",
            "A\nB",
            "A\rB",
            "\u{1b}[31mX",
            "x\u{202e}y",
            "x\u{2066}y",
            "x\u{2028}y",
            "x\u{200b}y",
            "Ev\u{ad}e",
            "Eve\u{e0041}",
            "\u{3164}",
            "\u{feff}Ann",
            "x\u{85}y",
            "x\u{7f}",
            " Ann",
            &"n".repeat(65),
        ] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
    }

    /// The noncharacters' boundaries, either side of each range.
    #[test]
    fn names_without_noncharacters() {
        for (c, ok) in [
            ('\u{fdcf}', true),
            ('\u{fdd0}', false),
            ('\u{fde0}', false),
            ('\u{fdef}', false),
            ('\u{fdf0}', true),
            ('\u{fffd}', true),
            ('\u{fffe}', false),
            ('\u{ffff}', false),
            ('\u{10000}', true),
            ('\u{1fffd}', true),
            ('\u{1fffe}', false),
            ('\u{1ffff}', false),
            ('\u{20000}', true),
            ('\u{2fffe}', false),
            ('\u{efffd}', true),
            ('\u{effff}', false),
            ('\u{fffff}', false),
            ('\u{100000}', true),
            ('\u{10fffd}', true),
            ('\u{10fffe}', false),
            ('\u{10ffff}', false),
        ] {
            assert_eq!(is_noncharacter(c), !ok, "U+{:04X}", c as u32);
            let name = format!("Ann{c}a");
            let checked = check_name(&name);
            assert_eq!(checked.is_ok(), ok, "U+{:04X}: {checked:?}", c as u32);
            if let Err(e) = checked {
                assert!(e.contains(&format!("U+{:04X}", c as u32)), "{e}");
                assert!(e.contains("noncharacter"), "{e}");
                // The quote shows the character escaped, not raw.
                assert!(!e.contains(c), "{e:?}");
                assert!(e.contains(&format!("\\u{{{:x}}}", c as u32)), "{e}");
            }
        }
        // Exactly 66 noncharacters: 32 in the block and 2 in each plane.
        let all = (0..=0x10ffff_u32)
            .filter_map(char::from_u32)
            .filter(|&c| is_noncharacter(c))
            .count();
        assert_eq!(all, 32 + 2 * 17);
    }

    #[test]
    fn addresses() {
        for ok in [
            "anna@example.org",
            "a.b+c@mail.example.org",
            "x@localhost",
            "o'neil@ex-ample.org",
        ] {
            assert!(check_email(ok).is_ok(), "{ok}");
        }
        for bad in [
            "anna",
            "@x.org",
            "anna@",
            "a@b@c",
            "an na@x.org",
            "anna?@x.org",
            "anna@x?.org",
            "anna@x..org",
            ".anna@x.org",
            "anna@-x.org",
            "anna@x.org\r\nBcc: e@x.org",
            "zoë@x.org",
            "a,b@x.org",
            "<a@x.org>",
        ] {
            assert!(check_email(bad).is_err(), "{bad:?}");
        }
        let long = format!("{}@x.org", "a".repeat(300));
        assert!(check_email(&long).unwrap_err().len() < 200);
    }

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(count(1, "coin", "coins"), "1 coin");
        assert_eq!(count(0, "coin", "coins"), "0 coins");
        assert_eq!(count(2, "point", "points"), "2 points");
        assert_eq!(count("+1", "coin", "coins"), "+1 coin");
        assert_eq!(count(-1, "point", "points"), "-1 point");
        assert_eq!(count(11, "sea", "seas"), "11 seas");
    }

    #[test]
    fn near_misses_are_suggested_only_when_one_is_closest() {
        assert_eq!(edit_distance("lep", "leo"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("frist", "first"), 1);
        let boards = ["aries", "taurus", "gemini", "leo", "libra"];
        assert_eq!(did_you_mean("lep", boards), Some("leo"));
        assert_eq!(did_you_mean("Tauros", boards), Some("taurus"));
        assert_eq!(did_you_mean("xyz", boards), None);
        // Exact matches are not near misses.
        assert_eq!(did_you_mean("leo", boards), None);
        // Two as close: no guess.
        assert_eq!(did_you_mean("11", ["1", "10", "3"]), None);
        assert_eq!(
            did_you_mean("cornr1", ["corner1", "three1", "two1"]),
            Some("corner1")
        );
    }
}
