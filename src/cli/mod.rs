//! The command line: its definitions (clap), and [`run`], which turns
//! them into the plain values the use cases in `app` take.

mod docs;
mod run;

pub use run::run;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod robot;

#[derive(Parser, Debug)]
#[command(
    name = "starry",
    version,
    about = "Play Starry Sky, Starry Night and Star Map by e-mail or git with a signed, append-only move log that anyone can audit",
    long_about = None,
    after_help = format!(
        "Identities live in $STARRY_HOME (default: the platform's config directory, e.g. ~/.config/starry);\n\
         games received by mail in $STARRY_HOME/games/. A FILE argument may also be the id of such a game\n\
         (8 or more hex digits).\n{}",
        crate::error::exit_codes_help()
    )
)]
pub struct Cli {
    /// Print one JSON object instead of text (schemas in schemas/).
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Create, show, export or import your identity (one secret file; back it up).
    #[command(
        subcommand,
        after_help = "Examples:\n  \
                      starry id new --name Anna --email anna@example.org\n  \
                      starry id show\n  \
                      starry id export --output anna-identity.json\n  \
                      starry id import anna-identity.json"
    )]
    Id(IdCommand),
    /// Start a game; you are the first listed player.
    New(Box<NewArgs>),
    /// Join a game you are seated in (writes your join entry).
    #[command(after_help = "Examples:\n  \
                            starry join game.jsonl\n  \
                            starry join 1a2b3c4d --notify turn --mail   (a game received by mail, by its id)")]
    Join(JoinArgs),
    /// Contribute your share of the setup randomness (after everyone has joined).
    #[command(after_help = "Examples:\n  \
                            starry ready game.jsonl\n  \
                            starry ready 1a2b3c4d --mail")]
    Ready(ActArgs),
    /// Whose turn it is, what they must do, and since when.
    #[command(after_help = "Examples:\n  \
                            starry status game.jsonl\n  \
                            starry status 1a2b3c4d --json")]
    Status(FileArg),
    /// List every legal move you can make now, each as `starry play` accepts it, grouped.
    #[command(
        after_help = "Grouped in each game's words: Starry Sky by token, then board; Star Map by disc and rotation, then squares; Starry Night by star. Only the player who must act can list their moves (they depend on what that player alone holds); for anyone else the command says whose turn it is.\n\n\
                            Examples:\n  \
                            starry moves game.jsonl\n  \
                            starry moves 1a2b3c4d --limit 20\n  \
                            starry moves game.jsonl --json | jq -r '.moves[].move'"
    )]
    Moves(MovesArgs),
    /// Show the game: your view (with your own face-down tokens) or, without an identity, the spectator view.
    #[command(after_help = "Examples:\n  \
                            starry view game.jsonl\n  \
                            starry view game.jsonl --at 12 --spectator\n  \
                            starry view game.jsonl --format svg --out game.svg")]
    View(ViewArgs),
    /// Make your move, e.g. `starry play game.jsonl "10 leo:3"` (Starry Sky), `"A-C"` (Starry Night)
    /// or `"corner1 f8 r90"` (Star Map).
    #[command(after_help = "Examples:\n  \
                            starry play game.jsonl \"10 leo:3\"                (Starry Sky: token, then star)\n  \
                            starry play night.jsonl A-C --dry-run            (Starry Night: an edge; writes nothing)\n  \
                            starry play map.jsonl \"corner1 f8 r90\" --mail    (Star Map: disc, square, rotation)\n\
                            Case and spacing do not matter. A move that does not read is refused with exit 2 and the\n\
                            form a move takes; one that reads but breaks a rule, with exit 20.")]
    Play(PlayArgs),
    /// Reveal your face-down tokens on a completed board when asked.
    #[command(after_help = "Examples:\n  \
                            starry reveal game.jsonl\n  \
                            starry reveal 1a2b3c4d --mail")]
    Reveal(ActArgs),
    /// Give up; the game ends and you are placed last (your face-down tokens are turned over).
    #[command(after_help = "Examples:\n  \
                            starry resign game.jsonl         (asks first, on the terminal)\n  \
                            starry resign game.jsonl --yes   (in a script: no question)")]
    Resign(ResignArgs),
    /// Claim that the player the game waits for has stopped answering, once their deadline
    /// (`starry new --deadline`, 14 days unless set) has passed. Once every other player has
    /// claimed it, the game ends with that player placed last; an entry from them before
    /// that answers the claims, and until they countersign the result, a late answer wins.
    #[command(after_help = "Examples:\n  \
                            starry abandon game.jsonl          (asks first, on the terminal)\n  \
                            starry abandon 1a2b3c4d --yes --mail")]
    Abandon(ResignArgs),
    /// Sign the final entry of a finished game, confirming the result.
    #[command(
        after_help = "A game that ended because the others claimed that you stopped \
                            answering is not over for you: your move, however late, still wins \
                            against the claims (`starry play`) until you countersign. Countersigning \
                            such a result asks first (--yes in a script), saying what it gives up; \
                            no automatic path (--auto, --bot, the robot, computer seats) ever writes \
                            it.\n\n\
                            Examples:\n  \
                            starry countersign game.jsonl\n  \
                            starry countersign 1a2b3c4d --mail"
    )]
    Countersign(ResignArgs),
    /// Mail the log to whoever must act next (or `--retry` what could not be sent; `mail setup`
    /// writes the mail settings).
    #[command(args_conflicts_with_subcommands = true)]
    Mail(MailArgs),
    /// Fetch your mail (IMAP, or a local maildir), take in every starry mail oldest first, file it
    /// away, and list the games where it is your turn.
    #[command(
        after_help = "Each mail is moved to the folder `starry` (created when missing; \
                            `folder` in the [imap] section of mail.toml) and flagged seen only \
                            once its entries are on disk; a mail that cannot be used stays in the \
                            inbox, flagged, and the report says why. What was read is remembered \
                            per account ($STARRY_HOME/sync/), so the next sync asks the server only \
                            for newer mail; a sync stopped at any point loses nothing, and running \
                            it again finishes the job. Exit code: 0, or 8 when the mail server \
                            could not be reached or dropped the connection (what was taken is \
                            kept), or that of a mail that could not be taken for a local reason \
                            (3: a file that cannot be written).\n\n\
                            Examples:\n  \
                            starry sync\n  \
                            starry sync --watch               (stay connected; take mail as it arrives)\n  \
                            starry sync --maildir ~/Maildir   (mbsync, offlineimap, notmuch)\n  \
                            starry sync --json"
    )]
    Sync(SyncArgs),
    /// Play in your browser: a web page on this machine for all your games, where moves are clicked.
    #[command(
        after_help = "It prints the address to open, with a secret token in it; only that \
                            address (then a cookie it sets) gets in. It listens on this machine \
                            only (127.0.0.1 and ::1) unless --listen says otherwise. Security \
                            model: docs/serve.md.\n\n\
                            Examples:\n  \
                            starry serve --open\n  \
                            starry serve --port 8080\n  \
                            starry serve --port 0              (any free port)"
    )]
    Serve(ServeArgs),
    /// Take a received turn mail (or a pasted armored block): verify it and fast-forward your copy.
    #[command(after_help = "Examples:\n  \
                            starry ingest turn.eml\n  \
                            starry ingest < message.txt\n  \
                            starry ingest turn.eml --into game.jsonl")]
    Ingest(IngestArgs),
    /// Verify games from first to last entry and reproduce the standings: one log, the copies
    /// of a game, or a whole archive of them.
    #[command(
        after_help = "One game is explained in full; for several, one line each and a \
                            summary. Copies of one game (the same game id) are compared, and a \
                            fork between them is a fault. The exit code is 0 when every game is \
                            valid, otherwise that of the gravest fault found (in this order: fork, \
                            bad signature, bad reveal, impossible token, bad link, illegal move, \
                            out of turn, foreign entry, broken chain, non-canonical, malformed, \
                            truncated, unknown version, unreadable file). With --json, one JSON \
                            object per game, one per line.\n\n\
                            Examples:\n  \
                            starry audit game.jsonl\n  \
                            starry audit mine.jsonl bens-copy.jsonl\n  \
                            starry audit club-archive/ -j 4\n  \
                            starry audit examples/games --json"
    )]
    Audit(AuditArgs),
    /// The offline referee: list games and variants, score a position, replay a list of actions.
    #[command(
        subcommand,
        after_help = "Examples:\n  \
                      starry rules list\n  \
                      starry rules score --game starry-sky position.json\n  \
                      starry rules replay starry-sky examples/referee/starry-sky.json"
    )]
    Rules(RulesCommand),
    /// Tell the whole game in words, entry by entry: who did what, and what it scored.
    #[command(after_help = "Examples:\n  \
                            starry history game.jsonl\n  \
                            starry history 1a2b3c4d --since-mine")]
    History(HistoryArgs),
    /// List the games in your games directory: game, players, whose turn, waiting since.
    #[command(after_help = "Examples:\n  \
                            starry games\n  \
                            starry games --json\n  \
                            starry games --ids\n  \
                            starry games --prune")]
    Games {
        /// Print only each game's id (16 hex digits), one a line, as shell completion offers them
        /// for a GAME argument; nothing is read but the names of the files.
        #[arg(long, conflicts_with = "prune")]
        ids: bool,
        /// Remove the links to games kept elsewhere (`new --out`, `join FILE`) whose file is
        /// gone (moved or deleted); never a log itself, nor a link whose file is there.
        #[arg(long)]
        prune: bool,
    },
    /// Mail the current turn again to the player everybody is waiting for, saying since when.
    #[command(after_help = "Examples:\n  \
                            starry remind game.jsonl\n  \
                            starry remind 1a2b3c4d")]
    Remind(FileArg),
    /// Play a whole game with throwaway identities in a temporary directory.
    #[command(after_help = "Examples:\n  \
                            starry demo\n  \
                            starry demo starry-night\n  \
                            starry demo star-map --players 4 --dir star-map-demo")]
    Demo(DemoArgs),
    /// Play computer players against each other, in-process, and print win rates with a 95%
    /// interval and the time each takes per move (also the benchmark of their strength).
    #[command(
        after_help = "Players: random (a uniformly random legal move), greedy (the best move by \
                            what it does at once), bot (the search at the default level 2) or bot:1 to \
                            bot:3. One player per seat; the seats rotate from game to game, so nobody \
                            always moves first. Game i is played from seed SEED+i, so any game can be \
                            played again alone.\n\n\
                            Examples:\n  \
                            starry arena starry-night --bots bot,greedy --games 200\n  \
                            starry arena starry-sky --bots bot,random,random,random --games 200 -j 2\n  \
                            starry arena star-map --bots bot:3,bot:1 --games 50 --variant map=easy --json"
    )]
    Arena(ArenaArgs),
    /// Answer turn mails as a computer player: take every new mail addressed to your identity,
    /// join the games it is invited to, play its turns and mail them on.
    #[command(
        after_help = "Run it from cron or a loop with an identity of its own (STARRY_HOME) and mail \
                            settings that send (docs/mail.md). It remembers every mail it handled \
                            ($STARRY_HOME/robot/handled/), so running it again does nothing twice, and it \
                            never changes the mail folder.\n\n\
                            Strangers cannot turn it against others (docs/bots.md, \"The robot\"):\n  \
                            - it writes first only to an address that has sent it an entry of its own \
                            seat in a mail its own mail server vouches for (an Authentication-Results \
                            header with its authserv-id, above the mail's first Received line: DKIM, \
                            SPF or DMARC passing for the From domain), or that is allow-listed. \
                            Risk: anybody can write such a header with your server's id into the \
                            mail they send, and Postfix, for one, keeps it by default. The robot \
                            believes none below a Received line, but a mail that reaches it with no \
                            Received line from your server (dropped into the maildir by a local \
                            user, say) is believed whole: have your server remove incoming \
                            Authentication-Results headers and write its own above every Received \
                            line, or nothing is vouched for (docs/mail.md, \"The robot's trust in \
                            Authentication-Results\"); when the turn passes to anyone else, the \
                            log goes back to the sender alone, to pass on. Without an authserv-id no \
                            From is ever vouched for, so it writes only to allow-listed addresses;\n  \
                            - it never answers a log that does not verify, a sender who is not a \
                            joined player, or an automatic, list or bulk mail or a bounce, and every \
                            mail it sends says Auto-Submitted: auto-replied;\n  \
                            - it accepts invitations only from the allow-list (when one is set), at most \
                            --invitations-per-day from one sender, and plays at most --max-games at \
                            once; a game it has no seat in is not stored.\n\n\
                            Settings: $STARRY_HOME/robot.toml, each overridden by its flag:\n  \
                            authserv_id = \"mx.example.org\"\n  \
                            allow = [\"anna@example.org\", \"*@club.example.org\"]\n  \
                            max_games = 20\n  \
                            invitations_per_day = 3\n\n\
                            Exit code: 0 when every new mail was handled or refused for good; else that \
                            of the first that was not (5: an entry written and its mail kept for the \
                            next run, which sends it; 3: a file it could not read or write, tried again \
                            later, and given up after 8 tries; 8: the IMAP server could not be reached).\n\n\
                            Examples:\n  \
                            STARRY_HOME=~/robot starry robot --imap --watch --authserv-id mx.example.org\n  \
                            STARRY_HOME=~/robot starry robot --maildir ~/Maildir --authserv-id mx.example.org\n  \
                            starry robot --maildir ~/Maildir --allow '*@club.example.org' --max-games 5\n  \
                            starry robot --outbox ~/anna/outbox --allow anna@example.org --level 3 --json"
    )]
    Robot(RobotArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell). In bash, zsh and fish
    /// it also completes the game of `new` and, where a command takes a game log, the ids of the
    /// games in your games directory (it runs `starry games --ids` as you press Tab).
    #[command(after_help = "Examples:\n  \
                            starry completions bash > ~/.local/share/bash-completion/completions/starry\n  \
                            starry completions zsh > ~/.zfunc/_starry\n  \
                            starry completions fish > ~/.config/fish/completions/starry.fish")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff; e.g. `starry man > starry.1 && man ./starry.1`).
    #[command(after_help = "Examples:\n  \
                            starry man > starry.1 && man ./starry.1\n  \
                            starry man | gzip > ~/.local/share/man/man1/starry.1.gz\n  \
                            starry man play > starry-play.1\n  \
                            starry man --dir ~/.local/share/man/man1")]
    Man {
        /// A command's own page (`starry man play` is starry-play(1), `starry man id-new`
        /// starry-id-new(1)); none: starry(1).
        #[arg(conflicts_with = "dir")]
        command: Option<String>,
        /// Write every page into DIR instead (starry.1 and one starry-COMMAND.1 per command, as
        /// starry(1) refers to them), e.g. ~/.local/share/man/man1.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
pub enum IdCommand {
    /// Create your identity (never overwrites one).
    #[command(after_help = "Examples:\n  \
                            starry id new --name Anna --email anna@example.org\n  \
                            STARRY_HOME=~/anna starry id new --name Anna --email anna@example.org")]
    New {
        #[arg(long)]
        name: String,
        #[arg(long)]
        email: String,
    },
    /// Show your name, e-mail and public key (never the secret), and the line a game's
    /// creator pastes into `--players` to pin your seat to your key.
    #[command(after_help = "Examples:\n  \
                            starry id show\n  \
                            starry id show --json")]
    Show,
    /// Write your identity file, secret included, for a backup, for the web player
    /// ("Import an identity file") or for `starry id import` on another machine.
    ///
    /// The file is the one `starry id new` made, in the same format the web player keeps
    /// and exports. It holds your secret: whoever has it can sign as you. It is written
    /// to a new file (readable by you only; an existing file is never overwritten) or to
    /// standard output when that is a pipe or a file, never to a terminal.
    #[command(after_help = "Examples:\n  \
                            starry id export --output anna-identity.json\n  \
                            starry id export > /media/usb/anna-identity.json\n  \
                            starry id export | ssh laptop starry id import -")]
    Export {
        /// The new file to write (mode 600); without it, standard output.
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Make an identity file (from `starry id export` or the web player's "Export")
    /// this machine's identity.
    ///
    /// The file is checked first (format, name, e-mail, a 32-byte secret); a bad one is
    /// refused and nothing changes. Importing the identity you have already changes
    /// nothing. Another identity already here is replaced only with `--replace`, and
    /// then kept as a backup beside it (identity.json.old, readable by you only): the
    /// games you joined with it still need it.
    #[command(after_help = "Examples:\n  \
                            starry id import anna-identity.json\n  \
                            starry id import - < anna-identity.json\n  \
                            starry id import --replace anna-identity.json")]
    Import {
        /// The identity file, or `-` for standard input.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Replace a different identity already here (it is kept as a backup).
        #[arg(long)]
        replace: bool,
    },
}

#[derive(Args, Debug)]
pub struct FileArg {
    /// The game log (a .jsonl file, or the id of a game in your games directory).
    pub file: PathBuf,
}

/// `starry moves`.
#[derive(Args, Debug, Clone)]
pub struct MovesArgs {
    /// The game log (a .jsonl file, or the id of a game in your games directory).
    pub file: PathBuf,
    /// Show at most N moves (the count of all is still given).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

/// What to do once an entry is written.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct AfterArgs {
    /// Then mail the log to whoever must act next (settings: `starry mail --help`, docs/mail.md).
    /// The entry is written first: a failed send keeps it, and `starry mail --retry` sends later.
    #[arg(long)]
    pub mail: bool,
    /// Then commit the log in its git repository (`git add` + `git commit`), one commit per entry.
    #[arg(long)]
    pub git_commit: bool,
}

#[derive(Args, Debug)]
pub struct ActArgs {
    /// The game log (a .jsonl file, or the id of a game in your games directory).
    pub file: PathBuf,
    /// Check and show the entry, write nothing.
    #[arg(long, conflicts_with_all = ["mail", "git_commit"])]
    pub dry_run: bool,
    #[command(flatten)]
    pub after: AfterArgs,
}

impl From<AfterArgs> for crate::app::After {
    fn from(a: AfterArgs) -> Self {
        crate::app::After {
            mail: a.mail,
            git_commit: a.git_commit,
        }
    }
}

/// Which mails a player wants while others play.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Notify {
    /// A mail when it is your turn, and a short report of every other move.
    #[default]
    All,
    /// A mail only when it is your turn.
    Turn,
}

impl From<Notify> for crate::log::entry::Notify {
    fn from(n: Notify) -> Self {
        match n {
            Notify::All => crate::log::entry::Notify::All,
            Notify::Turn => crate::log::entry::Notify::Turn,
        }
    }
}

#[derive(Args, Debug)]
pub struct JoinArgs {
    /// The game log (a .jsonl file, or the id of a game in your games directory).
    pub file: PathBuf,
    /// Which mails you want from the others' programs: `all` (your turns and a short report
    /// of every other move) or `turn` (only your turns). Recorded in your join entry.
    #[arg(long, value_enum, default_value_t = Notify::All)]
    pub notify: Notify,
    /// Join even a game whose genesis says protocol 2 (refused without this): such a game has
    /// no time controls — a claim that you stopped answering may come at once, and any
    /// countersignature settles it.
    #[arg(long = "allow-protocol-2")]
    pub allow_protocol_2: bool,
    /// Warn when the game's deadline is shorter than this (default 1d), or when it has none:
    /// another player may then claim that you stopped answering that soon. E.g. 1h; `none`
    /// for no floor.
    #[arg(long = "min-deadline", value_name = "DURATION")]
    pub min_deadline: Option<Deadline>,
    #[command(flatten)]
    pub after: AfterArgs,
}

#[derive(Args, Debug)]
pub struct ResignArgs {
    /// The game log (a .jsonl file, or the id of a game in your games directory).
    pub file: PathBuf,
    /// Do not ask for confirmation (needed when standard input is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Check and show the entry, write nothing (and ask nothing).
    #[arg(long, conflicts_with_all = ["mail", "git_commit", "yes"])]
    pub dry_run: bool,
    #[command(flatten)]
    pub after: AfterArgs,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Settings: $STARRY_HOME/mail.toml and STARRY_* variables (docs/mail.md). \
With none, mails are written as .eml files into $STARRY_HOME/outbox/ (nothing leaves the machine).\n\
  STARRY_SMTP_HOST, STARRY_SMTP_PORT, STARRY_SMTP_SECURITY (starttls|tls|none), STARRY_SMTP_USER,\n\
  STARRY_SMTP_PASSWORD or STARRY_SMTP_PASSWORD_COMMAND (or, for OAuth 2.0, STARRY_SMTP_TOKEN_COMMAND\n\
  and STARRY_SMTP_AUTH), STARRY_SMTP_CA_FILE, STARRY_SMTP_TIMEOUT,\n\
  STARRY_MAIL_TRANSPORT (outbox|smtp|sendmail), STARRY_SENDMAIL, STARRY_MAIL_FROM,\n\
  STARRY_PLAYER_URL (a web player: turn mails then carry a link to play there);\n\
  STARRY_IMAP_HOST, STARRY_IMAP_PORT, STARRY_IMAP_SECURITY (tls|starttls|none), STARRY_IMAP_USER, ...\n\
A password in mail.toml is read only while the file is readable by you alone (chmod 600); a password\n\
is never printed. `starry mail setup` writes the settings and tries them.\n\n\
Examples:\n  \
  starry mail game.jsonl\n  \
  starry mail 1a2b3c4d --to-all --full\n  \
  starry mail --retry\n  \
  starry mail setup --provider gmail --email anna@gmail.com"
)]
pub struct MailArgs {
    #[command(subcommand)]
    pub action: Option<MailAction>,
    /// The game log (a .jsonl file, or the id of a game in your games directory).
    pub file: Option<PathBuf>,
    /// Send the mails that could not be sent before (kept in $STARRY_HOME/pending/).
    #[arg(long, conflicts_with_all = ["file", "to_all", "full"])]
    pub retry: bool,
    /// Mail every other player, not only the one who must act next.
    #[arg(long)]
    pub to_all: bool,
    /// Carry the whole log, not only the entries the recipients lack (for a player whose
    /// `starry ingest` said that it needs a full copy).
    #[arg(long)]
    pub full: bool,
}

#[derive(Subcommand, Debug)]
pub enum MailAction {
    /// Write the mail settings (SMTP to send, IMAP to receive) and test both connections.
    #[command(
        after_help = "Whatever is not given is asked for on a terminal (the password without \
                            echo); without a terminal, missing values are an error. Both connections \
                            are tried (log in, nothing sent); the settings are written only when \
                            both work, unless --no-test. They go to $STARRY_HOME/mail.toml, readable \
                            by you alone (mode 0600); an earlier file is kept as mail.toml.bak. A \
                            password given here is stored in that file; prefer --password-command \
                            with a password manager. Outlook.com takes no password at all since \
                            September 2024: give --token-command, a command that prints an OAuth \
                            2.0 access token (Gmail prefers it too); iCloud, Fastmail, Yahoo and \
                            others want an app password (docs/mail.md lists their servers and how \
                            to get a token). A new --smtp-port or --imap-port without its \
                            --*-security takes the security of a usual port (465 and 993: tls; \
                            587, 25 and 143: starttls); for another port the earlier security \
                            is kept, and said.\n\n\
                            Examples:\n  \
                            starry mail setup\n  \
                            starry mail setup --provider gmail --email anna@gmail.com\n  \
                            starry mail setup --provider outlook --email ann@outlook.com \
                            --token-command \"oama access ann@outlook.com\"\n  \
                            starry mail setup --email ann@example.org --smtp-host smtp.example.org\n  \
                            starry mail setup --password-command \"pass show mail\" --no-test\n  \
                            starry mail setup --player-url https://example.org/starry/"
    )]
    Setup(MailSetupArgs),
}

