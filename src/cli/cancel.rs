//! `omc-hooks cancel [--session ID | --all]`: ends runs from the keyboard, exactly as the
//! `cancel` keyword does inside a session ([`crate::capabilities::cancel::cancel_scope`]).

use super::args::{fail, parse, usage_error};
use super::runs::{self, SessionView};
use super::status::open_store;
use crate::capabilities::cancel::{Cancelled, cancel_scope};
use crate::capabilities::run_events::around;
use crate::env::Env;
use crate::state::{Scope, SessionId, Store};

pub(super) const HELP: &str = "\
Usage: omc-hooks cancel [--session ID | --all]

Ends every active persistent mode (ralph, autopilot, ultrawork, …) and releases every skill
guard, so the next Stop is allowed — the same as typing 'cancel' in the session.

  (no option)      the session that has something active; if several have, they are listed
                   and you choose with --session ID or --all
  --session ID     that session only
  --all            every session, and the session-less state

'omc-hooks status' shows the sessions and what is active in them. Exit status 1 when
something could not be ended (the state could not be written; the message says why).";

pub(super) fn run(args: &[String], env: &Env) -> i32 {
    let p = match parse(args, &["all"], &["session"], false) {
        Ok(p) => p,
        Err(e) => return usage_error("cancel", HELP, &e),
    };
    if p.flag("all") && p.value("session").is_some() {
        return usage_error("cancel", HELP, "choose one of --session ID and --all");
    }
    let store = match open_store("cancel", env) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let now_iso = crate::time::iso(env.now_ms());
    if let Some(raw) = p.value("session") {
        let Some(id) = SessionId::parse(raw) else {
            return fail(
                "cancel",
                &format!(
                    "'{raw}' is not a session id (letters, digits, '_' and '-'); \
                     'omc-hooks status' lists the sessions"
                ),
            );
        };
        if !store.dir(&Scope::Session(id.clone())).is_dir() {
            return fail(
                "cancel",
                &format!(
                    "no session '{id}' in {}; 'omc-hooks status' lists the sessions",
                    store.project().display()
                ),
            );
        }
        let scope = Scope::Session(id.clone());
        let c = around(&store, &scope, env, || {
            cancel_scope(&store, &scope, &now_iso)
        });
        return report(&format!("session {id}"), &c);
    }
    let views = runs::scan(&store);
    if p.flag("all") {
        let mut any = false;
        let mut code = 0;
        for v in &views {
            let c = around(&store, &v.scope, env, || {
                cancel_scope(&store, &v.scope, &now_iso)
            });
            if !c.is_empty() {
                code = code.max(report(&v.label(), &c));
                any = true;
            }
        }
        if !any {
            nothing(&store);
        }
        return code;
    }
    let live: Vec<&SessionView> = views.iter().filter(|v| v.cancellable()).collect();
    match live.as_slice() {
        [] => {
            nothing(&store);
            0
        }
        [one] => {
            let c = around(&store, &one.scope, env, || {
                cancel_scope(&store, &one.scope, &now_iso)
            });
            report(&one.label(), &c)
        }
        several => {
            let mut msg = format!(
                "{} sessions have something active; choose one with --session ID, or cancel them all with --all:\n",
                several.len()
            );
            for v in several {
                let mut what: Vec<String> = v
                    .active
                    .iter()
                    .chain(&v.suspended)
                    .filter(|r| r.state.active)
                    .map(|r| r.mode.to_string())
                    .collect();
                if v.guard_file {
                    what.push("skill guards".into());
                }
                let id = v.id().unwrap_or("(no session; only --all reaches it)");
                msg.push_str(&format!("  {id:<40} {}\n", what.join(", ")));
            }
            eprint!("omc-hooks cancel: {msg}");
            1
        }
    }
}

/// Prints what a cancel did; 1 when something could not be ended.
fn report(label: &str, c: &Cancelled) -> i32 {
    if c.is_empty() {
        println!("Nothing active in {label}; nothing cancelled.");
        return 0;
    }
    let mut parts = Vec::new();
    if !c.modes.is_empty() {
        parts.push(c.modes.join(", "));
    }
    if c.skill_guards {
        parts.push("skill guards released".into());
    }
    if !parts.is_empty() {
        println!("Cancelled in {label}: {}.", parts.join("; "));
    }
    for n in &c.notes {
        println!("  ({n})");
    }
    if c.failed.is_empty() {
        return 0;
    }
    eprintln!(
        "omc-hooks cancel: NOT cancelled in {label}: {}. {}",
        c.failed.join("; "),
        c.what_now()
    );
    1
}

fn nothing(store: &Store) {
    println!(
        "Nothing to cancel: no active runs in {}.",
        store.project().display()
    );
}
