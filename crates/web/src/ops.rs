//! The ops of [`crate::call`]: each takes the request's JSON and answers
//! the reply's `ok` value, or a refusal in the CLI's words.

use std::path::PathBuf;

use serde_json::{Map, Value, json};
use starry_core::crypto::Hash;
use starry_core::crypto::identity::Identity;
use starry_core::games::{Game, Seat};
use starry_core::log::entry::{Kind, Line, Notify};
use starry_core::log::replay::{fingerprint, read_genesis, split_at_entry, split_lines};
use starry_core::log::write::{self, Writer, Written};
use starry_core::log::{Action, Replay};
use starry_core::tell::{self, Role};
use starry_core::with_game;

/// A refusal, in one paragraph for the player.
#[derive(Debug)]
pub struct Refused(pub String);

impl<E: std::fmt::Display> From<E> for Refused {
    fn from(e: E) -> Refused {
        Refused(e.to_string())
    }
}

type R<T> = Result<T, Refused>;

/// Where the page keeps the identity, as refusals name it (they never
/// quote the file: it holds the secret).
const STORED_IDENTITY: &str = "this browser's storage (starry/identity)";

fn text<'a>(req: &'a Value, name: &str) -> R<&'a str> {
    req.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| Refused(format!("the request has no text `{name}`")))
}

fn opt_text<'a>(req: &'a Value, name: &str) -> Option<&'a str> {
    req.get(name).and_then(Value::as_str)
}

/// 32 bytes of the page's randomness (`random`: 64 hex digits).
fn random(req: &Value) -> R<Hash> {
    let mut out = [0u8; 32];
    hex::decode_to_slice(text(req, "random")?, &mut out).map_err(|_| {
        Refused("the page gave no randomness (`random`: 64 hex digits); nothing was written".into())
    })?;
    Ok(out)
}

/// The time the page gives (`now`), checked: RFC 3339 UTC as the log
/// writes it.
fn now(req: &Value) -> R<&str> {
    let t = text(req, "now")?;
    if !starry_core::log::replay::valid_time(t) {
        return Err(Refused(format!(
            "the page's time `{}` is not a time of the form 2026-01-31T12:00:00Z",
            starry_core::text::inline(t)
        )));
    }
    Ok(t)
}

fn identity_in(text: &str, where_: &str) -> R<Identity> {
    Ok(Identity::from_file(PathBuf::from(where_), text.as_bytes())?)
}

/// The identity the request carries (`identity`), if any.
fn identity(req: &Value) -> R<Option<Identity>> {
    match opt_text(req, "identity") {
        Some(t) => identity_in(t, STORED_IDENTITY).map(Some),
        None => Ok(None),
    }
}

fn identity_reply(id: &Identity) -> Value {
    json!({
        "file": id.file_text(),
        "name": id.name,
        "email": id.email,
        "key": hex::encode(id.public_key()),
        "fingerprint": fingerprint(&id.public_key()),
    })
}

/// `identity_new`: a new identity from the page's randomness.
pub fn identity_new(req: &Value) -> R<Value> {
    let id = Identity::new(text(req, "name")?, text(req, "email")?, random(req)?)?;
    Ok(identity_reply(&id))
}

/// `identity_read`: an identity file (`starry id export`) checked.
pub fn identity_read(req: &Value) -> R<Value> {
    Ok(identity_reply(&identity_in(
        text(req, "file")?,
        "the identity file given",
    )?))
}

