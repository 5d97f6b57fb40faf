//! The real GitHub Copilot CLI (pinned 1.0.102) with the scripted chat-completions model
//! (tests/e2e/copilot-FINDINGS.md).
//!
//! First what the client itself does, with the recorder as the only hook: Claude Code's event
//! names with Copilot's own fields (a shell command's exit code only in the text of a
//! successful `tool_result`), a Stop block continued through a new UserPromptSubmit carrying
//! the reason, and its cap: 8 continuations of a prompt, the 9th block refused, tool calls
//! between them or not. Then omc-hooks installed with `install --agent copilot` (the shared
//! scenarios of `e2e_agents`), and beside Claude Code's install, whose hooks Copilot runs too.

use crate::e2e::agent_harness::{AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e_agents::{self as s, names, of, recorded_run};
use serde_json::Value;

const AGENT: Agent = Agent::Copilot;

#[test]
fn a_shell_turn_round_trips_with_the_exit_code_in_the_tool_result_text() {
    let (run, events) = s::a_shell_turn_round_trips(AGENT);
    let d = names(&events);
    let start = of(&events, "SessionStart");
    assert_eq!(start.len(), 1, "{d}");
    assert_eq!(start[0]["source"], "new");
    assert_eq!(start[0]["initial_prompt"], "say hi using the shell");
    let pre = of(&events, "PreToolUse");
    assert_eq!(pre.len(), 1, "{d}");
    assert_eq!(
        pre[0]["tool_name"], "Bash",
        "Claude Code's name for its `bash` tool"
    );
    let post = of(&events, "PostToolUse");
    assert_eq!(post.len(), 1, "{d}");
    assert_eq!(post[0]["session_id"], run.session_id.as_str());
    assert!(post[0].get("tool_response").is_none(), "{}", post[0]);
    assert_eq!(post[0]["tool_result"]["result_type"], "success");
    let text = post[0]["tool_result"]["text_result_for_llm"]
        .as_str()
        .unwrap();
    assert!(
        text.ends_with("<shellId: 0 completed with exit code 0>"),
        "{text}"
    );
    let stop = of(&events, "Stop");
    assert_eq!(stop.len(), 1, "{d}");
    assert_eq!(stop[0]["stop_reason"], "end_turn");
    assert_eq!(stop[0]["stop_hook_active"], false);
    assert_eq!(of(&events, "SessionEnd").len(), 1, "{d}");
}

#[test]
fn a_failing_command_is_a_successful_tool_call_with_its_exit_code_in_the_text() {
    let (_run, events, d) = crate::e2e_agents::a_failing_command(AGENT, &[]);
    assert!(of(&events, "PostToolUseFailure").is_empty(), "{d}");
    let post = of(&events, "PostToolUse");
    assert_eq!(post.len(), 1, "{d}");
    assert_eq!(post[0]["tool_result"]["result_type"], "success");
    let text = post[0]["tool_result"]["text_result_for_llm"]
        .as_str()
        .unwrap();
    assert!(
        text.contains("failing") && text.ends_with("completed with exit code 3>"),
        "{text}"
    );
}

/// Stop blocks without any tool call: the reason comes back as UserPromptSubmit's prompt and as
/// the next user message; the 9th block of the prompt is not honoured.
#[test]
fn stop_blocks_come_back_as_prompts_until_the_ninth_is_refused() {
    let (run, events, d) = crate::e2e_agents::talking_turns_blocked(AGENT, "Stop", "block", 100);
    s::assert_turns_continued(&run, &events, "Stop", 9, &d);
    for i in 1..=8usize {
        let last = run.last_user_text(i);
        assert!(
            last.starts_with("<current_datetime>") && last.ends_with(&format!("\n\nCONTINUE-{i}")),
            "{last}\n{d}"
        );
    }
    let prompts: Vec<&str> = of(&events, "UserPromptSubmit")
        .iter()
        .map(|v| v["prompt"].as_str().unwrap_or("<none>"))
        .collect();
    let mut want = vec!["keep going".to_owned()];
    want.extend((1..=8).map(|n| format!("CONTINUE-{n}")));
    assert_eq!(prompts, want, "{d}");
    assert_eq!(
        of(&events, "SessionEnd").len(),
        1,
        "once, after the continuations: {d}"
    );
}

/// The same with a command run in every continuation: the count is per prompt, tool calls do
/// not restart it.
#[test]
fn a_tool_call_between_stop_blocks_does_not_restart_the_clients_count() {
    let (run, events, d) = s::stop_blocks_with_a_command_in_each(AGENT, 12);
    assert_eq!(of(&events, "Stop").len(), 9, "{d}");
    assert_eq!(of(&events, "PostToolUse").len(), 8, "{d}");
    assert_eq!(run.unused_steps, 25 - 17, "{d}");
}

/// The answer shapes omc-hooks relies on: context at the top level reaches the model on the
/// prompt and after a tool; Claude Code's `hookSpecificOutput.additionalContext` does not.
#[test]
fn context_is_read_at_the_top_level_only() {
    let sb = AgentSandbox::new(AGENT);
    let top = r#"printf '{"additionalContext":"TOP-%s"}\n' "$(ls "$REC_DIR" | grep -c json)""#;
    let (run, events) = recorded_run(
        &sb,
        "show me context",
        AgentScenario::new()
            .reply_shell("echo one")
            .reply_shell("echo two")
            .reply_text("done"),
        &[
            ("UserPromptSubmit", top.to_owned()),
            (
                "PostToolUse",
                r#"n=$(ls "$REC_DIR" | grep -c -- '-PostToolUse.json$'); if [ "$n" = 1 ]; then printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"NESTED-POST"}}\n'; else printf '{"additionalContext":"TOP-POST"}\n'; fi"#.to_owned(),
            ),
        ],
    );
    run.assert_success();
    let d = format!("{}\n{}", names(&events), run.diagnostics());
    let first = run.shown_text(0);
    assert!(first.contains("<system_reminder>\nTOP-"), "{first}\n{d}");
    let all = run.all_shown_text();
    assert!(
        !all.contains("NESTED-POST"),
        "Claude Code's shape is ignored: {d}"
    );
    assert!(
        run.tool_outputs_of(2)
            .iter()
            .any(|t| t.contains("Additional guidance from postToolUse hooks:\nTOP-POST")),
        "{d}"
    );
}

// ------------------------------------------------------------ omc-hooks in Copilot ----

crate::e2e_agents::agent_scenarios!(AGENT, escalates);

/// Copilot also runs the project's `.claude/settings.json`: with Claude Code's install beside
/// Copilot's, every event reaches omc-hooks twice. The Claude Code entries stand down on
/// Copilot's payloads, so the run goes exactly as with Copilot's install alone: one keyword
/// start, one continuation per turn, the iteration counted once.
#[test]
fn beside_claude_codes_install_each_event_is_served_once() {
    let sb = s::with_omc(AGENT);
    let out = sb.install_claude_project();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("install --agent copilot"),
        "Claude Code's install names the Copilot one"
    );
    let trace = sb.root().join("trace.jsonl");
    let run = sb.run(
        s::PROMPT,
        AgentScenario::new()
            .env("OMC_TRACE_FILE", trace.to_string_lossy())
            .reply_text(s::MORE)
            .reply_text(s::DONE)
            .reply_text("unexpected extra turn"),
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_requests().len(), 2, "{d}");
    assert_eq!(s::continuations(&run).len(), 1, "{d}");
    let st = s::ralph_state(&sb, &run.session_id).expect("ralph-state.json");
    assert_eq!(st["iteration"], 2, "counted once per turn: {st:#}");
    assert_eq!(st["ended_reason"], "completed", "{st:#}");
    let lines = crate::e2e_foundation::trace(&trace);
    let by =
        |agent: &str| -> Vec<&Value> { lines.iter().filter(|l| l["agent"] == agent).collect() };
    let claude = by("claude");
    assert!(
        !claude.is_empty(),
        "Copilot ran Claude Code's entries: {lines:#?}"
    );
    assert!(
        claude
            .iter()
            .all(|l| l["outcome"] == "noop" && l["shape"] == "copilot"),
        "they stood down: {claude:#?}"
    );
    assert!(
        by("copilot")
            .iter()
            .any(|l| l["hook"] == "stop" && l["outcome"] == "answer"),
        "{lines:#?}"
    );
}

/// The model running `omc-hooks trust --yes` is refused: the client's own variable in the
/// command's environment says who runs it.
#[test]
fn trust_run_by_the_model_is_refused() {
    crate::e2e_agent_modes::trust_run_by_the_model_is_refused(AGENT);
}