#[derive(Args, Debug, Default)]
pub struct MailSetupArgs {
    /// Your e-mail address (the login name too, unless --user).
    #[arg(long, value_name = "ADDRESS")]
    pub email: Option<String>,
    /// A provider whose servers are known: gmail, outlook, icloud, fastmail, yahoo, gmx, posteo.
    #[arg(long)]
    pub provider: Option<String>,
    /// The SMTP server (sending).
    #[arg(long, value_name = "HOST")]
    pub smtp_host: Option<String>,
    /// Its port (default: 587 for starttls, 465 for tls).
    #[arg(long, value_name = "PORT")]
    pub smtp_port: Option<u16>,
    /// starttls (default), tls, or none (this machine only).
    #[arg(long, value_name = "SECURITY")]
    pub smtp_security: Option<String>,
    /// The IMAP server (receiving, for `starry sync`).
    #[arg(long, value_name = "HOST")]
    pub imap_host: Option<String>,
    /// Its port (default: 993 for tls, 143 for starttls).
    #[arg(long, value_name = "PORT")]
    pub imap_port: Option<u16>,
    /// tls (default), starttls, or none (this machine only).
    #[arg(long, value_name = "SECURITY")]
    pub imap_security: Option<String>,
    /// The login name, when it is not the address.
    #[arg(long)]
    pub user: Option<String>,
    /// A command that prints the password (e.g. `pass show mail`); nothing is stored then.
    #[arg(long, value_name = "COMMAND", conflicts_with = "password_stdin")]
    pub password_command: Option<String>,
    /// Read the password from the first line of standard input (stored in mail.toml, mode 0600).
    #[arg(long)]
    pub password_stdin: bool,
    /// Log in with OAuth 2.0: a command (run by the shell) that prints a fresh access token,
    /// e.g. `oama access ann@outlook.com`; no password is stored.
    #[arg(long, value_name = "COMMAND", conflicts_with_all = ["password_command", "password_stdin"])]
    pub token_command: Option<String>,
    /// How to log in: password, oauth2 (the mechanism the server offers, OAUTHBEARER first),
    /// xoauth2 or oauthbearer (default: oauth2 with --token-command, else password).
    #[arg(long, value_name = "HOW")]
    pub auth: Option<String>,
    /// Extra trusted certificates (PEM): a private CA, or a server's own self-signed certificate
    /// (trusted exactly as it is).
    #[arg(long, value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
    /// Write the settings without trying the connections.
    #[arg(long)]
    pub no_test: bool,
    /// The address of a web player (https://…): your turn mails then carry a link that opens
    /// the game there, for players with nothing installed. Given alone, only this is set
    /// (nothing else is asked or tried); "" removes it.
    #[arg(long, value_name = "URL")]
    pub player_url: Option<String>,
}

