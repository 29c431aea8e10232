//! How Star Map is shown: its words and pictures ([`crate::games::Show`]), apart from its
//! rules ([`crate::games::Rules`], in `mod.rs`).

use super::*;

impl crate::games::Show for StarMap {
    fn notation(state: &State) -> (String, String) {
        match state.to_move {
            Some(s) if state.placements(s).is_empty() => (
                "pass".into(),
                "You cannot place any disc of your hand: `pass`.".into(),
            ),
            _ => (
                "DISC SQUARE ROTATION".into(),
                "DISC is a disc of your hand as the view names it (e.g. corner1, two2); SQUARE is \
                 where its first field (marked in the hand) goes, a1 to l12; ROTATION is r0, r90, \
                 r180 or r270, a quarter turn clockwise each. E.g. `corner1 f8 r90`. When that \
                 shape's stack is empty and more than one other stack has discs, add `draw SHAPE` \
                 to choose the stack you draw from."
                    .into(),
            ),
        }
    }

    fn parse_intent(state: &State, text: &str) -> Result<Intent, RuleError> {
        parse_intent(state, text)
    }

    fn notes(state: &State, names: &[String]) -> Vec<String> {
        let name = |s: Seat| names.get(s).cloned().unwrap_or_else(|| format!("seat {s}"));
        let mut out = vec![format!("The map: {}.", state.layout)];
        let (start, rotation) = state.start;
        out.push(format!(
            "The start disc is a corner {} in the centre ({}).",
            state.fields_text(start),
            rotation
        ));
        if state.seats() == 4 {
            out.push(format!(
                "Teams: {} and {} against {} and {}.",
                name(0),
                name(2),
                name(1),
                name(3)
            ));
        }
        for seat in 0..state.seats() {
            let passes = state
                .history
                .iter()
                .filter(|m| matches!(m, Moved::Passed { seat: s } if *s == seat))
                .count();
            if passes > 0 {
                out.push(format!(
                    "{} had no legal placement and passed {passes} time{}.",
                    name(seat),
                    if passes == 1 { "" } else { "s" }
                ));
            }
        }
        if state.is_over() {
            for seat in 0..state.seats() {
                let minus = state.hand_fields(seat);
                if minus > 0 {
                    out.push(format!(
                        "{} ended with {} disc{} in hand: minus {minus}.",
                        name(seat),
                        state.hands[seat].len(),
                        if state.hands[seat].len() == 1 {
                            ""
                        } else {
                            "s"
                        }
                    ));
                }
            }
        }
        out
    }

    fn score_unit(_options: &Options) -> &'static str {
        "points"
    }

    fn render_text(v: &view::View, names: &[String]) -> String {
        view::render(v, names)
    }

    fn render_svg_linked(
        v: &view::View,
        names: &[String],
        links: &crate::picture::Links,
    ) -> String {
        picture::svg_linked(v, names, links)
    }

    /// A disc of the hand, its rotation (not for a one, which has none),
    /// a highlighted square where its first field goes, and, when the
    /// rules leave it open, the stack to draw from.
    fn move_clicks(
        _state: &State,
        intent: &Intent,
        _names: &[String],
    ) -> Vec<Vec<crate::games::Click>> {
        use crate::games::Click;
        match intent {
            Intent::Place {
                name: (shape, k),
                placement,
                draw,
            } => {
                let disc = format!("{shape}{k}");
                let mut clicks = vec![Click::new(format!("disc {disc}"), disc.clone())];
                if *shape != Shape::One {
                    clicks.push(Click::new(
                        format!("rotation {}", placement.rotation),
                        format!("{} (a quarter turn clockwise each)", placement.rotation),
                    ));
                }
                clicks.push(Click::new(
                    format!("square {}", placement.at),
                    format!("{} (its first field there)", placement.at),
                ));
                if let Some(d) = draw {
                    clicks.push(Click::new(
                        format!("draw {d}"),
                        format!("draw from the {d} stack"),
                    ));
                }
                vec![clicks]
            }
            Intent::Pass => vec![vec![Click::new("pass", "pass: no disc of your hand fits")]],
        }
    }

    fn move_group(_state: &State, intent: &Intent) -> Vec<String> {
        match intent {
            // A one has no rotation to choose: its squares are the group.
            Intent::Place {
                name: (shape, k),
                placement,
                ..
            } if *shape != Shape::One => vec![format!("{shape}{k} {}", placement.rotation)],
            Intent::Place {
                name: (shape, k), ..
            } => vec![format!("{shape}{k}")],
            Intent::Pass => vec!["pass".into()],
        }
    }

    fn describe(state: &State, action: &Action) -> String {
        match (action, state.history.last()) {
            (Action::Place(p), Some(Moved::Placed { scored, draw, .. })) => {
                let disc = &state.set.discs[p.disc as usize];
                let mut text = format!(
                    "{} {} on {}{}",
                    disc.shape,
                    state.fields_text(p.disc),
                    p.at,
                    view::rotation_text(disc.shape, p.rotation)
                );
                text.push_str(&view::scored_text(state.set(), scored));
                if let (Some(d), Some(_)) = (draw, p.draw) {
                    text.push_str(&format!(", draws a {d}"));
                }
                text
            }
            (Action::Place(p), _) => format!("disc {} on {} {}", p.disc, p.at, p.rotation),
            (Action::Pass, _) => "passes: no legal placement".into(),
        }
    }

    fn narrate(state: &State, action: &Action, _names: &[String]) -> String {
        match action {
            Action::Pass => "passed: no legal placement".into(),
            Action::Place(_) => {
                let d = <Self as crate::games::Show>::describe(state, action);
                format!("laid {}", d.replacen(", draws a", ", drawing a", 1))
            }
        }
    }
}
