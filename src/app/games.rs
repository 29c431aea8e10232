//! `starry games`: the games in the games directory, with whose turn it is.

use crate::crypto::identity::Stored as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Output, games_dir, history, status_of};
use crate::crypto::identity::{self, Identity, IdentityError};
use crate::error::{Error, Result};
use crate::games::Game;
use crate::log::replay::read_genesis;
use crate::text::inline;

/// One game of the list.
#[derive(Serialize, schemars::JsonSchema, Debug, Clone)]
pub struct GameRow {
    /// The log.
    pub file: String,
    /// When the file last changed (UTC, RFC 3339), as the file system says.
    pub file_changed: Option<String>,
    pub game: Option<String>,
    pub game_id: Option<String>,
    /// The players' names, in seat order.
    pub players: Vec<String>,
    pub entries: u64,
    pub over: bool,
    /// In a game that is over, the names of the players placed first: one
    /// winner, several who share first place (a draw), or a winning team's
    /// partners. Empty while the game goes on.
    pub winners: Vec<String>,
    /// Whether `winners` are the partners of one team (Star Map with four
    /// players), who won together.
    pub winning_team: Option<u32>,
    /// The name of the player the game waits for; once the game is over,
    /// the one named to countersign next (null once all have).
    pub to_act: Option<String>,
    /// What they must do (join, ready, move, reveal; countersign once the
    /// game is over).
    pub action: Option<String>,
    /// Whether that is you.
    pub your_turn: bool,
    /// When it is your turn to countersign: the command that does it
    /// (`starry countersign ID --mail`).
    pub command: Option<String>,
    /// The time of the last entry.
    pub waiting_since: Option<String>,
    /// The awaited player's time in words ("Ben has 3 days 4 hours (until
    /// …)"), in a game with a deadline.
    pub time_left: Option<String>,
    /// Why the file could not be read as a game, if it could not.
    pub problem: Option<String>,
}

#[derive(Serialize, schemars::JsonSchema, Debug)]
pub struct GamesReport {
    pub dir: String,
    pub games: Vec<GameRow>,
    /// Links in the games directory to logs kept elsewhere (`new --out`,
    /// `join FILE`) whose file is gone: left out of `games`, removed by
    /// `starry games --prune`.
    pub dead_links: Vec<String>,
}

/// `starry games`.
pub fn list() -> Result<Output> {
    let home = identity::home_dir()?;
    let (dir, rows) = rows(&home)?;
    let dead = dead_links(&dir);
    let mut text = if rows.is_empty() {
        format!(
            "No games in {} yet: `starry new` starts one, `starry ingest` takes one from a mail.",
            dir.display()
        )
    } else {
        rows.iter().map(row_text).collect::<Vec<_>>().join("\n")
    };
    if !dead.is_empty() {
        text.push_str(&format!(
            "\n{} in {} {} to a log that was moved or deleted (not listed); `starry games \
             --prune` removes {}.",
            crate::text::count(dead.len(), "link", "links"),
            dir.display(),
            if dead.len() == 1 { "points" } else { "point" },
            if dead.len() == 1 { "it" } else { "them" },
        ));
    }
    Ok(Output::new(
        text,
        &GamesReport {
            dir: dir.display().to_string(),
            games: rows,
            dead_links: dead.iter().map(|p| p.display().to_string()).collect(),
        },
    ))
}

/// Whether `path` is a link whose file is gone. A link the program cannot
/// follow for another reason (no permission, a loop) is not: only what
/// surely points nowhere counts.
fn is_dead_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
        && matches!(std::fs::metadata(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
}

/// The links of the games directory whose file is gone, sorted.
fn dead_links(dir: &Path) -> Vec<PathBuf> {
    let mut dead: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| is_dead_link(p))
                .collect()
        })
        .unwrap_or_default();
    dead.sort();
    dead
}

