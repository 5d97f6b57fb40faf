//! `omc-hooks status --all`: the runs of every project this user installed into, read from the
//! registry of installs ([`super::registry`]); entries of projects that no longer exist are
//! pruned on the way. One row per persistent-mode run (active or suspended, or ended in the
//! last day with its reason).

use super::registry;
use super::runs::{self, Run};
use crate::env::Env;
use crate::state::{Root, Store};
use crate::time::{iso, short_duration};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// One run of one session of one project.
pub(super) struct Row {
    pub(super) session: Option<String>,
    pub(super) agent: String,
    /// The terminal the session runs in (`TERM_PROGRAM`, tty), as its `session.json` says.
    pub(super) terminal: Terminal,
    pub(super) run: Run,
}

/// A project and its runs.
pub(super) struct ProjectRuns {
    pub(super) project: PathBuf,
    pub(super) rows: Vec<Row>,
}

/// Everything `status --all` shows.
pub(super) struct All {
    pub(super) projects: Vec<ProjectRuns>,
    /// Registry entries dropped because their project is gone.
    pub(super) pruned: Vec<PathBuf>,
    /// Installs in the user's settings (every project; their projects are not listed).
    pub(super) user_installs: usize,
    pub(super) registry: Option<PathBuf>,
}

/// Where a session runs: its terminal program and device, when recorded.
#[derive(Debug, Clone, Default)]
pub(super) struct Terminal {
    pub(super) program: Option<String>,
    pub(super) tty: Option<String>,
    /// The terminal's own locator (`tmux pane %3 (…)`).
    pub(super) id: Option<String>,
}

impl Terminal {
    /// `iTerm.app /dev/pts/3`, or empty.
    pub(super) fn label(&self) -> String {
        [
            self.program.as_deref(),
            self.tty.as_deref(),
            self.id.as_deref(),
        ]
        .into_iter()
        .flatten()
        .map(crate::terminal::shown)
        .collect::<Vec<_>>()
        .join(" ")
    }
}

/// The session's `session.json`, as JSON.
fn marker(store: &Store, session: Option<&str>) -> Option<Value> {
    session.and_then(|sid| {
        let path = store
            .omc_dir()
            .join("state/sessions")
            .join(sid)
            .join(crate::capabilities::memory::session_start::MARKER);
        let bytes = crate::state::fs::read_regular(&path).ok()??;
        serde_json::from_slice::<Value>(&bytes).ok()
    })
}

/// The terminal a session runs in, from its `session.json`.
fn terminal_of(store: &Store, session: Option<&str>) -> Terminal {
    let m = marker(store, session);
    let get = |k: &str| {
        m.as_ref()
            .and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
    };
    Terminal {
        program: get("term_program"),
        tty: get("tty"),
        id: get("terminal_id"),
    }
}

/// The agent a session runs in: as recorded in the run or the session's `session.json`,
/// else Claude Code (the only agent that records none).
fn agent_of(store: &Store, run: &Run, session: Option<&str>) -> String {
    let from = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
    };
    if let Some(a) = from(run.state.extra.get("agent")) {
        return a;
    }
    let marker = marker(store, session);
    from(marker.as_ref().and_then(|m| m.get("agent"))).unwrap_or_else(|| "claude".into())
}

/// A run's state for the table: suspended, stale, ended (with why), handed back (with why),
/// waiting for the person, or active.
fn state_text(run: &runs::Run, now: i64) -> String {
    let s = &run.state;
    if !s.active {
        format!("ended: {}", crate::modes::end_reason_text(s))
    } else if run.is_suspended() {
        "suspended".to_string()
    } else if run.is_stale(now) {
        "stale".to_string()
    } else if s.awaiting_input_at.is_some() {
        "waiting for your answer".to_string()
    } else if let Some(why) = &s.paused_reason {
        format!("paused: {why}")
    } else {
        "active".to_string()
    }
}

/// Reads the runs of one project.
fn project_runs(project: &Path, env: &Env) -> ProjectRuns {
    let root = Root {
        project: project.to_path_buf(),
        omc: project.join(".omc"),
    };
    let store = Store::new(root, env.now_ms());
    let mut rows = Vec::new();
    for view in runs::scan(&store) {
        let sid = view.id().map(str::to_string);
        // Runs that ended in the last day are listed with their reason (issue 34).
        let now = env.now_ms();
        let ended: Vec<runs::Run> = view
            .ended
            .into_iter()
            .filter(|r| r.ended_recently(now))
            .collect();
        for run in view.active.into_iter().chain(view.suspended).chain(ended) {
            rows.push(Row {
                agent: agent_of(&store, &run, sid.as_deref()),
                terminal: terminal_of(&store, sid.as_deref()),
                session: sid.clone(),
                run,
            });
        }
    }
    ProjectRuns {
        project: project.to_path_buf(),
        rows,
    }
}

