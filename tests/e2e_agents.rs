//! Scenarios shared by the Codex, Gemini CLI and Qwen Code suites (`e2e_codex`, `e2e_gemini`,
//! `e2e_qwen`): each takes the [`Agent`] and runs the pinned real client against the scripted
//! model.

use crate::e2e::agent_harness::{AgentRun, AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use serde_json::Value;
use std::path::Path;

/// The recorder's payloads in `dir`, in firing order: (event, payload).
pub fn recorded(dir: &Path) -> Vec<(String, Value)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().into_string().unwrap())
                .filter(|n| n.ends_with(".json"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let ev = n
                .trim_end_matches(".json")
                .rsplit('-')
                .next()
                .unwrap()
                .to_owned();
            let v: Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join(&n)).unwrap()).unwrap();
            (ev, v)
        })
        .collect()
}

/// One turn with a shell call: the client reaches the scripted model, runs the command, sends
/// its output back, and fires its hooks (recorded).
pub fn a_shell_turn_round_trips(agent: Agent) -> (AgentRun, Vec<(String, Value)>) {
    let sb = AgentSandbox::new(agent);
    sb.record_hooks();
    let rec = sb.root().join("rec");
    let run = sb.run(
        "say hi using the shell",
        AgentScenario::new()
            .reply_shell("echo hi-from-e2e")
            .reply_text("FINAL: the command printed hi")
            .env("REC_DIR", rec.to_string_lossy()),
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_requests().len(), 2, "{d}");
    assert!(run.shown_text(0).contains("say hi using the shell"), "{d}");
    let out = run.main_requests()[1].tool_outputs().join("\n");
    assert!(
        out.contains("hi-from-e2e"),
        "tool output reached the model: {out}\n{d}"
    );
    assert_eq!(run.unused_steps, 0, "{d}");
    let events = recorded(&rec);
    assert!(!events.is_empty(), "no hook fired\n{d}");
    (run, events)
}

/// Makes the recorder's hook for `event` answer with `script` (sh; the payload is on stdin,
/// `$REC_DIR` holds the payloads recorded so far, named `<ns>-<pid>-<Event>.json`).
pub fn respond(rec: &Path, event: &str, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    let d = rec.join("respond");
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(event);
    std::fs::write(&p, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A responder script that answers `{"decision":<decision>,"reason":"CONTINUE-<n>"}` to the
/// first `limit` calls of `event` (n counts them) and nothing afterwards.
pub fn block_script(event: &str, decision: &str, limit: u32) -> String {
    format!(
        r#"n=$(ls "$REC_DIR" | grep -c -- '-{event}.json$'); if [ "$n" -le {limit} ]; then printf '{{"decision":"{decision}","reason":"CONTINUE-%s"}}\n' "$n"; fi"#
    )
}

/// Runs the client with the recorder on every event; returns the run and the payloads.
pub fn recorded_run(
    sb: &AgentSandbox,
    prompt: &str,
    scenario: AgentScenario,
    responders: &[(&str, String)],
) -> (AgentRun, Vec<(String, Value)>) {
    sb.record_hooks();
    let rec = sb.root().join(format!(
        "rec-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    for (event, script) in responders {
        respond(&rec, event, script);
    }
    let run = sb.run(prompt, scenario.env("REC_DIR", rec.to_string_lossy()));
    let events = recorded(&rec);
    (run, events)
}

/// The payloads of one event, in order.
pub fn of<'a>(events: &'a [(String, Value)], event: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|(e, _)| e == event)
        .map(|(_, v)| v)
        .collect()
}

/// The names of the recorded events, in order, for diagnostics.
pub fn names(events: &[(String, Value)]) -> String {
    events
        .iter()
        .map(|(e, _)| e.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}
