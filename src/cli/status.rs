//! `omc-hooks status [--json]`: what is running in this project, per session.

use super::args::{fail, parse, usage_error};
use super::runs::{self, Guard, Run, SessionView};
use crate::env::Env;
use crate::state::Store;
use crate::terminal::one_line;
use crate::time::{iso, short_duration};
use serde_json::{Value, json};

pub(super) const HELP: &str = "\
Usage: omc-hooks status [--all] [--json] [--watch [--interval SECS]]

Shows, for the current project (the nearest directory holding .omc/ or .git), each session's
active persistent modes (iteration/max — the limit the Stop hook enforces — and the time left
of a time budget, age, time until the run goes stale after 2 h without activity, whether it
waits for your answer or was paused at a continuation limit, and why), running
skill guards (time and reinforcements left), the last tool failure, and runs suspended at the
end of a session. First, if the hooks cannot write the state directory (read-only, a refused
symlink, a full disk) or .omc/config.json has errors, it says so and how to fix it. For
export, each sink's pending, delivered and dropped events, its last delivery and last error,
and whether a flusher runs.

  --all            every project 'omc-hooks install' registered (in
                   ~/.local/share/omc-hooks/installs.json): per run its session, agent, mode,
                   iteration, last activity and whether it is suspended; projects that no
                   longer exist are dropped from the registry
  --json           one JSON object instead of the table (with --watch: one per line)
  --watch          redraw every --interval seconds (default 2) until interrupted (Ctrl-C)

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
    let p = match parse(args, &["json", "all", "watch"], &["interval"], false) {
        Ok(p) => p,
        Err(e) => return usage_error("status", HELP, &e),
    };
    let interval = match p.value("interval").map(str::parse::<f64>) {
        None => 2.0,
        Some(Ok(s)) if s.is_finite() && s >= 0.05 && p.flag("watch") => s,
        Some(Ok(_)) if !p.flag("watch") => {
            return usage_error("status", HELP, "--interval goes with --watch");
        }
        _ => {
            return usage_error(
                "status",
                HELP,
                "--interval is a number of seconds, at least 0.05",
            );
        }
    };
    let watch = p.flag("watch");
    let tty = watch && std::io::IsTerminal::is_terminal(&std::io::stdout());
    loop {
        let frame = match once(&p, env, tty) {
            Ok(f) => f,
            Err(code) => return code,
        };
        // A reader that went away (`status --watch | head`) ends the watch quietly.
        let mut out = std::io::stdout().lock();
        if std::io::Write::write_all(&mut out, frame.as_bytes())
            .and_then(|()| std::io::Write::flush(&mut out))
            .is_err()
            || !watch
        {
            return 0;
        }
        drop(out);
        std::thread::sleep(std::time::Duration::from_secs_f64(interval));
    }
}

/// One frame: the whole view, starting by clearing the screen when `clear` (a watched
/// terminal); `Err` holds the exit code of a failure already reported.
fn once(p: &super::args::Parsed, env: &Env, clear: bool) -> Result<String, i32> {
    use std::fmt::Write as _;
    let now = env.now_ms();
    let watch = p.flag("watch");
    let mut s = String::new();
    if clear {
        s.push_str("\x1b[H\x1b[2J");
    }
    if p.flag("all") {
        let all = super::status_all::collect(env)
            .map_err(|e| fail("status", &format!("cannot read the registry: {e}")))?;
        let out = super::status_all::to_json(&all, now);
        let _ = match (p.flag("json"), watch) {
            (true, true) => writeln!(s, "{out}"),
            (true, false) => writeln!(s, "{out:#}"),
            (false, _) => write!(
                s,
                "{}",
                crate::terminal::strip(&super::status_all::render(&all, now))
            ),
        };
        if watch && !p.flag("json") && !clear {
            s.push('\n');
        }
        return Ok(s);
    }
    let store = open_store("status", env)?;
    let config = crate::config::Config::read(&store).with_env(env);
    let writable = crate::state::health::probe(&crate::state::Root {
        project: store.project().to_path_buf(),
        omc: store.omc_dir().to_path_buf(),
    });
    let user_hooks = crate::user_hooks::report::inspect(env, Some(&store));
    let all = runs::scan(&store);
    // What every session start puts before the model: a note a subagent added is seen here.
    let priority = crate::capabilities::memory::notepad::read(&store)
        .map(|t| crate::capabilities::memory::notepad::priority_lines(&t))
        .unwrap_or_default();
    // Runs that ended in the last day, newest first, each with its reason.
    let mut ended: Vec<(&SessionView, &runs::Run)> = all
        .iter()
        .flat_map(|v| v.ended.iter().map(move |r| (v, r)))
        .filter(|(_, r)| r.ended_recently(now))
        .collect();
    ended.sort_by_key(|(_, r)| std::cmp::Reverse(r.ended_ms()));
    let views: Vec<SessionView> = all
        .iter()
        .filter(|v| v.worth_showing(now))
        .cloned()
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
            "ended": ended.iter().map(|(v, r)| ended_json(v, r, &config)).collect::<Vec<_>>(),
            "priority_notes": priority,
            "user_hooks": crate::user_hooks::report::status_json(&user_hooks),
            "export": crate::export::report::json(&store),
        });
        let _ = if watch {
            writeln!(s, "{out}")
        } else {
            writeln!(s, "{out:#}")
        };
        return Ok(s);
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
    if !ended.is_empty() {
        text.push_str("\nEnded in the last 24 h:\n");
        for (v, r) in &ended {
            text.push_str(&format!(
                "  {:<13}{:<16}{:<18}{}  {}\n",
                r.mode,
                format!(
                    "iter {}/{}",
                    r.state.iteration,
                    crate::modes::effective_max(&r.state, &config)
                ),
                format!("ended {}", ago(r.ended_ms(), now)),
                crate::modes::end_reason_text(&r.state),
                v.id()
                    .map(|id| format!("(session {id})"))
                    .unwrap_or_default(),
            ));
        }
        text.push_str(
            "  'omc-hooks report SESSION/MODE' shows a run in full; 'report --all' lists the last 7 days.\n",
        );
    }
    if !priority.is_empty() {
        text.push_str(
            "\nPriority Context (.omc/notepad.md), put before the model at every session start:\n",
        );
        for line in &priority {
            text.push_str(&format!("  - {line}\n"));
        }
    }
    let hook_lines = crate::user_hooks::report::status_lines(&user_hooks);
    if !hook_lines.is_empty() {
        text.push('\n');
        for line in hook_lines {
            text.push_str(&line);
            text.push('\n');
        }
    }
    text.push_str(&crate::export::report::text(&store, now));
    // Paths, sink errors from a receiver and hooks.toml names are shown too: no escape
    // sequence of theirs reaches the terminal (the runs' own texts are cleaned as read).
    s.push_str(&crate::terminal::strip(&text));
    if watch && !clear {
        s.push('\n');
    }
    Ok(s)
}

