//! The one list of the games this program plays.
//!
//! Everything that needs every game — `with_game!`, the names `new` and
//! `rules` accept, `rules list`, `rules score`, the schemas, the archive
//! generator, which `new` flag belongs to which game — is derived from
//! [`for_each_game!`] here, and whatever differs between games is an item
//! of [`Registered`], implemented in the game's own folder. Adding a game
//! is its folder plus one line in [`for_each_game!`] (docs/adding-a-game.md);
//! `registry_is_the_only_list` below fails when a list creeps back.

use serde_json::Value;

use super::{Draw, Game};

/// Calls the macro `$m` with `($($extra)*) ; Game1, Game2, …`: every game
/// type, once, in the order `rules list`, the error for an unknown game and
/// the archive generator show them. This is the registry's one list.
#[macro_export]
macro_rules! for_each_game {
    ($($m:ident)::+ ; $($extra:tt)*) => {
        $($m)::+! {
            ($($extra)*) ;
            $crate::games::starry_sky::StarrySky,
            $crate::games::starry_night::StarryNight,
            $crate::games::star_map::StarMap
        }
    };
}

/// Calls `$body` with `$G` bound to the game named `$name`, one of the
/// games of the registry; any other name is refused with [`UnknownGame`],
/// converted with `Into` to `$body`'s error type. `$body` is a `Result`.
#[macro_export]
macro_rules! with_game {
    ($name:expr, $G:ident => $body:expr) => {
        $crate::for_each_game!($crate::__with_game_arms ; $name, $G => $body)
    };
}

/// `with_game!`'s match, one arm per registered game.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_game_arms {
    (($name:expr, $G:ident => $body:expr) ; $($T:ty),*) => {
        match $name {
            $(
                <$T as $crate::games::Rules>::NAME => {
                    // So that `$G::NAME`, `$G::setup(…)` resolve on the
                    // concrete game as they do on a type parameter.
                    #[allow(unused_imports)]
                    use $crate::games::prelude::{
                        Bot as _, Registered as _, Rules as _, Show as _,
                    };
                    type $G = $T;
                    $body
                }
            )*
            other => Err($crate::games::registry::UnknownGame::named(other).into()),
        }
    };
}

/// The registry's entries, one per game, in order.
#[doc(hidden)]
#[macro_export]
macro_rules! __registry_entries {
    (() ; $($T:ty),*) => {
        [$($crate::games::registry::Entry::of::<$T>()),*]
    };
}

/// The registry's game names, in order.
#[doc(hidden)]
#[macro_export]
macro_rules! __registry_names {
    (() ; $($T:ty),*) => {
        [$(<$T as $crate::games::Rules>::NAME),*]
    };
}

/// How many games there are.
pub const COUNT: usize = crate::for_each_game!(crate::__registry_count;).len();

/// The games' names as the command line and the genesis give them, in
/// registry order.
pub const NAMES: [&str; COUNT] = crate::for_each_game!(crate::__registry_names;);

/// Counts the games (an array of units whose length is the count).
#[doc(hidden)]
#[macro_export]
macro_rules! __registry_count {
    (() ; $($T:ty),*) => {
        [$({ let _ = stringify!($T); }),*]
    };
}

/// The file names of the schemas every game has (schemas/); each game
/// spells its own, since a schema file name is a `&'static str`.
#[derive(Clone, Copy, Debug)]
pub struct SchemaNames {
    /// Its options, as the genesis stores them.
    pub options: &'static str,
    /// Its logged actions.
    pub action: &'static str,
    /// Its hidden values, for a game that hides any.
    pub hidden: Option<&'static str>,
    /// `view --json`.
    pub view: &'static str,
    /// `ingest --json`.
    pub ingest: &'static str,
}

/// What the program needs to know of a game beyond its rules and their
/// presentation: the command-line and file-format facts that used to be
/// written out, game by game, in `new`, `rules`, the schemas and the
/// generator. Each game implements it in its own folder's `registered.rs`:
/// [`Registered::SCHEMAS`] and [`Registered::typical_entries`] always, the
/// rest when the default (no flags, no referee, no extra schemas, no
/// archive options) does not fit it.
pub trait Registered: Game {
    /// The flags of `starry new` that set this game's options, as typed
    /// (`--boards`); by default none. The flags themselves are fields of
    /// one clap struct (`cli::NewArgs`): see docs/design-notes.md.
    const NEW_FLAGS: &'static [&'static str] = &[];
    /// What those flags do, for the error that refuses one of them for
    /// another game (`sets Starry Sky's boards`); unused without flags.
    const NEW_FLAGS_SET: &'static str = "";
    /// The flags of [`Registered::NEW_FLAGS`] that `starry serve`'s new-game
    /// form offers, with a label and an example value: those that take a
    /// value typed in, never a file (a page must not name files to read).
    /// By default none.
    const FORM_FLAGS: &'static [(&'static str, &'static str, &'static str)] = &[];
    /// Its schema files.
    const SCHEMAS: SchemaNames;
    /// A JSON key that only this game's `rules score` position has, and
    /// what such a position is called (`a Starry Night drawing`), so that
    /// the default game can say which `--game` a position it cannot read
    /// belongs to; None (the default) when nothing tells its positions
    /// apart, or it has no referee.
    const POSITION_MARK: Option<(&'static str, &'static str)> = None;

    /// Its schemas beyond [`Registered::SCHEMAS`] (data files, the
    /// referee's position and report): file name and schema. By default
    /// none.
    fn extra_schemas() -> Vec<(&'static str, Value)> {
        Vec::new()
    }

    /// `starry rules score`: scores a position given as JSON text, to the
    /// report's text and JSON; the error says what is wrong in it. By
    /// default the game has no referee, and says so.
    fn score(position: &str) -> Result<(String, Value), String> {
        let _ = position;
        Err(format!(
            "{} has no referee: `rules score` cannot score its positions",
            Self::title()
        ))
    }

    /// For the archive generator: options as `starry new` takes them,
    /// drawn at random (its variants, its sky or map); by default none (its
    /// default options).
    fn archive_pairs(d: &mut Draw) -> Vec<(String, String)> {
        let _ = d;
        Vec::new()
    }

    /// About how many entries a finished game of `players` has
    /// (measured: the median of random games, countersignatures
    /// included), so that generated games in progress stop anywhere.
    fn typical_entries(players: usize) -> u64;
}