/// The entries a received text carries: a player link (or its fragment),
/// an armored block, or the lines of a `.jsonl` file.
pub fn entries_in(input: &str) -> R<Vec<u8>> {
    let t = input.trim_start_matches('\u{feff}');
    if t.trim().is_empty() {
        return Err(Refused(
            "nothing to receive: paste a player link or an armored block (from -----BEGIN \
             STARRY LOG----- to -----END STARRY LOG-----), or choose the game's .jsonl file"
                .into(),
        ));
    }
    if t.contains(starry_core::armor::BEGIN) {
        let mut blocks = starry_core::armor::dearmor_all(t)?;
        blocks.dedup();
        if blocks.len() > 1 {
            return Err(Refused(format!(
                "the input holds {} different starry logs, so it is not clear which one to use; \
                 give one turn mail or one armored block at a time (when replying to a turn \
                 mail, delete the quoted earlier block)",
                blocks.len()
            )));
        }
        return Ok(blocks.pop().unwrap_or_default());
    }
    let trimmed = t.trim();
    if let Some(i) = trimmed.find("#log=") {
        return Ok(starry_core::link::entries_of(&trimmed[i..])?);
    }
    if trimmed.starts_with(starry_core::link::KEY) {
        return Ok(starry_core::link::entries_of(trimmed)?);
    }
    let mut bytes = t.as_bytes().to_vec();
    // A pasted text loses its last newline; a log's lines all end in one.
    if !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    Ok(bytes)
}

/// The game the first of `entries` belongs to, and its number.
fn game_and_start(entries: &[u8]) -> R<(Hash, u64)> {
    let lines = split_lines(entries)?;
    let first = lines.first().copied().unwrap_or_default();
    let line: Line = serde_json::from_slice(first).map_err(|_| {
        Refused(
            "the received text is not a starry log: its first line is not an entry; give the \
             game's .jsonl file, the armored block or the player link"
                .into(),
        )
    })?;
    if line.body.kind == Kind::Genesis {
        let (_, id) = read_genesis(entries)?;
        return Ok((id, 0));
    }
    match line.body.game {
        Some(g) => Ok((g.0, line.body.n)),
        None => Err(Refused(format!(
            "entry {} of the received text names no game",
            line.body.n
        ))),
    }
}

/// `game_of`: which game a received text is for.
pub fn game_of(req: &Value) -> R<Value> {
    let entries = entries_in(text(req, "input")?)?;
    let (game, _) = game_and_start(&entries)?;
    Ok(json!({ "game": hex::encode(game) }))
}

