//! `starry rules score` on hostile input, through the real binary: every
//! count and number is bounded, every error is short, safe for a terminal,
//! exit code 2 (wrong use), and nothing panics or runs out of memory.

use crate::common;

use std::process::Output;

use assert_cmd::Command;
use common::assert_refused;

/// Scores `input` given on standard input.
fn score_stdin(input: impl Into<Vec<u8>>) -> Output {
    Command::cargo_bin("starry")
        .unwrap()
        .args(["rules", "score", "-"])
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap()
}

#[test]
fn a_huge_seat_number_is_refused() {
    for seat in ["18446744073709551615", "1000000000000", "5"] {
        let out = score_stdin(format!(
            r#"{{"board":"aries","tokens":[{{"star":1,"seat":{seat},"token":"10"}}]}}"#
        ));
        assert_refused(&out, &["tokens[0].seat", seat, "0 to 4"]);
    }
    // And one just beyond what any integer type holds, or below 0.
    for seat in ["18446744073709551616", "-1"] {
        let out = score_stdin(format!(
            r#"{{"board":"aries","tokens":[{{"star":1,"seat":{seat},"token":"10"}}]}}"#
        ));
        assert_refused(&out, &["tokens[0].seat", "0 to 4"]);
    }
}

#[test]
fn a_million_purses_are_refused() {
    // 2 MB of purses: refused unread beyond the size limit.
    let purses = vec!["0"; 1_000_000].join(",");
    let out = score_stdin(format!(
        r#"{{"board":"aries","tokens":[],"purses":[{purses}]}}"#
    ));
    assert_refused(&out, &["1048576 bytes"]);
    // Within the size limit, the count of purses is bounded on its own.
    let purses = vec!["0"; 100_000].join(",");
    let out = score_stdin(format!(
        r#"{{"board":"aries","tokens":[],"purses":[{purses}]}}"#
    ));
    assert_refused(&out, &["purses has 100000 entries", "1 to 5 seats"]);
    let out = score_stdin(r#"{"board":"aries","tokens":[],"purses":[0,0,0,0,0,0]}"#);
    assert_refused(&out, &["purses has 6 entries"]);
}

#[test]
fn an_overflowing_purse_is_refused() {
    // Seat 0 is first and pays seat 2: with a purse of i64::MAX, adding the
    // prize used to overflow.
    let tokens = r#"[{"star":1,"seat":0,"token":"10"},{"star":3,"seat":1,"token":"7"},{"star":5,"seat":2,"token":"1"}]"#;
    for purse in [
        "9223372036854775807",
        "9223372036854775808",
        "1000000000001",
        "1e300",
    ] {
        let out = score_stdin(format!(
            r#"{{"board":"aries","tokens":{tokens},"purses":[{purse},0,0]}}"#
        ));
        assert_refused(&out, &["purses[0]", "1000000000000"]);
    }
    // The largest purses allowed score, with checked sums.
    let out = Command::cargo_bin("starry")
        .unwrap()
        .args(["rules", "score", "-", "--json"])
        .write_stdin(format!(
            r#"{{"board":"aries","tokens":{tokens},"purses":[1000000000000,1000000000000,1000000000000]}}"#
        ))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        r["purses"],
        serde_json::json!([1000000000004_i64, 1000000000003_i64, 1000000000001_i64])
    );
}

#[test]
fn input_over_one_mebibyte_is_refused() {
    // A valid position padded to 2 MB: it used to be read and scored whole.
    let mut input = br#"{"board":"aries","tokens":[{"star":1,"seat":0,"token":"10"}]}"#.to_vec();
    input.resize(2 * 1024 * 1024, b' ');
    let out = score_stdin(input.clone());
    assert_refused(&out, &["standard input", "1048576 bytes (1 MiB)"]);
    // From a file too.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    std::fs::write(&path, &input).unwrap();
    let out = Command::cargo_bin("starry")
        .unwrap()
        .args(["rules", "score", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_refused(&out, &["big.json", "1048576 bytes (1 MiB)"]);
    // Exactly at the limit is still read.
    input.truncate(1024 * 1024);
    let out = score_stdin(input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn strings_with_escape_characters_are_quoted_short_and_escaped() {
    // JSON `\u001b` is a raw ESC in the string; 3000 more characters make
    // sure the whole string is not echoed either.
    let hostile = format!("\\u001b[2J\\u001b]0;owned\\u0007{}", "x".repeat(3000));
    for (json, mention) in [
        (
            format!(r#"{{"board":"aries","tokens":[],"doubling":"{hostile}"}}"#),
            "unknown variant",
        ),
        (
            format!(r#"{{"board":"aries","tokens":[{{"star":1,"seat":0,"token":"{hostile}"}}]}}"#),
            "unknown variant",
        ),
        (
            format!(r#"{{"board":"aries","tokens":[],"{hostile}":"{hostile}"}}"#),
            "unknown field",
        ),
        (
            format!(r#"{{"board":"{hostile}","tokens":[]}}"#),
            "board id",
        ),
        (
            format!(
                r#"{{"board":"aries","tokens":[{{"star":"{hostile}","seat":0,"token":"1"}}]}}"#
            ),
            "invalid type",
        ),
    ] {
        let out = score_stdin(json);
        assert_refused(&out, &[mention, "\\u{1b}[2J", "bytes in all"]);
    }
    // Not UTF-8 at all.
    let out = score_stdin(b"{\"board\":\"\xff\xfe\x1b[2J\"}".to_vec());
    assert_refused(&out, &["not UTF-8"]);
}

#[test]
fn too_many_tokens_and_bad_stars_are_refused() {
    let tokens: Vec<String> = (1..=6)
        .map(|s| format!(r#"{{"star":{s},"seat":0,"token":"1"}}"#))
        .collect();
    let out = score_stdin(format!(
        r#"{{"board":"aries","tokens":[{}]}}"#,
        tokens.join(",")
    ));
    assert_refused(&out, &["tokens has 6 entries", "5 stars"]);
    let out = score_stdin(r#"{"board":"aries","tokens":[{"star":256,"seat":0,"token":"1"}]}"#);
    assert_refused(&out, &["tokens[0].star is 256"]);
    let out = score_stdin(r#"{"board":"aries","tokens":[]}"#);
    assert_refused(&out, &["no seats"]);
}
