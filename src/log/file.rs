//! Reading and replacing log files. A log is only ever replaced whole and
//! atomically — write a temporary file beside it, fsync, rename over, fsync
//! the directory — under an exclusive lock on the log itself, so a crash, a
//! full disk or a second starry process can never leave half a line behind.
//!
//! The temporary file of `DIR/NAME` is `DIR/.starry-NAME.RANDOM.tmp`. A
//! process killed while writing leaves it behind. It is removed only when
//! no live process can be writing it: by the next process to lock `NAME`
//! (every writer of `NAME` holds that lock while its temporary file
//! exists), or by any process writing in `DIR` once it is older than
//! [`STALE_AGE`] (a write takes seconds; a writer stopped for longer
//! than that, whose file went, fails with an error and changes nothing).
//! Such a file is never taken for a log.
//!
//! A log the owner cannot write (no owner write bit) is never replaced:
//! making it read-only is how a player freezes a copy. A file larger than
//! [`MAX_LOG_BYTES`] is not read at all.

use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The largest file read as a log: 32 MiB, hundreds of times more than a
/// finished game's log (well under 1 MiB), and twice the largest mail
/// read. A log is held whole while it is verified and rewritten, so this
/// cap is what bounds a command's memory: at 32 MiB the input and
/// everything the replay builds beside it stay within 64 MB (issue 31;
/// docs/performance.md, "Memory bounded by the input's size").
pub const MAX_LOG_BYTES: u64 = 32 * 1024 * 1024;
/// [`MAX_LOG_BYTES`] in MiB, for messages.
const MAX_LOG_MIB: u64 = MAX_LOG_BYTES >> 20;

/// Prefix of every temporary file (followed by the log's file name).
const TMP_PREFIX: &str = ".starry-";
/// Suffix of every temporary file.
const TMP_SUFFIX: &str = ".tmp";
/// Length of the random part of a temporary file's name.
const TMP_RANDOM_CHARS: usize = 10;

/// Age after which a temporary file of starry's (not modified since) is
/// taken for one a killed process left, by a process that does not hold
/// the lock of the file it belongs to. Writing a whole 32 MiB log and
/// syncing it takes seconds; an hour leaves room for the slowest disk.
pub const STALE_AGE: std::time::Duration = std::time::Duration::from_secs(60 * 60);

/// An exclusively locked log file and the bytes it held when locked.
pub struct LockedLog {
    path: PathBuf,
    // Held for the lock; dropping it unlocks.
    file: File,
    pub bytes: Vec<u8>,
}

impl LockedLog {
    /// Opens and locks `path`. After the lock is granted the path is checked
    /// to still name the locked file: another process may have replaced it
    /// (renamed a new version over it) while we waited. Then the temporary
    /// files a killed writer left beside it are removed, and it is read
    /// (at most [`MAX_LOG_BYTES`]).
    ///
    /// A read-only log can be opened (for a dry run, say); [`replace`]
    /// refuses it.
    ///
    /// [`replace`]: LockedLog::replace
    pub fn open(path: &Path) -> Result<LockedLog> {
        refuse_temporary(path)?;
        // Through a symlink, the file it names is the log: that file is
        // locked and replaced, and the link stays a link.
        let target = regular_file(path)?;
        let path = target.as_path();
        loop {
            let mut file = OpenOptions::new()
                .read(true)
                .open(path)
                .map_err(|e| Error::io("cannot open the log", path, e))?;
            file.lock()
                .map_err(|e| Error::io("cannot lock the log", path, e))?;
            if same_file(&file, path) {
                remove_stale_temporaries(path);
                let bytes = read_bounded(&mut file, path)?;
                return Ok(LockedLog {
                    path: path.to_path_buf(),
                    file,
                    bytes,
                });
            }
        }
    }

