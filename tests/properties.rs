//! Property tests of the protocol: any one-byte change to a log is caught,
//! and randomly played games (any seat count, any variant; Starry Sky,
//! Starry Night and Star Map) always audit, conserve tokens and replay to
//! the same result.

use std::path::PathBuf;

use proptest::prelude::*;
use starry::app::demo::autoplay;
use starry::crypto::identity::Identity;
use starry::games::star_map::StarMap;
use starry::games::starry_night::StarryNight;
use starry::games::starry_sky::StarrySky;
use starry::games::{Draw, Own, Turn, prelude::*};
use starry::log::Replay;

fn example(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("examples/games")
            .join(name),
    )
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Every byte is covered by a signature, the chain, the canonical form or
    /// the line structure: changing any one of them is refused.
    #[test]
    fn any_one_byte_change_is_caught(pos in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let log = example("in-progress-4p.jsonl");
        let i = pos.index(log.len());
        prop_assume!(log[i] != byte);
        let mut changed = log.clone();
        changed[i] = byte;
        prop_assert!(Replay::<StarrySky>::from_bytes(&changed).is_err(), "byte {} changed to {:#04x} went unnoticed", i, byte);
    }
}

/// A new game of `G` for `n` fresh identities, created by the first;
/// returns the players and the log.
fn create<G: starry::games::Game>(
    dir: &std::path::Path,
    n: usize,
    pairs: &[(String, String)],
    seed: u8,
) -> (Vec<(PathBuf, Identity)>, PathBuf) {
    starry::app::demo::new_table::<G>(
        dir,
        n,
        pairs,
        "2026-11-20T12:00:00Z".into(),
        &mut Draw::new([seed; 32]),
    )
    .unwrap()
}

fn play_random_game(seats: usize, variants: &[(&str, &str)], seed: u8) -> Replay<StarrySky> {
    let dir = tempfile::tempdir().unwrap();
    let variants: Vec<(String, String)> = variants
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let (players, log) = create::<StarrySky>(dir.path(), seats, &variants, seed);
    let mut clock = || "2026-11-20T12:00:00Z".to_string();
    let mut last_entries = 0;
    let r = autoplay::<StarrySky>(
        &log,
        &players,
        &mut Draw::new([seed; 32]),
        &mut clock,
        |r| r.is_over(),
        |r| {
            // One entry per step, and the books balance after every one.
            assert_eq!(r.len(), last_entries.max(2) + 1);
            last_entries = r.len();
            if let Some(s) = &r.state {
                for seat in 0..seats {
                    let on_boards = s.known_on_boards(seat).total() + s.face_down_count(seat);
                    assert_eq!(
                        s.hand_size(seat) + on_boards,
                        9,
                        "seat {seat} holds 9 tokens"
                    );
                    assert!(s.coins()[seat] >= 0);
                }
            }
        },
    )
    .unwrap();
    // Replaying the file from scratch gives the same result.
    let again = Replay::<StarrySky>::from_bytes(&std::fs::read(&log).unwrap()).unwrap();
    assert_eq!(again.standings(), r.standings());
    assert_eq!(
        serde_json::to_value(StarrySky::view(again.state.as_ref().unwrap(), None, None)).unwrap(),
        serde_json::to_value(StarrySky::view(r.state.as_ref().unwrap(), None, None)).unwrap()
    );
    r
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn random_games_audit_and_keep_their_books(
        seats in 3usize..=5,
        compound in any::<bool>(),
        nothing in any::<bool>(),
        seed in any::<u8>(),
    ) {
        let variants = [
            ("doubling", if compound { "compound" } else { "additive" }),
            ("tie", if nothing { "nothing" } else { "coins" }),
        ];
        let r = play_random_game(seats, &variants, seed);
        prop_assert!(r.is_over());
        let standings = r.standings();
        prop_assert_eq!(standings.len(), seats);
        let s = r.state.as_ref().unwrap();
        prop_assert_eq!(s.history().len(), 12, "all 12 boards scored");
        // Coins come only from scored boards.
        let paid: i64 = s.history().iter().flat_map(|b| b.score.seats.iter().map(|x| x.coins)).sum();
        prop_assert_eq!(paid, s.coins().iter().sum::<i64>());
    }
}