fn ended_json(v: &SessionView, r: &Run, config: &crate::config::Config) -> Value {
    json!({
        "session_id": v.id(),
        "mode": r.mode,
        "ended_reason": r.state.ended_reason,
        "verified": r.state.verified,
        "reason": crate::modes::end_reason_text(&r.state),
        "ended_at": r.state.ended_at,
        "iteration": r.state.iteration,
        "max_iterations": crate::modes::effective_max(&r.state, config),
        "tokens_used": r.state.tokens_used,
        "max_tokens": (r.state.max_tokens > 0).then_some(r.state.max_tokens),
        "cost_usd": cost_usd(r, config),
        "max_cost_usd": (r.state.max_cost_usd > 0.0).then_some(r.state.max_cost_usd),
        "prompt": r.state.prompt,
    })
}

fn run_json(r: &Run, now: i64, config: &crate::config::Config) -> Value {
    json!({
        "tokens_used": r.state.tokens_used,
        "max_tokens": (r.state.max_tokens > 0).then_some(r.state.max_tokens),
        "cost_usd": cost_usd(r, config),
        "max_cost_usd": (r.state.max_cost_usd > 0.0).then_some(r.state.max_cost_usd),
        "pause_kind": r.state.pause_kind,
        "mode": r.mode,
        "iteration": r.state.iteration,
        "max_iterations": crate::modes::effective_max(&r.state, config),
        "awaiting_input_at": r.state.awaiting_input_at,
        "paused_at": r.state.paused_at,
        "paused_reason": r.state.paused_reason,
        "continuations_without_progress": r.state.consecutive_blocks,
        "max_minutes": (r.state.max_minutes > 0).then_some(r.state.max_minutes),
        "deadline_at": r.state.deadline_at.as_ref().filter(|_| r.state.max_minutes > 0),
        "time_left_ms": crate::modes::time_left_ms(&r.state, now).map(|ms| ms.max(0)),
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

/// The run's cost at the prices in force (null: unknown or nothing spent).
fn cost_usd(r: &Run, config: &crate::config::Config) -> Option<f64> {
    crate::modes::run_cost(&r.state, config).or(r.state.cost_usd)
}

/// ` · 120k tokens $0.42` for a run that spent tokens and has no budget saying so already.
fn spent_suffix(r: &Run) -> String {
    let s = &r.state;
    let mut out = String::new();
    if s.max_tokens == 0 && s.tokens_used > 0 {
        out.push_str(&format!(
            " · {} tokens",
            crate::state::usage::tokens_text(s.tokens_used)
        ));
    }
    if s.max_cost_usd == 0.0
        && let Some(c) = crate::modes::cost_text(s)
    {
        out.push_str(if out.is_empty() { " · " } else { " " });
        out.push_str(&c);
    }
    out
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
                Some(ms) if ms > 0 && r.state.paused_reason.is_some() => format!(
                    "paused: {}",
                    r.state.paused_reason.as_deref().unwrap_or_default()
                ),
                Some(ms) if ms > 0 => format!("stale in {}", short_duration(ms)),
                _ => "STALE (ignored by Stop)".to_string(),
            };
            let phase = r
                .state
                .phase
                .as_deref()
                .map(|p| format!(" [{}]", one_line(p, 40)))
                .unwrap_or_default();
            s.push_str(&format!(
                "  {:<13}{:<16}{:<18}{:<26}{}\n",
                r.mode,
                format!(
                    "iter {}/{}{}{}{phase}",
                    r.state.iteration,
                    crate::modes::effective_max(&r.state, config),
                    crate::modes::budget_suffix(&r.state, now),
                    spent_suffix(r)
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
                    one_line(&g.skill, 60),
                    g.level
                        .as_deref()
                        .map(|l| format!(" ({})", one_line(l, 20)))
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
                one_line(&f.tool_name, 40),
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
            let why = r
                .state
                .paused_reason
                .as_deref()
                .map(|why| format!("(paused: {why}) "))
                .unwrap_or_default();
            s.push_str(&format!(
                "  {:<13}{:<16}{:<18}{why}{}\n",
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
