//! The lifecycle in the real clients: notifications (contract §18, "Notifications") — a ralph
//! run completed in Codex CLI and in Claude Code posts one Slack-shaped message to a loopback
//! endpoint named in the user's `hooks.toml` (the URL in the agent's environment, as
//! `${SLACK_WEBHOOK_URL}`), naming the mode and its iterations, the hooks only spooling it and
//! the detached flusher sending it; and deliverables (contract §6) told to the parent.

use crate::e2e::agent_harness::AgentScenario;
use crate::e2e::clients::Agent;
use crate::e2e_agents::{DONE, MORE, PROMPT, with_omc};
use crate::export::server::{Mode, Server};
use crate::export::{PATIENCE, wait_until};
use std::path::Path;

const ENTRY: &str = "[[hooks]]\nevent = \"*\"\ntype = \"notify\"\nservice = \"slack\"\nurl = \"${SLACK_WEBHOOK_URL}\"\non = [\"run-end\"]\n";

fn write_user_hooks(config_home: &Path) {
    let dir = config_home.join("omc-hooks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("hooks.toml"), ENTRY).unwrap();
}

fn flusher_gone(omc: &Path) -> bool {
    let lock = omc.join("export/flusher.lock");
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&lock)
        .map(|f| f.try_lock().is_ok())
        .unwrap_or(true)
}

fn assert_one_message(srv: &Server, iterations: u32) {
    srv.wait_for(PATIENCE, "the Slack message", |s| s.answered_ok() >= 1);
    let reqs = srv.requests();
    assert_eq!(
        reqs.len(),
        1,
        "{:?}",
        reqs.iter().map(|r| r.json()).collect::<Vec<_>>()
    );
    assert_eq!(reqs[0].path, "/services/T000/B000/XXXX");
    let text = reqs[0].json()["text"].as_str().unwrap().to_string();
    assert!(
        text.starts_with("ralph completed in ")
            && text.contains(&format!(" after {iterations} iterations (of ")),
        "{text}"
    );
    assert!(text.contains(&format!("Task: {PROMPT}")), "{text}");
}

#[test]
fn codex_a_completed_ralph_run_posts_one_slack_message() {
    let srv = Server::start(Mode::Ok);
    let sb = with_omc(Agent::Codex);
    let config = sb.root().join("xdg-config");
    write_user_hooks(&config);
    let run = sb.run(
        PROMPT,
        AgentScenario::new()
            .env("XDG_CONFIG_HOME", config.to_string_lossy())
            .env("SLACK_WEBHOOK_URL", srv.url("/services/T000/B000/XXXX"))
            .env("OMC_EXPORT_LINGER_MS", "300")
            .reply_text(MORE)
            .reply_text(DONE),
    );
    run.assert_success();
    assert_one_message(&srv, 2);
    wait_until("the flusher to exit", || flusher_gone(&sb.omc_dir()));
    assert_eq!(srv.request_count(), 1, "none twice");
}

#[test]
fn claude_code_a_completed_ralph_run_posts_one_slack_message() {
    use crate::e2e::harness::{Sandbox, Scenario};
    let srv = Server::start(Mode::Ok);
    let sb = Sandbox::new();
    let config = sb.root().join("xdg-config");
    write_user_hooks(&config);
    let run = sb.claude(
        crate::e2e::plugin::plugin_dir(),
        PROMPT,
        Scenario::new()
            .env("XDG_CONFIG_HOME", config.to_string_lossy())
            .env("SLACK_WEBHOOK_URL", srv.url("/services/T000/B000/XXXX"))
            .env("OMC_EXPORT_LINGER_MS", "300")
            .reply_text(MORE)
            .reply_text(DONE),
        None,
    );
    run.assert_success();
    assert_one_message(&srv, 2);
    wait_until("the flusher to exit", || flusher_gone(&run.omc_dir()));
    assert_eq!(srv.request_count(), 1, "none twice");
}

/// Deliverables (contract §6) in the real Claude Code: a foreground subagent whose task names
/// `out/report.md` as its output and that writes nothing; the parent's next request carries the
/// finding (from the Agent tool's PostToolUse), and the subagent's requests never do.
#[test]
fn claude_code_the_parent_is_told_which_deliverables_a_subagent_left_missing() {
    use crate::e2e::harness::{Sandbox, Scenario};
    use serde_json::json;
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.project().join(".omc")).unwrap();
    std::fs::create_dir_all(sb.project().join("out")).unwrap();
    std::fs::write(sb.project().join("out/done.md"), "# done\n").unwrap();
    let run = sb.claude(
        crate::e2e::plugin::plugin_dir(),
        "audit the repository",
        Scenario::new()
            .reply_tool(
                "Agent",
                json!({"description": "audit", "subagent_type": "general-purpose", "run_in_background": false,
                       "prompt": "Audit the repository. Write the findings to out/report.md and the checklist to out/done.md."}),
            )
            .subagent_text("I looked around; all good.")
            .reply_text("finished")
            .env("OMC_TRACE_FILE", sb.root().join("trace.jsonl").to_string_lossy()),
        None,
    );
    run.assert_success();
    let trace = std::fs::read_to_string(sb.root().join("trace.jsonl")).unwrap_or_default();
    let d = format!("{}\ntrace:\n{trace}", run.diagnostics());
    let main = run.main_loop_requests();
    assert_eq!(main.len(), 2, "{d}");
    let after = run.shown_text(1);
    assert!(
        after.contains("[DELIVERABLES MISSING] The general-purpose subagent finished, but 1 of the 2 files its task named as outputs are missing or empty: `out/report.md`."),
        "{after}\n{d}"
    );
    assert!(
        run.subagent_requests()
            .iter()
            .all(|r| !r.user_text().contains("DELIVERABLES")),
        "{d}"
    );
}
