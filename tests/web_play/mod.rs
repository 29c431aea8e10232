//! A player in the built web player, driven in a real browser by the
//! page's own forms and links, as a person plays: for the browser tests
//! that play with CLI players. The player is opened, given an identity,
//! and takes each entry through the page's clicks to its preview and
//! signature; what the page keeps is read from its storage.
#![allow(dead_code)]

use std::collections::BTreeMap;

use base64::Engine as _;

use crate::devtools::Browser;
use crate::players::{encodings, secrets_in};

/// Opens the player at `url` and waits until its script is ready.
pub fn open(b: &mut Browser, url: &str) {
    b.goto(url);
    ready(b);
}

/// Waits until the player's script is ready (after a load or a reload).
pub fn ready(b: &mut Browser) {
    b.wait_for(
        "document.documentElement.dataset.ready === '1'",
        "the player is ready",
    );
}

/// Everything the player keeps in this browser's storage.
pub fn storage(b: &mut Browser) -> BTreeMap<String, String> {
    let v = b.eval(
        "Object.fromEntries(Object.keys(localStorage).map(k => [k, localStorage.getItem(k)]))",
    );
    serde_json::from_value(v).unwrap()
}

/// The copy of game `id` the page keeps (empty before it has one).
pub fn kept_copy(b: &mut Browser, id: &str) -> String {
    storage(b)
        .remove(&format!("starry/game/{id}"))
        .unwrap_or_default()
}

/// Creates an identity through the page's form.
pub fn create_identity(b: &mut Browser, name: &str, email: &str) {
    b.set_value("#identity-new input[name=name]", name);
    b.set_value("#identity-new input[name=email]", email);
    b.press("#identity-new button[type=submit]");
    b.wait_for(
        "localStorage.getItem('starry/identity') !== null \
         && document.getElementById('identity-export').hidden === false",
        "the identity is made",
    );
}

/// The console messages that are errors or warnings (a CSP violation is
/// one), or exceptions.
pub fn troubles(console: &[String]) -> Vec<String> {
    console
        .iter()
        .filter(|c| {
            let l = c.to_ascii_lowercase();
            l.starts_with("exception")
                || l.starts_with("\"error\"")
                || l.starts_with("\"warning\"")
                || l.starts_with("console.\"error\"")
                || l.starts_with("console.\"warn")
                || l.contains("content security policy")
        })
        .cloned()
        .collect()
}

/// What the browser player's entry was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Join,
    Ready,
    Reveal,
    Countersign,
    /// A move; `face_down`: one of its clicks put a token face down;
    /// `on_board`: one of its clicks was on the board's picture.
    Move {
        face_down: bool,
        on_board: bool,
    },
}

/// The browser player's next entry, by the page's own forms: join, ready,
/// reveal or countersign when offered, else a move clicked through its
/// choices (the engine's `move_clicks`) to the preview, then signed.
pub fn browser_turn(b: &mut Browser) -> Entry {
    let notice_before = b.eval("document.getElementById('notice').textContent");
    let form = |what: &str| format!("#game form:has(input[name=what][value={what}]) button");
    let mut done = None;
    for (what, entry) in [
        ("join", Entry::Join),
        ("ready", Entry::Ready),
        ("reveal", Entry::Reveal),
        ("countersign", Entry::Countersign),
    ] {
        if b.exists(&form(what)) {
            b.press(&form(what));
            done = Some(entry);
            break;
        }
    }
    let done = match done {
        Some(d) => d,
        None => {
            let (face_down, on_board) = click_to_the_preview(b);
            // The preview's own form (within it, or just after it).
            b.press("#game .preview form button, #game .preview + form button");
            Entry::Move {
                face_down,
                on_board,
            }
        }
    };
    b.wait_for(
        &format!(
            "document.getElementById('notice').textContent !== {} \
             || !document.getElementById('problem').hidden",
            serde_json::to_string(&notice_before).unwrap()
        ),
        "the entry is written",
    );
    assert!(
        b.eval("document.getElementById('problem').hidden") == true,
        "{done:?} refused: {:?}",
        b.text("#problem")
    );
    done
}

/// Clicks a move's choices until the page previews it: a token that goes
/// face down when there is one (its salt is a secret to look for), else a
/// place on the board when the board offers one, else the first choice
/// of the list. Whether a face-down token, and whether the board, was
/// clicked.
fn click_to_the_preview(b: &mut Browser) -> (bool, bool) {
    let (mut face_down, mut on_board) = (false, false);
    for _ in 0..8 {
        if b.exists("#game .preview") {
            return (face_down, on_board);
        }
        assert!(
            b.exists("#game .choices a"),
            "nothing to do on the page: {}",
            b.page_text()
        );
        let before = b.eval("document.getElementById('game').innerHTML");
        let picked = b.eval(
            r##"(() => {
                document.getElementById("next-click")?.removeAttribute("id");
                const board = [...document.querySelectorAll("#game .board a")];
                const all = [...document.querySelectorAll("#game .choices a"), ...board];
                const down = all.find(a => a.textContent.includes("face down"));
                const a = down || board[0] || document.querySelector("#game .choices a");
                a.id = "next-click";
                return [down !== undefined, board.includes(a)];
            })()"##,
        );
        face_down |= picked[0] == true;
        on_board |= picked[1] == true;
        b.press("#next-click");
        b.wait_for(
            &format!(
                "document.getElementById('game').innerHTML !== {}",
                serde_json::to_string(&before).unwrap()
            ),
            "the next click is shown",
        );
    }
    assert!(b.exists("#game .preview"), "no preview after 8 clicks");
    (face_down, on_board)
}

/// Every way the secrets of the browser's identity (its exported file)
/// and of its seat in game `log` (its game secret, next beacon link and
/// face-down tokens' salts not yet revealed) may be written.
pub fn browser_secrets<G: starry::games::Game>(
    identity_file: &str,
    log: &[u8],
    seat: usize,
) -> Vec<String> {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("identity.json"), identity_file).unwrap();
    let secrets = if log.is_empty() {
        // No game yet: the identity's own secret alone.
        let file: serde_json::Value = serde_json::from_str(identity_file).unwrap();
        vec![
            base64::engine::general_purpose::STANDARD
                .decode(file["secret"].as_str().unwrap())
                .unwrap(),
        ]
    } else {
        secrets_in::<G>(home.path(), log, seat)
    };
    secrets.iter().flat_map(|s| encodings(s)).collect()
}

/// Fails if `text`, or `text` percent-decoded, holds one of `secrets`.
pub fn assert_no_secret_in(what: &str, text: &str, secrets: &[String]) {
    let decoded = crate::mailto::percent_decode(text).unwrap_or_default();
    for s in secrets {
        assert!(
            !text.contains(s.as_str()) && !decoded.contains(s.as_str()),
            "{what} holds a secret"
        );
    }
}
