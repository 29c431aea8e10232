//! A real IMAP server (Dovecot) for the tests: each [`Dovecot`] runs its own
//! `dovecot -F` from a temporary directory (its configuration, users, TLS
//! certificate, maildirs, logs), listening on 127.0.0.1 only, on free ports
//! for IMAP (STARTTLS offered), IMAPS and LMTP; dropping it stops it and every
//! process it started.
//!
//! Needs Dovecot 2.3 with its IMAP and LMTP services, and the `openssl`
//! command: `sh tests/support/imap/install.sh` installs Dovecot (Debian's
//! dovecot-imapd and dovecot-lmtpd; the OAuth tests also dovecot-submissiond). When it is missing the tests FAIL,
//! saying how to install it; STARRY_SKIP_IMAP_TESTS=1 turns that into a loud
//! skip, for a machine where it cannot be installed. [`Dropper`] and
//! [`imap_client`] also need python3 (standard library only).
//!
//! Run as root (CI), Dovecot itself runs as `nobody`: it refuses to serve
//! mail as root, and a test server has no business being privileged. The
//! temporary directory then belongs to `nobody`, and so does every file the
//! test writes there (see [`Dovecot::fill`]).
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn required() -> bool {
    !std::env::var("STARRY_SKIP_IMAP_TESTS").is_ok_and(|v| !v.is_empty() && v != "0")
}

pub fn skip(why: &str) {
    let text = format!(
        "\n\n################################################################\n\
         ## SKIPPED: real-IMAP mail test: {why}\n\
         ## Install Dovecot with: sh tests/support/imap/install.sh\n\
         ## (or set STARRY_SKIP_IMAP_TESTS=1 to skip these tests knowingly)\n\
         ################################################################\n"
    );
    if required() {
        panic!("{text}");
    }
    eprintln!("{text}");
}

/// Whether Dovecot (with LMTP) and openssl are here; otherwise says loudly
/// why the test is skipped (a failure unless STARRY_SKIP_IMAP_TESTS=1).
pub fn available_or_skip() -> bool {
    let Some(bin) = dovecot_binary() else {
        skip("no `dovecot` command found (PATH, /usr/sbin)");
        return false;
    };
    if lmtp_binary().is_none() {
        skip(&format!(
            "{} has no LMTP service (Debian: dovecot-lmtpd)",
            bin.display()
        ));
        return false;
    }
    assert!(
        have_openssl(),
        "the IMAP tests need the `openssl` command to make a test certificate \
         (Debian: apt-get install openssl)"
    );
    true
}

/// Whether Dovecot's submission service is here (Debian:
/// dovecot-submissiond, which tests/support/imap/install.sh installs);
/// otherwise says loudly why the test is skipped, as
/// [`available_or_skip`] does.
pub fn submission_or_skip() -> bool {
    let here = [
        "/usr/lib/dovecot/submission",
        "/usr/libexec/dovecot/submission",
    ]
    .iter()
    .any(|p| Path::new(p).is_file());
    if !here {
        skip("Dovecot has no submission service (Debian: dovecot-submissiond)");
    }
    here
}

pub fn dovecot_binary() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("dovecot"))
                .collect()
        })
        .unwrap_or_default();
    candidates.push("/usr/sbin/dovecot".into());
    candidates.push("/usr/local/sbin/dovecot".into());
    candidates.into_iter().find(|p| p.is_file())
}

