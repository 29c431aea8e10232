//! Fuzzes the offline referee, `starry rules score`, with arbitrary text:
//! `score_position` must never panic, overflow or allocate without bound,
//! and every error must be short and safe to print. Each input goes to
//! Starry Sky's referee and to Star Map's (`--game star-map`).
//!
//! Run (stable toolchain, no sanitizer), from the repository root:
//!   cargo fuzz run rules_score fuzz/corpus/rules_score fuzz/seeds/rules_score -s none -- \
//!     -dict=fuzz/rules_score.dict -max_total_time=600
#![no_main]

use libfuzzer_sys::fuzz_target;
use starry::games::starry_sky::referee::{
    MAX_POSITION_BYTES, MAX_PURSE, MAX_SEATS, render_text, score_position,
};

/// An error must be short, safe to print and one line.
fn check_error(message: &str) {
    // Short: quotes of the input are excerpts (in characters, which may be
    // several bytes each).
    assert!(
        message.chars().count() < 400,
        "an error of {} characters: {}",
        message.chars().count(),
        starry::text::excerpt_of(message, 500)
    );
    assert!(
        !message.chars().any(starry::text::is_unsafe),
        "unsafe character in {message:?}"
    );
    assert!(!message.contains('\n'), "{message:?}");
}

/// Star Map's referee: the points add up, and the placements are bounded.
fn star_map(text: &str) {
    use starry::games::star_map::referee;
    match referee::score_position(text) {
        Ok(report) => {
            assert!(text.len() <= referee::MAX_POSITION_BYTES);
            assert!(report.placements.len() <= 55);
            let mut total = 0;
            for (i, p) in report.placements.iter().enumerate() {
                assert_eq!(p.number, i + 1);
                let groups: i64 = p.groups.iter().map(|g| g.size as i64).sum();
                let bonuses: i64 = p
                    .bonuses
                    .iter()
                    .filter(|b| b.earned)
                    .map(|b| i64::from(b.points))
                    .sum();
                assert!(
                    p.groups
                        .iter()
                        .all(|g| g.size >= 3 && g.size == g.squares.len())
                );
                assert_eq!(p.points, groups + bonuses);
                total += p.points;
                assert_eq!(p.total, total);
            }
            assert_eq!(report.total, total);
            assert!(!referee::render_text(&report).is_empty());
            serde_json::to_string(&report).expect("a report serialises");
            assert_eq!(referee::score_position(text).ok(), Some(report));
        }
        Err(e) => check_error(&e.to_string()),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    star_map(text);
    match score_position(text) {
        Ok(report) => {
            assert!(text.len() <= MAX_POSITION_BYTES);
            assert!((1..=MAX_SEATS).contains(&report.seats));
            assert_eq!(report.purses.len(), report.seats);
            assert_eq!(report.score.seats.len(), report.seats);
            for (i, p) in report.purses.iter().enumerate() {
                // Nobody ends below zero, nor gains more than a board pays.
                assert!(*p >= 0, "seat {i} ends with {p}");
                assert!(
                    *p <= MAX_PURSE + 2 * i64::from(u32::MAX) + 10,
                    "seat {i}: {p}"
                );
            }
            // Coins only move: what seats paid out, others received.
            let paid_by_seats: i64 = report
                .score
                .payments
                .iter()
                .filter(|p| !matches!(p.from, starry::games::starry_sky::scoring::Payer::Reserve))
                .map(|p| p.coins)
                .sum();
            let from_reserve: i64 = report
                .score
                .payments
                .iter()
                .filter(|p| matches!(p.from, starry::games::starry_sky::scoring::Payer::Reserve))
                .map(|p| p.coins)
                .sum();
            let net: i64 = report.score.seats.iter().map(|s| s.coins).sum();
            assert_eq!(net, from_reserve, "{paid_by_seats} moved between seats");
            let shown = render_text(&report);
            assert!(!shown.is_empty());
            serde_json::to_string(&report).expect("a report serialises");
            // Pure: the same position scores the same.
            assert_eq!(score_position(text).ok(), Some(report));
        }
        Err(e) => check_error(&e.to_string()),
    }
});
