//! `starry id export` and `starry id import`: the identity file carried to
//! another home (or into the web player) in the one format both keep; bad
//! files, overwrites and terminals refused without ever showing the secret.

use std::path::Path;

use serde_json::Value;
use starry::crypto::identity::Identity;

use crate::players::{Player, Players, stderr, stdout};

fn someone_at(home: &Path) -> Player {
    Player {
        name: "Someone".into(),
        email: "someone@example.org".into(),
        home: home.to_path_buf(),
        env: Vec::new(),
    }
}

fn secret_of(p: &Player) -> String {
    let file: Value =
        serde_json::from_slice(&std::fs::read(p.home.join("identity.json")).unwrap()).unwrap();
    file["secret"].as_str().unwrap().to_string()
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Refused: a non-zero exit, words on standard error, and no secret in
/// anything printed.
fn refused(out: &std::process::Output, says: &str, secrets: &[&str]) {
    let (o, e) = (stdout(out), stderr(out));
    assert!(!out.status.success(), "not refused: {o}{e}");
    assert!(e.contains(says), "expected `{says}` in: {e}");
    for s in secrets {
        assert!(
            !o.contains(s) && !e.contains(s),
            "the secret is shown: {o}{e}"
        );
    }
}

#[test]
fn exported_identity_imports_elsewhere_as_the_same_one() {
    let ps = Players::new(1);
    let anna = &ps.p[0];
    let out = anna.run(&["id", "export"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Byte for byte the core's file text, which the web player stores and
    // exports (crates/web's identity_new / identity_read reply `file`).
    let kept = std::fs::read(anna.home.join("identity.json")).unwrap();
    let id = Identity::from_file("identity.json".into(), &kept).unwrap();
    assert_eq!(
        String::from_utf8(out.stdout.clone()).unwrap(),
        id.file_text()
    );

    let file = ps.dir.path().join("anna-identity.json");
    let written = anna.json(&["id", "export", "--output", file.to_str().unwrap(), "--json"]);
    assert_eq!(written["file"], file.to_str().unwrap());
    assert_eq!(std::fs::read(&file).unwrap(), out.stdout);
    #[cfg(unix)]
    assert_eq!(mode(&file), 0o600);

    let laptop = someone_at(&ps.dir.path().join("laptop"));
    let imported = laptop.json(&["id", "import", file.to_str().unwrap(), "--json"]);
    assert_eq!(imported["outcome"], "installed");
    #[cfg(unix)]
    assert_eq!(mode(&laptop.home.join("identity.json")), 0o600);
    let shown = |p: &Player| {
        let mut v = p.json(&["id", "show", "--json"]);
        v.as_object_mut().unwrap().remove("file");
        v
    };
    assert_eq!(shown(&laptop), shown(anna));
    assert_eq!(shown(anna)["key"], hex::encode(id.public_key()));

    // The same identity again, from standard input: nothing changes.
    let again = laptop.run_stdin(&out.stdout, &["id", "import", "-"]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stdout(&again).contains("nothing changed"),
        "{}",
        stdout(&again)
    );
    assert!(!laptop.home.join("identity.json.old").exists());
}

#[test]
fn export_never_overwrites_and_never_prints_to_a_terminal() {
    let ps = Players::new(1);
    let anna = &ps.p[0];
    let secret = secret_of(anna);
    let file = ps.dir.path().join("taken.json");
    std::fs::write(&file, "mine").unwrap();
    let out = anna.run(&["id", "export", "--output", file.to_str().unwrap()]);
    refused(&out, "already exists", &[&secret]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");

    let out = anna.run(&["id", "export", "--json"]);
    refused(&out, "--output FILE", &[&secret]);

    // Standard output a terminal: `script` gives the command one.
    let Ok(script) = std::process::Command::new("script")
        .args([
            "-qec",
            &format!("{} id export", env!("CARGO_BIN_EXE_starry")),
            "/dev/null",
        ])
        .env("STARRY_HOME", &anna.home)
        .output()
    else {
        eprintln!("skipped the terminal case: no `script` command");
        return;
    };
    let shown = String::from_utf8_lossy(&script.stdout);
    assert!(shown.contains("standard output is a terminal"), "{shown}");
    assert!(shown.contains("--output FILE"), "{shown}");
    assert!(!shown.contains(&secret), "{shown}");
}

#[test]
fn bad_identity_files_are_refused_and_nothing_changes() {
    let ps = Players::new(2);
    let (anna, ben) = (&ps.p[0], &ps.p[1]);
    let secret = secret_of(anna);
    let good: Value =
        serde_json::from_slice(&std::fs::read(anna.home.join("identity.json")).unwrap()).unwrap();
    let with = |field: &str, value: Value| {
        let mut v = good.clone();
        v[field] = value;
        v.to_string()
    };
    let short = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, [7u8; 31]);
    let cases = [
        (format!("{{\"secret\": \"{secret}\""), "ends too early"),
        (format!("{{\"secret\": \"{secret}\" nonsense}}"), "bad JSON"),
        (with("secret", short.into()), "not 32 bytes"),
        (with("secret", format!("{secret}x").into()), "not 32 bytes"),
        (
            with("name", "Anna\u{1b}[2J".into()),
            "not a starry identity file",
        ),
        (
            with("name", "An\u{202e}na".into()),
            "not a starry identity file",
        ),
        (
            with("email", "not an address".into()),
            "not a starry identity file",
        ),
        (with("format", "starry-identity/9".into()), "unknown format"),
        (with("extra", "x".into()), "wrong fields"),
        ("x".repeat(20_000), "more than"),
    ];
    let before = std::fs::read(ben.home.join("identity.json")).unwrap();
    for (i, (text, says)) in cases.iter().enumerate() {
        let file = ps.dir.path().join(format!("bad{i}.json"));
        std::fs::write(&file, text).unwrap();
        let out = ben.run(&["id", "import", "--replace", file.to_str().unwrap()]);
        refused(&out, says, &[&secret]);
        assert!(
            stderr(&out).contains(file.to_str().unwrap()),
            "{}",
            stderr(&out)
        );
        assert_eq!(
            std::fs::read(ben.home.join("identity.json")).unwrap(),
            before
        );
        let names: Vec<_> = std::fs::read_dir(&ben.home)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.contains("identity"))
            .collect();
        assert_eq!(names, ["identity.json"], "case {i}");
    }
}

#[test]
fn another_identity_is_replaced_only_when_asked_and_kept_as_a_backup() {
    let ps = Players::new(2);
    let (anna, ben) = (&ps.p[0], &ps.p[1]);
    let (anna_secret, ben_secret) = (secret_of(anna), secret_of(ben));
    let file = ps.dir.path().join("anna.json");
    anna.json(&["id", "export", "--output", file.to_str().unwrap(), "--json"]);
    let bens = std::fs::read(ben.home.join("identity.json")).unwrap();

    let out = ben.run(&["id", "import", file.to_str().unwrap()]);
    refused(&out, "--replace", &[&anna_secret, &ben_secret]);
    assert!(stderr(&out).contains("ben@example.org"), "{}", stderr(&out));
    assert_eq!(std::fs::read(ben.home.join("identity.json")).unwrap(), bens);

    let r = ben.json(&[
        "id",
        "import",
        "--replace",
        file.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(r["outcome"], "replaced");
    let backup = ben.home.join("identity.json.old");
    assert_eq!(r["backup"], backup.to_str().unwrap());
    assert_eq!(std::fs::read(&backup).unwrap(), bens);
    #[cfg(unix)]
    {
        assert_eq!(mode(&backup), 0o600);
        assert_eq!(mode(&ben.home.join("identity.json")), 0o600);
    }
    assert_eq!(
        ben.json(&["id", "show", "--json"])["key"],
        anna.json(&["id", "show", "--json"])["key"]
    );
    // The text tells where the old one is; a second replacement keeps both.
    std::fs::copy(&backup, ps.dir.path().join("ben.json")).unwrap();
    let out = ben.run(&[
        "id",
        "import",
        "--replace",
        ps.dir.path().join("ben.json").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let second = ben.home.join("identity.json.old-2");
    assert!(
        stdout(&out).contains(second.to_str().unwrap()),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains(&ben_secret) && !stdout(&out).contains(&anna_secret));
    assert_eq!(std::fs::read(&backup).unwrap(), bens);
    assert_eq!(
        std::fs::read(&second).unwrap(),
        std::fs::read(&file).unwrap()
    );
    assert_eq!(std::fs::read(ben.home.join("identity.json")).unwrap(), bens);
}
