//! A player link: the address of a web player followed by a fragment that
//! carries log entries, so that opening the link hands the entries to the
//! player's page without any host seeing them (a browser never sends the
//! part after `#`).
//!
//! ```text
//! https://example.org/starry/#log=eyJib2R5Ijp7ImF1dGhvciI6MSwi…
//! ```
//!
//! The fragment is `log=` followed by the entries (whole canonical lines,
//! each ending in `\n`, exactly as in the log file) in URL-safe base64
//! without padding (RFC 4648 §5). Nothing else is in it: no secret, no
//! name of the recipient. Reading is strict (another alphabet, padding, a
//! line without its newline, more than [`MAX_ENTRIES_BYTES`]: refused); what
//! the entries say is checked afterwards by the same replay every log gets.
//! docs/mail.md ("Player links") is the normative text.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The key of the fragment's one parameter.
pub const KEY: &str = "log=";

/// The most entry bytes a link may carry: a whole long game is a few
/// hundred kilobytes; more is not a game.
pub const MAX_ENTRIES_BYTES: usize = 4 << 20;

/// The words before a player link in a mail, the CLI's and the web
/// player's alike (docs/mail.md, "Player links"). A sentence follows the
/// link in the same paragraph (SpamAssassin takes the end of a long link
/// standing alone for a tracker).
pub const PLAY_IN_BROWSER: &str = "Play in your browser, nothing to install:";

/// The longest player address a setting may give.
pub const MAX_URL_BYTES: usize = 2000;

/// Why a link or a player address is refused, in words for the player.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("the link carries no entries: its part after `#` should begin with `log=`")]
    NoEntries,
    #[error("the link carries more than {} MB of entries; a game is never that long", MAX_ENTRIES_BYTES >> 20)]
    TooLong,
    #[error(
        "the link's entries are damaged (not URL-safe base64 without padding, at character {0}); \
         the link was probably cut short when it was copied: use the attached log instead"
    )]
    Damaged(usize),
    #[error(
        "the link's entries are not whole lines of a log (no final newline or not UTF-8); \
         the link was probably cut short: use the attached log instead"
    )]
    NotLines,
    #[error("the player address {0}")]
    Address(String),
}

/// The fragment (without `#`) that carries `entries`.
pub fn fragment_of(entries: &[u8]) -> String {
    format!("{KEY}{}", URL_SAFE_NO_PAD.encode(entries))
}

/// The whole link: `player_url` (checked by [`check_player_url`]) and the
/// fragment that carries `entries`.
pub fn link_of(player_url: &str, entries: &[u8]) -> String {
    format!("{player_url}#{}", fragment_of(entries))
}

/// The entries a fragment carries (with or without its leading `#`):
/// whole lines, each ending in `\n`, not yet checked as entries.
pub fn entries_of(fragment: &str) -> Result<Vec<u8>, LinkError> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    let body = f.strip_prefix(KEY).ok_or(LinkError::NoEntries)?;
    // Four characters of base64 are three bytes: bound before decoding.
    if body.len() / 4 * 3 > MAX_ENTRIES_BYTES {
        return Err(LinkError::TooLong);
    }
    if let Some(i) = body
        .bytes()
        .position(|b| !(b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
    {
        return Err(LinkError::Damaged(KEY.len() + i + 1));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|_| LinkError::Damaged(KEY.len() + body.len()))?;
    if bytes.is_empty() {
        return Err(LinkError::NoEntries);
    }
    if !bytes.ends_with(b"\n") || std::str::from_utf8(&bytes).is_err() {
        return Err(LinkError::NotLines);
    }
    Ok(bytes)
}

/// Checks a player address from a setting: `https://` (or `http://` on
/// this machine's loopback, for a player served locally), printable ASCII,
/// no fragment of its own, at most [`MAX_URL_BYTES`].
pub fn check_player_url(url: &str) -> Result<(), LinkError> {
    let why = |w: &str| Err(LinkError::Address(w.to_string()));
    if url.len() > MAX_URL_BYTES {
        return why(&format!("is longer than {MAX_URL_BYTES} characters"));
    }
    if let Some(c) = url.chars().find(|c| !c.is_ascii_graphic()) {
        return why(&format!(
            "holds {:?}, which is not a printable ASCII character; percent-encode it",
            c
        ));
    }
    if url.contains('#') {
        return why("already has a `#` part; the link's entries go there");
    }
    let local = ["http://localhost", "http://127.0.0.1", "http://[::1]"]
        .iter()
        .any(|p| {
            url.strip_prefix(p)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', '/']))
        });
    let https = url.starts_with("https://") && url.len() > "https://".len();
    if !https && !local {
        return why(
            "must begin with `https://` (or `http://localhost` for a player served on this \
             machine), as in `https://example.org/starry/`",
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_through_a_link() {
        let entries = b"{\"body\":{}}\n{\"body\":{\"n\":1}}\n";
        let link = link_of("https://example.org/starry/", entries);
        let (_, frag) = link.split_once('#').unwrap();
        assert!(frag.starts_with("log="));
        assert!(!frag.contains('=') || frag.find('=') == Some(3));
        assert_eq!(entries_of(frag).unwrap(), entries);
        assert_eq!(entries_of(&format!("#{frag}")).unwrap(), entries);
    }

    #[test]
    fn damaged_fragments_are_refused() {
        assert_eq!(entries_of("x=1"), Err(LinkError::NoEntries));
        assert_eq!(entries_of("log="), Err(LinkError::NoEntries));
        assert_eq!(entries_of("log=ab+c"), Err(LinkError::Damaged(7)));
        assert_eq!(entries_of("log=YWJj=="), Err(LinkError::Damaged(9)));
        // `abc` has no final newline.
        assert_eq!(entries_of("log=YWJj"), Err(LinkError::NotLines));
        // One character too many for a whole number of bytes.
        assert!(matches!(
            entries_of("log=YWJjZ"),
            Err(LinkError::Damaged(_))
        ));
        let huge = format!("log={}", "A".repeat(MAX_ENTRIES_BYTES / 3 * 4 + 8));
        assert_eq!(entries_of(&huge), Err(LinkError::TooLong));
    }

    #[test]
    fn player_addresses_are_checked() {
        for ok in [
            "https://example.org/starry/",
            "https://example.org",
            "http://localhost:8000/",
            "http://127.0.0.1",
        ] {
            assert_eq!(check_player_url(ok), Ok(()), "{ok}");
        }
        for bad in [
            "http://example.org/",
            "https://",
            "https://example.org/#x",
            "https://exa mple.org/",
            "https://example.org/\n",
            "javascript:alert(1)",
            "http://localhost.evil.org/",
            "file:///home/anna/starry.html",
        ] {
            assert!(check_player_url(bad).is_err(), "{bad}");
        }
        assert!(check_player_url(&format!("https://e.org/{}", "a".repeat(MAX_URL_BYTES))).is_err());
    }
}
