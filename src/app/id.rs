//! `starry id export` and `starry id import`: the identity file carried
//! between machines and into the web player, which keeps the very same
//! format ([`Identity::file_text`]). The file holds the secret, so export
//! never prints it to a terminal and every refusal names what is wrong
//! without quoting the file.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::report::IdReport;
use super::{Output, id_report};
use crate::crypto::identity::{self, Identity, IdentityError, Installed, Stored as _};
use crate::error::{Error, Result};

/// Largest identity file read, in bytes: a real one is about 150; this is
/// room for long names and any layout, and a bound on what is read.
const MAX_IDENTITY_BYTES: u64 = 16 * 1024;

/// `starry id import`'s report: the identity now kept, and what changed.
#[derive(Serialize, schemars::JsonSchema, Debug)]
pub struct ImportReport {
    #[serde(flatten)]
    pub id: IdReport,
    /// `installed` (there was none), `unchanged` (this identity was there
    /// already) or `replaced` (`--replace`: the old one is at `backup`).
    pub outcome: String,
    /// Where the replaced identity is kept (mode 600), when one was.
    pub backup: Option<String>,
}

/// `starry id export`: the identity file to `output` (a new file, mode 600)
/// or to standard output, which must not be a terminal.
pub fn export(output: Option<&Path>, json: bool) -> Result<Output> {
    let to_stdout = output.is_none_or(|p| p.as_os_str() == "-");
    if to_stdout && json {
        return Err(Error::Usage(
            "`starry id export --json` prints a report, not the identity: give the file to \
             write with `--output FILE`"
                .into(),
        ));
    }
    if to_stdout && std::io::stdout().is_terminal() {
        return Err(Error::Usage(
            "the identity file holds your secret, and standard output is a terminal (it would \
             stay on screen and in the scrollback): write it to a file with \
             `starry id export --output FILE`, or pipe it (`starry id export | …`)"
                .into(),
        ));
    }
    let home = identity::home_dir()?;
    let id = Identity::load(&home)?;
    let text = id.file_text();
    let Some(out) = output.filter(|_| !to_stdout) else {
        let mut o = Output::new(String::new(), &id_report(&id, &home));
        o.bytes = Some(text.into_bytes());
        return Ok(o);
    };
    identity::write_new_private(out, text.as_bytes()).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            Error::Usage(format!(
                "{} already exists; starry never overwrites a file with your identity: choose \
                 another name, or remove that file first",
                out.display()
            ))
        } else {
            Error::io("cannot write the identity to", out, e)
        }
    })?;
    let mut r = id_report(&id, &home);
    r.file = out.display().to_string();
    Ok(Output::new(
        format!(
            "Exported the identity of {} <{}>\nkey  {}\nfile {} (readable by you only)\n\
             It holds your secret: keep it like a password. Import it in the web player, or \
             with `starry id import FILE` on another machine, then delete this copy or keep it \
             somewhere safe as your backup.",
            r.name, r.email, r.key, r.file
        ),
        &r,
    ))
}

/// `starry id import`: the identity file at `input` (or standard input,
/// `-`) becomes this home's identity.
pub fn import(input: &Path, replace: bool) -> Result<Output> {
    let (bytes, named) = read_file(input)?;
    let id = Identity::from_file(named.clone(), &bytes).map_err(|e| match e {
        IdentityError::Corrupt { why, .. } => Error::Usage(format!(
            "{} is not a starry identity file ({why}); nothing was changed",
            named.display()
        )),
        e => e.into(),
    })?;
    let home = identity::home_dir()?;
    let installed = identity::install(&home, &id, replace)?;
    let r = id_report(&id, &home);
    let (outcome, said, backup) = match installed {
        Installed::New => ("installed", "Imported the identity of".to_string(), None),
        Installed::Unchanged => (
            "unchanged",
            "This home holds this identity already (nothing changed):".to_string(),
            None,
        ),
        Installed::Replaced { backup } => (
            "replaced",
            format!(
                "Replaced your identity; the old one is kept at {} (readable by you only: \
                 games joined with it still need it). Now you are",
                backup.display()
            ),
            Some(backup.display().to_string()),
        ),
    };
    Ok(Output::new(
        format!(
            "{said} {} <{}>\nkey  {}\nfile {}",
            r.name, r.email, r.key, r.file
        ),
        &ImportReport {
            id: r,
            outcome: outcome.into(),
            backup,
        },
    ))
}

/// The identity file's bytes (at most [`MAX_IDENTITY_BYTES`]) and the name
/// errors give it.
fn read_file(input: &Path) -> Result<(Vec<u8>, PathBuf)> {
    let mut bytes = Vec::new();
    let read = if input.as_os_str() == "-" {
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            let _ = writeln!(
                std::io::stderr(),
                "Paste the identity file, then press Ctrl-D on a line of its own."
            );
        }
        stdin
            .lock()
            .take(MAX_IDENTITY_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io("cannot read", Path::new("standard input"), e))?;
        PathBuf::from("standard input")
    } else {
        std::fs::File::open(input)
            .and_then(|f| f.take(MAX_IDENTITY_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| Error::io("cannot read", input, e))?;
        input.to_path_buf()
    };
    if bytes.len() as u64 > MAX_IDENTITY_BYTES {
        return Err(Error::Usage(format!(
            "{} is more than {MAX_IDENTITY_BYTES} bytes: not a starry identity file (one is a \
             few hundred bytes); nothing was changed",
            read.display()
        )));
    }
    Ok((bytes, read))
}