fn lmtp_binary() -> Option<PathBuf> {
    ["/usr/lib/dovecot/lmtp", "/usr/libexec/dovecot/lmtp"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

pub fn have_openssl() -> bool {
    Command::new("openssl")
        .arg("version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `dovecot --version`, e.g. "2.3.19.1 (9b53102964)".
pub fn dovecot_version(bin: &Path) -> String {
    let out = Command::new(bin)
        .arg("--version")
        .output()
        .expect("run dovecot --version");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// python3 for the helpers here (standard library only), resolved once to
/// the interpreter itself: a version manager's `python3` shim (pyenv) costs
/// a few tenths of a second per start.
pub fn python3() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .ok()
            .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
            .filter(|p| p.is_file())
            .unwrap_or_else(|| PathBuf::from("python3"))
    })
}

/// Who Dovecot runs as: this user, or `nobody` when the test runs as root.
struct RunAs {
    uid: u32,
    gid: u32,
    user: String,
    group: String,
    /// The test is root: Dovecot must be started as `uid`/`gid`, and files
    /// the test writes for it handed over.
    switch: bool,
}

fn id(args: &[&str]) -> String {
    let out = Command::new("id").args(args).output().expect("run id");
    assert!(out.status.success(), "`id {}` failed", args.join(" "));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn run_as() -> &'static RunAs {
    static RUN_AS: OnceLock<RunAs> = OnceLock::new();
    RUN_AS.get_or_init(|| {
        let root = id(&["-u"]) == "0";
        let who: &[&str] = if root { &["nobody"] } else { &[] };
        let with = |flag: &str| {
            let mut args = vec![flag];
            args.extend_from_slice(who);
            id(&args)
        };
        RunAs {
            uid: with("-u").parse().expect("numeric uid"),
            gid: with("-g").parse().expect("numeric gid"),
            user: with("-un"),
            group: with("-gn"),
            switch: root,
        }
    })
}

/// Gives `path` to the user Dovecot runs as (nothing to do unless root).
fn hand_over(path: &Path) {
    let r = run_as();
    if r.switch {
        std::os::unix::fs::chown(path, Some(r.uid), Some(r.gid))
            .unwrap_or_else(|e| panic!("chown {}: {e}", path.display()));
    }
}

fn create_dir_for_dovecot(path: &Path) {
    let mut missing = Vec::new();
    let mut p = path;
    while !p.exists() {
        missing.push(p.to_path_buf());
        p = p
            .parent()
            .expect("a directory under the temporary directory");
    }
    std::fs::create_dir_all(path).unwrap_or_else(|e| panic!("mkdir {}: {e}", path.display()));
    for d in missing {
        hand_over(&d);
    }
}

fn write_for_dovecot(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    hand_over(path);
}

fn openssl(args: &[&str], dir: &Path, what: &str) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run openssl");
    assert!(
        out.status.success(),
        "openssl could not make {what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A throw-away CA (`ca.pem`) and a certificate it signed (`cert.pem`,
/// `key.pem`) for `names` (DNS names or IP addresses), in `dir`. The leaf is
/// what rustls wants of a server certificate: `CA:FALSE`, the names as SANs,
/// serverAuth; the CA is `CA:TRUE` with keyCertSign.
pub struct Certs {
    pub ca: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// Made once per set of names in a test process (three openssl runs take
/// about 0.2 s), then copied into each directory.
pub fn make_certs(dir: &Path, names: &[&str]) -> Certs {
    type Made = std::collections::HashMap<Vec<String>, Vec<(&'static str, Vec<u8>)>>;
    static MADE: OnceLock<Mutex<Made>> = OnceLock::new();
    let key: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let files = ["ca.pem", "cert.pem", "key.pem"];
    let made = MADE.get_or_init(Default::default);
    let known = made.lock().unwrap().get(&key).cloned();
    match known {
        Some(contents) => {
            for (name, bytes) in contents {
                std::fs::write(dir.join(name), bytes).unwrap();
            }
        }
        None => {
            run_openssl_for(dir, names);
            let contents = files
                .iter()
                .map(|f| (*f, std::fs::read(dir.join(f)).unwrap()))
                .collect();
            made.lock().unwrap().insert(key, contents);
        }
    }
    for f in files {
        hand_over(&dir.join(f));
    }
    Certs {
        ca: dir.join("ca.pem"),
        cert: dir.join("cert.pem"),
        key: dir.join("key.pem"),
    }
}

fn run_openssl_for(dir: &Path, names: &[&str]) {
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
    let mut args = vec!["req", "-x509"];
    args.extend(ec);
    args.extend([
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=starry test CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
    ]);
    openssl(&args, dir, "the test CA");

    let cn = format!("/CN={}", names[0]);
    let mut args = vec!["req", "-new"];
    args.extend(ec);
    args.extend([
        "-nodes", "-subj", &cn, "-keyout", "key.pem", "-out", "leaf.csr",
    ]);
    openssl(&args, dir, "the test certificate's request");

    let sans: Vec<String> = names
        .iter()
        .map(|n| match n.parse::<IpAddr>() {
            Ok(_) => format!("IP:{n}"),
            Err(_) => format!("DNS:{n}"),
        })
        .collect();
    std::fs::write(
        dir.join("leaf.ext"),
        format!(
            "basicConstraints=critical,CA:FALSE\n\
             keyUsage=critical,digitalSignature\n\
             extendedKeyUsage=serverAuth\n\
             subjectAltName={}\n",
            sans.join(",")
        ),
    )
    .unwrap();
    // A serial of our own: no ca.srl file, and two runs never share one.
    let serial = format!(
        "0x{:x}{:08x}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos()
    );
    openssl(
        &[
            "x509",
            "-req",
            "-in",
            "leaf.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-set_serial",
            &serial,
            "-days",
            "2",
            "-extfile",
            "leaf.ext",
            "-out",
            "cert.pem",
        ],
        dir,
        "the test certificate",
    );
}

/// Where the Dovecots' directories go: STARRY_DOVECOT_TMPDIR if set, else
/// /dev/shm when it is a memory file system with room (at least 512 MiB
/// free), else the usual temporary directory. In memory, because a busy disk
/// makes a maildir slow: on the 2-core development machine, creating 10,000
/// small files took 18 s on the disk and 1.3 s in /dev/shm.
fn scratch() -> PathBuf {
    static SCRATCH: OnceLock<PathBuf> = OnceLock::new();
    SCRATCH
        .get_or_init(|| {
            if let Some(d) = std::env::var_os("STARRY_DOVECOT_TMPDIR") {
                return PathBuf::from(d);
            }
            let shm = Path::new("/dev/shm");
            // df -Pk: "Filesystem 1024-blocks Used Available Capacity Mounted"
            let free_kib = Command::new("df")
                .args(["-Pk", "/dev/shm"])
                .output()
                .ok()
                .and_then(|o| {
                    let text = String::from_utf8_lossy(&o.stdout).to_string();
                    text.lines()
                        .nth(1)?
                        .split_whitespace()
                        .nth(3)?
                        .parse::<u64>()
                        .ok()
                })
                .unwrap_or(0);
            let writable = tempfile::tempdir_in(shm).is_ok();
            if free_kib >= 512 * 1024 && writable {
                shm.to_path_buf()
            } else {
                std::env::temp_dir()
            }
        })
        .clone()
}

/// Four different free ports on 127.0.0.1 (free right now: Dovecot may
/// still lose one to another process, and is then started again): IMAP,
/// IMAPS, LMTP and submission (used only with [`Extras::submission_relay`]).
fn free_ports() -> [u16; 4] {
    let listeners: Vec<std::net::TcpListener> = (0..4)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let p = |i: usize| listeners[i].local_addr().unwrap().port();
    [p(0), p(1), p(2), p(3)]
}

/// One free port on 127.0.0.1, e.g. for a server Dovecot must know of
/// before it starts.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// What a [`Dovecot`] offers beyond IMAP, IMAPS and LMTP with passwords.
#[derive(Clone, Debug, Default)]
pub struct Extras {
    /// OAuth 2.0 logins (AUTH=XOAUTH2 and AUTH=OAUTHBEARER) through an
    /// `oauth2` passdb that validates the bearer tokens itself, with no
    /// network (`introspection_mode = local`): JWTs signed with HS256 and
    /// this key (see [`jwt`]), whose `sub` and `email` are the user.
    pub oauth_key: Option<Vec<u8>>,
    /// Dovecot's submission service (SMTP with STARTTLS, on
    /// [`Dovecot::submission_port`]), logging users in like IMAP and
    /// relaying their mails to this port on 127.0.0.1.
    pub submission_relay: Option<u16>,
    /// A self-signed certificate made as `openssl req -x509` makes one
    /// (`CA:TRUE`), for `localhost` only, instead of one signed by a test
    /// CA; [`Dovecot::ca_file`] is then that certificate itself.
    pub self_signed: bool,
}

/// A JWT (RFC 7519) signed with HS256 and `key`, for `user` (`sub` and
/// `email`), valid from a minute ago for `valid_for` seconds (negative: it
/// expired that long ago): what an OAuth provider's access token looks
/// like to a server that validates it locally.
pub fn jwt(key: &[u8], user: &str, valid_for: i64) -> String {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let header = serde_json::json!({"alg": "HS256", "typ": "JWT", "kid": "default"});
    let claims = serde_json::json!({
        "sub": user,
        "email": user,
        "iat": now - 60,
        "exp": now + valid_for,
        "scope": "mail",
    });
    let signed = format!(
        "{}.{}",
        b64.encode(header.to_string()),
        b64.encode(claims.to_string())
    );
    format!(
        "{signed}.{}",
        b64.encode(hmac_sha256(key, signed.as_bytes()))
    )
}

/// HMAC-SHA256 (RFC 2104), spelled out: the tests have sha2 but not hmac.
fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .to_vec()
}

/// The configuration lines for `extras`, after the common ones.
fn extra_config(d: &Path, ports: [u16; 4], extras: &Extras) -> String {
    let mut c = String::new();
    if extras.oauth_key.is_some() {
        // The oauth2 passdb for the two OAuth mechanisms only; the
        // passwd-file one for passwords and lookups only.
        c.push_str(&format!(
            "auth_mechanisms = plain login xoauth2 oauthbearer
passdb {{
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = {d}/oauth2.conf
}}
",
            d = d.display()
        ));
    }
    if let Some(relay) = extras.submission_relay {
        c.push_str(&format!(
            "hostname = submission.starry.test
submission_relay_host = 127.0.0.1
submission_relay_port = {relay}
submission_relay_trusted = yes
service submission-login {{
  chroot =
  inet_listener submission {{
    address = 127.0.0.1
    port = {sub}
  }}
}}
",
            sub = ports[3]
        ));
    }
    c
}

/// The oauth2 passdb's settings and its HS256 key, as the `fs` dict it
/// reads (`KEYS/AZP/ALG/KID`, base64; `default` when the token names no
/// `azp` or `kid`).
fn write_oauth(d: &Path, key: &[u8]) {
    use base64::Engine as _;
    let keys = d.join("keys/default/HS256");
    create_dir_for_dovecot(&keys);
    write_for_dovecot(
        &keys.join("default"),
        base64::engine::general_purpose::STANDARD
            .encode(key)
            .as_bytes(),
    );
    write_for_dovecot(
        &d.join("oauth2.conf"),
        format!(
            "introspection_mode = local\n\
             local_validation_key_dict = fs:posix:prefix={}/keys/\n\
             username_attribute = email\n",
            d.display()
        )
        .as_bytes(),
    );
}

/// A self-signed certificate for localhost as `openssl req -x509` makes
/// one: `CA:TRUE`, no subjectAltName. `cert.pem`, `key.pem`, and `ca.pem`
/// (the same certificate: all a client can be given to trust).
pub fn make_self_signed(dir: &Path) -> Certs {
    openssl(
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
        ],
        dir,
        "a self-signed certificate",
    );
    std::fs::copy(dir.join("cert.pem"), dir.join("ca.pem")).unwrap();
    for f in ["ca.pem", "cert.pem", "key.pem"] {
        hand_over(&dir.join(f));
    }
    Certs {
        ca: dir.join("ca.pem"),
        cert: dir.join("cert.pem"),
        key: dir.join("key.pem"),
    }
}

/// An IMAP flag as a maildir file name keeps it (`…:2,FRS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Flag {
    /// `D`: \Draft
    Draft,
    /// `F`: \Flagged
    Flagged,
    /// `P`: passed (forwarded; no IMAP system flag)
    Passed,
    /// `R`: \Answered
    Answered,
    /// `S`: \Seen
    Seen,
    /// `T`: \Deleted
    Deleted,
}

/// One message of a maildir folder, as it is on disk.
#[derive(Clone, Debug)]
pub struct Stored {
    pub path: PathBuf,
    /// The file's bytes. Dovecot stores mail with LF line ends (what it
    /// received over LMTP or IMAP with CRLF).
    pub raw: Vec<u8>,
    pub flags: BTreeSet<Flag>,
    /// Keywords (`$Forwarded`, `$Junk`, …: the letters a–z of the file name
    /// through the folder's dovecot-keywords).
    pub keywords: BTreeSet<String>,
    /// The IMAP UID Dovecot gave it; None until an IMAP session or a
    /// delivery listed it in dovecot-uidlist.
    pub uid: Option<u32>,
    /// Still in `new/`: no IMAP session has seen it yet (\Recent).
    pub new: bool,
}

impl Stored {
    pub fn has(&self, flag: Flag) -> bool {
        self.flags.contains(&flag)
    }

    /// The first header field called `name` (ASCII case-insensitive), its
    /// lines unfolded, or None.
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers(name).into_iter().next()
    }

    /// Every header field called `name`, in order, unfolded.
    pub fn headers(&self, name: &str) -> Vec<String> {
        header_fields(&self.raw, name)
    }

    pub fn contains(&self, needle: &str) -> bool {
        self.raw
            .windows(needle.len().max(1))
            .any(|w| w == needle.as_bytes())
    }
}

/// Every header field of `raw` called `name` (ASCII case-insensitive), in
/// order, its lines unfolded.
pub fn header_fields(raw: &[u8], name: &str) -> Vec<String> {
    let text = String::from_utf8_lossy(raw);
    let head = text
        .split("\r\n\r\n")
        .next()
        .unwrap_or("")
        .split("\n\n")
        .next()
        .unwrap_or("");
    let mut fields: Vec<String> = Vec::new();
    for line in head.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some(last) = fields.last_mut() {
                last.push(' ');
                last.push_str(line.trim());
            }
        } else {
            fields.push(line.trim_end().to_string());
        }
    }
    fields
        .into_iter()
        .filter_map(|f| {
            let (n, v) = f.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
        .collect()
}

/// A running Dovecot; stopped, with all its processes, when dropped.
pub struct Dovecot {
    // Before `dir`: fields drop in order, and Dovecot must stop before its
    // directory goes.
    procs: Procs,
    dir: tempfile::TempDir,
    imap_port: u16,
    imaps_port: u16,
    lmtp_port: u16,
    submission_port: Option<u16>,
    certs: Certs,
    users: Vec<(String, String)>,
    /// How long the start took: certificate, configuration, until every
    /// port answers.
    pub started_in: Duration,
}

/// Dovecot's master process (the leader of its own process group) and the
/// watchdog that stops the group if this process dies without dropping it.
struct Procs {
    child: Child,
    /// `sh` waiting for its stdin, which we hold, to close: when this
    /// process dies (a SIGKILL skips every Drop), it stops the group.
    watchdog: Child,
    watchdog_stdin: Option<ChildStdin>,
    stopped: bool,
}

fn signal_group(pgid: u32, signal: &str) {
    // std cannot signal a process group; sh's `kill` can (no libc crate).
    // (dash takes `kill -SIG -PGID`, not `kill -SIG -- -PGID`.)
    let _ = Command::new("sh")
        .arg("-c")
        .arg(format!("kill -{signal} -{pgid} 2>/dev/null"))
        .status();
}

/// The live processes (zombies do not count: they are dead, waiting for a
/// parent to read their status) whose process group is `pgid`.
pub fn group_members(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            stat_fields(*pid).is_some_and(|(state, pgrp)| pgrp == pgid && !"ZX".contains(state))
        })
        .collect()
}