/// The kept copy with the received entries appended; refused when they do
/// not continue it (a gap, or a different entry at one position: a fork).
fn merged(stored: Option<&[u8]>, incoming: &[u8], start: u64) -> R<Vec<u8>> {
    let kept = match stored {
        Some(s) => split_lines(s)?,
        None => Vec::new(),
    };
    let new = split_lines(incoming)?;
    let start = start as usize;
    if start > kept.len() {
        return Err(Refused(if kept.is_empty() {
            format!(
                "these entries begin at entry {start}, and this browser has no copy of the game \
                 yet: ask the sender for the whole log (the .jsonl attached to the mail, or \
                 `starry mail --full`); nothing was kept"
            )
        } else {
            format!(
                "these entries begin at entry {start}, and your copy ends at entry {}: the \
                 entries between are missing; take the mails in order, or ask for the whole log; \
                 nothing was kept",
                kept.len() - 1
            )
        }));
    }
    for (i, line) in new.iter().enumerate() {
        let at = start + i;
        if let Some(k) = kept.get(at)
            && k != line
        {
            return Err(Refused(format!(
                "the received log and your copy differ at entry {at}: two different entries \
                 at one position are a fork, and your copy is kept as it was. Compare both \
                 copies with `starry audit`, and ask the other players which one they hold"
            )));
        }
    }
    let mut out = stored.map(<[u8]>::to_vec).unwrap_or_default();
    for line in new.iter().skip(kept.len() - start) {
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    Ok(out)
}

/// Replays a whole log with the audit's code (the entries this module
/// verified before, [`verified`], are not verified again).
fn replayed<G: Game>(log: &[u8]) -> R<Replay<G>> {
    let r = Replay::<G>::from_bytes_known(log, verified::known(log))
        .map_err(|f| Refused(format!("the game's log does not verify: {f}")))?;
    verified::remember(log, r.len());
    Ok(r)
}

/// The logs this module verified in full since the page loaded, as
/// `app::cache` keeps them for the CLI: opening a game is `receive`, then
/// `games` and `page` on the same bytes, and a move is `act`, then both
/// again on its new log. Each verified every signature of the game anew
/// (three quarters of their time on a 125-entry game; docs/performance.md,
/// "Web player"). Kept in the module's memory only, by the SHA-256 of the
/// bytes: a log is known only if its bytes begin with exactly those of one
/// verified here, and the rules still replay every entry.
mod verified {
    use std::cell::RefCell;

    use starry_core::crypto::{Hash, sha256};

    /// More logs than a player holds open at once; the oldest goes first.
    const KEPT: usize = 16;

    thread_local! {
        /// (length in bytes, SHA-256, entries) of each verified log.
        static VERIFIED: RefCell<Vec<(usize, Hash, usize)>> = const { RefCell::new(Vec::new()) };
    }

    /// How many of `log`'s first entries were verified here before.
    pub fn known(log: &[u8]) -> usize {
        VERIFIED.with_borrow(|v| {
            v.iter()
                .filter(|(len, hash, _)| {
                    log.get(..*len)
                        .is_some_and(|p| p.ends_with(b"\n") && sha256(p) == *hash)
                })
                .map(|&(_, _, n)| n)
                .max()
                .unwrap_or(0)
        })
    }

    /// `log`, of `entries` entries, verified in full here.
    pub fn remember(log: &[u8], entries: u64) {
        if !log.ends_with(b"\n") {
            return;
        }
        let hash = sha256(log);
        VERIFIED.with_borrow_mut(|v| {
            if v.iter().any(|&(len, h, _)| len == log.len() && h == hash) {
                return;
            }
            if v.len() == KEPT {
                v.remove(0);
            }
            v.push((log.len(), hash, entries as usize));
        });
    }
}

/// `receive`: the kept copy of a game with what was received, verified.
pub fn receive(req: &Value) -> R<Value> {
    let incoming = entries_in(text(req, "input")?)?;
    let (game, start) = game_and_start(&incoming)?;
    let stored = opt_text(req, "stored").map(str::as_bytes);
    if let Some(s) = stored
        && read_genesis(s).map(|(_, id)| id).ok() != Some(game)
    {
        return Err(Refused(
            "the stored copy is of another game than the received entries; nothing was kept".into(),
        ));
    }
    let log = merged(stored, &incoming, start)?;
    let (genesis, _) = read_genesis(&log)?;
    let title = with_game!(genesis.game.as_str(), G => replayed::<G>(&log).map(|r| {
        format!("{} {}", starry_core::games::title_of(G::NAME), &hex::encode(r.game_id)[..8])
    }))?;
    let kept = stored.map_or(0, |s| s.iter().filter(|&&b| b == b'\n').count());
    let total = log.iter().filter(|&&b| b == b'\n').count();
    Ok(json!({
        "game": hex::encode(game),
        "log": String::from_utf8_lossy(&log),
        "added": total - kept,
        "entries": total,
        "title": title,
    }))
}

/// `games`: a line about each kept game.
pub fn games(req: &Value) -> R<Value> {
    let me = identity(req)?;
    let empty = Map::new();
    let all = req
        .get("games")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut out = Vec::new();
    for (id, log) in all {
        let log = log.as_str().unwrap_or_default().as_bytes();
        let line = read_genesis(log)
            .map_err(Refused::from)
            .and_then(|(g, _)| with_game!(g.game.as_str(), G => summary::<G>(log, me.as_ref())));
        out.push(match line {
            Ok(v) => v,
            Err(e) => json!({ "id": id, "error": e.0 }),
        });
    }
    Ok(json!({ "games": out }))
}

fn summary<G: Game>(log: &[u8], me: Option<&Identity>) -> R<Value> {
    let r = replayed::<G>(log)?;
    let (action, who) = r.expected();
    let mine = me.and_then(|i| {
        r.seat_of_key(&i.public_key())
            .or_else(|| r.seat_of_email(&i.email))
    });
    let id = hex::encode(r.game_id);
    Ok(json!({
        "id": id,
        "game": G::NAME,
        "title": format!("{} {}", starry_core::games::title_of(G::NAME), &id[..8]),
        "players": r.names(),
        "entries": r.len(),
        "action": action.as_str(),
        "to_act": who.map(|s| r.name(s)),
        "yours": who.is_some() && who == mine && !r.is_over(),
        "over": r.is_over(),
    }))
}

/// `page`: the game page.
pub fn page(req: &Value) -> R<Value> {
    let log = text(req, "log")?.as_bytes();
    let me = identity(req)?;
    let ask = starry_pages::Ask::parse(opt_text(req, "query").unwrap_or_default());
    let now = now(req)?;
    let (genesis, _) = read_genesis(log)?;
    let notices = maud::html! {};
    let (title, html) = with_game!(genesis.game.as_str(), G => told::<G>(log).and_then(|told| starry_pages::game_page_told::<G>(&crate::page::Player, log, told, me.as_ref(), &ask, now, notices.clone()).map_err(|e| Refused(e.to_string()))))?;
    Ok(json!({ "title": title, "html": html.into_string() }))
}

/// The log told for its page, the entries verified before not again.
fn told<G: Game>(log: &[u8]) -> R<(Replay<G>, Vec<starry_core::history::Event>)> {
    let told = starry_core::history::tell_known::<G>(log, verified::known(log))
        .map_err(|e| Refused(starry_pages::PageError::Log(e).to_string()))?;
    verified::remember(log, told.0.len());
    Ok(told)
}

/// What a form asks for (`fields`): `what`, `move`, `entries`.
struct Form<'a> {
    what: &'a str,
    notation: &'a str,
    entries: Option<u64>,
    /// `confirm=yes`: a resignation or claim the player confirmed.
    confirmed: bool,
}

