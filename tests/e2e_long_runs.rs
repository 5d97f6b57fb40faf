//! Long runs in the real Claude Code client (issue 24).
//!
//! First what the client itself does with an always-blocking Stop hook (the recorder plugin as
//! the only hook): its consecutive-block cap counts only blocks after which the model used no
//! tool (tests/e2e/FINDINGS.md §7). Then omc-hooks in it: a working model is continued far past
//! eight continuations, a model that only talks is handed back within eight (even with the
//! client's own cap raised), a run ends at its `max_iterations` and at its time budget and says
//! so, and a run suspended at the end of one session is continued by the next new session.

use crate::e2e::{Run, Sandbox, Scenario};
use serde_json::json;
use std::path::{Path, PathBuf};

fn recorder_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/recorder")
}

/// The Stop payloads the recorder saved in `rec`.
fn stops(rec: &Path) -> usize {
    crate::e2e_agents::of(&crate::e2e_agents::recorded(rec), "Stop").len()
}

/// Runs the client with the recorder plugin only, its Stop hook always blocking.
fn always_blocking(sb: &Sandbox, scenario: Scenario) -> (Run, PathBuf) {
    let rec = sb.root().join("rec");
    crate::e2e_agents::respond(
        &rec,
        "Stop",
        r#"printf '{"decision":"block","reason":"keep going"}\n'"#,
    );
    let run = sb.claude(
        &recorder_dir(),
        "probe the stop cap",
        scenario.env("REC_DIR", rec.to_string_lossy()),
        None,
    );
    (run, rec)
}

/// `n` turns that each run one (different) Bash command and then end with text.
fn working_turns(mut sc: Scenario, n: usize) -> Scenario {
    for i in 0..n {
        sc = sc
            .reply_tool(
                "Bash",
                json!({"command": format!("echo step-{i}"), "description": "step"}),
            )
            .reply_text(format!("step {i} done; more remains"));
    }
    sc
}

#[test]
fn the_clients_cap_counts_only_blocks_without_a_tool_call() {
    // Only talking: the default cap of 8 honoured blocks, the 9th Stop ends the turn.
    let sb = Sandbox::new();
    let mut sc = Scenario::new();
    for _ in 0..14 {
        sc = sc.reply_text("still thinking");
    }
    let (run, rec) = always_blocking(&sb, sc);
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(stops(&rec), 9, "{d}");
    assert_eq!(run.main_loop_requests().len(), 9, "{d}");

    // A tool call before every stop: the count restarts with each one, so 20 working turns are
    // all continued; then the model only talks, and the client honours 7 more blocks — 8 in a
    // row since the last turn that used a tool, the block right after that turn included — and
    // ends the turn at the 9th. (This is the "37 continuations": 30 working turns, then 7.)
    let sb = Sandbox::new();
    let mut sc = working_turns(Scenario::new(), 20);
    for _ in 0..10 {
        sc = sc.reply_text("still thinking");
    }
    let (run, rec) = always_blocking(&sb, sc);
    run.assert_success();
    let d = run.diagnostics();
    let events = crate::e2e_agents::recorded(&rec);
    let stop_payloads = crate::e2e_agents::of(&events, "Stop");
    assert_eq!(stop_payloads.len(), 20 + 8, "{d}");
    assert_eq!(run.main_loop_requests().len(), 2 * 20 + 7 + 1, "{d}");
    assert_eq!(run.unused_replies, 2, "{d}");
    // `stop_hook_active` stays true across the tool turns once a block was made.
    assert_eq!(stop_payloads[0]["stop_hook_active"], false);
    assert!(
        stop_payloads[1..]
            .iter()
            .all(|p| p["stop_hook_active"] == true),
        "{d}"
    );
}
