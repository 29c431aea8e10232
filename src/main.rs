//! Thin entry point: parse arguments, run, print, map errors to exit codes.

use clap::Parser;

fn main() {
    let cli = starry::cli::Cli::parse();
    let json = cli.json;
    match starry::app::run(cli) {
        Ok(out) => {
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&out.json).expect("JSON prints")
                );
            } else if !out.text.is_empty() {
                println!("{}", out.text);
            }
            // The main work was done, something after it failed (a mail not
            // sent, a commit not made): say so where errors go.
            if let Some(w) = &out.warning {
                eprintln!("error: {w}");
            }
            std::process::exit(out.code);
        }
        Err(e) => {
            let code = e.exit_code();
            if json {
                let v = serde_json::json!({ "error": { "code": code, "message": e.to_string() } });
                println!("{}", serde_json::to_string_pretty(&v).expect("JSON prints"));
            }
            eprintln!("error: {e}");
            std::process::exit(code);
        }
    }
}