/// Collects the view, pruning the registry of deleted projects.
pub(super) fn collect(env: &Env) -> Result<All, String> {
    let reg = registry::read(env).map_err(|e| e.to_string())?;
    let mut pruned = Vec::new();
    let mut reg = reg;
    if reg.clone().prune().is_empty() {
        // Nothing to prune: no write.
    } else if let Ok(Some((r, gone))) = registry::update(env, false, |r| {
        let gone = r.prune();
        (r.clone(), gone)
    }) {
        reg = r;
        pruned = gone;
    }
    let projects = reg
        .projects()
        .iter()
        .map(|p| project_runs(p, env))
        .collect();
    Ok(All {
        projects,
        pruned,
        user_installs: reg.installs.iter().filter(|i| i.project.is_none()).count(),
        registry: registry::file(env),
    })
}

fn row_json(r: &Row, now: i64) -> Value {
    json!({
        "session_id": r.session,
        "agent": r.agent,
        "mode": r.run.mode,
        "iteration": r.run.state.iteration,
        "max_iterations": r.run.state.max_iterations,
        "phase": r.run.state.phase,
        "last_activity_at": r.run.last_activity_ms.map(iso),
        "suspended": r.run.is_suspended(),
        "suspended_at": r.run.state.suspended_at,
        "stale": r.run.is_stale(now),
        "state": state_text(&r.run, now),
        "ended_reason": r.run.state.ended_reason,
        "verified": r.run.state.verified,
        "paused_reason": r.run.state.paused_reason,
        "pause_kind": r.run.state.pause_kind,
        "tokens_used": r.run.state.tokens_used,
        "max_tokens": (r.run.state.max_tokens > 0).then_some(r.run.state.max_tokens),
        "prompt": r.run.state.prompt,
        "terminal": {"program": r.terminal.program, "tty": r.terminal.tty, "id": r.terminal.id},
    })
}

/// The `--json` document.
pub(super) fn to_json(all: &All, now: i64) -> Value {
    json!({
        "now": iso(now),
        "registry": all.registry,
        "projects": all.projects.iter().map(|p| json!({
            "project": p.project,
            "runs": p.rows.iter().map(|r| row_json(r, now)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "pruned": all.pruned,
        "user_installs": all.user_installs,
    })
}

/// The table for people.
pub(super) fn render(all: &All, now: i64) -> String {
    let mut s = format!(
        "omc-hooks status --all — {} project(s) ({})\n",
        all.projects.len(),
        crate::time::human(now)
    );
    if all.projects.is_empty() {
        s.push_str("\nNo project is registered: 'omc-hooks install' in a project registers it.\n");
    }
    for p in &all.projects {
        s.push_str(&format!("\n{}\n", p.project.display()));
        if p.rows.is_empty() {
            s.push_str("  no runs\n");
            continue;
        }
        s.push_str(&format!(
            "  {:<14}{:<9}{:<11}{:<12}{:<16}{}\n",
            "SESSION", "AGENT", "MODE", "ITERATION", "LAST ACTIVITY", "STATE"
        ));
        for r in &p.rows {
            let state = state_text(&r.run, now);
            let phase = r
                .run
                .state
                .phase
                .as_deref()
                .map(|p| format!(" [{p}]"))
                .unwrap_or_default();
            let terminal = r.terminal.label();
            let phase = if terminal.is_empty() {
                phase
            } else {
                format!("{phase} · {terminal}")
            };
            s.push_str(&format!(
                "  {:<14}{:<9}{:<11}{:<12}{:<16}{state}{phase}\n",
                cut(r.session.as_deref().unwrap_or("-"), 13),
                cut(&r.agent, 8),
                r.run.mode,
                format!("{}/{}", r.run.state.iteration, r.run.state.max_iterations),
                r.run
                    .last_activity_ms
                    .map_or("?".into(), |t| format!("{} ago", short_duration(now - t))),
            ));
        }
    }
    for p in &all.pruned {
        s.push_str(&format!(
            "\n(forgot {}: the directory no longer exists)\n",
            p.display()
        ));
    }
    if all.user_installs > 0 {
        s.push_str(
            "\nInstalled in your user settings too (every project): projects are listed here \
             once 'omc-hooks install' ran in them.\n",
        );
    }
    s
}

/// Cuts `s` to `max` characters, marking the cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}
