//! `starry rules score --game star-map` through the real binary: a sequence
//! of placements scored with numbers checked by hand, every placement rule
//! refused with its name and the placement's number, discs the set does not
//! have, malformed and hostile input refused with a short excerpt, input
//! over the size limit, and the JSON report checked against its schema.

use crate::common;

use std::process::Output;

use assert_cmd::Command;
use common::{assert_refused, validator};
use serde_json::{Value, json};

/// The easy map: parts 1 to 16 in order, all on their bonus side. Near the
/// centre it has bonus 1 on e6, h6, h7, e8 and g8.
const EASY: &str = "1b 2b 3b 4b / 5b 6b 7b 8b / 9b 10b 11b 12b / 13b 14b 15b 16b";
/// The same parts on their symbol side. Near the centre: f5 only green,
/// e8 a meteorite, h8 no yellow.
const HARD: &str = "1s 2s 3s 4s 5s 6s 7s 8s 9s 10s 11s 12s 13s 14s 15s 16s";

/// Runs `starry rules score --game star-map - [extra]` on `input`.
fn score(input: impl Into<Vec<u8>>, extra: &[&str]) -> Output {
    let mut args = vec!["rules", "score", "--game", "star-map", "-"];
    args.extend_from_slice(extra);
    Command::cargo_bin("starry")
        .unwrap()
        .args(&args)
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap()
}

fn position(map: &str, placements: Value) -> String {
    json!({
        "map": map,
        "start": {"fields": "RRW", "rotation": 0},
        "placements": placements,
    })
    .to_string()
}