/// `act`: the entry a form asks for, signed, checked by the audit's rules,
/// appended; and what to send to whom.
pub fn act(req: &Value) -> R<Value> {
    let log = text(req, "log")?.as_bytes();
    let id = identity_in(text(req, "identity")?, STORED_IDENTITY)?;
    let fields = req.get("fields").cloned().unwrap_or(Value::Null);
    let form = Form {
        what: fields
            .get("what")
            .and_then(Value::as_str)
            .unwrap_or_default(),
        notation: fields
            .get("move")
            .and_then(Value::as_str)
            .unwrap_or_default(),
        entries: fields
            .get("entries")
            .and_then(|v| v.as_u64().or_else(|| v.as_str()?.parse().ok())),
        confirmed: fields.get("confirm").and_then(Value::as_str) == Some("yes"),
    };
    // A resignation or a claim is asked about first, as `starry serve`
    // does (the pages' form contract): the page to show is the question.
    if matches!(form.what, "resign" | "abandon") && !form.confirmed {
        return Ok(json!({ "confirm": form.what }));
    }
    let now = now(req)?;
    let nonce = random(req)?;
    let joined = opt_text(req, "joined");
    let url = opt_text(req, "player_url");
    let (genesis, _) = read_genesis(log)?;
    with_game!(genesis.game.as_str(), G => act_in::<G>(log, &id, &form, now, nonce, joined, url))
}

fn act_in<G: Game>(
    log: &[u8],
    id: &Identity,
    form: &Form<'_>,
    now: &str,
    nonce: Hash,
    joined: Option<&str>,
    player_url: Option<&str>,
) -> R<Value> {
    let r = replayed::<G>(log)?;
    if let Some(n) = form.entries
        && n != r.len()
    {
        return Err(Refused(format!(
            "the game has moved on: the log has {} entries, not the {n} this was chosen on; \
             nothing was written: look at the new position and choose again",
            r.len()
        )));
    }
    if let Some(why) = crate::ahead::ahead(&r, now) {
        return Err(Refused(why));
    }
    let time = r.entry_time(now.to_string());
    let (line, summary) = if form.what == "join" {
        join(&r, id, time, nonce, joined)?
    } else {
        written(&r, id, form, time)?
    };
    let mut after = r.clone();
    after
        .apply_line(r.len(), &line[..line.len() - 1])
        .map_err(|f| {
            Refused(format!(
                "refusing to write an entry that does not verify: {f}"
            ))
        })?;
    let last = after.entries.last().expect("just applied");
    let summary = if last.kind == Kind::Move {
        last.summary.clone()
    } else {
        summary
    };
    let me = last.author;
    let mut new_log = log.to_vec();
    new_log.extend_from_slice(&line);
    // The new entry was verified in full as it was applied.
    verified::remember(&new_log, after.len());
    let send = send_of(&after, me, &new_log, &summary, player_url)?;
    let line_text = String::from_utf8_lossy(&line).into_owned();
    Ok(json!({
        "log": String::from_utf8_lossy(&new_log),
        "new": line_text,
        "entry": r.len(),
        "summary": summary,
        "joined": (form.what == "join").then_some(line_text.clone()),
        "send": send,
    }))
}

