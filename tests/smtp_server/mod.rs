//! The test SMTP server (tests/support/smtp/server.py, Python aiosmtpd) for
//! the tests that run the real binary against it.
//!
//! Needs python3 with aiosmtpd: `sh tests/support/smtp/install.sh` installs it
//! into target/smtp-venv, where it is found first (or set STARRY_TEST_PYTHON
//! to a python that has it). When no such python is found the tests FAIL,
//! saying how to install it: a test run that silently skipped the mail tests
//! would claim more than it checked. STARRY_SKIP_SMTP_TESTS=1 turns that into
//! a loud skip, for a machine where the server cannot be installed. The TLS tests also need the `openssl`
//! command to make a throw-away certificate; without it they fail.
//!
//! [`Server::start_with`] can also make it the recipients' mail server in
//! front of a test Dovecot (tests/imap_server/mod.rs): delivery by LMTP,
//! several accounts, and `Authentication-Results` as an MTA that checked SPF.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The one account of the STARTTLS/TLS test server.
pub const USER: &str = "smtp-user@example.org";
/// Distinctive, so that a leak anywhere is easy to find.
pub const PASSWORD: &str = "Qv8-Tellurium-Horse-Pa55word-z17";
pub const WRONG_PASSWORD: &str = "Xw3-Wrong-Battery-Pa55word-j66";

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn required() -> bool {
    !std::env::var("STARRY_SKIP_SMTP_TESTS").is_ok_and(|v| !v.is_empty() && v != "0")
}

pub fn skip(why: &str) {
    let text = format!(
        "\n\n################################################################\n\
         ## SKIPPED: real-SMTP mail test: {why}\n\
         ## Install the test server with: sh tests/support/smtp/install.sh\n\
         ## (or set STARRY_SKIP_SMTP_TESTS=1 to skip these tests knowingly)\n\
         ################################################################\n"
    );
    if required() {
        panic!("{text}");
    }
    eprintln!("{text}");
}

/// The python with aiosmtpd, or None after saying loudly why the test is
/// skipped (a failure unless STARRY_SKIP_SMTP_TESTS=1).
pub fn python_or_skip() -> Option<PathBuf> {
    let py = python();
    if py.is_none() {
        skip("no python3 with aiosmtpd found");
    }
    py
}

/// Like [`python_or_skip`], and the `openssl` command must be there (it is a
/// plain requirement of the TLS tests, not a reason to skip).
pub fn python_for_tls_or_skip() -> Option<PathBuf> {
    let py = python_or_skip()?;
    assert!(
        have_openssl(),
        "the TLS mail tests need the `openssl` command to make a test certificate \
         (Debian: apt-get install openssl)"
    );
    Some(py)
}