#[derive(Args, Debug)]
pub struct SyncArgs {
    /// Read this local maildir (its new/ and cur/) instead of the IMAP server; taken mails move
    /// to its folder .starry, unusable ones are flagged.
    #[arg(long, value_name = "DIR")]
    pub maildir: Option<PathBuf>,
    /// Keep going: wait for new mail (IMAP IDLE; a maildir is looked at every 5 seconds) and
    /// take it as it arrives; reconnect after a failure, waiting longer each time (up to 5
    /// minutes). Stop with Ctrl-C.
    #[arg(long)]
    pub watch: bool,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The port to listen on (default 7357); 0 takes any free one. With --link: the running
    /// server to ask (needed only when several run for this home).
    #[arg(long)]
    pub port: Option<u16>,
    /// Open the page in the default browser (through a file only you can read: no secret is
    /// put on the browser's command line).
    #[arg(long)]
    pub open: bool,
    /// Ask the `starry serve` already running for this home for a fresh address that lets one
    /// more browser in (each address works once, for 10 minutes); with --open, open it.
    #[arg(long, conflicts_with = "listen")]
    pub link: bool,
    /// Listen on this address instead of loopback (e.g. 192.168.1.5). Anyone who can reach it and
    /// learns the printed address can play your seats: it prints a warning.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<std::net::IpAddr>,
}

