//! Notifications in the real clients (contract §18, "Notifications"): a ralph run completed in
//! Codex CLI and in Claude Code posts one Slack-shaped message to a loopback endpoint named in
//! the user's `hooks.toml` (the URL in the agent's environment, as `${SLACK_WEBHOOK_URL}`),
//! naming the mode and its iterations; the hooks only spool it, the detached flusher sends it.

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
