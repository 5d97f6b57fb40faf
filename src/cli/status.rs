//! `omc-hooks status [--json]`: what is running in this project, per session.

use super::args::{fail, parse, usage_error};
use super::runs::{self, Guard, Run, SessionView};
use crate::env::Env;
use crate::state::Store;
use crate::time::{iso, short_duration};
use serde_json::{Value, json};

pub(super) const HELP: &str = "\
Usage: omc-hooks status [--json]

Shows, for the current project (the nearest directory holding .omc/ or .git), each session's
active persistent modes (iteration/max — the limit the Stop hook enforces — age, time until
the run goes stale after 2 h without activity, whether it waits for your answer), running
skill guards (time and reinforcements left), the last tool failure, and runs suspended at the
end of a session. First, if the hooks cannot write the state directory (read-only, a refused
symlink, a full disk) or .omc/config.json has errors, it says so and how to fix it.

  --json    one JSON object instead of the table

Stop a run with 'omc-hooks cancel'.";

/// Opens the project's store the way the hooks do (cwd → project root), or reports why not.
pub(super) fn open_store(command: &str, env: &Env) -> Result<Store, i32> {
    crate::state::root::resolve(env, None)
        .map(|root| Store::new(root, env.now_ms()))
        .ok_or_else(|| {
            fail(
                command,
                "cannot tell which project this is; run it inside the project directory",
            )
        })
}

pub(super) fn run(args: &[String], env: &Env) -> i32 {
    let p = match parse(args, &["json"], &[], false) {
        Ok(p) => p,
        Err(e) => return usage_error("status", HELP, &e),
    };
    let store = match open_store("status", env) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let now = env.now_ms();
    let config = crate::config::Config::read(&store).with_env(env);
    let writable = crate::state::health::probe(&crate::state::Root {
        project: store.project().to_path_buf(),
        omc: store.omc_dir().to_path_buf(),
    });
    let views: Vec<SessionView> = runs::scan(&store)
        .into_iter()
        .filter(|v| v.worth_showing(now))
        .collect();
    if p.flag("json") {
        let live = views.iter().any(|v| {
            v.active.iter().any(|r| !r.is_stale(now)) || v.guards.iter().any(|g| !g.is_expired(now))
        });
        let out = json!({
            "project": store.project(),
            "state_dir": store.omc_dir(),
            "now": iso(now),
            "active": live,
            "state_writable": writable.is_ok(),
            "write_problem": writable.as_ref().err().map(|p| json!({"cause": p.cause(), "fix": p.fix()})),
            "config_problems": config.problems().iter().map(|p| json!({
                "key": p.key, "problem": p.problem, "fix": p.fix,
            })).collect::<Vec<_>>(),
            "sessions": views.iter().map(|v| session_json(v, now, &config)).collect::<Vec<_>>(),
        });
        println!("{out:#}");
        return 0;
    }
    let mut text = String::new();
    if let Err(p) = &writable {
        text.push_str(&format!(
            "The hooks cannot write state: {}. Modes do not start and checkpoints are not saved.\n  fix: {}\n\n",
            p.cause(),
            p.fix()
        ));
    }
    if let (Some(first), Some(path)) = (config.problems().first(), config.path()) {
        text.push_str(&format!(
            "{} has {} error(s), first {}; the hooks use the rest. 'omc-hooks doctor' lists them.\n\n",
            path.display(),
            config.problems().len(),
            first.summary()
        ));
    }
    text.push_str(&render_text(&store, &views, now, &config));
    print!("{text}");
    0
}

fn run_json(r: &Run, now: i64, config: &crate::config::Config) -> Value {
    json!({
        "mode": r.mode,
        "iteration": r.state.iteration,
        "max_iterations": crate::modes::effective_max(&r.state, config),
        "awaiting_input_at": r.state.awaiting_input_at,
        "prompt": r.state.prompt,
        "phase": r.state.phase,
        "started_at": r.state.started_at,
        "age_ms": r.started_ms.map(|t| now - t),
        "last_activity_at": r.last_activity_ms.map(iso),
        "stale": r.is_stale(now),
        "stale_in_ms": r.stale_in_ms(now).map(|ms| ms.max(0)),
        "suspended_at": r.state.suspended_at,
    })
}

fn guard_json(g: &Guard, now: i64) -> Value {
    json!({
        "skill": g.skill,
        "level": g.level,
        "expires_at": g.expires_ms.map(iso),
        "expires_in_ms": g.expires_ms.map(|t| (t - now).max(0)),
        "expired": g.is_expired(now),
        "reinforcements": g.reinforcements,
        "max_reinforcements": g.max_reinforcements,
        "reinforcements_left": match (g.reinforcements, g.max_reinforcements) {
            (Some(r), Some(m)) => Some(m.saturating_sub(r)),
            _ => None,
        },
    })
}