fn report(input: &str) -> Value {
    let out = score(input, &["--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<String> = validator("star-map-referee.json")
        .iter_errors(&r)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    r
}

/// The start disc RRW unturned lies red on f6 and g6, white on f7:
///
/// ```text
///      d  e  f  g  h
///  5   .  .  .  .  .
///  6   .  +1 R  R  +1
///  7   .  .  W  .  +1
///  8   .  +1 .  +1 .
/// ```
fn easy_game() -> Value {
    json!([
        // Red f5, f6, g6: a group of three, 3.
        {"shape": "one", "fields": "R", "at": "f5"},
        // Red g5 joins it: four, 4.
        {"shape": "one", "fields": "R", "at": "g5"},
        // White f7, f8: two only, nothing.
        {"shape": "one", "fields": "W", "at": "f8"},
        // Turned a quarter: red on e6 (a bonus), white on e7, violet on
        // d6. Red is five (5), white e7, f7, f8 is three (3), and the red
        // star on e6 is in a group that scores: bonus 1. 9 in all.
        {"shape": "corner", "fields": "RWV", "at": "e6", "rotation": 90},
        // Yellow on h7 (a bonus), red on h6 (a bonus): red is six (6), the
        // bonus on h6 is earned (1); the yellow star's own group is one
        // star, so the bonus on h7 is lost although the disc scores. 7.
        {"shape": "two", "fields": "YR", "at": "h7", "rotation": 270},
        // Yellow on e9, an empty field on e8 (a bonus): lost, nothing.
        {"shape": "two", "fields": "Y.", "at": "e9", "rotation": 270},
    ])
}

/// [`assert_refused`], for input read from standard input.
fn refused_on_stdin(out: &Output, mentions: &[&str]) -> String {
    let err = assert_refused(out, mentions);
    assert!(err.starts_with("error: standard input: "), "{err}");
    err
}

#[test]
fn a_sequence_is_scored_as_counted_by_hand() {
    let input = position(EASY, easy_game());
    let r = report(&input);
    assert_eq!(r["map"], EASY);
    assert_eq!(r["start"]["squares"], json!(["f6", "g6", "f7"]));
    let p = r["placements"].as_array().unwrap();
    let points: Vec<i64> = p.iter().map(|p| p["points"].as_i64().unwrap()).collect();
    assert_eq!(points, [3, 4, 0, 9, 7, 0]);
    let totals: Vec<i64> = p.iter().map(|p| p["total"].as_i64().unwrap()).collect();
    assert_eq!(totals, [3, 7, 7, 16, 23, 23]);
    assert_eq!(r["total"], 23);
    // A group of three, then the same group grown to four.
    assert_eq!(
        p[0]["groups"],
        json!([{"star": "R", "name": "red", "size": 3, "squares": ["f5", "f6", "g6"]}])
    );
    assert_eq!(p[1]["groups"][0]["size"], 4);
    assert_eq!(
        p[1]["groups"][0]["squares"],
        json!(["f5", "g5", "f6", "g6"])
    );
    // Two equal stars that touch are no group yet.
    assert_eq!(p[2]["groups"], json!([]));
    // Two groups at once, and a bonus earned.
    assert_eq!(p[3]["squares"], json!(["e6", "e7", "d6"]));
    assert_eq!(
        p[3]["groups"],
        json!([
            {"star": "R", "name": "red", "size": 5, "squares": ["f5", "g5", "e6", "f6", "g6"]},
            {"star": "W", "name": "white", "size": 3, "squares": ["e7", "f7", "f8"]},
        ])
    );
    assert_eq!(
        p[3]["bonuses"],
        json!([{"square": "e6", "points": 1, "earned": true}])
    );
    // One bonus earned and one lost by the same disc: a bonus needs its own
    // star's group to score.
    assert_eq!(p[4]["squares"], json!(["h7", "h6"]));
    assert_eq!(
        p[4]["bonuses"],
        json!([
            {"square": "h7", "points": 1, "earned": false},
            {"square": "h6", "points": 1, "earned": true},
        ])
    );
    // An empty field on a bonus square loses it.
    assert_eq!(
        p[5]["bonuses"],
        json!([{"square": "e8", "points": 1, "earned": false}])
    );

    let out = score(input, &[]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for line in [
        "Start disc: corner RRW r0 on f6 g6 f7.",
        " 1. one R on f5: 3 points, total 3",
        "      red 3: f5 f6 g6",
        " 4. corner RWV on e6 r90 (e6 e7 d6): 9 points, total 16",
        "      white 3: e7 f7 f8",
        "      bonus 1 on e6: earned",
        "      bonus 1 on h7: lost",
        " 6. two Y. on e9 r270 (e9 e8): nothing, total 23",
        " 6  . . . V R R R R . . . .",
        " 8  . . . . - W . . . . . .",
        "Total: 23 points from 6 placements.",
    ] {
        assert!(text.contains(line), "`{line}` not in:\n{text}");
    }
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
}

#[test]
fn the_plain_map_has_no_bonus_and_a_disc_reads_from_either_end() {
    // The set has a two YR; written RY it is the same disc turned round.
    let r = report(&position(
        "plain",
        json!([
            {"shape": "two", "fields": "RY", "at": "h6"},
            {"shape": "one", "fields": "R", "at": "e6"},
        ]),
    ));
    assert_eq!(r["map"], "plain");
    assert_eq!(r["placements"][0]["points"], 3);
    assert_eq!(r["placements"][0]["bonuses"], json!([]));
    assert_eq!(r["placements"][1]["groups"][0]["size"], 4);
    assert_eq!(r["total"], 7);
    // The start disc's rotation puts its elbow on f6, g6, g7 or f7.
    for (rotation, squares) in [
        (0, ["f6", "g6", "f7"]),
        (90, ["g6", "g7", "f6"]),
        (180, ["g7", "f7", "g6"]),
        (270, ["f7", "f6", "g7"]),
    ] {
        let r = report(
            &json!({"map": "plain", "start": {"fields": "GGG", "rotation": rotation},
                    "placements": []})
            .to_string(),
        );
        assert_eq!(r["start"]["squares"], json!(squares), "r{rotation}");
        assert_eq!(r["total"], 0);
    }
}

#[test]
fn every_placement_rule_is_refused_with_its_name_and_number() {
    let cases: &[(Value, &str, &str)] = &[
        (
            json!([{"shape": "three", "fields": "OOO", "at": "k1"}]),
            "map-edge",
            "placement 1 (three `OOO` on k1 r0)",
        ),
        (
            json!([{"shape": "one", "fields": "R", "at": "g6"}]),
            "overlap",
            "g6 is covered already",
        ),
        (
            json!([{"shape": "one", "fields": "R", "at": "a1"}]),
            "start-disc",
            "must touch the start disc",
        ),
        (
            json!([{"shape": "one", "fields": "R", "at": "e5"}]),
            "start-disc",
            "corner of f6",
        ),
        (
            json!([{"shape": "one", "fields": "R", "at": "h6"},
                   {"shape": "one", "fields": "R", "at": "a1"}]),
            "contact",
            "placement 2 (one `R` on a1)",
        ),
        (
            json!([{"shape": "one", "fields": "B", "at": "g5"}]),
            "match",
            "a blue star on g5 would touch a red star on g6",
        ),
        (
            json!([{"shape": "one", "fields": "R", "at": "f5"}]),
            "star-square",
            "f5 takes only a green star",
        ),
        (
            json!([{"shape": "two", "fields": "Y.", "at": "h7", "rotation": 180},
                   {"shape": "one", "fields": "Y", "at": "h8"}]),
            "crossed-out-star",
            "placement 2 (one `Y` on h8): h8 shows a crossed-out yellow star",
        ),
        (
            json!([{"shape": "one", "fields": "W", "at": "f8"},
                   {"shape": "one", "fields": "W", "at": "e8"}]),
            "meteorite",
            "placement 2 (one `W` on e8): e8 is a meteorite",
        ),
    ];
    for (placements, rule, says) in cases {
        let out = score(position(HARD, placements.clone()), &[]);
        refused_on_stdin(&out, &[&format!("(rule: {rule})"), says]);
    }
    // With --json, the error is an object with the exit code.
    let out = score(position(HARD, cases[1].0.clone()), &["--json"]);
    assert_eq!(out.status.code(), Some(2));
    let e: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(e["error"]["code"], 2);
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("(rule: overlap)"),
        "{e}"
    );
}

#[test]
fn discs_the_set_does_not_have_are_refused() {
    for (placements, says) in [
        (
            json!([{"shape": "three", "fields": "RGB", "at": "h6"}]),
            "placement 1 (three `RGB` on h6 r0): the set has no three RGB",
        ),
        // RWV flipped: its arms swapped.
        (
            json!([{"shape": "corner", "fields": "RVW", "at": "h6"}]),
            "discs are never flipped",
        ),
        // The start disc is the set's only RRW.
        (
            json!([{"shape": "corner", "fields": "RRW", "at": "h6"}]),
            "every corner RRW of the set is on the map already",
        ),
        // Two red ones in the set, not three.
        (
            json!([{"shape": "one", "fields": "R", "at": "h6"},
                   {"shape": "one", "fields": "R", "at": "i6"},
                   {"shape": "one", "fields": "R", "at": "j6"}]),
            "placement 3 (one `R` on j6): every one R",
        ),
        (
            json!([{"shape": "two", "fields": "RRR", "at": "h6"}]),
            "a two has 2 fields, but `RRR` gives 3",
        ),
        (
            json!([{"shape": "two", "fields": "Rx", "at": "h6"}]),
            "`x` is not a star code of the set (R, O, Y, G, B, V, W)",
        ),
    ] {
        let out = score(position("plain", placements), &[]);
        refused_on_stdin(&out, &["(rule: position-disc)", says]);
    }
    let out = score(
        r#"{"map":"plain","start":{"fields":"RR"},"placements":[]}"#,
        &[],
    );
    refused_on_stdin(&out, &["the start disc: a corner has 3 fields"]);
    // More placements than the set has discs.
    let many = vec![json!({"shape": "one", "fields": "R", "at": "h6"}); 56];
    let out = score(position("plain", Value::Array(many)), &[]);
    refused_on_stdin(&out, &["placements has 56 entries", "55 discs"]);
}

#[test]
fn a_custom_disc_set_names_its_own_stars() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/core/src/games/star_map/discs.json");
    let mut discs: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    // Red becomes crimson, coded C.
    discs["stars"][0] = json!({"code": "C", "name": "crimson"});
    for d in discs["discs"].as_array_mut().unwrap() {
        let f = d["fields"].as_str().unwrap().replace('R', "C");
        d["fields"] = json!(f);
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/core/src/games/star_map/parts.json");
    let parts = std::fs::read_to_string(path)
        .unwrap()
        .replace("R\"", "C\"")
        .replace("R ", "C ");
    let parts: Value = serde_json::from_str(&parts).unwrap();
    let input = json!({
        "map": "plain", "discs": discs, "parts": parts,
        "start": {"fields": "CCW"},
        "placements": [{"shape": "one", "fields": "C", "at": "h6"}],
    });
    let r = report(&input.to_string());
    assert_eq!(
        r["placements"][0]["groups"][0],
        json!({"star": "C", "name": "crimson", "size": 3, "squares": ["f6", "g6", "h6"]})
    );
    // The shipped codes are no longer the set's.
    let mut input = input;
    input["start"]["fields"] = json!("RRW");
    let out = score(input.to_string(), &[]);
    refused_on_stdin(&out, &["`R` is not a star code of the set (C, O,"]);
    // A broken set is refused as the game refuses it.
    let out = score(
        r#"{"map":"plain","discs":{"stars":[],"discs":[]},"start":{"fields":"RRW"},"placements":[]}"#,
        &[],
    );
    refused_on_stdin(&out, &["names 0 star symbols", "(rule: data)"]);
}

#[test]
fn malformed_input_is_refused_with_a_short_excerpt() {
    let hostile = format!("\\u001b[2J\\u001b]0;owned\\u0007{}", "x".repeat(3000));
    let start = r#""start":{"fields":"RRW"}"#;
    for (input, mentions) in [
        (
            format!(r#"{{"map":"plain",{start},"placements":[],"{hostile}":1}}"#),
            vec!["unknown field", "\\u{1b}[2J", "bytes in all"],
        ),
        (
            format!(r#"{{"map":"{hostile}",{start},"placements":[]}}"#),
            vec!["(rule: map)", "\\u{1b}[2J", "bytes in all"],
        ),
        (
            format!(
                r#"{{"map":"plain",{start},"placements":[{{"shape":"one","fields":"{hostile}","at":"h6"}}]}}"#
            ),
            vec!["placement 1 (one `\\u{1b}[2J", "bytes in all"],
        ),
        (
            format!(
                r#"{{"map":"plain",{start},"placements":[{{"shape":"one","fields":"R","at":"{hostile}"}}]}}"#
            ),
            vec!["is not a square", "\\u{1b}[2J"],
        ),
        (
            format!(
                r#"{{"map":"plain",{start},"placements":[{{"shape":"{hostile}","fields":"R","at":"h6"}}]}}"#
            ),
            vec!["unknown variant", "\\u{1b}[2J"],
        ),
        (
            format!(
                r#"{{"map":"plain",{start},"placements":[{{"shape":"one","fields":"R","at":"h6","rotation":45}}]}}"#
            ),
            vec!["45 is not a rotation", "line 1 column"],
        ),
        (
            format!(r#"{{"map":"random",{start},"placements":[]}}"#),
            vec!["`map` is `random`, which draws a map at random"],
        ),
        (
            format!(r#"{{"map":"1b 2x",{start},"placements":[]}}"#),
            vec!["`2x` is not a part id followed by its side"],
        ),
        // The last character of a part need not be one byte (found by
        // fuzzing).
        (
            format!(r#"{{"map":"1b 2Έ",{start},"placements":[]}}"#),
            vec!["`2Έ` is not a part id followed by its side"],
        ),
        (
            format!(r#"{{"map":"1b 2b 3b",{start},"placements":[]}}"#),
            vec!["a layout names 16 parts", "this one names 3"],
        ),
        (
            format!(
                r#"{{"map":"1b 1b 3b 4b 5b 6b 7b 8b 9b 10b 11b 12b 13b 14b 15b 16b",{start},"placements":[]}}"#
            ),
            vec!["part 1 is named twice"],
        ),
        (
            format!(r#"{{"map":"plain",{start}}}"#),
            vec!["missing field `placements`"],
        ),
        (
            format!(r#"{{"map":"plain",{start},"placements":["#),
            vec!["not valid JSON"],
        ),
        (
            format!("[{hostile}]"),
            vec!["must be a JSON object", "it begins `[\\u001b[2J"],
        ),
        (String::new(), vec!["it is empty"]),
    ] {
        let out = score(input, &[]);
        refused_on_stdin(&out, &mentions);
    }
    let out = score(b"{\"map\":\"\xff\xfe\x1b[2J\"}".to_vec(), &[]);
    refused_on_stdin(&out, &["not UTF-8"]);
    // Control characters take several characters each once escaped: the
    // quotes are cut by their escaped length (found by fuzzing).
    let others = "OYGBVW"
        .chars()
        .map(|c| format!(r#"{{"code":"{c}","name":"x{}"}}"#, c.to_ascii_lowercase()))
        .collect::<Vec<_>>()
        .join(",");
    let controls = "\u{18}".repeat(500);
    let escaped = "\\u0018".repeat(500);
    for (input, mention) in [
        (format!("[{controls}]"), "it begins `[\\u{18}"),
        (
            format!(r#"{{"map":"{escaped}",{start},"placements":[]}}"#),
            "(rule: map)",
        ),
        (
            format!(
                r#"{{"map":"plain",{start},"placements":[{{"shape":"one","fields":"{escaped}","at":"h6"}}]}}"#
            ),
            "(rule: position-disc)",
        ),
        (
            format!(r#"{{"map":"plain",{start},"placements":[],"{escaped}":1}}"#),
            "unknown field",
        ),
        (
            format!(
                r#"{{"map":"plain",{start},"placements":[],"discs":{{"stars":[{{"code":"R","name":"{escaped}"}},{others}],"discs":[]}}}}"#
            ),
            "(rule: data)",
        ),
    ] {
        refused_on_stdin(&score(input, &[]), &[mention, "bytes in all"]);
    }
}

#[test]
fn input_over_one_mebibyte_is_refused() {
    let mut input = position("plain", json!([])).into_bytes();
    input.resize(2 * 1024 * 1024, b' ');
    refused_on_stdin(&score(input.clone(), &[]), &["1048576 bytes (1 MiB)"]);
    // Exactly at the limit is still read.
    input.truncate(1024 * 1024);
    let out = score(input, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_position_validates_against_its_schema() {
    let schema = validator("star-map-position.json");
    for (input, valid) in [
        (position(EASY, easy_game()), true),
        (position("plain", json!([])), true),
        (
            r#"{"map":"plain","start":{"fields":"RRW"},"placements":[{"shape":"one","fields":"R","at":"m1"}]}"#.into(),
            false,
        ),
        (
            r#"{"map":"plain","start":{"fields":"RRW","rotation":45},"placements":[]}"#.into(),
            false,
        ),
        (r#"{"map":"plain","placements":[]}"#.into(), false),
    ] {
        let v: Value = serde_json::from_str(&input).unwrap();
        assert_eq!(schema.is_valid(&v), valid, "{input}");
        assert_eq!(score(input.clone(), &[]).status.success(), valid, "{input}");
    }
}

#[test]
fn without_game_the_hint_names_star_map() {
    let out = Command::cargo_bin("starry")
        .unwrap()
        .args(["rules", "score", "-"])
        .write_stdin(position("plain", json!([])))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("for a Star Map position add --game star-map"),
        "{err}"
    );
}
