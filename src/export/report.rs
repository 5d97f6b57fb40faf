//! What `status` and `doctor` say about export: per sink, what is pending, delivered, dropped
//! and refused, the last delivery and the last error; whether a flusher runs.

use super::progress;
use super::sources;
use crate::env::Env;
use crate::state::Store;
use crate::time::short_duration;
use serde_json::{Value, json};

/// `status --json`'s `export` object.
pub fn json(store: &Store) -> Value {
    json!({
        "flusher_pid": progress::flusher_pid(store),
        "sinks": progress::report(store),
    })
}

/// `status`'s text section; empty when export never ran in this project.
pub fn text(store: &Store, now_ms: i64) -> String {
    let sinks = progress::report(store);
    let pid = progress::flusher_pid(store);
    if sinks.is_empty() && pid.is_none() {
        return String::new();
    }
    let mut s = format!(
        "\nExport ({}): {}\n",
        store.omc_dir().join(crate::state::outbox::DIR).display(),
        match pid {
            Some(pid) => format!("flusher running (pid {pid})"),
            None => "no flusher running".to_string(),
        }
    );
    for r in &sinks {
        s.push_str(&format!(
            "  {:<26} {}{}\n",
            r.sink,
            if r.kind.is_empty() { "?" } else { &r.kind },
            r.destination
                .as_deref()
                .map(|d| format!(" → {d}"))
                .unwrap_or_default()
        ));
        let mut counts = format!(
            "{} pending, {} delivered, {} dropped",
            r.pending, r.delivered, r.dropped
        );
        if r.rejected > 0 {
            counts.push_str(&format!(", {} refused", r.rejected));
        }
        if let Some(at) = &r.last_delivery_at {
            counts.push_str(&format!("; last delivery {}", ago(at, now_ms)));
        }
        s.push_str(&format!("  {:<26} {counts}\n", ""));
        if let (Some(e), Some(at)) = (&r.last_error, &r.last_error_at) {
            let streak = if r.consecutive_failures > 1 {
                format!(", {} failures in a row", r.consecutive_failures)
            } else {
                String::new()
            };
            s.push_str(&format!(
                "  {:<26} last error {}{streak}: {}\n",
                "",
                ago(at, now_ms),
                one_line(e, 100)
            ));
        }
        if let Some(n) = &r.note {
            s.push_str(&format!("  {:<26} note: {n}\n", ""));
        }
    }
    s
}

fn ago(iso: &str, now_ms: i64) -> String {
    crate::time::parse_iso(iso).map_or_else(
        || iso.to_string(),
        |t| format!("{} ago", short_duration((now_ms - t).max(0))),
    )
}

fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let mut t: String = flat.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

/// What `doctor` reports: one summary line, problems (what, fix) and notes.
pub struct Findings {
    pub line: String,
    pub problems: Vec<(String, String)>,
    pub notes: Vec<String>,
}

/// Checks export for `doctor`: the switches in `env` (the shell's, which may differ from the
/// agent's), the spools and the flusher.
pub fn doctor(store: &Store, env: &Env) -> Findings {
    let (from_env, env_errors) = sources::from_env(|k| env.var(k).map(str::to_string));
    let configured = from_env.len() + sources::configured(store, env).len();
    let sinks = progress::report(store);
    let pid = progress::flusher_pid(store);
    let mut f = Findings {
        line: String::new(),
        problems: Vec::new(),
        notes: Vec::new(),
    };
    for e in &env_errors {
        f.problems.push((
            format!("export switch refused: {e}"),
            "fix the variable (see 'Export' in the README); the other sinks still run".into(),
        ));
    }
    let (mut pending, mut delivered, mut dropped) = (0, 0, 0);
    for r in &sinks {
        pending += r.pending;
        delivered += r.delivered;
        dropped += r.dropped;
        if r.dropped > 0 {
            f.problems.push((
                format!(
                    "export sink {}: {} event(s) were dropped because its spool was full",
                    r.sink, r.dropped
                ),
                "make sure its endpoint is reachable (see its last error in 'omc-hooks status'); a larger max_spool_bytes keeps more while it is down".into(),
            ));
        }
        if r.pending > 0 && r.consecutive_failures > 0 {
            f.problems.push((
                format!(
                    "export sink {} cannot deliver: {}",
                    r.sink,
                    one_line(r.last_error.as_deref().unwrap_or("unknown error"), 160)
                ),
                "check the endpoint and its headers; the events are kept and retried ('omc-hooks flush --once' tries now)".into(),
            ));
        } else if r.pending > 0 && pid.is_none() {
            f.notes.push(format!(
                "export sink {}: {} event(s) wait and no flusher runs; the next hook starts one, or run 'omc-hooks flush --once'",
                r.sink, r.pending
            ));
        }
        if r.rejected > 0 {
            f.problems.push((
                format!(
                    "export sink {}: the receiver refused {} event(s) for good",
                    r.sink, r.rejected
                ),
                "see the last error in 'omc-hooks status'; the refused batches are not sent again"
                    .into(),
            ));
        }
        if let Some(n) = &r.note {
            f.notes.push(format!("export sink {}: {n}", r.sink));
        }
    }
    f.line = if sinks.is_empty() && configured == 0 {
        "off (no OMC_EXPORT_* switch in this environment, no export sink configured)".into()
    } else {
        format!(
            "{} sink(s) configured here, {} with a spool: {pending} pending, {delivered} delivered, {dropped} dropped; {}",
            configured,
            sinks.len(),
            match pid {
                Some(p) => format!("flusher running (pid {p})"),
                None => "no flusher running".into(),
            }
        )
    };
    f
}
