//! `starry serve`, measured as a browser meets it: the release binary
//! serving a home, requests over loopback.
//!
//! - `game_page_sky_125`: GET the page of a 5-player Starry Sky game of 125
//!   entries (the first 125 lines of `finished-5p-compound-coins.jsonl`),
//!   as its player to act; the time from request to the whole answer is
//!   the server's time (loopback costs tens of microseconds).
//! - `move_round_trip`: a move of a Starry Night game between two people,
//!   from the click (the confirming POST) to the new page (its redirect,
//!   followed): the entry signed, written and audited, and the page drawn.
//!   The other player's answer, by the CLI, is made between samples and not
//!   counted. No computer plays.
//! - `home_page_under_flood`: GET the list of games (as `home_page`, its
//!   control, does) while a stranger without a token keeps 2,000 idle
//!   connections open, opening 2,000 new ones a second, and 200 more that
//!   send their header a line a second (slowloris): the player's latency
//!   under the flood (issue 31: within 1 s).
//! - Before the table: the server's resident memory (VmRSS, and its peak
//!   VmHWM) with 100 games in the games directory, after the list of games
//!   and every game's page have been asked for once.
//!
//!     cargo bench --bench serve

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use divan::Bencher;
use starry::app::generate;

const BIN: &str = env!("CARGO_BIN_EXE_starry");

fn main() {
    memory();
    divan::main();
    FLOODING.store(false, std::sync::atomic::Ordering::Release);
    // The servers the benchmarks keep in statics, which are never dropped.
    for pid in STARTED.lock().unwrap().iter() {
        let _ = Command::new("kill").arg(pid.to_string()).status();
    }
}

