//! The real OpenCode (pinned 1.18.33), Kilo Code (7.7.9) and Pi (0.73.1), each with our plugin
//! as `install --agent` writes it, against the scripted chat-completions model: OpenCode and
//! Kilo Code driven as `serve` over HTTP, Pi in its RPC mode (`e2e/plugin_host.rs`). The shared
//! scenarios of `e2e_agents`: a shell turn reaches the model and back through the plugin, a
//! ralph run continues to its completion token, our cap pauses a run and `cancelomc` ends it
//! in the resumed session, a question is inert, a failing command escalates, and every event
//! the plugin passes on reaches the binary and decodes. What each client was seen to do:
//! tests/e2e/opencode-FINDINGS.md, pi-FINDINGS.md.

use crate::e2e::clients::Agent;
use crate::e2e_agents as s;

/// A read of `src/api/handler.py` (then an edit) shows the model the project's path rule for
/// `src/api/**` after the read — appended to the tool's result by the plugin — once.
fn a_path_rule_reaches_the_model_when_the_file_is_read(agent: Agent) {
    let sb = s::with_omc(agent);
    crate::e2e_rules::lay_out(&sb);
    let run = crate::e2e_rules::read_and_edit(agent, &sb);
    let d = crate::e2e_rules::assert_the_edit_ran_with_no_rule_before(&sb, &run);
    let after_read = run.new_text(1);
    assert!(
        after_read.contains("[PROJECT RULE: .claude/rules/api.md, for paths matching src/api/**]")
            && after_read.contains("CLAUDE-RULES-MARKER"),
        "after the read: {after_read}\n{d}"
    );
    crate::e2e_rules::assert_the_rule_shown_once_at_the_end(&run, &d);
}

/// The plugin passes a shell turn's events to the binary (here the recorder), under the
/// client's own session.
fn a_shell_turn_round_trips(agent: Agent) {
    let (run, events) = s::a_shell_turn_round_trips(agent);
    let names = s::names(&events);
    let (prompt, pre, post, stop) = match agent {
        Agent::Pi => ("input", "tool_call", "tool_result", "agent_end"),
        _ => (
            "chat.message",
            "tool.execute.before",
            "tool.execute.after",
            "session.idle",
        ),
    };
    for event in [prompt, pre, post, stop] {
        let mine = s::of(&events, event);
        assert!(!mine.is_empty(), "{event} never ran: {names}");
        for p in mine {
            assert_eq!(p["session_id"], run.session_id.as_str(), "{event}: {p}");
            assert_eq!(p["omc_plugin"], agent.name(), "{event}: {p}");
        }
    }
    let post = &s::of(&events, post)[0];
    assert_eq!(post["tool_name"], "bash", "{post}");
    assert_eq!(post["tool_input"]["command"], "echo hi-from-e2e", "{post}");
}

macro_rules! shared_scenarios {
    ($agent:expr) => {
        #[test]
        fn a_shell_turn_round_trips_through_the_plugin() {
            super::a_shell_turn_round_trips($agent);
        }

        crate::e2e_agents::agent_scenarios!($agent, escalates);
    };
}

mod opencode {
    use crate::e2e::agent_harness::AgentScenario;
    use crate::e2e::model::Role;

    shared_scenarios!(crate::e2e::clients::Agent::OpenCode);

    /// A tool that throws (a read of a missing file) runs no `tool.execute.after`: the plugin
    /// passes its error part on as the failure event, and the failure's guidance reaches the
    /// next model call (in its system prompt, since the call's result is already written).
    #[test]
    fn a_tool_that_throws_is_counted_and_the_model_is_told() {
        let sb = crate::e2e_agents::with_omc(crate::e2e::clients::Agent::OpenCode);
        let missing = sb.project().join("no-such-file");
        let run = sb.run(
            "read the notes",
            AgentScenario::new()
                .reply_call(
                    "read",
                    serde_json::json!({"filePath": missing.to_string_lossy()}),
                )
                .reply_text("There are no notes."),
        );
        run.assert_success();
        let d = run.diagnostics();
        assert_eq!(run.main_requests().len(), 2, "{d}");
        let system: String = run.main_requests()[1]
            .messages
            .iter()
            .filter(|m| m.role == Role::System)
            .map(|m| m.text.clone())
            .collect();
        assert!(system.contains("[TOOL ERROR - RETRY 1]"), "{system}\n{d}");
        assert!(
            !run.main_requests()[0].shown_text().contains("[TOOL ERROR"),
            "{d}"
        );
        let rec = sb
            .omc_dir()
            .join("state/sessions")
            .join(&run.session_id)
            .join("last-tool-error.json");
        assert!(rec.is_file(), "{d}");
    }

    #[test]
    fn a_path_rule_reaches_the_model_when_the_file_is_read() {
        super::a_path_rule_reaches_the_model_when_the_file_is_read(
            crate::e2e::clients::Agent::OpenCode,
        );
    }

    /// The model's own `omc-hooks trust --yes` is refused: OpenCode sets `OPENCODE=1` for the
    /// commands its model runs.
    #[test]
    fn trust_run_by_the_model_is_refused() {
        crate::e2e_agent_modes::trust_run_by_the_model_is_refused(
            crate::e2e::clients::Agent::OpenCode,
        );
    }

    /// The plugin refuses a call a user hook blocks (OpenCode: by throwing from
    /// `tool.execute.before`); the model reads the reason. Kilo Code runs the same plugin file.
    #[test]
    fn a_user_hook_on_bash_refuses_a_shell_command() {
        crate::e2e_agent_guards::a_user_hook_on_bash_refuses_a_shell_command(
            crate::e2e::clients::Agent::OpenCode,
        );
    }
}

mod kilo {
    shared_scenarios!(crate::e2e::clients::Agent::Kilo);
}

mod pi {
    shared_scenarios!(crate::e2e::clients::Agent::Pi);

    #[test]
    fn a_path_rule_reaches_the_model_when_the_file_is_read() {
        super::a_path_rule_reaches_the_model_when_the_file_is_read(crate::e2e::clients::Agent::Pi);
    }

    /// The model's own `omc-hooks trust --yes` is refused: Pi sets `PI_CODING_AGENT=true` for
    /// the commands its model runs.
    #[test]
    fn trust_run_by_the_model_is_refused() {
        crate::e2e_agent_modes::trust_run_by_the_model_is_refused(crate::e2e::clients::Agent::Pi);
    }

    /// Pi's `tool_call` answered `{block: true, reason}`: the model reads the reason.
    #[test]
    fn a_user_hook_on_bash_refuses_a_shell_command() {
        crate::e2e_agent_guards::a_user_hook_on_bash_refuses_a_shell_command(
            crate::e2e::clients::Agent::Pi,
        );
    }
}
