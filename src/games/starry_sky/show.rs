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

    /// Everything Starry Sky tells is in its standings and history.
    fn notes(_state: &State, _names: &[String]) -> Vec<String> {
        Vec::new()
    }

    fn score_unit(_options: &Options) -> &'static str {
        "coins"
    }

    fn render_text(view: &View, names: &[String]) -> String {
        view::render(view, names)
    }

    fn render_svg(v: &View, names: &[String]) -> String {
        picture::svg(v, names)
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
