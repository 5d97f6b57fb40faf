//! Hardening in the real Claude Code client (issue 11): the model asks for several tool calls
//! and several subagents in one message, so the client fires their hooks close together —
//! concurrently where it runs the calls concurrently. No update is lost (every failure counted,
//! every subagent's start and stop recorded, as the SessionEnd summary shows) and the state tree keeps the invariants of
//! `tests/hardening` (valid, schema-checked JSON; no temporary file; nothing outside `.omc`).

use crate::e2e::{Sandbox, Scenario, plugin_dir};
use crate::hardening::kit::{self, CLEAN};
use serde_json::{Value, json};

const FAILURES: usize = 5;
const AGENTS: usize = 3;

fn top_level(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn parallel_tool_failures_and_parallel_subagents_lose_no_update() {
    let sb = Sandbox::new();
    let before = top_level(&sb.project());
    let fails: Vec<(&str, Value)> = (0..FAILURES)
        .map(|i| {
            (
                "Bash",
                json!({"command": format!("echo failing {i} >&2; exit 3")}),
            )
        })
        .collect();
    let agents: Vec<(&str, Value)> = (0..AGENTS)
        .map(|i| {
            (
                "Agent",
                json!({"description": format!("look around {i}"), "prompt": "List the files.",
                       "subagent_type": "general-purpose", "run_in_background": false}),
            )
        })
        .collect();
    let mut scenario = Scenario::new().reply_tools(fails).reply_tools(agents);
    for _ in 0..AGENTS {
        scenario = scenario.subagent_text("nothing to report");
    }
    let run = sb.claude(
        plugin_dir(),
        "check the build",
        scenario.reply_text("done"),
        None,
    );
    run.assert_success();

    let session = run.omc_dir().join("state/sessions").join(&run.session_id);
    let read = |name: &str| -> Value {
        let bytes = std::fs::read(session.join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", run.diagnostics()));
        serde_json::from_slice(&bytes).unwrap()
    };
    let failure = read("last-tool-error.json");
    assert_eq!(failure["tool_name"], "Bash", "{failure}");
    assert_eq!(
        failure["retry_count"], FAILURES,
        "every failure counted: {failure}"
    );
    // SessionEnd (at the end of a `-p` run) folds subagents.json into the session summary.
    let summary_path = run
        .omc_dir()
        .join("sessions")
        .join(format!("{}.json", run.session_id));
    let summary: Value = serde_json::from_slice(&std::fs::read(&summary_path).unwrap()).unwrap();
    let subagents = &summary["subagents"];
    assert_eq!(
        subagents["started"], AGENTS,
        "every start recorded: {summary}"
    );
    assert_eq!(
        subagents["completed"], AGENTS,
        "every stop recorded: {summary}"
    );
    assert_eq!(subagents["running_at_end"], 0, "{summary}");
    let mut keep: Vec<&str> = before.iter().map(String::as_str).collect();
    if crate::e2e::harness::installed_bin().is_some() {
        // Run against an installed binary, the harness's own `omc-hooks install` wrote
        // .claude/settings.local.json before the session: not the hooks' doing.
        keep.push(".claude");
    }
    let tree = kit::check_tree(&run.project, &keep, CLEAN);
    kit::assert_no_cross_session_leak(&run.project, &[&run.session_id]);
    assert!(tree.json_files >= 2, "{:?}", tree.files);
}