/// (state, process group) from /proc/PID/stat.
fn stat_fields(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "PID (COMMAND) STATE PPID PGRP …"; COMMAND may hold anything.
    let mut rest = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = rest.next()?.chars().next()?;
    let _ppid = rest.next()?;
    let pgrp = rest.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// Whether `pid` is a live process (not a zombie).
pub fn alive(pid: u32) -> bool {
    stat_fields(pid).is_some_and(|(state, _)| !"ZX".contains(state))
}

impl Procs {
    fn spawn(bin: &Path, conf: &Path, dir: &Path) -> Procs {
        let out = std::fs::File::create(dir.join("dovecot.out")).unwrap();
        let mut cmd = Command::new(bin);
        cmd.arg("-F")
            .arg("-c")
            .arg(conf)
            // Its own process group: stopped as one, and spared the Ctrl-C
            // meant for the test (the watchdog stops it then).
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out);
        if run_as().switch {
            cmd.uid(run_as().uid).gid(run_as().gid);
        }
        let child = cmd.spawn().expect("start dovecot");
        let pgid = child.id();
        // On EOF: stop the group, and remove the directory, which no Drop
        // will remove then.
        let mut watchdog = Command::new("sh")
            .arg("-c")
            .arg(
                "read _; kill -TERM -$0 2>/dev/null; sleep 1; kill -KILL -$0 2>/dev/null; \
                 rm -rf -- \"$1\"",
            )
            .arg(pgid.to_string())
            .arg(dir)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start sh");
        let watchdog_stdin = watchdog.stdin.take();
        Procs {
            child,
            watchdog,
            watchdog_stdin,
            stopped: false,
        }
    }

    /// SIGTERM to the whole group (Dovecot's master alone takes about a
    /// second to stop its children; the group together, a tenth), then
    /// waits until no process of it is left; SIGKILL after 5 s.
    fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        let _ = self.watchdog.kill();
        let _ = self.watchdog.wait();
        self.watchdog_stdin = None;
        let pgid = self.child.id();
        signal_group(pgid, "TERM");
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if Instant::now() > deadline => {
                    signal_group(pgid, "KILL");
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        let mut killed = false;
        loop {
            let left = group_members(pgid);
            if left.is_empty() {
                return;
            }
            if Instant::now() > deadline + Duration::from_secs(if killed { 5 } else { 0 }) {
                if killed {
                    // No panic in a Drop (it may run while unwinding).
                    eprintln!("test Dovecot: processes {left:?} survived SIGKILL");
                    return;
                }
                signal_group(pgid, "KILL");
                killed = true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Procs {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Reads one line from a fresh connection to 127.0.0.1:port and says
/// whether it is a Dovecot greeting starting with `prefix` (another server
/// that took the port in between does not count).
fn greets(port: u16, prefix: &str) -> bool {
    let Ok(stream) =
        TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(500))
    else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut line = String::new();
    let _ = BufReader::new(stream).read_line(&mut line);
    line.starts_with(prefix) && line.contains("Dovecot")
}

fn wait_ready(procs: &mut Procs, ports: [u16; 4], submission: bool) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut ready = [false, false, false, !submission];
    loop {
        if let Some(status) = procs.child.try_wait().map_err(|e| e.to_string())? {
            return Err(format!("dovecot exited ({status})"));
        }
        ready[0] = ready[0] || greets(ports[0], "* OK");
        ready[1] = ready[1] || TcpStream::connect(("127.0.0.1", ports[1])).is_ok();
        ready[2] = ready[2] || greets(ports[2], "220 ");
        ready[3] = ready[3] || greets(ports[3], "220 ");
        if ready.iter().all(|r| *r) {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "no answer within 20 s (IMAP {}, IMAPS {}, LMTP {}: {ready:?})",
                ports[0], ports[1], ports[2]
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Refuses what would break the configuration or the passwd-file, instead
/// of starting a Dovecot that does something else than the test meant.
fn check_user(user: &str, password: &str) {
    assert!(
        !user.is_empty()
            && user.len() <= 200
            && user
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"@.-_+".contains(&b))
            && !user.starts_with('.'),
        "test IMAP user {user:?}: use letters, digits and @.-_+ only"
    );
    assert!(
        !password.is_empty()
            && password
                .bytes()
                .all(|b| b.is_ascii_graphic() && b != b':' && b != b'%'),
        "the test IMAP password of {user:?} must be printable ASCII without ':' or '%'"
    );
}

fn config(dir: &Path, ports: [u16; 4], extras: &Extras) -> String {
    let r = run_as();
    let d = dir.display();
    let [imap, imaps, lmtp, _] = ports;
    // Standalone (nothing from /etc/dovecot). The `chroot =` lines: a
    // chroot needs root, and Dovecot runs unprivileged here.
    format!(
        "# Written by tests/imap_server/mod.rs for one test; Dovecot 2.3 syntax.
instance_name = starry-test-{instance}
base_dir = {d}/run
state_dir = {d}/state
log_path = {d}/dovecot.log
listen = 127.0.0.1
protocols = imap lmtp{submission}
default_login_user = {user}
default_internal_user = {user}
default_internal_group = {group}
first_valid_uid = {uid}
last_valid_uid = {uid}
first_valid_gid = {gid}
last_valid_gid = {gid}

ssl = yes
ssl_cert = <{d}/cert.pem
ssl_key = <{d}/key.pem

auth_mechanisms = plain login
auth_verbose = yes
# A wrong password is answered at once, and the next login is not slowed
# down (the anvil penalty, below): tests try wrong passwords on purpose.
auth_failure_delay = 0
passdb {{
  driver = passwd-file
{passwd_mechanisms}  args = scheme=PLAIN username_format=%u {d}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={d}/home/%u
}}

mail_location = maildir:{d}/mail/%u
mail_fsync = never
mail_max_userip_connections = 100

service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps}
    ssl = yes
  }}
}}
# As docs/mail.md asks of the robot's mail server: no Received line of
# Dovecot's on top, above the Authentication-Results the SMTP server in
# front of it wrote (the robot believes none below a Received line).
lmtp_add_received_header = no
service lmtp {{
  inet_listener lmtp {{
    address = 127.0.0.1
    port = {lmtp}
  }}
}}
service anvil {{
  chroot =
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
service ipc {{
  chroot =
}}
service old-stats {{
  chroot =
}}
service aggregator {{
  chroot =
}}
service imap-urlauth-login {{
  chroot =
}}
{extra}",
        instance = dir
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(|c: char| !c.is_ascii_alphanumeric(), ""),
        user = r.user,
        group = r.group,
        uid = r.uid,
        gid = r.gid,
        submission = if extras.submission_relay.is_some() {
            " submission"
        } else {
            ""
        },
        extra = extra_config(dir, ports, extras),
        // With OAuth: passwords for the password mechanisms and for the
        // lookups of LMTP (`none`), tokens for the oauth2 passdb.
        passwd_mechanisms = if extras.oauth_key.is_some() {
            "  mechanisms = plain login none\n"
        } else {
            ""
        },
    )
}

impl Dovecot {
    /// A Dovecot with these (login = e-mail address, password) users and a
    /// certificate for `localhost` and 127.0.0.1.
    pub fn start(users: &[(&str, &str)]) -> Dovecot {
        Dovecot::start_inner(users, &["localhost", "127.0.0.1"], &Extras::default())
    }

    /// The same with `extras` (OAuth, submission, a self-signed
    /// certificate).
    pub fn start_with(users: &[(&str, &str)], extras: &Extras) -> Dovecot {
        Dovecot::start_inner(users, &["localhost", "127.0.0.1"], extras)
    }

    /// The same with a certificate for `name` alone (e.g.
    /// `mail.other.example`): a client that checks it against `localhost`
    /// must refuse it.
    pub fn start_with_cert_for(name: &str, users: &[(&str, &str)]) -> Dovecot {
        Dovecot::start_inner(users, &[name], &Extras::default())
    }

    fn start_inner(users: &[(&str, &str)], names: &[&str], extras: &Extras) -> Dovecot {
        let started = Instant::now();
        let bin = dovecot_binary().unwrap_or_else(|| {
            panic!("no `dovecot` command: install it with sh tests/support/imap/install.sh")
        });
        let version = dovecot_version(&bin);
        assert!(
            version.starts_with("2.3."),
            "Dovecot {version} found at {}, but tests/imap_server writes a Dovecot 2.3 \
             configuration (2.4 changed its syntax): install 2.3 (Debian 12's dovecot-imapd)",
            bin.display()
        );
        for (u, p) in users {
            check_user(u, p);
        }
        let dir = tempfile::Builder::new()
            .prefix("starry-dovecot-")
            .tempdir_in(scratch())
            .expect("a temporary directory for Dovecot");
        let d = dir.path();
        assert!(
            d.to_str()
                .is_some_and(|s| !s.contains(|c: char| c.is_whitespace() || "%\"'<#".contains(c))),
            "the temporary directory {} has characters a Dovecot configuration cannot hold; \
             set STARRY_DOVECOT_TMPDIR to a plain path",
            d.display()
        );
        hand_over(d);
        let certs = if extras.self_signed {
            make_self_signed(d)
        } else {
            make_certs(d, names)
        };
        if let Some(key) = &extras.oauth_key {
            write_oauth(d, key);
        }
        let passwd: String = users
            .iter()
            .map(|(u, p)| format!("{u}:{{PLAIN}}{p}\n"))
            .collect();
        write_for_dovecot(&d.join("passwd"), passwd.as_bytes());
        for sub in ["mail", "home", "state"] {
            create_dir_for_dovecot(&d.join(sub));
        }

        let conf = d.join("dovecot.conf");
        let mut last_error = String::new();
        for _attempt in 0..3 {
            let ports = free_ports();
            write_for_dovecot(&conf, config(d, ports, extras).as_bytes());
            let _ = std::fs::remove_file(d.join("dovecot.log"));
            let mut procs = Procs::spawn(&bin, &conf, d);
            match wait_ready(&mut procs, ports, extras.submission_relay.is_some()) {
                Ok(()) => {
                    return Dovecot {
                        procs,
                        dir,
                        imap_port: ports[0],
                        imaps_port: ports[1],
                        lmtp_port: ports[2],
                        submission_port: extras.submission_relay.map(|_| ports[3]),
                        certs,
                        users: users
                            .iter()
                            .map(|(u, p)| (u.to_string(), p.to_string()))
                            .collect(),
                        started_in: started.elapsed(),
                    };
                }
                Err(e) => {
                    procs.stop();
                    last_error = format!(
                        "{e}\n{}{}",
                        std::fs::read_to_string(d.join("dovecot.out")).unwrap_or_default(),
                        std::fs::read_to_string(d.join("dovecot.log")).unwrap_or_default()
                    );
                    // A port taken by someone else since we looked: again,
                    // with other ports.
                    if !last_error.contains("Address already in use") {
                        break;
                    }
                }
            }
        }
        panic!(
            "the test Dovecot ({version}, running as user {}) did not start (when the test runs \
             as root it runs as `nobody`, who must be able to reach {}):\n{last_error}",
            run_as().user,
            d.display()
        );
    }

    pub fn imap_port(&self) -> u16 {
        self.imap_port
    }

    pub fn imaps_port(&self) -> u16 {
        self.imaps_port
    }

    pub fn lmtp_port(&self) -> u16 {
        self.lmtp_port
    }

    /// The submission service's port (STARTTLS), when started with
    /// [`Extras::submission_relay`].
    pub fn submission_port(&self) -> u16 {
        self.submission_port
            .expect("this Dovecot was started without a submission service")
    }

    /// The PEM certificate of the throw-away CA that signed Dovecot's
    /// certificate: what a client must trust.
    pub fn ca_file(&self) -> &Path {
        &self.certs.ca
    }

    /// Dovecot's certificate and key (PEM), e.g. for another test server
    /// that the same CA file should vouch for.
    pub fn cert_file(&self) -> &Path {
        &self.certs.cert
    }

    pub fn key_file(&self) -> &Path {
        &self.certs.key
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    pub fn users(&self) -> &[(String, String)] {
        &self.users
    }

    /// The user's maildir (its INBOX; other folders are `.NAME` in it).
    pub fn maildir(&self, user: &str) -> PathBuf {
        assert!(
            self.users.iter().any(|(u, _)| u == user),
            "{user:?} is not a user of this test Dovecot"
        );
        self.dir.path().join("mail").join(user)
    }

    /// The directory of a folder: `INBOX` (any case) is the maildir itself;
    /// `a/b` or `a.b` is `.a.b` (Maildir++, hierarchy separator `.`).
    /// ASCII names only (others are stored in modified UTF-7).
    pub fn folder_dir(&self, user: &str, folder: &str) -> PathBuf {
        let root = self.maildir(user);
        if folder.eq_ignore_ascii_case("INBOX") {
            return root;
        }
        assert!(
            !folder.is_empty() && folder.is_ascii() && !folder.contains(['\\', '&']),
            "folder {folder:?}: ASCII names without '&' or '\\' only"
        );
        root.join(format!(".{}", folder.replace('/', ".")))
    }

    /// Dovecot's log (every login, delivery and error).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("dovecot.log")).unwrap_or_default()
    }

    /// The pid of Dovecot's master process, which leads its process group.
    pub fn pid(&self) -> u32 {
        self.procs.child.id()
    }

    /// Every live process of this Dovecot (its master and the services it
    /// started), to check after the drop that none is left.
    pub fn pids(&self) -> Vec<u32> {
        group_members(self.pid())
    }

    /// Stops Dovecot now (Drop does it otherwise); the directory stays
    /// until the drop, to be read.
    pub fn stop(&mut self) {
        self.procs.stop();
    }

    /// Every message of `folder` (see [`Dovecot::folder_dir`]) as it is on
    /// disk, in UID order (messages without a UID yet last, by file name).
    pub fn messages(&self, user: &str, folder: &str) -> Vec<Stored> {
        let dir = self.folder_dir(user, folder);
        // Dovecot renames a file when its flags change or it leaves new/: a
        // file gone between the listing and the reading means another look.
        for _ in 0..20 {
            if let Some(messages) = read_folder(&dir) {
                return messages;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("{}: its files keep changing", dir.display());
    }

    /// Delivers `raw` to `user` through Dovecot's LMTP service, the envelope
    /// sender taken from the mail's `From:`.
    pub fn deliver(&self, user: &str, raw: &[u8]) {
        let from = header_fields(raw, "From")
            .into_iter()
            .next()
            .and_then(|f| {
                let a = f
                    .rsplit('<')
                    .next()?
                    .trim_end_matches('>')
                    .trim()
                    .to_string();
                (a.contains('@') && !a.contains(char::is_whitespace)).then_some(a)
            })
            .unwrap_or_default();
        self.deliver_from(&from, user, raw);
    }

    /// Delivers `raw` (LF or CRLF line ends) to `user` through LMTP, with
    /// this envelope sender (may be empty); panics with LMTP's answer when
    /// it is refused.
    pub fn deliver_from(&self, sender: &str, user: &str, raw: &[u8]) {
        let mut lmtp = Lmtp::connect(self.lmtp_port);
        lmtp.expect("greeting", "220");
        lmtp.command("LHLO localhost", "250");
        lmtp.command(&format!("MAIL FROM:<{sender}>"), "250");
        lmtp.command(&format!("RCPT TO:<{user}>"), "250");
        lmtp.command("DATA", "354");
        let mut data = Vec::with_capacity(raw.len() + 64);
        for line in raw.split_inclusive(|b| *b == b'\n') {
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.starts_with(b".") {
                data.push(b'.');
            }
            data.extend_from_slice(line);
            data.extend_from_slice(b"\r\n");
        }
        data.extend_from_slice(b".\r\n");
        lmtp.stream.write_all(&data).expect("send the mail by LMTP");
        // One answer per recipient.
        lmtp.expect("delivery", "250");
        lmtp.command("QUIT", "221");
    }

    /// Writes `n` small unrelated mails straight into `user`'s INBOX
    /// (`cur/`, no flags), as a mail program that shares the maildir would:
    /// Dovecot finds and numbers them when it next looks. 10,000 take about
    /// 0.4 s in /dev/shm (see [`scratch`]).
    pub fn fill(&self, user: &str, n: usize) {
        let root = self.maildir(user);
        for sub in ["cur", "new", "tmp"] {
            create_dir_for_dovecot(&root.join(sub));
        }
        static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        for i in 0..n {
            let body = format!(
                "From: Filler {i} <filler-{i}@example.net>\n\
                 To: <{user}>\n\
                 Subject: Unrelated mail number {i}\n\
                 Date: Thu, 1 Jan 2026 00:00:00 +0000\n\
                 Message-ID: <fill-{call}-{i}@example.net>\n\
                 \n\
                 Nothing to do with any game ({i}).\n"
            );
            // Maildir unique name; S= is the size, which Dovecot trusts.
            let name = format!(
                "{secs}.M{i:07}P{}Q{call}.starry-fill,S={}:2,",
                std::process::id(),
                body.len()
            );
            write_for_dovecot(&root.join("cur").join(name), body.as_bytes());
        }
    }
}

/// The messages of one maildir folder, or None when a file went away
/// while it was read.
fn read_folder(dir: &Path) -> Option<Vec<Stored>> {
    let uids = read_uidlist(&dir.join("dovecot-uidlist"));
    let keywords = read_keywords(&dir.join("dovecot-keywords"));
    let mut out = Vec::new();
    for sub in ["new", "cur"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().to_string();
            // UNIQUE[:2,FLAGS]; the flags are letters, in any order.
            let (base, info) = name.split_once(':').unwrap_or((&name, ""));
            let mut flags = BTreeSet::new();
            let mut kws = BTreeSet::new();
            for c in info.strip_prefix("2,").unwrap_or("").chars() {
                match c {
                    'D' => flags.insert(Flag::Draft),
                    'F' => flags.insert(Flag::Flagged),
                    'P' => flags.insert(Flag::Passed),
                    'R' => flags.insert(Flag::Answered),
                    'S' => flags.insert(Flag::Seen),
                    'T' => flags.insert(Flag::Deleted),
                    'a'..='z' => kws.insert(
                        keywords[(c as u8 - b'a') as usize]
                            .clone()
                            .unwrap_or_else(|| format!("<keyword {c}>")),
                    ),
                    _ => false,
                };
            }
            let raw = match std::fs::read(e.path()) {
                Ok(raw) => raw,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => return None,
                Err(err) => panic!("read {}: {err}", e.path().display()),
            };
            out.push(Stored {
                path: e.path(),
                raw,
                flags,
                keywords: kws,
                uid: uids.get(base).copied(),
                new: sub == "new",
            });
        }
    }
    out.sort_by(|a, b| (a.uid.is_none(), a.uid, &a.path).cmp(&(b.uid.is_none(), b.uid, &b.path)));
    Some(out)
}

/// base name → UID, from a dovecot-uidlist (version 3: a header line, then
/// `UID [EXTENSIONS] :FILENAME`).
fn read_uidlist(path: &Path) -> std::collections::HashMap<String, u32> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let (head, name) = line.split_once(" :")?;
            let uid = head.split_whitespace().next()?.parse().ok()?;
            Some((name.to_string(), uid))
        })
        .collect()
}

