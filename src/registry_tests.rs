//! The registry is the one list of games: every list the program keeps
//! (`with_game!`, `new` and `rules`, the schemas, the archive generator)
//! follows it, and no other file spells a game's name
//! (`crates/core/src/games/registry.rs`).

use crate::games::registry::{ALL, NAMES, flag_owner};

#[test]
fn every_game_is_in_every_list() {
    // `with_game!` finds each registered game and nothing else.
    for name in NAMES {
        let found: crate::error::Result<&str> = crate::with_game!(name, G => Ok(G::NAME));
        assert_eq!(found.unwrap(), name);
    }
    let none: crate::error::Result<&str> = crate::with_game!("no-such-game", G => Ok(G::NAME));
    assert!(none.is_err());
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
    // Every crate of the workspace: the program's `src/` and each of
    // `crates/*/src`.
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![repo.join("src")];
    for c in std::fs::read_dir(repo.join("crates")).unwrap() {
        roots.push(c.unwrap().path().join("src"));
    }
    assert!(roots.len() >= 3, "{roots:?}");
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
    let mut stack = roots;
    let mut read = 0;
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
            read += 1;
            let rel = path.strip_prefix(repo).unwrap();
            let rel = rel.to_string_lossy().replace('\\', "/");
            let in_game_folder = NAMES.iter().any(|n| {
                rel.starts_with(&format!("crates/core/src/games/{}/", n.replace('-', "_")))
            });
            if in_game_folder
                || rel == "crates/core/src/games/registry.rs"
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
    // The walk reached the core and the mail crate too.
    assert!(read > 100, "only {read} files read");
    assert!(
        found.is_empty(),
        "games named outside their folder and the registry (derive the list from \
         crates/core/src/games/registry.rs, or add the file to ALLOWED with a reason): {found:#?}"
    );
}