    /// Replaces the log with `bytes`, atomically. Refuses, before writing
    /// anything, a log whose owner write bit is cleared (checked on the mode
    /// bits, since root may write any file).
    pub fn replace(self, bytes: &[u8]) -> Result<()> {
        let meta = self
            .file
            .metadata()
            .map_err(|e| Error::io("cannot read the attributes of the log", &self.path, e))?;
        if is_read_only(&meta) {
            return Err(read_only(&self.path));
        }
        write_atomic(&self.path, bytes, true)
    }
}

#[cfg(unix)]
fn is_read_only(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o200 == 0
}

#[cfg(not(unix))]
fn is_read_only(meta: &fs::Metadata) -> bool {
    meta.permissions().readonly()
}

fn read_only(path: &Path) -> Error {
    Error::io(
        "will not replace the log",
        path,
        io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "it is read-only, and starry never writes a read-only log; make it writable \
                 (chmod u+w {}) if you mean to play in it",
                path.display()
            ),
        ),
    )
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
/// Refuses a file larger than [`MAX_LOG_BYTES`] without reading it.
pub fn read(path: &Path) -> Result<Vec<u8>> {
    refuse_temporary(path)?;
    regular_file(path)?;
    let mut file = File::open(path).map_err(|e| Error::io("cannot read the log", path, e))?;
    read_bounded(&mut file, path)
}

/// Reads at most [`MAX_LOG_BYTES`] + 1 bytes: a regular file known to be
/// larger is refused at once, anything else (a pipe, a device, a file that
/// grows) once the limit is passed.
fn read_bounded(file: &mut File, path: &Path) -> Result<Vec<u8>> {
    let size = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    if let Some(size) = size
        && size > MAX_LOG_BYTES
    {
        return Err(too_large(path, Some(size)));
    }
    let mut bytes = Vec::with_capacity(size.unwrap_or(0) as usize);
    file.take(MAX_LOG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("cannot read the log", path, e))?;
    if bytes.len() as u64 > MAX_LOG_BYTES {
        return Err(too_large(path, size.filter(|&s| s > MAX_LOG_BYTES)));
    }
    Ok(bytes)
}

fn too_large(path: &Path, size: Option<u64>) -> Error {
    const MIB: f64 = 1024.0 * 1024.0;
    let size = match size {
        Some(s) => format!("{:.1} MiB ({s} bytes)", s as f64 / MIB),
        None => format!("more than {MAX_LOG_MIB} MiB"),
    };
    Error::io(
        "will not read",
        path,
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "it is {size}; a starry log is never larger than {MAX_LOG_MIB} MiB — this \
                 is not a starry log"
            ),
        ),
    )
}

/// Writes a new file that must not exist yet.
pub fn create(path: &Path, bytes: &[u8]) -> Result<()> {
    if path.file_name().is_some_and(is_temporary_name) {
        return Err(Error::Usage(format!(
            "{}: starry names its temporary files this way and removes stale ones; choose \
             another name for the log",
            path.display()
        )));
    }
    write_atomic(path, bytes, false)
}

/// Writes a small record file of the program's own (the join record),
/// atomically and durably, replacing an older version. Stale temporaries
/// of this record are removed first: the caller holds the lock of the log
/// the record belongs to, so no other starry process is writing it.
pub fn write_record(path: &Path, bytes: &[u8]) -> Result<()> {
    remove_stale_temporaries(path);
    write_atomic(path, bytes, true)
}