/// The keywords of a folder by letter index (dovecot-keywords: `N NAME`).
fn read_keywords(path: &Path) -> Vec<Option<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = vec![None; 26];
    for line in text.lines() {
        if let Some((n, name)) = line.split_once(' ')
            && let Ok(n) = n.parse::<usize>()
            && n < 26
        {
            out[n] = Some(name.to_string());
        }
    }
    out
}

/// Just enough LMTP (RFC 2033) to hand Dovecot a mail.
struct Lmtp {
    stream: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Lmtp {
    fn connect(port: u16) -> Lmtp {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to Dovecot's LMTP");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        Lmtp { stream, reader }
    }

    /// Reads one (possibly multi-line) reply; panics unless it has `code`.
    fn expect(&mut self, what: &str, code: &str) {
        let mut reply = String::new();
        loop {
            let mut line = String::new();
            let n = self.reader.read_line(&mut line).expect("read from LMTP");
            assert!(n > 0, "LMTP closed the connection after {what}: {reply}");
            reply.push_str(&line);
            // "250-…" continues, "250 …" ends.
            if line.as_bytes().get(3) != Some(&b'-') {
                break;
            }
        }
        assert!(
            reply.starts_with(code),
            "LMTP refused {what} (expected {code}): {}",
            reply.trim_end()
        );
    }

    fn command(&mut self, line: &str, code: &str) {
        self.stream
            .write_all(format!("{line}\r\n").as_bytes())
            .expect("write to LMTP");
        self.expect(line, code);
    }
}

/// Which security a [`Dropper`] shows its clients (see
/// tests/support/imap/dropper.py); behind it, Dovecot's plain IMAP port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Front {
    /// The bytes as they are.
    Plain,
    /// Implicit TLS (an IMAPS port) with the Dovecot's certificate.
    Tls,
    /// STARTTLS, which the proxy answers itself, with the Dovecot's
    /// certificate.
    Starttls,
}