#[derive(Args, Debug)]
pub struct IngestArgs {
    /// The received mail (.eml, or one mbox message), a text holding the armored block or a
    /// player link, a player link itself (`https://…#log=…`, in quotes), or another copy of the
    /// log itself;
    /// `-` or nothing reads standard input (paste, then Ctrl-D).
    pub input: Option<PathBuf>,
    /// Your copy of the game, instead of $STARRY_HOME/games/GAME-ID.jsonl (created if missing).
    #[arg(long, value_name = "FILE")]
    pub into: Option<PathBuf>,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Starry Night's sky: --stars \"1,2 5,7 3,3\" (or --stars-file FILE) places the stars \
(x from the left, y from the top, from 0); --random-stars N --grid WxH draws N of the W×H grid points when the game \
starts, from randomness every player contributes (default 12 stars on 10x10; 10 to 15 play well).\n\n\
Examples:\n  \
  starry new starry-sky --players anna@example.org,ben@example.org,cleo@example.org --out game.jsonl\n  \
  starry new starry-night --players anna@example.org,ben@example.org --stars \"1,1 5,1 8,2 3,3 6,4\" --out night.jsonl\n  \
  starry new star-map --players anna@example.org,ben@example.org --map easy --mail\n  \
  starry new star-map --players \"anna@example.org, computer\"\n  \
  starry new starry-sky --players \"anna@example.org, computer, computer:3\""
)]
pub struct NewArgs {
    /// The game: starry-sky, starry-night or star-map.
    pub game: String,
    /// Seats in turn order, comma-separated: `EMAIL` or `Name <EMAIL>`, optionally followed by
    /// `key:HEX` (as `starry id show` prints it) to pin the seat so that only that key can take it;
    /// or `computer` / `computer:LEVEL` (1 to 3) for a seat this machine plays (docs/computer-seats.md);
    /// the first is you (seat 0: seats count from 0).
    #[arg(long, value_delimiter = ',', required = true)]
    pub players: Vec<String>,
    /// A variant, e.g. `doubling=compound`, `tie=nothing` or `score=area` (see `starry rules list`).
    #[arg(long = "variant", value_name = "KEY=VALUE")]
    pub variants: Vec<String>,
    /// Starry Sky: a custom board set (JSON, see docs/boards.md), replacing the 12 zodiac boards.
    #[arg(long, value_name = "FILE")]
    pub boards: Option<PathBuf>,
    /// Starry Night: the stars, as x,y grid points separated by blanks, e.g. "1,2 5,7 3,3".
    #[arg(long, value_name = "POINTS", conflicts_with_all = ["stars_file", "random_stars"])]
    pub stars: Option<String>,
    /// Starry Night: read the stars (x,y points; `#` starts a comment) from a file.
    #[arg(long, value_name = "FILE", conflicts_with = "random_stars")]
    pub stars_file: Option<PathBuf>,
    /// Starry Night: a random sky of N stars, drawn when the game starts (default 12).
    #[arg(long, value_name = "N")]
    pub random_stars: Option<String>,
    /// Starry Night: the grid, W×H points (default 10x10; with --stars, just large enough).
    #[arg(long, value_name = "WxH")]
    pub grid: Option<String>,
    /// Star Map: the map parts' sides: random, easy (bonus sides), hard (symbol sides), mixed
    /// (eight each), or 16 parts in reading order of their places, e.g. "1b 2s 3b 4b / 5s …".
    #[arg(long, value_name = "LAYOUT")]
    pub map: Option<String>,
    /// Star Map: custom map parts (JSON, see docs/star-map.md), replacing the shipped 16.
    #[arg(long, value_name = "FILE")]
    pub parts: Option<PathBuf>,
    /// Star Map: a custom disc set (JSON, see docs/star-map.md), replacing the shipped 56 discs.
    #[arg(long, value_name = "FILE")]
    pub discs: Option<PathBuf>,
    /// Which mails you want from the others' programs (as `starry join --notify`).
    #[arg(long, value_enum, default_value_t = Notify::All)]
    pub notify: Notify,
    /// How long each player has for each move before any other player may claim the game
    /// abandoned (`starry abandon`): e.g. 7d, 36h, 2w, 1d12h; `none` for no deadline.
    #[arg(long, value_name = "DURATION", default_value = "14d")]
    pub deadline: Deadline,
    /// Where to write the new log; must not exist. Default: $STARRY_HOME/games/GAME-ID.jsonl.
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub after: AfterArgs,
}