fn session_json(v: &SessionView, now: i64, config: &crate::config::Config) -> Value {
    json!({
        "session_id": v.id(),
        "agent": v.agent,
        "modes": v.active.iter().map(|r| run_json(r, now, config)).collect::<Vec<_>>(),
        "skill_guards": v.guards.iter().map(|g| guard_json(g, now)).collect::<Vec<_>>(),
        "last_failure": v.failure.as_ref().map(|f| json!({
            "tool_name": f.tool_name,
            "error": f.error,
            "retry_count": f.retry_count,
            "timestamp": f.timestamp_ms.map(iso),
            "age_ms": f.timestamp_ms.map(|t| now - t),
        })),
        "suspended": v.suspended.iter().map(|r| run_json(r, now, config)).collect::<Vec<_>>(),
        "unreadable": v.unreadable,
    })
}

/// Cuts `s` to one line of at most `max` characters.
fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let mut t: String = flat.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

fn ago(t: Option<i64>, now: i64) -> String {
    t.map_or("?".into(), |t| format!("{} ago", short_duration(now - t)))
}

fn render_text(
    store: &Store,
    views: &[SessionView],
    now: i64,
    config: &crate::config::Config,
) -> String {
    let mut s = String::new();
    if views.is_empty() {
        s.push_str(&format!(
            "No active runs in {}.\n",
            store.project().display()
        ));
        return s;
    }
    s.push_str(&format!(
        "omc-hooks status — {} ({})\n",
        store.project().display(),
        crate::time::human(now)
    ));
    for v in views {
        s.push_str(&format!("\n{}\n", v.label()));
        for r in &v.active {
            let stale = match r.stale_in_ms(now) {
                Some(ms) if ms > 0 && r.state.awaiting_input_at.is_some() => {
                    "waiting for your answer".to_string()
                }
                Some(ms) if ms > 0 => format!("stale in {}", short_duration(ms)),
                _ => "STALE (ignored by Stop)".to_string(),
            };
            let phase = r
                .state
                .phase
                .as_deref()
                .map(|p| format!(" [{p}]"))
                .unwrap_or_default();
            s.push_str(&format!(
                "  {:<13}{:<16}{:<18}{:<26}{}\n",
                r.mode,
                format!(
                    "iter {}/{}{phase}",
                    r.state.iteration,
                    crate::modes::effective_max(&r.state, config)
                ),
                format!("started {}", ago(r.started_ms, now)),
                stale,
                quoted(&r.state.prompt),
            ));
        }
        for g in &v.guards {
            let time = match g.expires_ms {
                _ if g.is_expired(now) => "expired".to_string(),
                Some(t) => format!("{} left", short_duration(t - now)),
                None => "no expiry".to_string(),
            };
            let reinf = match (g.reinforcements, g.max_reinforcements) {
                (Some(r), Some(m)) => format!("{} of {m} reinforcements left", m.saturating_sub(r)),
                (Some(r), None) => format!("{r} reinforcements used"),
                _ => String::new(),
            };
            s.push_str(&format!(
                "  {:<13}{:<16}{:<18}{}\n",
                "skill guard",
                format!(
                    "{}{}",
                    g.skill,
                    g.level
                        .as_deref()
                        .map(|l| format!(" ({l})"))
                        .unwrap_or_default()
                ),
                time,
                reinf
            ));
        }
        if let Some(f) = &v.failure {
            s.push_str(&format!(
                "  {:<13}{} failed {}× (last {}): {}\n",
                "last failure",
                f.tool_name,
                f.retry_count,
                ago(f.timestamp_ms, now),
                one_line(&f.error, 80)
            ));
        }
        if !v.unreadable.is_empty() {
            s.push_str(&format!(
                "  {:<13}{} (not valid; 'omc-hooks doctor' says what to do)\n",
                "unreadable",
                v.unreadable.join(", ")
            ));
        }
        for r in &v.suspended {
            s.push_str(&format!(
                "  {:<13}{:<16}{:<18}{}\n",
                "suspended",
                r.mode,
                format!(
                    "iter {}/{}",
                    r.state.iteration,
                    crate::modes::effective_max(&r.state, config)
                ),
                quoted(&r.state.prompt)
            ));
        }
    }
    s.push_str("\nCancel with 'omc-hooks cancel' (add --session ID or --all when several sessions are listed).\n");
    s
}

fn quoted(prompt: &str) -> String {
    if prompt.trim().is_empty() {
        String::new()
    } else {
        format!("\"{}\"", one_line(prompt, 60))
    }
}