/// A TCP proxy on 127.0.0.1 (free port) in front of a server port that
/// cuts a connection once it has forwarded `after_bytes` from the server to
/// the client after the client sent a line containing `word` (e.g. `FETCH`,
/// ASCII case-insensitive): a connection dropped in the middle of a fetch.
/// Only the first such connection is cut (unless `every`); later ones pass
/// through. A python3 process (tests/support/imap/dropper.py), killed when
/// dropped.
pub struct Dropper {
    child: Child,
    _stdin: ChildStdin,
    port: u16,
    output: Arc<Mutex<Vec<String>>>,
}

impl Dropper {
    /// In front of any port, plain.
    pub fn start(target_port: u16, word: &str, after_bytes: usize) -> Dropper {
        Dropper::start_with(target_port, word, after_bytes, Front::Plain, None, false)
    }

    /// In front of `dovecot`'s IMAP port, showing the client `front` with
    /// Dovecot's own certificate (so the client trusts it as it trusts
    /// Dovecot, through [`Dovecot::ca_file`]); the words are read inside
    /// the TLS.
    pub fn start_for(dovecot: &Dovecot, front: Front, word: &str, after_bytes: usize) -> Dropper {
        Dropper::start_with(
            dovecot.imap_port(),
            word,
            after_bytes,
            front,
            Some((dovecot.cert_file(), dovecot.key_file())),
            false,
        )
    }

