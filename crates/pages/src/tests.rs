use super::*;

/// Names sort as people read them: numbers by value, star labels as
/// they are counted, words alphabetically.
#[test]
fn choices_sort_in_reading_order() {
    let mut names = vec![
        "star AA",
        "star leo:10",
        "star Z",
        "square f10",
        "star B",
        "star leo:2",
        "square f9",
        "star cygnus:1",
        "square a10",
        "token 12",
        "token 3",
    ];
    names.sort_by_cached_key(|n| reading_order(n));
    assert_eq!(
        names,
        [
            "square a10",
            "square f9",
            "square f10",
            "star B",
            "star Z",
            "star AA",
            "star cygnus:1",
            "star leo:2",
            "star leo:10",
            "token 3",
            "token 12",
        ]
    );
}

/// An address's query reads back as what it asks, bounded: no more than
/// eight clicks, no move longer than 200 bytes, only the two questions.
#[test]
fn an_ask_reads_back_from_its_query_and_stays_bounded() {
    let ask = Ask {
        picks: vec!["star leo:2".into(), "token 10".into()],
        typed: Some("10 leo:2 & x".into()),
        at: Some(7),
        confirm: Some("resign".into()),
    };
    assert_eq!(Ask::parse(&ask.query()), ask);
    assert_eq!(Ask::default().query(), "");
    let many = "pick=a&".repeat(20);
    assert_eq!(Ask::parse(&many).picks.len(), 8);
    let long = format!("move={}", "x".repeat(201));
    assert_eq!(Ask::parse(&long).typed, None);
    assert_eq!(Ask::parse("confirm=delete").confirm, None);
    assert_eq!(Ask::parse("move=%20%20").typed, None);
}