/// Writes an output file the user asked for (`view --out`): atomically and
/// durably. It replaces only a picture or page of its own (an existing file
/// that begins as an SVG, PNG or HTML file does): anything else — a log
/// under any name, an identity, a device, a FIFO, a directory — is refused,
/// so that a slip of the finger cannot put a picture where a game or a
/// secret was.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    if path.extension().is_some_and(|e| e == "jsonl") {
        return Err(Error::Usage(format!(
            "--out {}: that is the name of a log; give the picture a name of its own \
             (e.g. ending in .svg, .png or .html)",
            path.display()
        )));
    }
    if path.file_name().is_some_and(is_temporary_name) {
        return Err(Error::Usage(format!(
            "{}: starry names its temporary files this way; choose another name",
            path.display()
        )));
    }
    match fs::metadata(path) {
        Err(_) => {}
        Ok(m) if !m.is_file() => {
            return Err(Error::Usage(format!(
                "--out {}: that is not a regular file ({}); starry writes pictures only to \
                 new files or over pictures of its own",
                path.display(),
                if m.is_dir() {
                    "a directory"
                } else {
                    "a FIFO, a socket or a device"
                }
            )));
        }
        Ok(_) => {
            let mut head = [0u8; 64];
            let n = fs::File::open(path)
                .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
                .map_err(|e| Error::io("cannot read", path, e))?;
            let head = &head[..n];
            let ours = head.starts_with(b"<svg ")
                || head.starts_with(b"\x89PNG\r\n\x1a\n")
                || head.starts_with(b"<!DOCTYPE html>");
            if !ours {
                return Err(Error::Usage(format!(
                    "--out {}: the file exists and is not a picture or page starry made; \
                     nothing was written (remove it first, or choose another name)",
                    path.display()
                )));
            }
        }
    }
    remove_stale_temporaries(path);
    write_atomic(path, bytes, true)
}

/// The regular file a log path names: the path itself, or the file a
/// symlink points to. A FIFO, a device or a directory is refused before it
/// is opened (reading a FIFO would wait forever; replacing a device by
/// renaming over it would destroy it).
fn regular_file(path: &Path) -> Result<PathBuf> {
    let target = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(|e| Error::io("cannot follow the symlink", path, e))?
        }
        Ok(_) => path.to_path_buf(),
        // Missing: the open that follows says so in its own words.
        Err(_) => return Ok(path.to_path_buf()),
    };
    match fs::metadata(&target) {
        Ok(m) if !m.is_file() => Err(Error::Usage(format!(
            "{} is not a regular file ({}); a starry log is a plain file",
            path.display(),
            if m.is_dir() {
                "a directory"
            } else {
                "a FIFO, a socket or a device"
            }
        ))),
        _ => Ok(target),
    }
}

/// The directory that holds `path` (`.` for a bare file name).
fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `.starry-NAME.` for the log `DIR/NAME`.
fn temporary_prefix(path: &Path) -> Option<Vec<u8>> {
    let name = path.file_name()?;
    let mut p = TMP_PREFIX.as_bytes().to_vec();
    p.extend_from_slice(name.as_encoded_bytes());
    p.push(b'.');
    Some(p)
}

/// Whether `name` is the name of a temporary file of starry (of any log):
/// `.starry-…​.RANDOM.tmp`, RANDOM being letters and digits.
pub fn is_temporary_name(name: &OsStr) -> bool {
    let b = name.as_encoded_bytes();
    let Some(rest) = b
        .strip_prefix(TMP_PREFIX.as_bytes())
        .and_then(|r| r.strip_suffix(TMP_SUFFIX.as_bytes()))
    else {
        return false;
    };
    match rest.iter().rposition(|&c| c == b'.') {
        Some(dot) => random_part(&rest[dot + 1..]),
        None => false,
    }
}

/// Whether `b` can be the random part of a temporary file's name.
fn random_part(b: &[u8]) -> bool {
    (6..=16).contains(&b.len()) && b.iter().all(u8::is_ascii_alphanumeric)
}

