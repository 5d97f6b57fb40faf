//! `doctor`'s look at the hook trace (`OMC_TRACE_FILE`): hooks that were installed for one
//! agent (`--agent`) but receive payloads shaped like another's. They are still handled best
//! effort (see `protocol::agents`), but the install is wrong and should be redone — except
//! Claude Code's entries run by GitHub Copilot CLI, which stand down by design.

use super::report::Report;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Only the end of a long trace is read.
const TAIL_BYTES: u64 = 1024 * 1024;

/// Adds a trace line and, for each (declared, shape) pair that disagrees, a problem.
pub(super) fn check(r: &mut Report, trace: &Path) {
    let Some(text) = tail(trace) else {
        r.line(
            "trace",
            format!("{}: not readable (no hook has run yet?)", trace.display()),
        );
        return;
    };
    let mut lines = 0usize;
    let mut wrong: BTreeMap<(String, String), (usize, Vec<String>)> = BTreeMap::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        // Our plugins add a line per event they pass on (`plugin`, no `hook`): not a hook run.
        if v.get("hook").is_none() {
            continue;
        }
        lines += 1;
        let (Some(agent), Some(shape)) = (v["agent"].as_str(), v["shape"].as_str()) else {
            continue;
        };
        let (Some(a), Some(s)) = (
            crate::protocol::Agent::parse(agent),
            crate::protocol::Agent::parse(shape),
        ) else {
            continue;
        };
        if a.wire() == s.wire() {
            continue;
        }
        let entry = wrong
            .entry((agent.to_string(), shape.to_string()))
            .or_default();
        entry.0 += 1;
        if let Some(h) = v["hook"].as_str()
            && !entry.1.iter().any(|x| x == h)
        {
            entry.1.push(h.to_string());
        }
    }
    r.line(
        "trace",
        format!(
            "{}: {lines} hook run(s) read, {} with a payload from another agent",
            trace.display(),
            wrong.values().map(|(n, _)| n).sum::<usize>()
        ),
    );
    for ((agent, shape), (n, hooks)) in wrong {
        // Copilot runs a project's `.claude/` settings files by itself: Claude Code's install
        // is right there, and its hooks stand down on Copilot's payloads
        // (`protocol::agents::stands_down`).
        if agent == "claude" && shape == "copilot" {
            r.note(format!(
                "GitHub Copilot CLI ran Claude Code's omc-hooks entries {n} time(s) ({}), as \
                 it runs a project's .claude/settings.json too; they stood down. Copilot is \
                 served by 'omc-hooks install --agent copilot'",
                hooks.join(", ")
            ));
            continue;
        }
        r.problem(
            format!(
                "{n} payload(s) to hooks installed for {agent} ({}) look like {shape}'s: the \
                 hooks answer them in the right format, but {shape}'s configuration runs \
                 omc-hooks with the wrong --agent",
                hooks.join(", ")
            ),
            format!(
                "in {shape}'s hook configuration, run 'omc-hooks uninstall' for the copied \
                 entries and 'omc-hooks install --agent {shape}'"
            ),
        );
    }
}

fn tail(path: &Path) -> Option<String> {
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let start = len.saturating_sub(TAIL_BYTES);
    f.seek(SeekFrom::Start(start)).ok()?;
    let mut buf = Vec::new();
    f.take(TAIL_BYTES).read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    Some(if start > 0 {
        text.split_once('\n')
            .map(|(_, r)| r.to_string())
            .unwrap_or_default()
    } else {
        text
    })
}