/// A signed Starry Night game on a random sky, played to its end through the
/// real log: it ends, every position it passes keeps its map consistent, and
/// the file replays to the same result.
fn play_random_night(count: u32, grid: u32, area: bool, seed: u8) -> Replay<StarryNight> {
    let dir = tempfile::tempdir().unwrap();
    let pairs = vec![
        ("random-stars".to_string(), count.to_string()),
        ("grid".to_string(), format!("{grid}x{grid}")),
        (
            "score".to_string(),
            if area { "area" } else { "count" }.to_string(),
        ),
    ];
    let (players, log) = create::<StarryNight>(dir.path(), 2, &pairs, seed);
    let mut clock = || "2026-11-20T12:00:00Z".to_string();
    let r = autoplay::<StarryNight>(
        &log,
        &players,
        &mut Draw::new([seed; 32]),
        &mut clock,
        |r| r.is_over(),
        |r| {
            if let Some(s) = &r.state {
                let map = s.map();
                assert_eq!(map.faces_tracked(), map.faces_from_scratch());
            }
        },
    )
    .unwrap();
    let again = Replay::<StarryNight>::from_bytes(&std::fs::read(&log).unwrap()).unwrap();
    assert_eq!(again.standings(), r.standings());
    r
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn random_starry_night_games_end_and_audit(
        count in 3u32..=20,
        area in any::<bool>(),
        seed in any::<u8>(),
    ) {
        let r = play_random_night(count, 8, area, seed);
        prop_assert!(r.is_over());
        let s = r.state.as_ref().unwrap();
        prop_assert!(s.isolated().is_empty(), "the game ended with every star joined");
        let scores = s.scores();
        let standings = r.standings();
        prop_assert_eq!(standings.len(), 2);
        // The winner has the higher score, or made the last move on a tie.
        let winner = standings[0].seat;
        prop_assert!(scores[winner] > scores[1 - winner]
            || (scores[0] == scores[1] && s.last_mover() == Some(winner)));
    }
}

/// A signed Star Map game on a map of the given kind, played to its end
/// through the real log (every draw resolved from the next entry's beacon
/// link): it ends, every position offers `pass` exactly when nothing fits,
/// and the file replays to the same result.
fn play_random_star_map(seats: usize, map: &str, seed: u8) -> Replay<StarMap> {
    let dir = tempfile::tempdir().unwrap();
    let pairs = vec![("map".to_string(), map.to_string())];
    let (players, log) = create::<StarMap>(dir.path(), seats, &pairs, seed);
    let mut clock = || "2026-11-20T12:00:00Z".to_string();
    let mut moves = 0;
    let r = autoplay::<StarMap>(
        &log,
        &players,
        &mut Draw::new([seed; 32]),
        &mut clock,
        |r| r.is_over(),
        |r| {
            let Some(s) = &r.state else { return };
            moves += 1;
            assert!(
                moves as u64 <= StarMap::max_entries(&Default::default(), seats) + 3 * seats as u64,
                "the game goes on too long"
            );
            if let Turn::Move(seat) = StarMap::turn(s) {
                let intents = StarMap::intents(s, seat, &Own::default());
                assert_eq!(
                    intents == [starry::games::star_map::Intent::Pass],
                    s.placements(seat).is_empty()
                );
            }
        },
    )
    .unwrap();
    let again = Replay::<StarMap>::from_bytes(&std::fs::read(&log).unwrap()).unwrap();
    assert_eq!(again.standings(), r.standings());
    let (played, replayed) = (r.state.as_ref().unwrap(), again.state.as_ref().unwrap());
    for viewer in std::iter::once(None).chain((0..seats).map(Some)) {
        assert_eq!(
            serde_json::to_value(StarMap::view(replayed, viewer, None)).unwrap(),
            serde_json::to_value(StarMap::view(played, viewer, None)).unwrap()
        );
    }
    assert_eq!(
        StarMap::notes(replayed, &again.names()),
        StarMap::notes(played, &r.names())
    );
    r
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn random_star_map_games_end_and_audit(
        seats in 2usize..=4,
        map in prop::sample::select(vec!["random", "easy", "hard", "mixed"]),
        seed in any::<u8>(),
    ) {
        check_star_map_game(seats, map, seed);
    }
}

/// Every seat count, at fixed seeds, on the hard and the mixed map.
#[test]
fn star_map_games_of_2_3_and_4_players_end_and_audit() {
    for (seats, map) in [(2, "hard"), (3, "mixed"), (4, "hard")] {
        check_star_map_game(seats, map, 40 + seats as u8);
    }
}

fn check_star_map_game(seats: usize, map: &str, seed: u8) {
    let r = play_random_star_map(seats, map, seed);
    assert!(r.is_over());
    let s = r.state.as_ref().unwrap();
    assert!(s.is_over() && s.withdrawn().is_none(), "ended by the rules");
    for seat in 0..seats {
        assert!(
            s.placements(seat).is_empty(),
            "seat {seat} could still place"
        );
    }
    assert!(s.pending_draw().is_none(), "no draw left pending");
    let standings = r.standings();
    assert_eq!(standings.len(), seats);
    for row in &standings {
        assert_eq!(row.score, s.score(row.seat));
        // Four players rank as two teams: the team ahead of a seat's counts
        // once.
        let better = if seats == 4 {
            (0..2).filter(|&t| s.score(t) > row.score).count()
        } else {
            standings.iter().filter(|o| o.score > row.score).count()
        };
        assert_eq!(row.rank as usize, 1 + better);
        assert_eq!(row.team, (seats == 4).then_some((row.seat % 2) as u32));
    }
    if seats == 4 {
        assert_eq!(s.score(0), s.own_score(0) + s.own_score(2));
        assert_eq!(s.score(1), s.own_score(1) + s.own_score(3));
    }
}
