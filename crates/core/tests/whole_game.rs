//! Whole games through the core's public API alone, as a program without
//! files (a web page, another language's binding) would play them:
//! identities from fixed secrets, the genesis, the joins, every entry to the
//! end and the countersignatures, written with `log::write`; then the
//! audit's replay of the lines, a tampered copy refused with the right
//! fault, and the picture of the final position.

use starry_core::crypto::identity::Identity;
use starry_core::error::Fault;
use starry_core::games::prelude::*;
use starry_core::games::starry_sky::StarrySky;
use starry_core::log::entry::{Notify, SeatInfo};
use starry_core::log::write::{self, Refusal, Setup, Writer};
use starry_core::log::{Action, Ending, Kind, Replay};

const NAMES: [&str; 4] = ["Anna", "Ben", "Cleo", "Dan"];

/// The players, each from a secret of their own.
fn players(n: usize) -> Vec<Identity> {
    NAMES[..n]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let email = format!("{}@example.org", name.to_lowercase());
            Identity::from_master_secret(name, &email, [i as u8 + 1; 32])
        })
        .collect()
}

/// The `n`th time of the game: a second after the one before.
fn time(n: u64) -> String {
    format!(
        "2026-11-23T{:02}:{:02}:{:02}Z",
        10 + n / 3600,
        n / 60 % 60,
        n % 60
    )
}

/// A game between `ids` to its end, every seat playing the first legal
/// move on its turn, then countersigned by all: its lines and its replay.
fn play<G: Game>(ids: &[Identity], pairs: &[(String, String)]) -> (Vec<u8>, Replay<G>) {
    let mut draw = Draw::new([0x5e; 32]);
    let setup = Setup {
        seats: ids.iter().map(SeatInfo::of).collect(),
        pairs,
        extra: None,
    };
    let mut bytes = write::genesis::<G>(&ids[0], setup, Some(86_400), time(0), draw.bytes())
        .expect("a valid genesis");
    let mut r = Replay::<G>::from_bytes(&bytes).expect("the genesis replays");
    loop {
        let n = r.len();
        let line = match r.expected() {
            (Action::Join, Some(seat)) => {
                let id = &ids[seat];
                assert_eq!(write::join_seat(&r, id, false), Ok(seat));
                write::join_line(&r, id, seat, Notify::All, time(n), draw.bytes())
            }
            (Action::Over, _) => {
                let Some(seat) = (0..ids.len()).find(|s| !r.countersigned.contains(s)) else {
                    return (bytes, r);
                };
                let w = Writer::new(&r, &ids[seat], time(n)).expect("seated");
                w.countersign(false, None).expect("over").0
            }
            (action, Some(seat)) => {
                let w = Writer::new(&r, &ids[seat], time(n)).expect("seated");
                let written = match action {
                    Action::Ready => w.ready(),
                    Action::Reveal => w.reveal(),
                    _ => {
                        let at = w.position().expect("its turn to move");
                        let first = G::intents(&at.state, seat, &at.own)
                            .into_iter()
                            .next()
                            .expect("a legal move");
                        w.play(&at, &first)
                    }
                };
                written.expect("a legal entry").0
            }
            (action, None) => panic!("nobody to {action:?}"),
        };
        assert_eq!(line.last(), Some(&b'\n'), "a line ends with its newline");
        r.apply_line(n, &line[..line.len() - 1])
            .unwrap_or_else(|f| panic!("entry {n} does not verify: {f}"));
        bytes.extend_from_slice(&line);
        assert!(r.len() < 10_000, "the game ends");
    }
}

/// Winners (rank 1) of a finished game.
fn winners<G: Game>(r: &Replay<G>) -> Vec<Seat> {
    r.standings()
        .iter()
        .filter(|s| s.rank == 1)
        .map(|s| s.seat)
        .collect()
}

/// The lines of `bytes` with one byte of entry `n`'s signature changed.
fn flip_in_signature(bytes: &[u8], n: usize) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = bytes
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    let line = &mut lines[n];
    let at = line
        .windows(7)
        .position(|w| w == b"\"sig\":\"")
        .expect("a signed line")
        + 7;
    // Another base64 digit, so that the line still reads.
    line[at] = if line[at] == b'A' { b'B' } else { b'A' };
    lines.concat()
}

#[test]
fn a_whole_game_of_starry_sky_is_written_replayed_and_drawn() {
    let ids = players(3);
    let (bytes, r) = play::<StarrySky>(&ids, &[]);

    // What the audit finds: the same game, every line valid, played out.
    let audit = Replay::<StarrySky>::from_bytes(&bytes).expect("the whole game verifies");
    assert_eq!(audit.len(), r.len());
    assert_eq!(audit.tip(), r.tip());
    assert_eq!(audit.ending(), Some(Ending::Finished));
    assert_eq!(audit.countersigned.len(), 3);
    let kinds = |k: Kind| audit.entries.iter().filter(|e| e.kind == k).count();
    assert_eq!(kinds(Kind::Join), 3);
    assert_eq!(kinds(Kind::Countersign), 3);
    assert!(
        kinds(Kind::Reveal) > 0,
        "Starry Sky opens its hidden tokens"
    );
    // First legal moves all round leave the three seats level.
    assert_eq!(audit.len(), 125);
    assert_eq!(winners(&audit), vec![0, 1, 2]);

    // Nothing is left to write: a finished game is countersigned once.
    let w = Writer::new(&audit, &ids[1], time(99_999)).expect("seated");
    assert!(matches!(
        w.countersign(false, None),
        Err(Refusal::Usage(m)) if m == "you have countersigned this game already"
    ));
    assert!(matches!(w.ready(), Err(Refusal::Rule(_, Fault::OutOfTurn))));

    // A flipped byte of a signature is found, at its entry.
    let tampered = flip_in_signature(&bytes, 5);
    let Err(fault) = Replay::<StarrySky>::from_bytes(&tampered) else {
        panic!("a tampered log verifies");
    };
    assert_eq!((fault.entry, fault.fault), (5, Fault::BadSignature));

    // The picture of the end, as anyone may see it.
    let state = audit.state.as_ref().expect("played");
    let svg = StarrySky::render_svg(&StarrySky::view(state, None, None), &audit.names());
    assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
    for name in ["Anna", "Ben", "Cleo"] {
        assert!(svg.contains(name), "the picture names {name}");
    }
}

/// One whole game of `G`, its entries and its winners.
fn whole<G: Game>(seats: usize) -> (u64, Vec<Seat>) {
    let (bytes, r) = play::<G>(&players(seats), &[]);
    let audit = Replay::<G>::from_bytes(&bytes).expect("the whole game verifies");
    assert_eq!(audit.tip(), r.tip());
    assert!(audit.is_over(), "{}", G::NAME);
    let state = audit.state.as_ref().expect("played");
    let svg = G::render_svg(&G::view(state, None, None), &audit.names());
    assert!(svg.starts_with("<svg"), "{}", G::NAME);
    (audit.len(), winners(&audit))
}

macro_rules! every_game {
    (() ; $($G:ty),+) => {
        vec![$((<$G as Rules>::NAME, whole::<$G>(*<$G as Rules>::SEATS.start()))),+]
    };
}

#[test]
fn every_registered_game_is_played_to_its_end() {
    let played = starry_core::for_each_game!(every_game;);
    assert_eq!(played.len(), starry_core::games::registry::COUNT);
    assert_eq!(
        played,
        vec![
            ("starry-sky", (125, vec![0, 1, 2])),
            ("starry-night", (26, vec![0])),
            ("star-map", (53, vec![1])),
        ]
    );
}