/// Every server started, to stop at the end.
static STARTED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn bench_dir(name: &str) -> PathBuf {
    let dir = Path::new(BIN)
        .parent()
        .and_then(Path::parent)
        .expect("the binary is in target/PROFILE/")
        .join("bench-data")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A server for `home`, stopped when dropped.
struct Server {
    child: Child,
    port: u16,
    cookie: String,
}

impl Server {
    fn start(home: &Path) -> Server {
        let mut child = Command::new(BIN)
            .args(["serve", "--port", "0"])
            .env("STARRY_HOME", home)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.split_whitespace().last().unwrap().to_string();
        let port: u16 = url
            .rsplit_once(':')
            .unwrap()
            .1
            .split('/')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let token = url.split("token=").nth(1).unwrap().to_string();
        STARTED.lock().unwrap().push(child.id());
        let mut s = Server {
            child,
            port,
            cookie: String::new(),
        };
        // The address lets in once: its session cookie.
        let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            c,
            "GET /?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut raw = String::new();
        c.read_to_string(&mut raw).unwrap();
        s.cookie = raw
            .lines()
            .find_map(|l| l.strip_prefix("set-cookie: "))
            .and_then(|v| v.split(';').next())
            .expect("the address lets in")
            .to_string();
        s
    }

    /// One request on a fresh connection: (status, Location, body).
    fn request(&self, method: &str, path: &str, body: &str) -> (u16, String, String) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let host = format!("127.0.0.1:{}", self.port);
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nCookie: {}\r\nOrigin: http://{host}\r\n\
             Connection: close\r\nContent-Type: application/x-www-form-urlencoded\r\n\
             Content-Length: {}\r\n\r\n{body}",
            self.cookie,
            body.len()
        )
        .unwrap();
        let mut raw = String::new();
        s.read_to_string(&mut raw).unwrap();
        let status = raw[9..12].parse().unwrap();
        let location = raw
            .lines()
            .find_map(|l| l.strip_prefix("location: "))
            .unwrap_or("")
            .to_string();
        let body = raw.split_once("\r\n\r\n").map_or("", |x| x.1).to_string();
        (status, location, body)
    }

    fn csrf(&self) -> String {
        let (_, _, page) = self.request("GET", "/new?game=starry-night", "");
        let i = page.find("name=\"csrf\" value=\"").unwrap() + 19;
        page[i..i + 64].to_string()
    }

    /// VmRSS and VmHWM, in kB.
    fn memory(&self) -> (u64, u64) {
        let status = fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kb = |key: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        (kb("VmRSS:"), kb("VmHWM:"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn game_id(log: &[u8]) -> String {
    let (_, id) = starry::log::replay::read_genesis(log).unwrap();
    hex::encode(id)
}

/// Puts `log` in `home`'s games directory; its id.
fn file_game(home: &Path, log: &[u8]) -> String {
    let id = game_id(log);
    let games = home.join("games");
    fs::create_dir_all(&games).unwrap();
    fs::write(games.join(format!("{id}.jsonl")), log).unwrap();
    id
}

fn memory() {
    let dir = bench_dir("serve-100");
    let seed = starry::crypto::sha256(b"starry serve memory");
    let players = generate::identities(&dir.join("identities"), generate::NAMES.len()).unwrap();
    let plans = generate::plans(100, seed);
    let (_, made) = generate::archive(&dir.join("archive"), &players, &plans).unwrap();
    let home = players[0].0.clone();
    for m in &made {
        file_game(&home, &fs::read(&m.path).unwrap());
    }
    let s = Server::start(&home);
    let idle = s.memory();
    let (status, _, list) = s.request("GET", "/", "");
    assert_eq!(status, 200);
    let ids: Vec<String> = list
        .match_indices("href=\"/game/")
        .map(|(i, _)| list[i + 12..i + 76].to_string())
        .collect();
    for id in &ids {
        let (status, _, _) = s.request("GET", &format!("/game/{id}"), "");
        assert_eq!(status, 200);
    }
    let (rss, hwm) = s.memory();
    eprintln!(
        "serve memory: {} games in the directory, {} pages asked for: VmRSS {:.1} MB (at start {:.1} MB), peak VmHWM {:.1} MB",
        made.len(),
        ids.len() + 1,
        rss as f64 / 1024.0,
        idle.0 as f64 / 1024.0,
        hwm as f64 / 1024.0,
    );
}

#[divan::bench(sample_count = 50, sample_size = 1)]
fn game_page_sky_125(b: Bencher) {
    static SERVER: OnceLock<(Server, String)> = OnceLock::new();
    let (s, id) = SERVER.get_or_init(|| {
        let dir = bench_dir("serve-sky-125");
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/games");
        let whole = fs::read(examples.join("finished-5p-compound-coins.jsonl")).unwrap();
        let cut: Vec<u8> = whole
            .split_inclusive(|&b| b == b'\n')
            .take(125)
            .flatten()
            .copied()
            .collect();
        let home = dir.join("home");
        fs::create_dir_all(&home).unwrap();
        // Ben must act next (he reveals), as in the cli bench.
        fs::copy(
            examples.join("identities/ben/identity.json"),
            home.join("identity.json"),
        )
        .unwrap();
        let id = file_game(&home, &cut);
        let s = Server::start(&home);
        // Warm, as a page shown a second time is: the replay cache filled.
        assert_eq!(s.request("GET", &format!("/game/{id}"), "").0, 200);
        (s, id)
    });
    let path = format!("/game/{id}");
    b.bench(|| {
        let (status, _, page) = s.request("GET", &path, "");
        assert_eq!(status, 200);
        page.len()
    });
}

/// Anna (the server) and Ben (the CLI) in a Starry Night game of a wide
/// sky, remade when it ends.
struct Duel {
    anna: PathBuf,
    ben: PathBuf,
    server: Server,
    log: PathBuf,
    id: String,
}

fn starry(home: &Path, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .env("STARRY_HOME", home)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "starry {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

impl Duel {
    fn new() -> Duel {
        let dir = bench_dir("serve-duel");
        let (anna, ben) = (dir.join("anna"), dir.join("ben"));
        starry(
            &anna,
            &["id", "new", "--name", "Anna", "--email", "anna@example.org"],
        );
        starry(
            &ben,
            &["id", "new", "--name", "Ben", "--email", "ben@example.org"],
        );
        let server = Server::start(&anna);
        let mut d = Duel {
            anna,
            ben,
            server,
            log: PathBuf::new(),
            id: String::new(),
        };
        d.new_game();
        d
    }

    fn new_game(&mut self) {
        let out = starry(
            &self.anna,
            &[
                "new",
                "starry-night",
                "--players",
                "Anna <anna@example.org>, Ben <ben@example.org>",
                "--random-stars",
                "60",
                "--grid",
                "20x20",
                "--json",
            ],
        );
        let j: serde_json::Value = serde_json::from_str(&out).unwrap();
        self.log = PathBuf::from(j["file"].as_str().unwrap());
        self.id = j["status"]["game_id"].as_str().unwrap().to_string();
        let l = self.log.to_str().unwrap().to_string();
        starry(&self.ben, &["join", &l]);
        starry(&self.ben, &["ready", &l]);
        starry(&self.anna, &["ready", &l]);
    }

    fn status(&self) -> serde_json::Value {
        serde_json::from_str(&starry(
            &self.anna,
            &["status", self.log.to_str().unwrap(), "--json"],
        ))
        .unwrap()
    }

    /// Until it is Anna's move: her move and the entries the page shows.
    fn annas_turn(&mut self) -> (String, u64) {
        loop {
            let st = self.status();
            if st["over"] == true {
                self.new_game();
                continue;
            }
            let l = self.log.to_str().unwrap().to_string();
            if st["to_act_seat"] == 1 {
                starry(&self.ben, &["play", &l, "--auto"]);
                continue;
            }
            let moves: serde_json::Value =
                serde_json::from_str(&starry(&self.anna, &["moves", &l, "--json"])).unwrap();
            let m = moves["moves"][0]["move"].as_str().unwrap().to_string();
            return (m, st["entries"].as_u64().unwrap());
        }
    }
}

#[divan::bench(sample_count = 50, sample_size = 1)]
fn move_round_trip(b: Bencher) {
    static DUEL: OnceLock<Mutex<Duel>> = OnceLock::new();
    let duel = DUEL.get_or_init(|| Mutex::new(Duel::new()));
    let csrf = duel.lock().unwrap().server.csrf();
    b.with_inputs(|| {
        let mut d = duel.lock().unwrap();
        let (m, n) = d.annas_turn();
        let body = format!(
            "csrf={csrf}&entries={n}&what=play&move={}",
            m.replace(' ', "+").replace(',', "%2C")
        );
        (format!("/game/{}/act", d.id), body)
    })
    .bench_local_values(|(path, body)| {
        let d = duel.lock().unwrap();
        let (status, to, _) = d.server.request("POST", &path, &body);
        assert_eq!(status, 303);
        let (status, _, page) = d.server.request("GET", &to, "");
        assert_eq!(status, 200);
        assert!(!page.contains("notice error"), "the move was refused");
        page.len()
    });
}

/// The flood runs while this is true.
static FLOODING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// A home with 20 games, served.
fn flood_home(name: &str) -> Server {
    let dir = bench_dir(name);
    let seed = starry::crypto::sha256(b"starry serve flood");
    let players = generate::identities(&dir.join("identities"), generate::NAMES.len()).unwrap();
    let plans = generate::plans(20, seed);
    let (_, made) = generate::archive(&dir.join("archive"), &players, &plans).unwrap();
    let home = players[0].0.clone();
    for m in &made {
        file_game(&home, &fs::read(&m.path).unwrap());
    }
    Server::start(&home)
}

/// A stranger's flood against `port`, until the benchmarks end: 2,000
/// idle connections kept open (renewed at 2,000 a second, as the server
/// closes the oldest), and 200 that send a header line a second.
fn flood(port: u16) {
    use std::collections::VecDeque;
    use std::sync::atomic::Ordering;
    std::thread::spawn(move || {
        let mut idle = VecDeque::new();
        let mut slow: Vec<TcpStream> = Vec::new();
        let mut last_line = std::time::Instant::now();
        let mut line = 0u64;
        while FLOODING.load(Ordering::Acquire) {
            for _ in 0..200 {
                if let Ok(c) = TcpStream::connect(("127.0.0.1", port)) {
                    idle.push_back(c);
                }
                if idle.len() > 2_000 {
                    idle.pop_front();
                }
            }
            slow.retain_mut(|c| c.write_all(b"").is_ok());
            while slow.len() < 200 {
                let Ok(mut c) = TcpStream::connect(("127.0.0.1", port)) else {
                    break;
                };
                let _ = write!(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n");
                slow.push(c);
            }
            if last_line.elapsed() >= std::time::Duration::from_secs(1) {
                line += 1;
                slow.retain_mut(|c| write!(c, "X-Slow-{line}: a\r\n").is_ok());
                last_line = std::time::Instant::now();
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    });
}

#[divan::bench(sample_count = 50, sample_size = 1)]
fn home_page(b: Bencher) {
    static SERVER: OnceLock<Server> = OnceLock::new();
    let s = SERVER.get_or_init(|| flood_home("serve-home"));
    b.bench(|| {
        let (status, _, page) = s.request("GET", "/", "");
        assert_eq!(status, 200);
        page.len()
    });
}

#[divan::bench(sample_count = 50, sample_size = 1)]
fn home_page_under_flood(b: Bencher) {
    static SERVER: OnceLock<Server> = OnceLock::new();
    let s = SERVER.get_or_init(|| {
        let s = flood_home("serve-flood");
        flood(s.port);
        // The flood at full strength: the server's connections at their cap.
        std::thread::sleep(std::time::Duration::from_secs(3));
        s
    });
    b.bench(|| {
        let (status, _, page) = s.request("GET", "/", "");
        assert_eq!(status, 200);
        page.len()
    });
    let fds = fs::read_dir(format!("/proc/{}/fd", s.child.id()))
        .map(|d| d.count())
        .unwrap_or(0);
    let (rss, hwm) = s.memory();
    eprintln!(
        "under the flood: the server holds {fds} file descriptors, VmRSS {:.1} MB, peak VmHWM {:.1} MB",
        rss as f64 / 1024.0,
        hwm as f64 / 1024.0
    );
}