/// One registered game, as the program's lists use it: its name and the
/// functions of its [`Registered`] and [`Game`] items that need no type.
#[derive(Clone, Copy)]
pub struct Entry {
    pub name: &'static str,
    pub rules_version: u32,
    pub seats: (usize, usize),
    pub variants: fn() -> super::Variants,
    pub new_flags: &'static [&'static str],
    pub new_flags_set: &'static str,
    pub form_flags: &'static [(&'static str, &'static str, &'static str)],
    pub position_mark: Option<(&'static str, &'static str)>,
    pub schemas: fn() -> Vec<(&'static str, Value)>,
    pub score: fn(&str) -> Result<(String, Value), String>,
    pub archive_pairs: fn(&mut Draw) -> Vec<(String, String)>,
    pub typical_entries: fn(usize) -> u64,
}

impl Entry {
    pub const fn of<G: Registered>() -> Entry {
        Entry {
            name: G::NAME,
            rules_version: G::RULES_VERSION,
            seats: (*G::SEATS.start(), *G::SEATS.end()),
            variants: G::variants,
            new_flags: G::NEW_FLAGS,
            new_flags_set: G::NEW_FLAGS_SET,
            form_flags: G::FORM_FLAGS,
            position_mark: G::POSITION_MARK,
            schemas: crate::schemas::of_game::<G>,
            score: G::score,
            archive_pairs: G::archive_pairs,
            typical_entries: G::typical_entries,
        }
    }
}

/// Every registered game, in registry order.
pub const ALL: [Entry; COUNT] = crate::for_each_game!(crate::__registry_entries;);

/// The registered game named `name`, if any.
pub fn find(name: &str) -> Option<&'static Entry> {
    ALL.iter().find(|e| e.name == name)
}

/// The game whose `starry new` flag `flag` is, if any.
pub fn flag_owner(flag: &str) -> Option<&'static Entry> {
    ALL.iter().find(|e| e.new_flags.contains(&flag))
}

/// A game name that is not in the registry: "unknown game `x`; this program
/// plays: starry-sky, …", with "did you mean `starry-night`?" when one name
/// is close to it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown game `{}`{}; this program plays: {} (see `starry rules list`)",
    crate::text::excerpt(&self.0),
    self.suggestion().map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default(),
    NAMES.join(", ")
)]
pub struct UnknownGame(pub String);

impl UnknownGame {
    pub fn named(name: &str) -> UnknownGame {
        UnknownGame(name.to_string())
    }

    /// The one game name this one is a slip for: the closest, if no other
    /// is as close and at most a third of its letters differ ("starry-nite"
    /// is three edits from "starry-night": game names are long, so the
    /// general rule of two edits would miss it).
    pub fn suggestion(&self) -> Option<&'static str> {
        if self.0.len() > 64 {
            return None;
        }
        let word = self.0.to_lowercase();
        let most = (word.chars().count() / 3).max(1);
        let mut by_distance: Vec<(usize, &'static str)> = NAMES
            .iter()
            .map(|n| (crate::text::edit_distance(&word, n), *n))
            .filter(|&(d, n)| d <= most && n != self.0)
            .collect();
        by_distance.sort();
        match by_distance.as_slice() {
            [(d, n), rest @ ..] if rest.first().is_none_or(|(e, _)| e > d) => Some(n),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_entries_follow_them() {
        for (i, e) in ALL.iter().enumerate() {
            assert_eq!(e.name, NAMES[i]);
            assert_eq!(
                NAMES.iter().filter(|n| **n == e.name).count(),
                1,
                "{} is registered twice",
                e.name
            );
            assert!(e.seats.0 >= 1 && e.seats.0 <= e.seats.1, "{}", e.name);
        }
        assert_eq!(COUNT, ALL.len());
    }

    #[test]
    fn with_game_finds_every_registered_game_and_nothing_else() {
        for name in NAMES {
            let found: Result<&str, UnknownGame> = crate::with_game!(name, G => Ok(G::NAME));
            assert_eq!(found.unwrap(), name);
        }
        let e: Result<&str, UnknownGame> = crate::with_game!("no\u{1b}game", G => Ok(G::NAME));
        let e = e.unwrap_err().to_string();
        assert!(e.starts_with("unknown game `no"), "{e}");
        assert!(!e.contains('\u{1b}'), "{e}");
        // Each `new` flag has one owner.
        for e in &ALL {
            for flag in e.new_flags {
                assert_eq!(flag_owner(flag).map(|o| o.name), Some(e.name), "{flag}");
            }
        }
    }
}
