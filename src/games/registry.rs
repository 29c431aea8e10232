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

/// `with_game!`'s match, one arm per registered game.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_game_arms {
    (($name:expr, $G:ident => $body:expr) ; $($T:ty),*) => {
        match $name {
            $(
                <$T as $crate::games::Game>::NAME => {
                    type $G = $T;
                    $body
                }
            )*
            other => Err($crate::app::unknown_game(other)),
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
        [$(<$T as $crate::games::Game>::NAME),*]
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
/// generator. Each game implements it in its own folder's `registered.rs`.
pub trait Registered: Game {
    /// The flags of `starry new` that set this game's options, as typed
    /// (`--boards`). The flags themselves are fields of one clap struct
    /// (`cli::NewArgs`): see docs/design-notes.md.
    const NEW_FLAGS: &'static [&'static str];
    /// What those flags do, for the error that refuses one of them for
    /// another game (`sets Starry Sky's boards`).
    const NEW_FLAGS_SET: &'static str;
    /// The flags of [`Registered::NEW_FLAGS`] that `starry serve`'s new-game
    /// form offers, with a label and an example value: those that take a
    /// value typed in, never a file (a page must not name files to read).
    const FORM_FLAGS: &'static [(&'static str, &'static str, &'static str)];
    /// Its schema files.
    const SCHEMAS: SchemaNames;
    /// A JSON key that only this game's `rules score` position has, and
    /// what such a position is called (`a Starry Night drawing`), so that
    /// the default game can say which `--game` a position it cannot read
    /// belongs to; None when nothing tells its positions apart.
    const POSITION_MARK: Option<(&'static str, &'static str)>;

    /// Its schemas beyond [`Registered::SCHEMAS`] (data files, the
    /// referee's position and report): file name and schema.
    fn extra_schemas() -> Vec<(&'static str, Value)>;

    /// `starry rules score`: scores a position given as JSON text, to the
    /// report's text and JSON; the error says what is wrong in it.
    fn score(position: &str) -> Result<(String, Value), String>;

    /// For the archive generator: options as `starry new` takes them,
    /// drawn at random (its variants, its sky or map).
    fn archive_pairs(d: &mut Draw) -> Vec<(String, String)>;

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
    fn every_game_is_in_every_list() {
        // `with_game!` finds each registered game and nothing else.
        for name in NAMES {
            let found: crate::error::Result<&str> = crate::with_game!(name, G => Ok(G::NAME));
            assert_eq!(found.unwrap(), name);
        }
        assert!(crate::with_game!("no-such-game", G => Ok(G::NAME)).is_err());
        // The names `new` and `rules` accept.
        assert_eq!(crate::app::GAME_NAMES, NAMES);
        // `rules list`.
        let out = crate::app::rules::list().unwrap();
        let listed: Vec<&str> = out.json["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["name"].as_str().unwrap())
            .collect();
        assert_eq!(listed, NAMES);
        for name in NAMES {
            assert!(
                out.text.contains(&format!("{name} (rules version")),
                "{name}"
            );
        }
        // The schemas: each game's own files are all generated.
        let schemas: Vec<&str> = crate::schemas::all().iter().map(|(n, _)| *n).collect();
        for e in &ALL {
            let own = (e.schemas)();
            assert!(own.len() >= 4, "{}", e.name);
            for (file, _) in own {
                assert!(
                    file.starts_with(e.name),
                    "{file} is not named after {}",
                    e.name
                );
                assert!(schemas.contains(&file), "{file}");
            }
        }
        // The archive generator plans every game.
        assert_eq!(crate::app::generate::GAMES, NAMES);
        let plans = crate::app::generate::plans(60, [7; 32]);
        for name in NAMES {
            assert!(plans.iter().any(|p| p.game == name), "{name} never planned");
        }
        // Each `new` flag has one owner.
        for e in &ALL {
            for flag in e.new_flags {
                assert_eq!(flag_owner(flag).map(|o| o.name), Some(e.name), "{flag}");
            }
        }
    }

    /// The type names and the game names that only the game's folder, the
    /// registry and tests may spell; elsewhere code goes through
    /// [`for_each_game!`], `with_game!` and [`ALL`].
    #[test]
    fn registry_is_the_only_list() {
        // (file, why it may name a game). Keep it short.
        const ALLOWED: &[(&str, &str)] = &[
            (
                "src/cli/mod.rs",
                "clap derive: `new`'s per-game flags are fields of one struct, their help and \
                 examples name the game; `rules score --game` has a default",
            ),
            (
                "src/app/generate.rs",
                "the long Starry Night game is a fixed benchmark fixture, not a list of games",
            ),
        ];
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut words: Vec<String> = Vec::new();
        for name in NAMES {
            words.push(format!("\"{name}\""));
            // The type name: `starry-sky` → `StarrySky`.
            let camel: String = name
                .split('-')
                .map(|w| w[..1].to_uppercase() + &w[1..])
                .collect();
            words.push(camel);
        }
        let mut found = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let path = e.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|x| x != "rs") {
                    continue;
                }
                let rel = path.strip_prefix(root.parent().unwrap()).unwrap();
                let rel = rel.to_string_lossy().replace('\\', "/");
                let in_game_folder = NAMES
                    .iter()
                    .any(|n| rel.starts_with(&format!("src/games/{}/", n.replace('-', "_"))));
                if in_game_folder
                    || rel == "src/games/registry.rs"
                    || rel.ends_with("tests.rs")
                    || ALLOWED.iter().any(|(f, _)| *f == rel)
                {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for (no, line) in text.lines().enumerate() {
                    // A file's unit tests come last, after `#[cfg(test)]`.
                    if line.trim() == "#[cfg(test)]" {
                        break;
                    }
                    let code = line.trim_start();
                    if code.starts_with("//") {
                        continue;
                    }
                    for w in &words {
                        if code.contains(w.as_str()) {
                            found.push(format!("{rel}:{}: {w}", no + 1));
                        }
                    }
                }
            }
        }
        assert!(
            found.is_empty(),
            "games named outside their folder and the registry (derive the list from \
             src/games/registry.rs, or add the file to ALLOWED with a reason): {found:#?}"
        );
    }
}