/// `starry games --prune`: removes the links whose file is gone, each
/// checked again just before it goes; a log, or a link whose file is
/// there, is never touched.
pub fn prune() -> Result<Output> {
    let home = identity::home_dir()?;
    let dir = games_dir(&home);
    let mut removed = Vec::new();
    for link in dead_links(&dir) {
        if !is_dead_link(&link) {
            continue;
        }
        std::fs::remove_file(&link)
            .map_err(|e| Error::io("cannot remove the dead link", &link, e))?;
        removed.push(link.display().to_string());
    }
    let text = match removed.len() {
        0 => format!("No dead links in {}: nothing removed.", dir.display()),
        n => format!(
            "Removed {} to logs that were moved or deleted:\n{}",
            crate::text::count(n, "link", "links"),
            removed
                .iter()
                .map(|r| format!("  {}", inline(r)))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    };
    Ok(Output::new(
        text,
        &serde_json::json!({ "dir": dir.display().to_string(), "removed": removed }),
    ))
}

/// `starry games --ids`: the id (16 hex digits) of each game in the games
/// directory, one a line, for shell completion. Only file names are read:
/// a game kept there is `GAME-ID.jsonl` (64 hex digits), and a name that
/// is not one is left out, so nothing hostile is printed and nothing slow
/// happens while the user waits on Tab; so is a link whose file is gone.
pub fn ids() -> Result<Output> {
    let home = identity::home_dir()?;
    let dir = games_dir(&home);
    let mut ids: Vec<String> = match std::fs::read_dir(&dir) {
        Ok(d) => d
            .filter_map(|e| e.ok())
            // A link whose file is gone names no game any more.
            .filter(|e| !is_dead_link(&e.path()))
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let id = name.strip_suffix(".jsonl")?;
                (id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit()))
                    .then(|| id[..16].to_ascii_lowercase())
            })
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Error::io("cannot read the games directory", &dir, e)),
    };
    ids.sort();
    ids.dedup();
    Ok(Output::new(
        ids.join("\n"),
        &serde_json::json!({ "dir": dir.display().to_string(), "ids": ids }),
    ))
}