/// How `view` shows the game.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// Text for a terminal.
    #[default]
    Text,
    /// One JSON object (as `--json`).
    Json,
    /// A picture (SVG).
    Svg,
    /// A picture (PNG), rendered in-process with the fonts built into the program.
    Png,
    /// One self-contained page: the picture, the position in words and the history.
    Html,
}

impl From<Format> for crate::app::inspect::Format {
    fn from(f: Format) -> Self {
        use crate::app::inspect::Format as F;
        match f {
            Format::Text => F::Text,
            Format::Json => F::Json,
            Format::Svg => F::Svg,
            Format::Png => F::Png,
            Format::Html => F::Html,
        }
    }
}

#[derive(Args, Debug)]
pub struct ViewArgs {
    /// The game log (a .jsonl file, or the id of a game in your games directory).
    pub file: PathBuf,
    /// Show the game as it was after entry N, numbered as `starry history` and `play` number
    /// entries (0 is the genesis).
    #[arg(long, value_name = "N")]
    pub at: Option<u64>,
    /// The public view even if you hold a seat.
    #[arg(long)]
    pub spectator: bool,
    /// text, json, svg, png or html.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write to FILE instead of standard output (`-`): a new file, or one starry wrote before
    /// (replaced atomically); needed for png on a terminal.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// The game log (a .jsonl file, or the id of a game in your games directory).
    pub file: PathBuf,
    /// Only what happened since your own last entry.
    #[arg(long)]
    pub since_mine: bool,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The game log (a .jsonl file, or the id of a game in your games directory).
    pub file: PathBuf,
    /// The move. Starry Sky: `10 leo:3`, `bh virgo:1`, `ds pisces:7` (token, then star).
    /// Starry Night: an edge `A-C` or `3,4-7,1`, `first 0`/`first 1` (seats count from 0), `takeback`, `accept`, `decline`.
    /// Star Map: a disc of your hand, the square of its first field and a rotation, `corner1 f8 r90`
    /// (add `draw two` when that shape's stack is empty and more than one other stack has discs),
    /// or `pass`.
    pub r#move: Option<String>,
    /// Do whatever you must do next: join, ready, reveal, or a uniformly random legal move.
    #[arg(long, conflicts_with = "move")]
    pub auto: bool,
    /// Like --auto, but the computer chooses the move, at LEVEL 1 (quick) to 3 (strong; default 2).
    /// With --dry-run it only shows its choice and why.
    #[arg(long, value_name = "LEVEL", num_args = 0..=1, default_missing_value = "2",
          conflicts_with_all = ["move", "auto"], value_parser = clap::value_parser!(u8).range(1..=3))]
    pub bot: Option<u8>,
    /// With --bot: the seed of its choice (the same seed and position give the same move);
    /// default: fresh randomness.
    #[arg(long, requires = "bot")]
    pub seed: Option<u64>,
    /// Check and show the result, write nothing.
    #[arg(long, conflicts_with_all = ["mail", "git_commit"])]
    pub dry_run: bool,
    #[command(flatten)]
    pub after: AfterArgs,
}

