//! `omc-hooks trust`: lets the hooks of a project's `.omc/hooks.toml` run, by recording the
//! SHA-256 of its exact bytes in the user's `trusted.json`; `--revoke` forgets it, `--list`
//! shows every trusted file and whether it still has the trusted bytes.

use super::args::{fail, parse, usage_error};
use crate::env::Env;
use crate::state::{Store, root};
use crate::user_hooks::config::{self, Kind, Origin};
use crate::user_hooks::trust;
use std::path::PathBuf;

pub(super) const HELP: &str = "\
Usage: omc-hooks trust [--project DIR] [--revoke | --list]

Hooks in a project's .omc/hooks.toml run only once you trust that exact file: this command
shows its entries and records the SHA-256 of its bytes in your trusted.json
($XDG_CONFIG_HOME/omc-hooks, else ~/.config/omc-hooks). Any change to the file, by anyone,
makes it untrusted again until you run this again. Your own hooks.toml (next to trusted.json)
needs no trust.

Trust covers the file, not the scripts it calls: read those too.

  --project DIR   the project (default: the one the current directory is in)
  --revoke        forget the trust for this project's file
  --list          every trusted file, and whether it still has the trusted bytes";

pub(super) fn run(args: &[String], env: &Env) -> i32 {
    let p = match parse(args, &["revoke", "list"], &["project"], false) {
        Ok(p) => p,
        Err(e) => return usage_error("trust", HELP, &e),
    };
    if p.flag("revoke") && p.flag("list") {
        return usage_error("trust", HELP, "--revoke and --list do not go together");
    }
    if p.flag("list") {
        if p.value("project").is_some() {
            return usage_error("trust", HELP, "--list shows every project; drop --project");
        }
        return list(env);
    }
    let mut env = env.clone();
    if let Some(dir) = p.value("project") {
        match PathBuf::from(dir).canonicalize() {
            Ok(d) if d.is_dir() => env.project_dir = Some(d),
            _ => return fail("trust", &format!("{dir} is not a directory")),
        }
    }
    let Some(root) = root::resolve(&env, None) else {
        return fail(
            "trust",
            "cannot tell which project this is; run it in the project or pass --project DIR",
        );
    };
    let store = Store::new(root, env.now_ms());
    let path = store.omc_dir().join(config::FILE_NAME);
    if p.flag("revoke") {
        return match trust::revoke(&env, &path) {
            Ok(true) => {
                println!(
                    "{} is no longer trusted; its hooks do not run.",
                    path.display()
                );
                0
            }
            Ok(false) => {
                println!("{} was not trusted.", path.display());
                0
            }
            Err(e) => fail("trust", &format!("cannot update the trust store: {e}")),
        };
    }
    let bytes = match store.read_person_file(config::FILE_NAME) {
        Ok(Some(b)) if b.len() <= config::MAX_FILE_BYTES => b,
        Ok(Some(_)) => {
            return fail(
                "trust",
                &format!("{} is larger than 256 KiB; not trusted", path.display()),
            );
        }
        Ok(None) => {
            return fail(
                "trust",
                &format!("there is no {}: nothing to trust", path.display()),
            );
        }
        Err(e) => {
            return fail(
                "trust",
                &format!("cannot read {}: {e}; not trusted", path.display()),
            );
        }
    };
    // Hash and show exactly the bytes that are recorded.
    let file = config::parse_file(Origin::Project, path.clone(), &bytes);
    print!("{}", describe(&file));
    match trust::record(&env, &path, &file.sha256) {
        Ok(store_path) => {
            println!(
                "\nTrusted (recorded in {}). Any change to the file makes it untrusted again.",
                store_path.display()
            );
            0
        }
        Err(e) => fail("trust", &format!("cannot record the trust: {e}")),
    }
}

/// What is being trusted, entry by entry.
fn describe(file: &config::HookFile) -> String {
    let mut s = format!("{} (sha256 {}):\n", file.path.display(), &file.sha256[..16]);
    if file.entries.is_empty() {
        s.push_str("  no usable entries\n");
    }
    for e in &file.entries {
        let what = match &e.kind {
            Kind::Script { command } => format!("runs: {command}"),
            Kind::Webhook { url, .. } => format!("calls: {url}"),
            Kind::Export { sink_type } => format!(
                "{sink_type} to {}",
                e.raw
                    .get("url")
                    .or_else(|| e.raw.get("endpoint"))
                    .and_then(|v| v.as_str())
                    .unwrap_or("the OTEL_EXPORTER_OTLP_* endpoint")
            ),
        };
        s.push_str(&format!(
            "  entry {} (line {}){}: {} — {what}\n",
            e.index,
            e.line,
            if e.enabled { "" } else { " [enabled = false]" },
            e.events.join(", ")
        ));
    }
    for p in &file.problems {
        s.push_str(&format!("  note: {}\n", p.describe()));
    }
    s
}

fn list(env: &Env) -> i32 {
    let t = trust::read(env);
    if t.files.is_empty() {
        println!("No project hooks file is trusted.");
        return 0;
    }
    for f in &t.files {
        let now = match std::fs::symlink_metadata(&f.path) {
            Ok(m) if m.is_file() => match std::fs::read(&f.path) {
                Ok(b) if config::sha256_hex(&b) == f.sha256 => "unchanged, runs",
                Ok(_) => "CHANGED since, does not run",
                Err(_) => "unreadable",
            },
            Ok(_) => "not a regular file, does not run",
            Err(_) => "missing",
        };
        println!("{}  trusted {}  {now}", f.path, f.trusted_at);
    }
    0
}
