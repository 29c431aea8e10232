//! The identity file on disk: where it lives, creating it once (mode 600,
//! never overwritten) and loading it. The identity itself, its derivations
//! and the file's format are the core's ([`starry_core::crypto::identity`]).

use std::fs;
use std::io::Write;
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
        let text = id.file_text();
        let mut opts = fs::OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let mut f = opts.open(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                IdentityError::Exists {
                    path: path.clone(),
                    email: "unknown".into(),
                }
            } else {
                write_err(e)
            }
        })?;
        let written = f.write_all(text.as_bytes()).and_then(|_| f.sync_all());
        if let Err(e) = written {
            // A half-written identity is worse than none: it would be refused
            // as corrupt and block `id new`.
            let _ = fs::remove_file(&path);
            return Err(write_err(e));
        }
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