#[derive(Args, Debug)]
pub struct AuditArgs {
    /// Logs, and directories to search for logs (`*.jsonl`, recursively;
    /// hidden entries skipped). Copies of one game are audited together.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Check at most N logs at a time (default: one per core; at most 256).
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
}

#[derive(Subcommand, Debug)]
pub enum RulesCommand {
    /// List the games and their variants.
    #[command(after_help = "Examples:\n  \
                            starry rules list\n  \
                            starry rules list --json")]
    List,
    /// Score a position given as JSON (a file, or `-` for stdin); no keys needed. Starry Sky:
    /// one board and its tokens; Starry Night: a sky and its edges in the order drawn; Star Map:
    /// a map, the start disc and the discs laid on it in order.
    #[command(after_help = "Examples:\n  \
                            starry rules score position.json\n  \
                            starry rules score --game starry-night - < sky.json")]
    Score {
        /// The game.
        #[arg(long, default_value = "starry-sky")]
        game: String,
        /// The position (see schemas/starry-sky-position.json, schemas/starry-night-position.json,
        /// schemas/star-map-position.json).
        position: PathBuf,
    },
    /// Replay a game's actions given as JSON and print the public state after each; no keys needed.
    ///
    /// The input holds the game's options, the seat count, the seed of the setup draw and the
    /// actions (moves, reveals, resignations) with every hidden value face up. Each state is
    /// printed as one JSON line; the first illegal action is refused with its index and reason,
    /// after the states before it (docs/referee.md).
    #[command(
        after_help = "Input: {\"options\": {…}, \"seats\": 3, \"setup\": \"<64 hex digits>\", \"actions\": [\n  \
                      {\"seat\": 0, \"move\": {…}, \"hidden\": [VALUE…], \"reveals\": [{\"entry\": E, \"slot\": K}…],\n   \
                      \"draws\": [{\"event\": ID, \"seed\": \"<64 hex digits>\"}…], \"entry\": N},\n  \
                      {\"seat\": 1, \"reveal\": [{\"entry\": E, \"slot\": K}…], \"draws\": […]},\n  \
                      {\"seat\": 2, \"resign\": true}]}\n\
                      Seats count from 0. Output: one JSON line per state (after the setup, then after each action);\n\
                      with --json one object {\"states\": […], \"refused\": …}. Exit codes: 0 every action applied,\n\
                      2 malformed input or missing/extra draws, 17 bad reveal, 18 a value the seat could not have held,\n\
                      19 out of turn, 20 illegal move.\n\n\
                      Examples:\n  \
                      starry rules replay starry-sky examples/referee/starry-sky.json\n  \
                      starry rules replay star-map --json < actions.json"
    )]
    Replay {
        /// The game, e.g. `starry-sky` (`starry rules list` lists them).
        game: String,
        /// The input: a JSON file, or `-` (or nothing) for standard input. At most 16 MiB.
        input: Option<PathBuf>,
    },
}

