//! The web player's [`Site`]: where the game page's links and forms lead
//! in the page. The page is `starry serve`'s (crates/pages); here its
//! links are queries (`?game=<id>&pick=…`) and its forms post to
//! `?game=<id>`, both of which the player's script takes over (no
//! navigation, nothing sent anywhere), with no hidden fields: there is no
//! server whose requests could be forged.

use starry_pages::{Ask, Site};

/// The web player as a [`Site`].
pub struct Player;

impl Site for Player {
    fn game_href(&self, id: &str, ask: &Ask) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("game", id);
        let rest = ask.query();
        if rest.is_empty() {
            format!("?{}", q.finish())
        } else {
            format!("?{}&{rest}", q.finish())
        }
    }

    fn action(&self, id: &str) -> String {
        self.game_href(id, &Ask::default())
    }

    fn hidden(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// The game's title is a heading under the player's own `h1`
    /// ("starry"): one `h1` in the document.
    fn heading_level(&self) -> u8 {
        2
    }
}
