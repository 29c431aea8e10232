//! Reading and replacing log files. A log is only ever replaced whole and
//! atomically — write a temporary file beside it, fsync, rename over, fsync
//! the directory — under an exclusive lock on the log itself, so a crash, a
//! full disk or a second starry process can never leave half a line behind.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// An exclusively locked log file and the bytes it held when locked.
pub struct LockedLog {
    path: PathBuf,
    // Held for the lock; dropping it unlocks.
    _file: File,
    pub bytes: Vec<u8>,
}

impl LockedLog {
    /// Opens and locks `path`. After the lock is granted the path is checked
    /// to still name the locked file: another process may have replaced it
    /// (renamed a new version over it) while we waited.
    pub fn open(path: &Path) -> Result<LockedLog> {
        loop {
            let mut file = OpenOptions::new()
                .read(true)
                .open(path)
                .map_err(|e| Error::io("cannot open the log", path, e))?;
            file.lock()
                .map_err(|e| Error::io("cannot lock the log", path, e))?;
            if same_file(&file, path) {
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes)
                    .map_err(|e| Error::io("cannot read the log", path, e))?;
                return Ok(LockedLog {
                    path: path.to_path_buf(),
                    _file: file,
                    bytes,
                });
            }
        }
    }

    /// Replaces the log with `bytes`, atomically.
    pub fn replace(self, bytes: &[u8]) -> Result<()> {
        write_atomic(&self.path, bytes, true)
    }
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, _: &Path) -> bool {
    true
}

/// Reads a log without locking (for read-only commands; a reader always sees
/// either the old or the new file, never a mix, because writers rename).
pub fn read(path: &Path) -> Result<Vec<u8>> {
    fs::read(path).map_err(|e| Error::io("cannot read the log", path, e))
}

/// Writes a new file that must not exist yet.
pub fn create(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic(path, bytes, false)
}

fn write_atomic(path: &Path, bytes: &[u8], overwrite: bool) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let io = |what, e| Error::io(what, path, e);
    let mut tmp = tempfile::Builder::new()
        .prefix(".starry-")
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(|e| io("cannot create a temporary file beside", e))?;
    // A log is shared with the other players: readable like any document,
    // keeping whatever mode an existing log has.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(path)
            .map(|m| m.permissions().mode())
            .unwrap_or(0o644);
        let _ = tmp
            .as_file()
            .set_permissions(fs::Permissions::from_mode(mode));
    }
    tmp.write_all(bytes)
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(|e| io("cannot write (disk full?) the new version of", e))?;
    if overwrite {
        tmp.persist(path)
            .map_err(|e| io("cannot replace", e.error))?;
    } else {
        tmp.persist_noclobber(path).map_err(|e| {
            if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                Error::Usage(format!(
                    "{} exists already; starry never overwrites a log — choose another --out",
                    path.display()
                ))
            } else {
                io("cannot create", e.error)
            }
        })?;
    }
    // The rename is durable only once the directory is synced.
    #[cfg(unix)]
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