#[derive(Args, Debug)]
pub struct ArenaArgs {
    /// The game: starry-sky, starry-night or star-map.
    pub game: String,
    /// The players, comma-separated, one per seat: random, greedy, bot, bot:1, bot:2, bot:3.
    #[arg(long, value_delimiter = ',', required = true, value_name = "PLAYERS")]
    pub bots: Vec<String>,
    /// How many games to play.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub games: u32,
    /// The seed of game 1 (game i uses SEED+i-1).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Play at most N games at a time (default: one per core; at most 256).
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
    /// A variant, as for `starry new` (e.g. `doubling=compound`, `score=area`, `map=easy`,
    /// `random-stars=15`, `grid=12x12`).
    #[arg(long = "variant", value_name = "KEY=VALUE")]
    pub variants: Vec<String>,
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["imap", "maildir", "outbox"])))]
pub struct RobotArgs {
    /// Read the robot's mail from the IMAP server of its mail settings ([imap] in mail.toml, as
    /// `starry sync`): each mail handled is filed into the folder `starry`, one refused stays in
    /// the inbox, flagged.
    #[arg(long, conflicts_with_all = ["maildir", "outbox"])]
    pub imap: bool,
    /// Keep going: with --imap, wait for new mail (IDLE) and answer it as it arrives, looking
    /// again every 5 minutes for mails whose next try has come; with --maildir or --outbox,
    /// look every 10 seconds. Reconnects after a failure, waiting longer each time (up to 5
    /// minutes). Stop with Ctrl-C.
    #[arg(long)]
    pub watch: bool,
    /// A maildir the robot's mail is delivered to (its new/ and cur/ are read, never changed).
    #[arg(long, value_name = "DIR")]
    pub maildir: Option<PathBuf>,
    /// A folder of .eml files, as the outbox transport writes them (e.g. another player's
    /// $STARRY_HOME/outbox on the same machine).
    #[arg(long, value_name = "DIR")]
    pub outbox: Option<PathBuf>,
    /// How hard it thinks: 1 (quick) to 3 (strong).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub level: u8,
    /// Seed of its choices (with the game's entry number: the same log gives the same moves);
    /// default: fresh randomness.
    #[arg(long)]
    pub seed: Option<u64>,
    /// The authserv-id of your own mail server: only its Authentication-Results headers vouch
    /// for a From (default: authserv_id in robot.toml; none: no From is vouched for).
    #[arg(long = "authserv-id", value_name = "ID")]
    pub authserv_id: Option<String>,
    /// Accept invitations only from these senders, and write to them freely: an address or
    /// `*@domain`; repeat it or separate with commas (default: allow in robot.toml; none: anybody
    /// may invite it).
    #[arg(long = "allow", value_name = "PATTERN", value_delimiter = ',')]
    pub allow: Vec<String>,
    /// Play at most N games at once; finished games do not count (default: max_games in
    /// robot.toml, else 20).
    #[arg(long = "max-games", value_name = "N")]
    pub max_games: Option<u32>,
    /// Accept at most N invitations a day from one sender (default: invitations_per_day in
    /// robot.toml, else 3).
    #[arg(long = "invitations-per-day", value_name = "N")]
    pub invitations_per_day: Option<u32>,
    /// Join only games whose deadline is at least this long, e.g. 1d or 36h; `none` for no
    /// floor (default: min_deadline in robot.toml, else 1d). A game with a shorter deadline,
    /// none, or protocol 2 (no time controls) is refused: the others could claim that the
    /// robot stopped answering before it had a chance to.
    #[arg(long = "min-deadline", value_name = "DURATION")]
    pub min_deadline: Option<Deadline>,
}

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// The game: starry-sky, starry-night or star-map.
    #[arg(value_name = "GAME", default_value = "starry-sky")]
    pub game_arg: String,
    /// The game (the same as GAME; kept for old scripts).
    #[arg(long = "game", hide = true, conflicts_with = "game_arg")]
    pub game: Option<String>,
    /// Number of players (Starry Sky 3 to 5, default 3; Starry Night 2; Star Map 2 to 4, default 2).
    #[arg(long)]
    pub players: Option<usize>,
    /// A variant, e.g. `doubling=compound`.
    #[arg(long = "variant", value_name = "KEY=VALUE")]
    pub variants: Vec<String>,
    /// Keep the game, its picture and the identities in this (new or empty) directory
    /// instead of a temporary one.
    #[arg(long, value_name = "DIR", visible_alias = "keep")]
    pub dir: Option<PathBuf>,
}