    pub fn start_with(
        target_port: u16,
        word: &str,
        after_bytes: usize,
        front: Front,
        cert: Option<(&Path, &Path)>,
        every: bool,
    ) -> Dropper {
        let mut cmd = Command::new(python3());
        cmd.arg(root().join("tests/support/imap/dropper.py"))
            .args(["--target", &target_port.to_string()])
            .args(["--word", word])
            .args(["--after", &after_bytes.to_string()])
            .arg("--exit-on-eof")
            .args([
                "--front",
                match front {
                    Front::Plain => "plain",
                    Front::Tls => "tls",
                    Front::Starttls => "starttls",
                },
            ]);
        if let Some((c, k)) = cert {
            cmd.arg("--cert").arg(c).arg("--key").arg(k);
        }
        if every {
            cmd.arg("--every");
        }
        let (child, stdin, port, output) = spawn_ready(cmd, "the Dropper proxy (python3)");
        Dropper {
            child,
            _stdin: stdin,
            port,
            output,
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What it printed: `CONNECTED n`, `ARMED n`, `CUT n BYTES`.
    pub fn output(&self) -> String {
        self.output.lock().unwrap().join("\n")
    }

    /// How many connections it has cut, waiting up to `wait` for a first
    /// one (its output is read by another thread).
    pub fn cuts(&self, wait: Duration) -> usize {
        let deadline = Instant::now() + wait;
        loop {
            let n = self
                .output
                .lock()
                .unwrap()
                .iter()
                .filter(|l| l.starts_with("CUT "))
                .count();
            if n > 0 || Instant::now() > deadline {
                return n;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Dropper {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts a helper that prints `READY <port>` first; its stdout lines are
/// collected by a thread. (child, its stdin, port, lines)
fn spawn_ready(mut cmd: Command, what: &str) -> (Child, ChildStdin, u16, Arc<Mutex<Vec<String>>>) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("could not start {what}: {e}"));
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    let output = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = mpsc::channel();
    let out = Arc::clone(&output);
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(p) = line.strip_prefix("READY ")
                && let Some(tx) = tx.take()
            {
                let _ = tx.send(p.trim().parse::<u16>().unwrap_or(0));
            }
            out.lock().unwrap().push(line);
        }
    });
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(port) if port != 0 => (child, stdin, port, output),
        _ => {
            let _ = child.kill();
            let _ = child.wait();
            let mut err = String::new();
            let _ = stderr.read_to_string(&mut err);
            panic!("{what} did not start:\n{err}");
        }
    }
}

/// How [`imap_client`] logs in.
#[derive(Clone, Debug)]
pub struct ImapLogin {
    pub host: String,
    pub port: u16,
    /// "tls", "starttls" or "plain".
    pub security: &'static str,
    pub ca: Option<PathBuf>,
    pub user: String,
    pub password: String,
}

impl Dovecot {
    /// `user` (with their password) over `security` ("tls": the IMAPS port;
    /// "starttls", "plain": the IMAP port), to host `localhost`, trusting
    /// [`Dovecot::ca_file`].
    pub fn login(&self, user: &str, security: &'static str) -> ImapLogin {
        let password = self
            .users
            .iter()
            .find(|(u, _)| u == user)
            .map(|(_, p)| p.clone())
            .unwrap_or_else(|| panic!("{user:?} is not a user of this test Dovecot"));
        ImapLogin {
            host: "localhost".into(),
            port: if security == "tls" {
                self.imaps_port
            } else {
                self.imap_port
            },
            security,
            ca: Some(self.certs.ca.clone()),
            user: user.into(),
            password,
        }
    }
}

/// Logs in with python3's imaplib (tests/support/imap/client.py), an IMAP
/// client that is not starry's, and runs `actions` in that one session:
/// "capabilities", "list", "fetch FOLDER", "search FOLDER CRITERIA…",
/// "flag FOLDER UID FLAG…", "move FOLDER UID TARGET" (words separated by
/// spaces). Ok(one JSON answer per action), or Err((kind, message)) with
/// kind tls, auth, io or imap. No action: a login alone.
pub fn imap_client(
    login: &ImapLogin,
    actions: &[&str],
) -> Result<Vec<serde_json::Value>, (String, String)> {
    let mut cmd = Command::new(python3());
    cmd.arg(root().join("tests/support/imap/client.py"))
        .args(["--host", &login.host])
        .args(["--port", &login.port.to_string()])
        .args(["--security", login.security])
        .args(["--user", &login.user])
        .env("STARRY_IMAP_PASSWORD", &login.password);
    if let Some(ca) = &login.ca {
        cmd.arg("--ca").arg(ca);
    }
    let out = cmd
        .args(actions)
        .output()
        .expect("run python3 tests/support/imap/client.py");
    let text = String::from_utf8_lossy(&out.stdout);
    let value: serde_json::Value = serde_json::from_str(text.trim()).unwrap_or_else(|_| {
        panic!(
            "the IMAP client printed no JSON: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    match value.get("error").and_then(|k| k.as_str()) {
        Some(kind) => Err((
            kind.to_string(),
            value["message"].as_str().unwrap_or("").to_string(),
        )),
        None => Ok(value["results"].as_array().cloned().unwrap_or_default()),
    }
}
