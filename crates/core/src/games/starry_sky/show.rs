//! How Starry Sky is shown: its words and pictures ([`crate::games::Show`]), apart from its
//! rules ([`crate::games::Rules`], in `mod.rs`).

use super::*;

impl crate::games::Show for StarrySky {
    fn notation(_state: &State) -> (String, String) {
        (
            "TOKEN BOARD:STAR".into(),
            "TOKEN is 1 3 5 6 7 10, bh (black hole) or ds (double star); BOARD:STAR is a star as \
             labelled in the view, e.g. leo:3. The view below ends with an example."
                .into(),
        )
    }

    fn parse_intent(state: &State, text: &str) -> Result<Intent, RuleError> {
        parse_intent(state, text)
    }

    // No `notes`: everything Starry Sky tells is in its standings and
    // history.

    fn score_unit(_options: &Options) -> &'static str {
        "coins"
    }

    fn render_text(view: &View, names: &[String]) -> String {
        view::render(view, names)
    }

    fn render_svg_linked(v: &View, names: &[String], links: &crate::picture::Links) -> String {
        picture::svg_linked(v, names, links)
    }

    /// A token of the hand, then a free star; a large star says the token
    /// will lie face down there.
    fn move_clicks(
        state: &State,
        intent: &Intent,
        _names: &[String],
    ) -> Vec<Vec<crate::games::Click>> {
        use crate::games::Click;
        let t = intent.token;
        let down = state
            .locate(&intent.star)
            .is_ok_and(|(slot, star)| state.face_down_here(slot, star));
        let star = if down {
            format!("{} — large star: your {t} goes face down", intent.star)
        } else {
            format!("{}", intent.star)
        };
        vec![vec![
            Click::new(format!("token {t}"), format!("token {t}")),
            Click::new(format!("star {}", intent.star), star),
        ]]
    }

    fn move_group(_state: &State, intent: &Intent) -> Vec<String> {
        vec![
            format!("token {}", intent.token),
            intent.star.board.to_string(),
        ]
    }

    fn describe(_state: &State, action: &Action) -> String {
        match action.token {
            Some(t) => format!("{t} on {}", action.star),
            None => format!("a face-down token on {}", action.star),
        }
    }

    fn narrate(state: &State, action: &Action, _names: &[String]) -> String {
        format!(
            "placed {}",
            <Self as crate::games::Show>::describe(state, action)
        )
    }
}
