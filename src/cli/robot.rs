//! The flags of `starry robot`, in the robot's own terms: the robot runs
//! on plain settings (`app::robot::Request`), so that it can be run, and
//! tested, without the command line; this is the one place that knows both.

use super::{Deadline, RobotArgs};
use crate::app::robot::{Overrides, Request, Source};
use crate::bot::Level;
use crate::error::Error;

impl TryFrom<RobotArgs> for Request {
    type Error = Error;

    /// Fails when no mail is given (clap lets only one through).
    fn try_from(args: RobotArgs) -> Result<Request, Error> {
        let source = match (args.imap, args.maildir, args.outbox) {
            (true, _, _) => Source::Imap,
            (false, Some(d), _) => Source::Maildir(d),
            (false, None, Some(d)) => Source::Outbox(d),
            (false, None, None) => {
                return Err(Error::Usage(
                    "give the robot's mail: --imap (the [imap] mail settings), --maildir DIR or \
                     --outbox DIR"
                        .into(),
                ));
            }
        };
        Ok(Request {
            source,
            watch: args.watch,
            level: Level::new(args.level).unwrap_or(Level::DEFAULT),
            seed: args.seed,
            overrides: Overrides {
                authserv_id: args.authserv_id,
                allow: args.allow,
                max_games: args.max_games,
                invitations_per_day: args.invitations_per_day,
                min_deadline: args.min_deadline.map(seconds),
            },
            read_span: |text| text.parse::<Deadline>().map(seconds),
        })
    }
}

/// A deadline as the robot's floor: `none` is no floor.
fn seconds(d: Deadline) -> u64 {
    d.seconds().unwrap_or(0)
}