/// The join of `id`, or the join this browser began before (`joined`) if
/// it continues this copy; any other earlier join refuses a second one,
/// which would fork the game.
fn join<G: Game>(
    r: &Replay<G>,
    id: &Identity,
    time: String,
    nonce: Hash,
    joined: Option<&str>,
) -> R<Written> {
    let seat = write::join_seat(r, id, false)?;
    // A browser plays no computer seat: a seat the genesis calls one, or a
    // genesis that names this seat a computer's operator, would give up
    // claims this player could never make (src/app/act.rs).
    let seats = &r.genesis.seats;
    if seats[seat].operator.is_some() || seats.iter().any(|s| s.operator == Some(seat as u32)) {
        return Err(Refused(format!(
            "this game's genesis has computer seats played on the machine of seat {seat} (or \
             calls seat {seat} a computer): play it with the starry program, not in a browser. \
             Nothing was written"
        )));
    }
    let Some(earlier) = joined else {
        let line = write::join_line(r, id, seat, Notify::All, time, nonce);
        return Ok((line, "joined".into()));
    };
    let bytes = earlier.as_bytes();
    let body = serde_json::from_slice::<Line>(bytes.strip_suffix(b"\n").unwrap_or(bytes))
        .map(|l| l.body)
        .ok();
    if let Some(b) = body
        && b.kind == Kind::Join
        && b.n == r.len()
        && b.prev.map(|h| h.0) == Some(r.tip())
    {
        return Ok((
            bytes.to_vec(),
            "joined (finishing the join begun earlier)".into(),
        ));
    }
    Err(Refused(format!(
        "you joined game {} before (kept in this browser's storage, starry/joined/{}) at \
         another point of its log than this copy: joining it again would fork it. Use the \
         copy of the log that holds your join",
        &hex::encode(r.game_id)[..16],
        hex::encode(r.game_id)
    )))
}

/// Every entry but a join, through the core's writer.
fn written<G: Game>(r: &Replay<G>, id: &Identity, form: &Form<'_>, time: String) -> R<Written> {
    let w = Writer::new(r, id, time.clone())?;
    Ok(match form.what {
        "ready" => w.ready()?,
        "reveal" => w.reveal()?,
        "resign" => w.resign()?,
        // Never a concession (a countersignature that settles claims
        // against this very seat, giving up the late answer that still
        // wins): the page offers none, as `starry serve` does not; only
        // `starry countersign` asks for it, by hand.
        "countersign" => w.countersign(false, starry_core::clock::late_answer_at(r, w.seat()))?,
        "abandon" => {
            let not_due = starry_core::clock::claim_not_due(r, &time);
            w.claim(not_due, "")?
        }
        "play" if !form.notation.trim().is_empty() => {
            let at = w.position()?;
            let intent = at.typed(form.notation.trim())?;
            w.play(&at, &intent)?
        }
        "play" => return Err(Refused("no move was chosen; nothing was written".into())),
        other => {
            return Err(Refused(format!(
                "the form asks for `{}`, which is none of join, ready, play, reveal, resign, \
                 abandon or countersign; nothing was written",
                starry_core::text::inline(other)
            )));
        }
    })
}

