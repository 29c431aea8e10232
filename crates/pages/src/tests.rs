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

/// The web player's addressing: links in the query of its own page, forms
/// with no hidden field of the site's own.
struct Web;

impl Site for Web {
    fn game_href(&self, id: &str, ask: &Ask) -> String {
        match ask.query() {
            q if q.is_empty() => format!("?game={id}"),
            q => format!("?game={id}&{q}"),
        }
    }
    fn action(&self, id: &str) -> String {
        format!("#act-{id}")
    }
    fn hidden(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    fn heading_level(&self) -> u8 {
        2
    }
}

/// A site of game pages alone (as serve's): the default heading levels.
struct Alone;

impl Site for Alone {
    fn game_href(&self, id: &str, ask: &Ask) -> String {
        Web.game_href(id, ask)
    }
    fn action(&self, id: &str) -> String {
        Web.action(id)
    }
    fn hidden(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
}

const NOW: &str = "2026-11-27T12:00:00Z";

/// A game of Starry Night between Ann and Ben, written in memory up to
/// its first move: the log and the two players.
fn started() -> (Vec<u8>, Identity, Identity) {
    use starry_core::games::starry_night::StarryNight;
    use starry_core::log::entry::{Notify, SeatInfo};
    use starry_core::log::write::{Setup, Writer, genesis, join_line};
    let ann = Identity::new("Ann", "ann@example.org", [1; 32]).unwrap();
    let ben = Identity::new("Ben <b>&amp;", "ben@example.org", [2; 32]).unwrap();
    let seat = |id: &Identity| SeatInfo {
        email: id.email.clone(),
        key: None,
        name: id.name.clone(),
        operator: None,
    };
    let setup = Setup {
        seats: vec![seat(&ann), seat(&ben)],
        pairs: &[],
        extra: None,
    };
    let mut log =
        genesis::<StarryNight>(&ann, setup, Some(86_400 * 7), NOW.into(), [3; 32]).unwrap();
    loop {
        let r = Replay::<StarryNight>::from_bytes(&log).unwrap();
        let (action, Some(seat)) = r.expected() else {
            panic!("the game ended before a move")
        };
        let id = if seat == 0 { &ann } else { &ben };
        if action == Action::Join {
            let nonce = [4 + seat as u8; 32];
            log.extend(join_line(&r, id, seat, Notify::All, NOW.into(), nonce));
            continue;
        }
        if action != Action::Ready {
            assert_eq!(action, Action::Move);
            break;
        }
        let (line, _) = Writer::new(&r, id, NOW.into()).unwrap().ready().unwrap();
        log.extend(line);
    }
    (log, ann, ben)
}

/// The page the web player shows: its links and forms addressed by its
/// own site, a move chosen click by click and previewed by the core's dry
/// run (no files), every name from the log escaped.
#[test]
fn a_game_page_for_another_site_chooses_and_previews_a_move_without_files() {
    use starry_core::games::starry_night::StarryNight;
    let (log, ann, ben) = started();
    let r = Replay::<StarryNight>::from_bytes(&log).unwrap();
    let id = hex_id(&r);
    let entries = r.len();
    let mover = match r.expected().1 {
        Some(0) => &ann,
        _ => &ben,
    };
    let page = |ask: &Ask, me: &Identity| {
        game_page::<StarryNight>(&Web, &log, Some(me), ask, NOW, html! {})
            .unwrap()
            .1
            .into_string()
    };
    let mut ask = Ask::default();
    let mut html = page(&ask, mover);
    assert!(!html.contains("<b>"), "a name is escaped: {html}");
    assert!(html.contains("Ben &lt;b&gt;&amp;amp;"), "{html}");
    assert!(!html.contains("csrf") && !html.contains("/game/"), "{html}");
    assert!(html.contains(&format!(r##"action="#act-{id}""##)), "{html}");
    assert!(
        html.contains(&format!(r#"name="entries" value="{entries}""#)),
        "the stale-copy guard: {html}"
    );
    assert!(
        html.contains(&format!("href=\"?game={id}&amp;at=1\"")),
        "the history stepper: {html}"
    );
    // Click by click, each the first offered, until the move is whole.
    let marker = format!("href=\"?game={id}&amp;pick=");
    for _ in 0..8 {
        if html.contains("preview-h") {
            break;
        }
        let at = html.find(&marker).expect("a click is offered") + "href=\"?".len();
        let query = &html[at..at + html[at..].find('"').unwrap()];
        ask = Ask::parse(&query.replace("&amp;", "&"));
        assert!(!ask.picks.is_empty(), "{query}");
        html = page(&ask, mover);
    }
    assert!(
        html.contains(&format!("Dry run, nothing written. Entry {entries}: ")),
        "{html}"
    );
    assert!(
        html.contains("Preview: the board after your move"),
        "{html}"
    );
    assert!(html.contains(r#"name="what" value="play""#), "{html}");
    // Under the site's own h1: the title one level down, its sections two.
    assert!(!html.contains("<h1"), "{html}");
    assert!(html.starts_with("<h2>Starry Night — game "), "{html}");
    assert!(
        html.contains(r#"<h3 id="preview-h">Your move: <code>"#),
        "{html}"
    );
    let (_, alone) =
        game_page::<StarryNight>(&Alone, &log, Some(mover), &ask, NOW, html! {}).unwrap();
    let alone = alone.into_string();
    assert!(alone.starts_with("<h1>Starry Night — game "), "{alone}");
    assert!(
        alone.contains(r#"<h2 id="preview-h">Your move: <code>"#),
        "{alone}"
    );
    // The other player has no move to choose, and a spectator no form.
    let other = if std::ptr::eq(mover, &ann) {
        &ben
    } else {
        &ann
    };
    assert!(!page(&ask, other).contains("preview-h"));
    let (_, spectator) = game_page::<StarryNight>(&Web, &log, None, &ask, NOW, html! {}).unwrap();
    assert!(!spectator.into_string().contains("<form"));
}
