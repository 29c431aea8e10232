//! Mailing the log on after the robot's entries: as `starry mail` does
//! when every recipient is an address the robot may write to; otherwise
//! back to the sender alone, in a mail of the robot's own asking them to
//! pass it on. Every mail says it is automatic (RFC 3834), and none
//! carries a local path or the sender's own words.

use super::Robot;
use super::play::Table;
use super::report::RobotMail;
use crate::app::history;
use crate::app::mail::{NOT_SENT, Sending};
use crate::app::short_id;
use crate::error::{Error, Result};
use crate::games::{Game, Seat};
use crate::log::entry::Notify;
use crate::log::{Replay, file};
use crate::mail::TurnMail;
use crate::text;

impl Robot {
    /// Mails the log of `table` on: as `starry mail` does when every
    /// recipient is an address the robot may write to; otherwise back to
    /// the sender alone, asking them to pass it on.
    pub(super) fn deliver<G: Game>(&self, table: &mut Table, mail: &mut RobotMail) -> Result<()> {
        let Table {
            path,
            sender,
            state,
        } = table;
        let (path, sender) = (path.as_path(), *sender);
        let bytes = file::read(path)?;
        let (r, _) = crate::app::cache::tell::<G>(&bytes).map_err(|fault| Error::Log {
            path: path.into(),
            fault,
        })?;
        state.over = r.is_over();
        self.save_state(&r.game_id, state)?;
        let targets = targets(&r, self.my_seat(&r));
        if targets.is_empty() {
            return Ok(());
        }
        let blocked: Vec<Seat> = targets
            .iter()
            .copied()
            .filter(|&s| !self.writable(&r, state, s))
            .collect();
        if blocked.is_empty() {
            let out = crate::app::mail::mail_file(
                path,
                Sending {
                    auto_submitted: true,
                    ..Sending::default()
                },
            )?;
            mail.mailed_to.extend(
                out.json["sent"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|m| m["to"].as_str().map(str::to_string)),
            );
            if let Some(w) = out.warning {
                mail.code = out.code;
                mail.detail = Some(w);
            } else if !mail.mailed_to.is_empty() {
                mail.detail = Some(format!("mailed to {}", mail.mailed_to.join(", ")));
            }
            return Ok(());
        }
        let to = &r.genesis.seats[sender];
        let msg = self.relay_mail::<G>(&r, &bytes, sender, &blocked)?;
        match crate::mail::compose(&msg).and_then(|m| crate::mail::send(&self.cfg, &self.home, &m))
        {
            Ok(_) => {
                mail.mailed_to.push(to.email.clone());
                mail.relayed = true;
                mail.detail = Some(format!(
                    "the robot may not write first to {}: the log went back to {} alone, to pass on",
                    blocked
                        .iter()
                        .map(|&s| text::inline(&r.genesis.seats[s].email).into_owned())
                        .collect::<Vec<_>>()
                        .join(", "),
                    text::inline(&to.email)
                ));
            }
            Err(e) => {
                mail.relayed = true;
                mail.code = if e.pending_path().is_some() {
                    NOT_SENT
                } else {
                    1
                };
                mail.detail = Some(format!(
                    "the log for {} to pass on was not sent: {e}",
                    text::inline(&to.email)
                ));
            }
        }
        Ok(())
    }

    /// The mail that returns the log to the sender, asking them to pass it
    /// on. It names the game, the players by their (short) names and
    /// addresses, and the commands; never a path, never the sender's own
    /// words.
    fn relay_mail<G: Game>(
        &self,
        r: &Replay<G>,
        log: &[u8],
        sender: Seat,
        blocked: &[Seat],
    ) -> Result<TurnMail> {
        let (from_name, from_email) = self.from();
        let to = &r.genesis.seats[sender];
        let id16 = short_id(&r.game_id);
        let title = history::title(G::NAME);
        let name = |s: Seat| {
            format!(
                "{} <{}>",
                crate::mail::compose::display_name(&r.genesis.seats[s].name),
                text::inline(&r.genesis.seats[s].email)
            )
        };
        let (action, who) = r.expected();
        let now = match who {
            Some(w) if !r.is_over() => {
                format!("The game now waits for {} ({}).", name(w), action.as_str())
            }
            _ => "The game is over.".to_string(),
        };
        let file_name = format!("{id16}.jsonl");
        let mut body = format!(
            "Hello {},\n\n",
            crate::mail::compose::display_name(&to.name)
        );
        body.push_str(&text::wrap(
            &format!(
                "I am the starry robot {} <{}> and play {title} {} with you. I have written \
                 my entries; the log now has {} entries. {now}\n",
                crate::mail::compose::display_name(&self.id.name),
                text::inline(&self.id.email),
                &id16[..8],
                r.len()
            ),
            72,
            "",
        ));
        body.push('\n');
        body.push_str(&text::wrap(
            &format!(
                "I write first only to addresses that have sent me an entry of their own seat, in \
                 a mail my mail server vouches for, or that my operator allows. {} {} not, so the \
                 log comes back to you alone. Please pass it on:\n",
                blocked
                    .iter()
                    .map(|&s| name(s))
                    .collect::<Vec<_>>()
                    .join(", "),
                if blocked.len() == 1 { "has" } else { "have" }
            ),
            72,
            "",
        ));
        body.push_str(&format!(
            "\n  1. Save the attached file {file_name} (or this whole mail as turn.eml).\n  \
             2. starry ingest {file_name}\n  3. starry mail {id16}\n\n"
        ));
        if let Some(p) = crate::app::mail::link_paragraph(&self.cfg, log) {
            body.push_str(&p);
            body.push('\n');
        }
        body.push_str(&text::wrap(
            "`starry mail` sends each player the entries they lack, from you. Once a player has \
             mailed me an entry of theirs, I write to them myself.\n",
            72,
            "",
        ));
        Ok(TurnMail {
            from_name,
            from_email,
            to_name: to.name.clone(),
            to_email: to.email.clone(),
            subject: format!("[starry] {title} {} — please pass this on", &id16[..8]),
            body_text: body,
            log_file_name: file_name,
            log: log.to_vec(),
            auto_submitted: true,
            ..TurnMail::default()
        })
    }

    /// The robot's sender: `from` in the mail settings, else its identity
    /// (as `starry mail` does).
    fn from(&self) -> (String, String) {
        if let Some(from) = &self.cfg.from {
            let t = from.trim();
            if let (Some(i), true) = (t.find('<'), t.ends_with('>')) {
                let name = t[..i].trim().trim_matches('"');
                let name = if name.is_empty() { &self.id.name } else { name };
                return (name.to_string(), t[i + 1..t.len() - 1].trim().to_string());
            }
            return (self.id.name.clone(), t.to_string());
        }
        (self.id.name.clone(), self.id.email.clone())
    }
}

/// The seats `starry mail` writes to after the robot's entries, as
/// `app::mail` chooses them (without `--to-all`): when the game is over,
/// every other seat; else the awaited seat, and the joined seats that want
/// every mail.
fn targets<G: Game>(r: &Replay<G>, me: Option<Seat>) -> Vec<Seat> {
    let (_, who) = r.expected();
    if r.is_over() {
        return (0..r.seat_count()).filter(|&s| Some(s) != me).collect();
    }
    let Some(w) = who else {
        return Vec::new();
    };
    let mut t: Vec<Seat> = Vec::new();
    if Some(w) != me {
        t.push(w);
    }
    t.extend((0..r.seat_count()).filter(|&s| {
        Some(s) != me && s != w && r.seats[s].key.is_some() && r.seats[s].notify == Notify::All
    }));
    t
}