/// The games directory and its games: your turns first, then the games in
/// progress (the one that has waited longest first), the finished ones,
/// and files that are no game.
pub fn rows(home: &Path) -> Result<(PathBuf, Vec<GameRow>)> {
    let me = match Identity::load(home) {
        Ok(id) => Some(id),
        Err(IdentityError::Missing { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    let dir = games_dir(home);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(d) => d
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl") && !is_dead_link(p))
            // A link to a log kept elsewhere is shown as that log: the
            // file the player knows, not the link.
            .map(|p| match std::fs::read_link(&p) {
                Ok(_) => std::fs::canonicalize(&p).unwrap_or(p),
                Err(_) => p,
            })
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Error::io("cannot read the games directory", &dir, e)),
    };
    files.sort();
    let mut rows: Vec<GameRow> = files.iter().map(|p| row(p, me.as_ref())).collect();
    // Your turns first, then the games in progress (the one that has
    // waited longest first), the finished ones, and files that are no game.
    rows.sort_by(|a, b| {
        (!a.your_turn, a.problem.is_some(), a.over, &a.waiting_since).cmp(&(
            !b.your_turn,
            b.problem.is_some(),
            b.over,
            &b.waiting_since,
        ))
    });
    Ok((dir, rows))
}

fn row(path: &Path, me: Option<&Identity>) -> GameRow {
    let mut row = GameRow {
        file: path.display().to_string(),
        file_changed: std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .map(|t| {
                chrono::DateTime::<chrono::Utc>::from(t)
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            }),
        game: None,
        game_id: None,
        players: Vec::new(),
        entries: 0,
        over: false,
        winners: Vec::new(),
        winning_team: None,
        to_act: None,
        action: None,
        your_turn: false,
        command: None,
        waiting_since: None,
        time_left: None,
        problem: None,
    };
    let read = crate::log::file::read(path).and_then(|bytes| {
        let (g, _) = read_genesis(&bytes).map_err(|fault| Error::Log {
            path: path.into(),
            fault,
        })?;
        crate::with_game!(g.game.as_str(), G => fill::<G>(&bytes, path, me, &mut row))
    });
    if let Err(e) = read {
        row.problem = Some(crate::text::excerpt_of(&e.to_string(), 200));
    }
    row
}

fn fill<G: Game>(
    bytes: &[u8],
    path: &Path,
    me: Option<&Identity>,
    row: &mut GameRow,
) -> Result<()> {
    let r = super::cache::replay::<G>(bytes).map_err(|fault| Error::Log {
        path: path.into(),
        fault,
    })?;
    let s = status_of(&r);
    let mine = me.and_then(|i| {
        r.seat_of_key(&i.public_key())
            .or_else(|| r.seat_of_email(&i.email))
    });
    row.game = Some(G::NAME.into());
    row.game_id = Some(s.game_id.clone());
    row.players = r.genesis.seats.iter().map(|x| x.name.clone()).collect();
    row.entries = s.entries;
    row.over = s.over;
    if s.over {
        let first: Vec<_> = s.standings.iter().filter(|x| x.rank == 1).collect();
        row.winners = first.iter().map(|x| x.name.clone()).collect();
        row.winning_team = match first.first().and_then(|x| x.team) {
            Some(t) if first.iter().all(|x| x.team == Some(t)) => Some(t),
            _ => None,
        };
    }
    if !s.over {
        row.to_act = s.to_act_name.clone();
        row.action = Some(s.action.as_str().into());
        row.your_turn = mine.is_some() && s.to_act_seat.map(|x| x as usize) == mine;
    } else if let Some(c) = &s.countersign {
        // The game waits for one countersignature at a time, as the mails
        // say: the one named owes it now.
        row.to_act = Some(c.next_name.clone());
        row.action = Some(COUNTERSIGN.into());
        row.your_turn = mine == Some(c.next_seat as usize);
        row.command = row
            .your_turn
            .then(|| super::mail::next_command(&r, crate::log::Action::Over, &s.game_id[..16]));
    }
    row.waiting_since = Some(s.waiting_since.clone());
    row.time_left = s.time_left.clone();
    Ok(())
}

/// The `action` of a finished game that waits for a countersignature.
pub const COUNTERSIGN: &str = "countersign";

/// One or two lines per game, safe to print.
pub fn row_text(g: &GameRow) -> String {
    let Some(game) = &g.game else {
        return format!(
            "(not a game)     {}",
            inline(g.problem.as_deref().unwrap_or("unreadable"))
        );
    };
    let id = g.game_id.as_deref().map_or("", |i| &i[..16]);
    let players = history::list(
        &g.players
            .iter()
            .map(|p| inline(p).into_owned())
            .collect::<Vec<_>>(),
    );
    let state = if g.over {
        let winners: Vec<String> = g.winners.iter().map(|w| inline(w).into_owned()).collect();
        let result = match (winners.len(), g.winning_team) {
            (0, _) => "over".to_string(),
            (1, _) => format!("over: {} won", winners[0]),
            (_, Some(team)) => format!("over: {} won (team {team})", history::list(&winners)),
            _ => format!("over: {} share first place", history::list(&winners)),
        };
        match (g.your_turn, &g.to_act) {
            (true, _) => format!("{result}; YOUR TURN to countersign"),
            (false, Some(who)) => format!("{result}; {} countersigns next", inline(who)),
            (false, None) => result,
        }
    } else if g.your_turn {
        format!(
            "YOUR TURN ({}) since {}",
            g.action.as_deref().unwrap_or_default(),
            history::short_time(g.waiting_since.as_deref().unwrap_or_default())
        )
    } else {
        format!(
            "waiting for {} to {} since {}",
            inline(g.to_act.as_deref().unwrap_or_default()),
            g.action.as_deref().unwrap_or_default(),
            history::short_time(g.waiting_since.as_deref().unwrap_or_default())
        )
    };
    let head = crate::text::wrap(
        &format!("{id} {} — {players}\n", history::title(game)),
        80,
        "    ",
    );
    // The file on a line of its own: a long path never leaves a dash
    // dangling at the end of the line before it.
    let tail = crate::text::wrap(
        &format!("    {state} — {} entries\n", g.entries),
        80,
        "    ",
    ) + &format!("    {}\n", inline(&g.file));
    let clock = match (&g.time_left, g.over) {
        (Some(t), false) => crate::text::wrap(&format!("    {}\n", inline(t)), 80, "    "),
        _ => String::new(),
    };
    // The command on a line of its own, whole, to copy.
    let command = g
        .command
        .as_ref()
        .map(|c| format!("    {}\n", inline(c)))
        .unwrap_or_default();
    format!("{head}{tail}{clock}{command}")
        .trim_end()
        .to_string()
}