/// The first entry `seat` lacks: the one after their own last entry
/// (they wrote it, so they hold the log up to there), or the whole log.
fn lacks<G: Game>(r: &Replay<G>, seat: Seat) -> usize {
    r.entries
        .iter()
        .rposition(|e| e.author == seat)
        .map_or(0, |i| i + 1)
}

/// What the page offers to send after an entry: to the players the
/// protocol says to tell, in the game's thread, the entries they lack as
/// an armored block (which `starry ingest` reads) and as a player link.
fn send_of<G: Game>(
    r: &Replay<G>,
    me: Seat,
    log: &[u8],
    summary: &str,
    player_url: Option<&str>,
) -> R<Value> {
    let (targets, _) = tell::told(r, Some(me), false);
    if targets.is_empty() {
        return Ok(Value::Null);
    }
    let lines = split_lines(log)?;
    let from = targets.iter().map(|&(s, _)| lacks(r, s)).min().unwrap_or(0);
    let entries = split_at_entry(log, &lines, from).1;
    let id16 = &hex::encode(r.game_id)[..16];
    let role = targets
        .iter()
        .map(|&(_, role)| role)
        .find(|role| matches!(role, Role::Act(_)))
        .unwrap_or(targets[0].1);
    let subject = tell::subject(G::NAME, id16, role);
    let names: Vec<String> = targets.iter().map(|&(s, _)| r.name(s)).collect();
    let to: Vec<String> = targets
        .iter()
        .map(|&(s, _)| r.genesis.seats[s].email.clone())
        .collect();
    let link = player_url
        .filter(|u| starry_core::link::check_player_url(u).is_ok())
        .map(|u| starry_core::link::link_of(u, entries));
    let body = mail_body(r, me, summary, link.as_deref(), entries);
    let file_name = if from == 0 {
        format!("{id16}.jsonl")
    } else {
        format!("{id16}-{from}-{}.jsonl", lines.len() - 1)
    };
    let mailto = format!(
        "mailto:{}?subject={}&body={}",
        to.iter().map(|a| percent(a)).collect::<Vec<_>>().join(","),
        percent(&subject),
        percent(&body)
    );
    Ok(json!({
        "to": to,
        "names": names,
        "subject": subject,
        "body": body,
        "entries": String::from_utf8_lossy(entries),
        "file_name": file_name,
        "mailto": mailto,
    }))
}

/// The mail's text: what was written, what comes next, the link, and the
/// armored entries (what `starry ingest` and the web player read).
fn mail_body<G: Game>(
    r: &Replay<G>,
    me: Seat,
    summary: &str,
    link: Option<&str>,
    entries: &[u8],
) -> String {
    let title = starry_core::games::title_of(G::NAME);
    let id8 = &hex::encode(r.game_id)[..8];
    let mut t = format!(
        "{} wrote entry {} of {title} {id8}: {}.\n\n",
        r.name(me),
        r.len() - 1,
        starry_core::text::inline(summary)
    );
    let (action, who) = r.expected();
    match who {
        _ if r.is_over() => t.push_str("The game is over.\n\n"),
        Some(w) => t.push_str(&format!(
            "Next: {} ({}).\n\n",
            r.name(w),
            action_words(action)
        )),
        None => {}
    }
    if let Some(l) = link {
        // One paragraph, as the CLI's mails write it: `starry sync` takes
        // the paragraph holding the link for no personal note.
        t.push_str(&format!(
            "{}\n{l}\nThe link carries the entries of the block below, after its `#`: a \
             browser never sends that part to the site.\n\n",
            starry_core::link::PLAY_IN_BROWSER
        ));
    }
    t.push_str("With starry: save this mail and run `starry ingest` on it (or `starry sync`).\n\n");
    t.push_str(&starry_core::armor::armor(entries));
    t
}

fn action_words(a: Action) -> &'static str {
    match a {
        Action::Join => "to join",
        Action::Ready => "to get ready",
        Action::Move => "to move",
        Action::Reveal => "to reveal",
        Action::Over => "to countersign",
    }
}

/// Percent-encoding for a `mailto:` address (RFC 6068): everything but the
/// unreserved characters, so a space is `%20`, never `+`.
fn percent(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'@') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
