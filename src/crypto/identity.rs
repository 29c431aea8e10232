//! The identity file on disk: where it lives, creating it once (mode 600,
//! never overwritten) and loading it. The identity itself, its derivations
//! and the file's format are the core's ([`starry_core::crypto::identity`]).

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

pub use starry_core::crypto::identity::*;

use super::os_random;

/// The directory holding the identity: `STARRY_HOME` or the platform's
/// config directory.
pub fn home_dir() -> Result<PathBuf, IdentityError> {
    // An empty STARRY_HOME is unset, not the current directory: a secret
    // must not land in whatever checkout the player stands in.
    if let Some(dir) = std::env::var_os("STARRY_HOME").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    dirs::config_dir().map(|d| d.join("starry")).ok_or_else(|| {
        IdentityError::Invalid("no config directory on this platform; set STARRY_HOME".into())
    })
}

/// Writes `bytes` to a new file at `path`, readable by this user only
/// (mode 600 on Unix), synced to disk; never overwrites (`AlreadyExists`).
/// A half-written file is removed: a truncated identity is worse than none
/// (it would be refused as corrupt, and block `id new`).
pub fn write_new_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut opts = fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(path)?;
    let written = f.write_all(bytes).and_then(|()| f.sync_all());
    if written.is_err() {
        let _ = fs::remove_file(path);
    }
    written
}

/// What [`install`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Installed {
    /// There was no identity; this one is it now.
    New,
    /// This very identity (same name, e-mail and secret) was there already.
    Unchanged,
    /// Another identity was there: it is kept at this backup path.
    Replaced { backup: PathBuf },
}

/// Most backups of replaced identities kept side by side before
/// [`install`] asks the player to tidy up (a bound, not a count anyone
/// reaches by hand).
const MAX_BACKUPS: usize = 100;