pub fn python() -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Ok(p) = std::env::var("STARRY_TEST_PYTHON") {
        candidates.push(PathBuf::from(p));
    }
    candidates.push(root().join("target/smtp-venv/bin/python"));
    candidates.push(PathBuf::from("python3"));
    candidates.into_iter().find(|p| {
        Command::new(p)
            .args(["-c", "import aiosmtpd"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

pub fn have_openssl() -> bool {
    Command::new("openssl")
        .arg("version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A running test server; killed when dropped.
pub struct Server {
    child: Child,
    _stdin: std::process::ChildStdin,
    pub port: u16,
    pub maildir: PathBuf,
    output: Arc<Mutex<Vec<String>>>,
}

#[derive(Clone, Copy, PartialEq)]
pub enum Mode {
    Plain,
    Starttls,
    Tls,
    Drop,
}

/// How to start a [`Server`] beyond its mode (see [`Server::start_with`]).
/// `Options::new(mode)` behaves exactly like [`Server::start`].
#[derive(Clone)]
pub struct Options {
    pub mode: Mode,
    /// 0: a free port.
    pub port: u16,
    /// The accounts that may log in (AUTH). `None`: the one [`USER`] in the
    /// STARTTLS and TLS modes, no AUTH in plain mode. In plain mode, accounts
    /// make it offer AUTH without TLS (on 127.0.0.1 only).
    pub accounts: Option<Vec<(String, String)>>,
    /// Offer AUTH without requiring it.
    pub auth_optional: bool,
    /// Also deliver every accepted message by LMTP to 127.0.0.1 on this
    /// port (to the envelope recipients, e.g. a test Dovecot's
    /// `lmtp_port()`); the server refuses what LMTP refuses. The maildir
    /// keeps its copy as always.
    pub lmtp_port: Option<u16>,
    /// Act as the recipients' MTA: drop every `Authentication-Results` of
    /// this authserv-id and prepend `ID; spf=pass smtp.mailfrom=SENDER` when
    /// the session logged in as the envelope sender, `spf=none` otherwise.
    pub authserv_id: Option<String>,
    /// (certificate, key) PEM files for the TLS modes instead of the
    /// self-signed [`certificate`], e.g. one signed by a test CA.
    pub cert: Option<(PathBuf, PathBuf)>,
}

impl Options {
    pub fn new(mode: Mode) -> Options {
        Options {
            mode,
            port: 0,
            accounts: None,
            auth_optional: false,
            lmtp_port: None,
            authserv_id: None,
            cert: None,
        }
    }
}

impl Server {
    pub fn start(py: &Path, dir: &Path, mode: Mode, port: u16) -> Server {
        Server::start_with(
            py,
            dir,
            &Options {
                port,
                ..Options::new(mode)
            },
        )
    }

    pub fn start_with(py: &Path, dir: &Path, options: &Options) -> Server {
        let (mode, port) = (options.mode, options.port);
        let maildir = dir.join(format!("maildir-{port}-{}", rand_suffix()));
        let mut cmd = Command::new(py);
        cmd.arg(root().join("tests/support/smtp/server.py"))
            .args(["--port", &port.to_string()])
            .arg("--maildir")
            .arg(&maildir)
            // The server also exits when this process dies without
            // dropping `Server` (its stdin, held below, then closes).
            .arg("--exit-on-eof")
            .arg("--mode")
            .arg(match mode {
                Mode::Plain => "plain",
                Mode::Starttls => "starttls",
                Mode::Tls => "tls",
                Mode::Drop => "drop",
            });
        if matches!(mode, Mode::Starttls | Mode::Tls) {
            let (cert, key) = options.cert.clone().unwrap_or_else(|| certificate(dir));
            cmd.arg("--cert").arg(cert).arg("--key").arg(key);
            if options.accounts.is_none() {
                cmd.args(["--user", USER, "--password", PASSWORD]);
            }
        }
        for (user, password) in options.accounts.iter().flatten() {
            cmd.args(["--user", user, "--password", password]);
        }
        if options.auth_optional {
            cmd.arg("--auth-optional");
        }
        if let Some(p) = options.lmtp_port {
            cmd.args(["--lmtp-port", &p.to_string()]);
        }
        if let Some(id) = &options.authserv_id {
            cmd.args(["--authserv-id", id]);
        }
        let err_path = dir.join(format!("server-{}.err", rand_suffix()));
        let stderr = std::fs::File::create(&err_path).expect("server stderr file");
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("start the test SMTP server");
        let stdout = child.stdout.take().unwrap();
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
                    let _ = tx.send(p.trim().parse::<u16>().unwrap());
                }
                out.lock().unwrap().push(line);
            }
        });
        let port = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(p) => p,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "the test SMTP server did not start:\n{}",
                    std::fs::read_to_string(&err_path).unwrap_or_default()
                );
            }
        };
        Server {
            child,
            _stdin: stdin,
            port,
            maildir,
            output,
        }
    }

    /// Every message received, by file name (the maildir's unique names).
    pub fn messages_by_name(&self) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<(String, Vec<u8>)> = match std::fs::read_dir(self.maildir.join("new")) {
            Ok(d) => d
                .map(|e| {
                    let p = e.unwrap().path();
                    (
                        p.file_name().unwrap().to_string_lossy().to_string(),
                        std::fs::read(&p).unwrap(),
                    )
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        out.sort();
        out
    }

    /// Every message received, oldest first.
    pub fn messages(&self) -> Vec<Vec<u8>> {
        let mut files: Vec<PathBuf> = match std::fs::read_dir(self.maildir.join("new")) {
            Ok(d) => d.map(|e| e.unwrap().path()).collect(),
            Err(_) => return Vec::new(),
        };
        files.sort_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap());
        files.iter().map(|p| std::fs::read(p).unwrap()).collect()
    }

    /// The server's process id (to check it is gone once dropped).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn output(&self) -> String {
        self.output.lock().unwrap().join("\n")
    }

    /// Whether the server's output has (or gets within 10 s) a line
    /// containing `needle`: it is read by another thread, so a line the
    /// server printed just now may not have arrived yet.
    pub fn printed(&self, needle: &str) -> bool {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            if self.output().contains(needle) {
                return true;
            }
            if std::time::Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn rand_suffix() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A self-signed leaf certificate for 127.0.0.1/localhost (not a CA: rustls
/// refuses CA certificates as server certificates). Returns (cert, key).
pub fn certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    if cert.exists() {
        return (cert, key);
    }
    let status = Command::new("openssl")
        .args([
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
            "basicConstraints=critical,CA:FALSE",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout",
        ])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run openssl");
    assert!(
        status.success(),
        "openssl could not make the test certificate"
    );
    (cert, key)
}

/// A free port on 127.0.0.1 with nobody listening (right now).
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}