/// A temporary file is never read or locked as a log.
fn refuse_temporary(path: &Path) -> Result<()> {
    match path.file_name() {
        Some(name) if is_temporary_name(name) => Err(Error::Usage(format!(
            "{} is a temporary file that starry left while writing a log (a process was \
             stopped midway), not a log; it is removed the next time that log is written",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// Removes the temporary files of the log `path` (`.starry-NAME.RANDOM.tmp`
/// beside it) left by a process that was killed while writing. Only called
/// with the log's lock held. Best effort: a file that cannot be removed is
/// left, and does no harm.
fn remove_stale_temporaries(path: &Path) {
    let Some(prefix) = temporary_prefix(path) else {
        return;
    };
    let Ok(entries) = fs::read_dir(dir_of(path)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(random) = name
            .as_encoded_bytes()
            .strip_prefix(prefix.as_slice())
            .and_then(|r| r.strip_suffix(TMP_SUFFIX.as_bytes()))
        else {
            continue;
        };
        // `random_part` admits no dot, so the temporary file of another log
        // whose name starts with this one's (`NAME.x.jsonl`) never matches.
        if random_part(random) && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Removes from `dir` the temporary files of starry's — of any file:
/// `.starry-NAME.RANDOM.tmp` — that were last modified more than
/// [`STALE_AGE`] ago, and returns how many. Best effort, like
/// [`remove_stale_temporaries`]; a younger one may be a live writer's and
/// is left.
pub fn remove_old_temporaries(dir: &Path) -> usize {
    remove_old(dir, is_temporary_name)
}

/// Removes the regular files of `dir` whose names `ours` accepts and that
/// were last modified more than [`STALE_AGE`] ago.
pub fn remove_old(dir: &Path, ours: impl Fn(&OsStr) -> bool) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let now = std::time::SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        if !ours(&entry.file_name()) {
            continue;
        }
        // `DirEntry::metadata` does not follow a symlink: only a file of
        // our own kind is removed, never what a link points to.
        let old = entry.metadata().is_ok_and(|m| {
            m.is_file()
                && m.modified()
                    .ok()
                    .and_then(|t| now.duration_since(t).ok())
                    .is_some_and(|age| age > STALE_AGE)
        });
        if old && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

fn write_atomic(path: &Path, bytes: &[u8], overwrite: bool) -> Result<()> {
    let dir = dir_of(path);
    // Whatever killed processes left here long ago goes (those of `path`
    // itself went already when the caller holds its lock).
    remove_old_temporaries(&dir);
    let io = |what, e| Error::io(what, path, e);
    let name = path
        .file_name()
        .ok_or_else(|| Error::Usage(format!("{} names no file", path.display())))?;
    let mut prefix = std::ffi::OsString::from(TMP_PREFIX);
    prefix.push(name);
    prefix.push(".");
    let mut tmp = tempfile::Builder::new()
        .prefix(&prefix)
        .rand_bytes(TMP_RANDOM_CHARS)
        .suffix(TMP_SUFFIX)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names() {
        let yes = [".starry-game.jsonl.AbC123xyZ0.tmp", ".starry-x.abcdef.tmp"];
        for n in yes {
            assert!(is_temporary_name(OsStr::new(n)), "{n}");
        }
        let no = [
            "game.jsonl",
            ".starry-game.jsonl.tmp",
            ".starry-game.jsonl.ab.tmp",
            ".starry-game.jsonl.abc-def.tmp",
            "starry-game.jsonl.abcdef.tmp",
            ".starry-game.jsonl.abcdef.tmp.jsonl",
        ];
        for n in no {
            assert!(!is_temporary_name(OsStr::new(n)), "{n}");
        }
    }

    #[test]
    fn writes_use_the_named_temporary_and_leave_none() {
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("game.jsonl");
        create(&log, b"one\n").unwrap();
        let locked = LockedLog::open(&log).unwrap();
        assert_eq!(locked.bytes, b"one\n");
        locked.replace(b"one\ntwo\n").unwrap();
        assert_eq!(fs::read(&log).unwrap(), b"one\ntwo\n");
        let names: Vec<_> = fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("game.jsonl")]);
    }

    #[test]
    fn stale_temporaries_of_this_log_only_are_removed_under_the_lock() {
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("game.jsonl");
        fs::write(&log, b"x\n").unwrap();
        let mine = d.path().join(".starry-game.jsonl.Zz09Zz09Zz.tmp");
        let others = [
            ".starry-game.jsonl.x.jsonl.Zz09Zz09Zz.tmp", // another log's
            ".starry-other.jsonl.Zz09Zz09Zz.tmp",
            ".starry-game.jsonl.not-random.tmp",
            "game.jsonl.Zz09Zz09Zz.tmp",
        ];
        fs::write(&mine, b"half a li").unwrap();
        for o in others {
            fs::write(d.path().join(o), b"keep").unwrap();
        }
        let locked = LockedLog::open(&log).unwrap();
        assert!(!mine.exists());
        for o in others {
            assert!(d.path().join(o).exists(), "{o}");
        }
        drop(locked);
        // A temporary file is not a log.
        assert!(matches!(
            read(&mine.with_file_name(others[1])),
            Err(Error::Usage(_))
        ));
    }

    #[test]
    fn only_old_temporaries_go_without_their_files_lock() {
        let d = tempfile::tempdir().unwrap();
        let old = d.path().join(".starry-a.jsonl.Zz09Zz09Zz.tmp");
        let young = d.path().join(".starry-b.jsonl.Zz09Zz09Zz.tmp");
        let not_ours = d.path().join(".starry-c.jsonl.tmp");
        for p in [&old, &young, &not_ours] {
            fs::write(p, b"half a li").unwrap();
        }
        let long_ago = std::time::SystemTime::now() - STALE_AGE - STALE_AGE;
        for p in [&old, &not_ours] {
            File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        }
        // Writing another file in the directory sweeps it.
        create(&d.path().join("new.jsonl"), b"x\n").unwrap();
        assert!(!old.exists());
        assert!(young.exists(), "perhaps a live writer's");
        assert!(not_ours.exists());
        // Young, it stays even when its file is written without its lock
        // held (`create`); under its lock it goes.
        fs::write(d.path().join("b.jsonl"), b"x\n").unwrap();
        assert!(young.exists());
        drop(LockedLog::open(&d.path().join("b.jsonl")).unwrap());
        assert!(!young.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_log_is_read_but_never_replaced() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("game.jsonl");
        fs::write(&log, b"x\n").unwrap();
        fs::set_permissions(&log, fs::Permissions::from_mode(0o444)).unwrap();
        assert_eq!(read(&log).unwrap(), b"x\n");
        let locked = LockedLog::open(&log).unwrap();
        let err = locked.replace(b"x\ny\n").unwrap_err();
        assert_eq!(err.exit_code(), 3);
        let msg = err.to_string();
        assert!(
            msg.contains("read-only") && msg.contains("chmod u+w"),
            "{msg}"
        );
        assert_eq!(fs::read(&log).unwrap(), b"x\n");
        assert_eq!(fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn large_files_are_refused_unread() {
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("big.jsonl");
        let f = File::create(&log).unwrap();
        f.set_len(MAX_LOG_BYTES + 1).unwrap();
        let msg = read(&log).unwrap_err().to_string();
        assert!(
            msg.contains("32 MiB") && msg.contains("not a starry log"),
            "{msg}"
        );
        assert!(LockedLog::open(&log).is_err());
        f.set_len(MAX_LOG_BYTES).unwrap();
        assert_eq!(read(&log).unwrap().len() as u64, MAX_LOG_BYTES);
    }

    #[cfg(unix)]
    #[test]
    fn an_endless_stream_is_cut_at_the_limit() {
        // `read` refuses a device before opening it; the bound itself holds
        // for anything that keeps growing while it is read.
        let msg = read(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(msg.contains("not a regular file"), "{msg}");
        let zero = Path::new("/dev/zero");
        let msg = read_bounded(&mut File::open(zero).unwrap(), zero)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("more than 32 MiB"), "{msg}");
    }
}