/// Makes `id` the identity in `dir`. An identity already there that is not
/// this one is replaced only when `replace` says so, and then kept first as
/// `identity.json.old` (or `.old-2`, …; mode 600). The new file appears
/// atomically: written beside, synced, then linked (no identity yet: never
/// over one written meanwhile) or renamed into place.
pub fn install(dir: &Path, id: &Identity, replace: bool) -> Result<Installed, IdentityError> {
    let path = dir.join(FILE_NAME);
    let text = id.file_text();
    let old = match fs::read(&path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(source) => return Err(IdentityError::Unreadable { path, source }),
    };
    let write_err = |path: &Path, source| IdentityError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(old) = &old {
        // The same identity in another layout is the same identity.
        let same = Identity::from_file(path.clone(), old).is_ok_and(|o| o.file_text() == text);
        if same {
            return Ok(Installed::Unchanged);
        }
        if !replace {
            return Err(IdentityError::Invalid(refuse_replace(&path, old, id)));
        }
    }
    fs::create_dir_all(dir).map_err(|e| write_err(dir, e))?;
    let backup = match &old {
        Some(old) => Some(keep_backup(dir, old)?),
        None => None,
    };
    let tmp = dir.join(format!(".{FILE_NAME}.import-{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    write_new_private(&tmp, text.as_bytes()).map_err(|e| write_err(&tmp, e))?;
    let placed = match &backup {
        None => match fs::hard_link(&tmp, &path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => Err(IdentityError::Exists {
                path: path.clone(),
                email: "written meanwhile".into(),
            }),
            // A file system without hard links (a FAT stick): a rename
            // still never leaves half a file.
            Err(_) => fs::rename(&tmp, &path).map_err(|e| write_err(&path, e)),
        },
        Some(_) => fs::rename(&tmp, &path).map_err(|e| write_err(&path, e)),
    };
    let _ = fs::remove_file(&tmp);
    placed?;
    Ok(match backup {
        None => Installed::New,
        Some(backup) => Installed::Replaced { backup },
    })
}

/// The refusal to replace the identity at `path` (whose bytes are `old`)
/// with `new`: both named by e-mail and key, never by secret.
fn refuse_replace(path: &Path, old: &[u8], new: &Identity) -> String {
    let was = match Identity::from_file(path.to_path_buf(), old) {
        Ok(o) => format!(
            "{} <{}>, key {}",
            o.name,
            o.email,
            hex::encode(o.public_key())
        ),
        Err(_) => "an identity that cannot be read".into(),
    };
    format!(
        "an identity already exists at {} ({was}), and the one given is another \
         ({} <{}>, key {}); nothing was changed. Add `--replace` to make the given one \
         yours (the old one is kept as a backup beside it: games joined with it still \
         need it), or use another STARRY_HOME for a second identity",
        path.display(),
        new.name,
        new.email,
        hex::encode(new.public_key())
    )
}

/// Copies the identity being replaced to a new backup file in `dir`.
fn keep_backup(dir: &Path, old: &[u8]) -> Result<PathBuf, IdentityError> {
    for n in 1..=MAX_BACKUPS {
        let name = match n {
            1 => format!("{FILE_NAME}.old"),
            n => format!("{FILE_NAME}.old-{n}"),
        };
        let backup = dir.join(name);
        match write_new_private(&backup, old) {
            Ok(()) => return Ok(backup),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(source) => {
                return Err(IdentityError::Write {
                    path: backup,
                    source,
                });
            }
        }
    }
    Err(IdentityError::Invalid(format!(
        "{MAX_BACKUPS} backups of replaced identities ({FILE_NAME}.old…) are already in {}; \
         move them somewhere safe first; nothing was changed",
        dir.display()
    )))
}

/// An identity kept in a directory's identity file.
pub trait Stored: Sized {
    /// Creates a new identity file in `dir`; refuses to overwrite one.
    fn create(dir: &Path, name: &str, email: &str) -> Result<Self, IdentityError>;
    /// Loads the identity in `dir`.
    fn load(dir: &Path) -> Result<Self, IdentityError>;
}

impl Stored for Identity {
    fn create(dir: &Path, name: &str, email: &str) -> Result<Identity, IdentityError> {
        let id = Identity::new(name, email, os_random())?;
        let path = dir.join(FILE_NAME);
        if path.exists() {
            let email = Identity::load(dir)
                .map(|i| i.email)
                .unwrap_or_else(|_| "unreadable".into());
            return Err(IdentityError::Exists { path, email });
        }
        let write_err = |source| IdentityError::Write {
            path: path.clone(),
            source,
        };
        fs::create_dir_all(dir).map_err(write_err)?;
        write_new_private(&path, id.file_text().as_bytes()).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                IdentityError::Exists {
                    path: path.clone(),
                    email: "unknown".into(),
                }
            } else {
                write_err(e)
            }
        })?;
        Ok(id)
    }

    fn load(dir: &Path) -> Result<Identity, IdentityError> {
        let path = dir.join(FILE_NAME);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(IdentityError::Missing { path });
            }
            Err(source) => return Err(IdentityError::Unreadable { path, source }),
        };
        Identity::from_file(path, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_load_and_refuse_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let a = Identity::create(dir.path(), "Anna", "anna@example.org").unwrap();
        let b = Identity::load(dir.path()).unwrap();
        assert_eq!(a.public_key(), b.public_key());
        assert!(matches!(
            Identity::create(dir.path(), "Anna", "anna@example.org"),
            Err(IdentityError::Exists { .. })
        ));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(dir.path().join(FILE_NAME))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn corrupt_identity_is_named_and_secret_not_quoted() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(FILE_NAME), "{\"format\":\"starry-identity/1\",\"name\":\"A\",\"email\":\"a@b\",\"secret\":\"SECRETSECRET\"}").unwrap();
        let e = Identity::load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("corrupt"), "{e}");
        assert!(!e.contains("SECRETSECRET"), "{e}");
    }
}