/// A per-move deadline as `starry new --deadline` takes it: `none`, or
/// numbers with units (`w`, `d`, `h`, `m`, `s`) such as `7d` or `1d12h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline(Option<u64>);

impl Deadline {
    /// The deadline in seconds; None for no deadline.
    pub fn seconds(self) -> Option<u64> {
        self.0
    }
}

impl std::str::FromStr for Deadline {
    type Err = String;

    fn from_str(text: &str) -> Result<Deadline, String> {
        crate::app::clock::parse_deadline(text).map(Deadline)
    }
}

#[cfg(test)]
mod deadline_tests {
    use super::Deadline;

    #[test]
    fn durations_read_as_the_help_says() {
        for (text, want) in [
            ("7d", Some(7 * 86_400)),
            ("36h", Some(36 * 3_600)),
            ("2w", Some(14 * 86_400)),
            ("1d12h", Some(36 * 3_600)),
            ("90s", Some(90)),
            ("45m", Some(2_700)),
            ("none", None),
            ("NONE", None),
            ("366d", Some(366 * 86_400)),
        ] {
            assert_eq!(text.parse::<Deadline>(), Ok(Deadline(want)), "{text}");
        }
        for bad in [
            "",
            "7",
            "d",
            "7x",
            "0d",
            "-1d",
            "1.5d",
            "367d",
            "99999999999999999999d",
            "7d3",
        ] {
            assert!(bad.parse::<Deadline>().is_err(), "{bad}");
        }
    }
}
