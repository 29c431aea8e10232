//! How Starry Night is shown: its words and pictures ([`crate::games::Show`]), apart from its
//! rules ([`crate::games::Rules`], in `mod.rs`).

use super::*;

impl crate::games::Show for StarryNight {
    fn notation(state: &State) -> (String, String) {
        let (usage, help) = match state.phase {
            Phase::Choosing => (
                "first 0",
                "Choose who moves first: `first 0` or `first 1` (seats as numbered in the view, \
                 from 0), or `first me` / `first you`.",
            ),
            Phase::Answering(_) => (
                "accept",
                "Your opponent asks to take back the last two edges: `accept` or `decline`.",
            ),
            _ => (
                "EDGE",
                "EDGE is two stars as labelled in the view, e.g. A-C, or as grid points, e.g. \
                 3,4-7,1. Instead of an edge you may ask for a `takeback` of the last two edges.",
            ),
        };
        (usage.into(), help.into())
    }

    /// Case does not matter, nor white space around the words, the dash
    /// or a point's comma (` a - c `, `3, 4 - 7, 1`, `First 0`).
    fn parse_intent(state: &State, text: &str) -> Result<Intent, RuleError> {
        let norm = text
            .trim()
            .split(',')
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(",");
        let lower = norm.to_lowercase();
        let words: Vec<&str> = lower.split_whitespace().collect();
        match words.as_slice() {
            ["takeback" | "undo"] | ["take", "back"] => {
                return Ok(Intent::Takeback(Takeback::Request));
            }
            ["accept" | "yes"] => return Ok(Intent::Takeback(Takeback::Accept)),
            ["decline" | "no"] => return Ok(Intent::Takeback(Takeback::Decline)),
            ["first", who] | [who, "first"] => {
                return parse_who(who).map(Intent::First).ok_or_else(|| {
                    RuleError::notation(
                        "notation",
                        format!(
                            "`{}` is not a seat; say `first 0`, `first 1`, `first me` or `first you`",
                            crate::text::excerpt(who)
                        ),
                    )
                });
            }
            [word, who]
                if parse_who(who).is_some()
                    && crate::text::did_you_mean(word, ["first"]).is_some() =>
            {
                return Err(RuleError::notation(
                    "notation",
                    format!(
                        "`{}` is not a move; did you mean `first {who}`?",
                        crate::text::excerpt(text.trim())
                    ),
                ));
            }
            _ => {}
        }
        let parts: Vec<&str> = norm
            .split(|c: char| c == '-' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        if parts.len() != 2 {
            let hint = match words.as_slice() {
                [word] => crate::text::did_you_mean(word, WORDS)
                    .map(|w| format!("; did you mean `{w}`?"))
                    .unwrap_or_default(),
                _ => String::new(),
            };
            return Err(RuleError::notation(
                "notation",
                format!(
                    "`{}` is not a move; an edge is two stars, e.g. `A-C` or `3,4-7,1`; \
                     other moves: `takeback`, `accept`, `decline`, `first 0`{hint}",
                    crate::text::excerpt(text.trim())
                ),
            ));
        }
        Ok(Intent::Edge(
            parse_star(state, parts[0])?,
            parse_star(state, parts[1])?,
        ))
    }

    fn notes(state: &State, names: &[String]) -> Vec<String> {
        let name = |s: Seat| names.get(s).cloned().unwrap_or_else(|| format!("seat {s}"));
        let mut out = Vec::new();
        if let Some(first) = state.first {
            out.push(if first == CHOOSER {
                format!("{} chose to move first.", name(CHOOSER))
            } else {
                format!("{} chose that {} moves first.", name(CHOOSER), name(first))
            });
        }
        for t in &state.takebacks {
            let answer = match t.accepted {
                Some(true) => format!("{} accepted", name(other(t.seat))),
                Some(false) => format!("{} declined", name(other(t.seat))),
                None => format!("{} has not answered yet", name(other(t.seat))),
            };
            out.push(format!(
                "{} asked to take back the last two edges when {} were drawn; {answer}.",
                name(t.seat),
                t.edges
            ));
        }
        out
    }

    fn score_unit(options: &Options) -> &'static str {
        match options.score {
            Score::Count => "seas",
            Score::Area => "half squares",
        }
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

    /// An edge is its two stars, clicked in either order; the other
    /// choices (who moves first, by name; a takeback and its answer) are
    /// one click.
    fn move_clicks(
        _state: &State,
        intent: &Intent,
        names: &[String],
    ) -> Vec<Vec<crate::games::Click>> {
        use crate::games::Click;
        let star = |s: Star| Click::new(format!("star {}", label(s)), format!("star {}", label(s)));
        let last = |s: Star, edge: String| {
            Click::new(
                format!("star {}", label(s)),
                format!("star {} (edge {edge})", label(s)),
            )
        };
        match intent {
            Intent::Edge(a, b) => {
                let edge = intent.to_string();
                vec![
                    vec![star(*a), last(*b, edge.clone())],
                    vec![star(*b), last(*a, edge)],
                ]
            }
            Intent::First(who) => {
                let label = match who {
                    Who::Me => "I move first".to_string(),
                    Who::Opponent => "my opponent moves first".to_string(),
                    Who::Seat(s) => match names.get(*s) {
                        Some(name) => format!("{name} moves first"),
                        None => format!("seat {s} moves first"),
                    },
                };
                vec![vec![Click::new(intent.to_string(), label)]]
            }
            Intent::Takeback(t) => {
                let label = match t {
                    Takeback::Request => "ask to take back the last two edges",
                    Takeback::Accept => "accept the takeback",
                    Takeback::Decline => "decline the takeback",
                };
                vec![vec![Click::new(intent.to_string(), label)]]
            }
        }
    }

    /// A takeback request, while the seat to move still has one and two
    /// edges are drawn.
    fn requests(state: &State, seat: Seat) -> Vec<Intent> {
        let ask = Intent::Takeback(Takeback::Request);
        let legal = state.to_act() == Some(seat)
            && matches!(state.phase, Phase::Playing(_))
            && state.action_for(seat, &ask).is_ok();
        if legal { vec![ask] } else { Vec::new() }
    }

    fn move_group(_state: &State, intent: &Intent) -> Vec<String> {
        match intent {
            Intent::Edge(a, _) => vec![format!("star {}", label(*a))],
            Intent::First(_) => vec!["who moves first".into()],
            Intent::Takeback(_) => vec!["takeback".into()],
        }
    }

    fn describe(state: &State, action: &Action) -> String {
        match action {
            Action::First(s) => format!("seat {s} moves first"),
            Action::Edge([p, q]) => {
                let name = |p: &Point| state.star_at(*p).map_or_else(|_| p.to_string(), label);
                let captured = match state.drawn().last() {
                    Some(d) if !d.captured.is_empty() => {
                        let area: i64 = d.captured.iter().map(|&f| state.map.twice_area(f)).sum();
                        format!(", captures a sea of {}", view::squares(area))
                    }
                    _ => String::new(),
                };
                format!("edge {}-{} ({p} to {q}){captured}", name(p), name(q))
            }
            Action::Takeback(Takeback::Request) => "asks to take back the last two edges".into(),
            Action::Takeback(Takeback::Accept) => "accepts the takeback".into(),
            Action::Takeback(Takeback::Decline) => "declines the takeback".into(),
        }
    }

    fn narrate(state: &State, action: &Action, names: &[String]) -> String {
        match action {
            // The chooser is the author: "Ben chose to move first", never
            // "Ben chose Ben".
            Action::First(s) if *s == CHOOSER => "chose to move first".into(),
            Action::First(s) => match names.get(*s) {
                Some(name) => format!("chose {name} to move first"),
                None => format!("chose that seat {s} moves first"),
            },
            Action::Edge(_) => {
                let d = <Self as crate::games::Show>::describe(state, action);
                format!("drew {}", d.replacen(", captures", ", capturing", 1))
            }
            Action::Takeback(Takeback::Request) => "asked to take back the last two edges".into(),
            Action::Takeback(Takeback::Accept) => "accepted the takeback".into(),
            Action::Takeback(Takeback::Decline) => "declined the takeback".into(),
        }
    }
}
