//! Scenarios shared by the real-client suites of the other agents (`e2e_codex`, `e2e_gemini`,
//! `e2e_qwen`, `e2e_copilot`, `e2e_factory`, `e2e_codebuddy`): each takes the [`Agent`] and runs
//! the pinned real client against the scripted model.

use crate::e2e::agent_harness::{AgentRun, AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use serde_json::Value;
use std::path::Path;

/// The shared scenarios as tests of the suite that names its agent: a ralph run continues, our
/// cap pauses a run and `cancelomc` ends it, a question is inert, every installed hook fires;
/// with `escalates`, a failing command escalates too (not in Factory Droid, which runs no hook
/// after a failing command).
macro_rules! agent_scenarios {
    ($agent:expr, escalates) => {
        crate::e2e_agents::agent_scenarios!($agent);

        #[test]
        fn a_failing_command_escalates() {
            crate::e2e_agents::a_failing_command_escalates($agent);
        }
    };
    ($agent:expr) => {
        #[test]
        fn a_ralph_run_continues_until_the_completion_token() {
            crate::e2e_agents::a_ralph_run_continues_until_the_completion_token($agent);
        }

        #[test]
        fn our_cap_pauses_a_run_and_cancelomc_ends_it() {
            crate::e2e_agents::our_cap_pauses_a_run_and_cancelomc_ends_it($agent);
        }

        #[test]
        fn a_question_about_ralph_is_inert() {
            crate::e2e_agents::a_question_about_ralph_is_inert($agent);
        }

        #[test]
        fn every_installed_hook_fires_and_decodes_the_payload() {
            crate::e2e_agents::every_installed_hook_fires_and_decodes_the_payload($agent);
        }
    };
}
pub(crate) use agent_scenarios;

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
            .reply_shell(read_back(agent, "echo hi-from-e2e"))
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

/// The Stop hook blocks the first `blocks` times, and in every continuation the model runs a
/// command before it answers: how a client's own cap on Stop blocks treats tool calls. Returns
/// the run, the payloads, and the event names with the run's diagnostics.
pub fn stop_blocks_with_a_command_in_each(
    agent: Agent,
    blocks: u32,
) -> (AgentRun, Vec<(String, Value)>, String) {
    let sb = AgentSandbox::new(agent);
    let mut sc = AgentScenario::new().reply_text("first answer");
    for i in 1..=blocks {
        sc = sc
            .reply_shell(format!("echo iteration-{i}"))
            .reply_text(format!("answer {i}"));
    }
    let (run, events) = recorded_run(
        &sb,
        "keep going",
        sc.default_text("unexpected"),
        &[("Stop", block_script("Stop", "block", blocks))],
    );
    run.assert_success();
    let d = format!("{}\n{}", names(&events), run.diagnostics());
    (run, events, d)
}

/// The client alone (the recorder as its only hook, `responders` answering): `prompt` with the
/// model scripted by `sc`; asserts the client succeeded. The run, its payloads, and the
/// diagnostics (the events' names and the run's).
pub fn probe(
    agent: Agent,
    prompt: &str,
    sc: AgentScenario,
    responders: &[(&str, String)],
) -> (AgentRun, Vec<(String, Value)>, String) {
    let sb = AgentSandbox::new(agent);
    let (run, events) = recorded_run(&sb, prompt, sc, responders);
    run.assert_success();
    let d = format!("{}\n{}", names(&events), run.diagnostics());
    (run, events, d)
}

/// A command that fails (`failing` on stderr, exit 3), then text: what the client fires.
pub fn a_failing_command(
    agent: Agent,
    responders: &[(&str, String)],
) -> (AgentRun, Vec<(String, Value)>, String) {
    let sc = AgentScenario::new()
        .reply_shell("echo failing >&2; exit 3")
        .reply_text("it failed");
    probe(agent, "fail once", sc, responders)
}

/// A model that only talks (`more to do`) while the end-of-turn hook `event` answers
/// `decision` with `CONTINUE-<n>` up to `limit` times: how far the client continues.
pub fn talking_turns_blocked(
    agent: Agent,
    event: &str,
    decision: &str,
    limit: u32,
) -> (AgentRun, Vec<(String, Value)>, String) {
    let sc = AgentScenario::new().default_text("more to do");
    let script = block_script(event, decision, limit);
    probe(agent, "keep going", sc, &[(event, script)])
}

/// `n` payloads of the end-of-turn `event` and as many main requests: the first turn's
/// `stop_hook_active` false, every continued one's true.
#[track_caller]
pub fn assert_turns_continued(
    run: &AgentRun,
    events: &[(String, Value)],
    event: &str,
    n: usize,
    d: &str,
) {
    let stops = of(events, event);
    assert_eq!(stops.len(), n, "{n} turns, {} continued: {d}", n - 1);
    assert_eq!(run.main_requests().len(), n, "{d}");
    assert_eq!(stops[0]["stop_hook_active"], false, "{d}");
    for (i, stop) in stops.iter().enumerate().skip(1) {
        assert_eq!(stop["stop_hook_active"], true, "{event} #{i}: {stop}\n{d}");
    }
}

/// Copilot's other tools: a view of a missing file (a tool that fails outright: Copilot's own
/// PostToolUseFailure), a skill, and a subagent (`task`) with its own model call.
pub fn copilot_other_tools(sb: &AgentSandbox, sc: AgentScenario) -> AgentScenario {
    let missing = serde_json::json!({"path": sb.project().join("missing.txt")});
    let subagent = serde_json::json!({"description": "look around", "prompt": "List the files.",
                                      "agent_type": "explore", "name": "looker"});
    sc.reply_call("view", missing)
        .reply_call("skill", serde_json::json!({"skill": "demo"}))
        .reply_call("task", subagent)
        .reply_text("nothing to report")
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

// ------------------------------------------------------------ omc-hooks in the client ----

/// A sandbox for `agent` with omc-hooks installed in the project as a user does it:
/// `omc-hooks install --agent <agent> --project <project>`.
pub fn with_omc(agent: Agent) -> AgentSandbox {
    let sb = AgentSandbox::new(agent);
    sb.install_hooks();
    sb
}

pub const PROMPT: &str = "ralph fix the failing parser test";
pub const MORE: &str = "I changed the tokenizer; more work remains.";
pub const DONE: &str = "The parser is fixed and the tests pass.\n<omc-complete/>";

/// The session's `ralph-state.json`, schema-checked.
pub fn ralph_state(sb: &AgentSandbox, sid: &str) -> Option<Value> {
    crate::e2e::ralph::mode_state_in(&sb.omc_dir(), sid, "ralph")
}

/// What is new in each main request that carries a ralph continuation, in order.
pub fn continuations(run: &AgentRun) -> Vec<String> {
    run.main_requests()
        .iter()
        .map(|r| r.new_text())
        .filter(|t| t.contains("[RALPH LOOP - ITERATION"))
        .collect()
}

/// How the client hands our end-of-turn reason back to the model.
pub fn assert_wrapped(agent: Agent, shown: &str, reason_part: &str) {
    assert!(
        shown.contains(reason_part),
        "lacks {reason_part:?}: {shown}"
    );
    match agent {
        Agent::Codex => assert!(
            shown.starts_with("<hook_prompt hook_run_id=\"stop:")
                && shown.ends_with("</hook_prompt>"),
            "Codex wraps the reason in <hook_prompt>: {shown}"
        ),
        // Our plugins send the reason as the next prompt, verbatim.
        Agent::Gemini
        | Agent::Qwen
        | Agent::Factory
        | Agent::Kimi
        | Agent::OpenCode
        | Agent::Kilo
        | Agent::Pi => {
            assert!(
                shown.starts_with("[RALPH LOOP") || shown.starts_with("[TOOL ERROR"),
                "the reason verbatim: {shown}"
            )
        }
        Agent::Cline => panic!(
            "{} does not continue a turn: this scenario is not run for it",
            agent.name()
        ),
        // Copilot heads every user message with the date (copilot-FINDINGS.md §5)
        Agent::Copilot => assert!(
            shown.starts_with("<current_datetime>")
                && (shown.contains("\n\n[RALPH LOOP") || shown.contains("\n\n[TOOL ERROR")),
            "the reason after Copilot's date line: {shown}"
        ),
        // CodeBuddy labels it and wraps it as a query (codebuddy-FINDINGS.md §4)
        Agent::CodeBuddy => assert!(
            shown.starts_with("<user_query>Stop hook: [RALPH LOOP")
                || shown.starts_with("<user_query>Stop hook: [TOOL ERROR"),
            "the reason labelled by CodeBuddy: {shown}"
        ),
    }
}

/// `ralph fix …` starts a run on the prompt event and the end-of-turn hook continues it, turn
/// after turn, until the model writes the completion token.
pub fn a_ralph_run_continues_until_the_completion_token(agent: Agent) {
    a_ralph_run_continues_in(&with_omc(agent));
}

/// The same in a sandbox where omc-hooks is already installed (by whichever binary).
pub fn a_ralph_run_continues_in(sb: &AgentSandbox) {
    let agent = sb.agent;
    let run = sb.run(
        PROMPT,
        AgentScenario::new()
            .reply_text(MORE)
            .reply_text(MORE)
            .reply_text(MORE)
            .reply_text(DONE)
            .reply_text("unexpected extra turn"),
    );
    run.assert_success();
    let d = run.diagnostics();
    let shown = run.shown_text(0);
    let wrapped = match agent {
        // a developer message of its own, after the prompt
        Agent::Codex => run.main_requests()[0].messages.iter().any(|m| {
            m.role == crate::e2e::model::Role::Developer
                && m.text.starts_with("[MAGIC KEYWORD: RALPH]")
        }),
        Agent::Gemini => shown.contains("<hook_context>[MAGIC KEYWORD: RALPH]"),
        Agent::Qwen => shown.contains("<qwen:user-prompt-submit-context>\n[MAGIC KEYWORD: RALPH]"),
        Agent::Copilot => shown.contains("<system_reminder>\n[MAGIC KEYWORD: RALPH]"),
        Agent::Factory | Agent::CodeBuddy => shown.contains("[MAGIC KEYWORD: RALPH]"),
        // Kimi reads no context and continues once per prompt; Cline does not continue
        Agent::Cline | Agent::Kimi => unreachable!("not run for {}", agent.name()),
        // a synthetic text part of the prompt's own message
        Agent::OpenCode | Agent::Kilo => {
            let m = run.main_requests()[0].last_user_text();
            m.starts_with(PROMPT) && m.contains("\n[MAGIC KEYWORD: RALPH]")
        }
        // a message of its own after the prompt (Pi's `before_agent_start` message)
        Agent::Pi => run.main_requests()[0]
            .user_texts()
            .iter()
            .any(|t| t.starts_with("[MAGIC KEYWORD: RALPH]")),
    };
    assert!(
        wrapped,
        "the keyword context reached the model: {:#?}\n{d}",
        run.main_requests()[0]
            .messages
            .iter()
            .map(|m| (m.role, m.text.chars().take(120).collect::<String>()))
            .collect::<Vec<_>>()
    );
    assert_eq!(run.main_requests().len(), 4, "{d}");
    assert_eq!(run.unused_steps, 1, "no continuation after the token: {d}");
    let conts = continuations(&run);
    assert_eq!(conts.len(), 3, "{d}");
    for (i, c) in conts.iter().enumerate() {
        assert_wrapped(agent, c, &format!("[RALPH LOOP - ITERATION {}/100]", i + 2));
        assert!(c.contains(PROMPT), "the task is restated: {c}");
    }
    let s = ralph_state(sb, &run.session_id).expect("ralph-state.json for the client's session");
    assert_eq!(s["active"], false, "{s:#}");
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
    assert_eq!(s["iteration"], 4, "{s:#}");
}

/// A run whose model never finishes: our own cap of consecutive blocks without a tool call ends
/// the turn (Codex and Gemini have none; Qwen's, which install raises to 100, refuses its
/// 100th block) with the run paused, not lost; `cancelomc`
/// in the resumed session then ends it, and that turn is not continued.
pub fn our_cap_pauses_a_run_and_cancelomc_ends_it(agent: Agent) -> (AgentRun, AgentRun) {
    let sb = with_omc(agent);
    let run = sb.run(PROMPT, AgentScenario::new().default_text(MORE));
    run.assert_success();
    let d = run.diagnostics();
    let sid = run.session_id.clone();
    // Our cap is 8 continuations in a row without a tool call, on every agent. Qwen Code
    // itself refuses the block that reaches its `stopHookBlockingCap` (8 by default, counting
    // every block of the prompt): `install --agent qwen` sets it to 100, so ours decides there
    // too (qwen-FINDINGS.md §6).
    let cap = 8;
    assert_eq!(continuations(&run).len(), cap, "{d}");
    assert_eq!(run.main_requests().len(), cap + 1, "{d}");
    let s = ralph_state(&sb, &sid).expect("ralph-state.json");
    assert_eq!(s["active"], true, "paused, not ended: {s:#}\n{d}");
    assert_eq!(
        s["consecutive_blocks"], 0,
        "our hook let the last Stop through itself (a hand-back), the client did not cut it: {s:#}\n{d}"
    );
    assert_eq!(s["iteration"], cap + 1, "{s:#}");

    let (cancel, d) = cancelled_in(&sb, &sid, "Stopped.");
    assert!(
        cancel.shown_text(0).contains("[MAGIC KEYWORD: CANCEL]"),
        "{d}"
    );
    (run, cancel)
}

/// `cancelomc` typed in session `sid` of `sb`, the model answering `reply` (a second reply
/// stays unused): that turn is not continued and the run ends as cancelled; the client exited
/// cleanly. Returns the turn's run and its diagnostics.
pub fn cancelled_in(sb: &AgentSandbox, sid: &str, reply: &str) -> (AgentRun, String) {
    let cancel = sb.run(
        "cancelomc",
        AgentScenario::new()
            .resume(sid)
            .reply_text(reply)
            .reply_text("unexpected"),
    );
    cancel.assert_success();
    let d = cancel.diagnostics();
    assert_eq!(cancel.main_requests().len(), 1, "not continued: {d}");
    let s = ralph_state(sb, sid).unwrap();
    assert_eq!(s["active"], false, "{s:#}");
    assert_eq!(s["ended_reason"], "cancelled", "{s:#}");
    (cancel, d)
}

/// A question about ralph starts nothing, injects nothing and is never continued.
pub fn a_question_about_ralph_is_inert(agent: Agent) {
    let sb = with_omc(agent);
    let run = sb.run(
        "what is ralph?",
        AgentScenario::new()
            .reply_text("A persistent loop mode; more work remains for you.")
            .reply_text("unexpected"),
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_requests().len(), 1, "{d}");
    let all = run.all_shown_text();
    assert!(!all.contains("[MAGIC KEYWORD"), "{d}");
    assert!(!all.contains("[RALPH LOOP"), "{d}");
    assert!(ralph_state(&sb, &run.session_id).is_none(), "{d}");
}

/// `cmd` as the model sends it to `agent` in a test that reads the command's output back.
/// Qwen Code 0.24.4 settles a headless shell call on the child's `exit` event, without waiting
/// for the pipe to drain, so a command that exits at once sometimes comes back as
/// `Output: (empty)` (qwen-FINDINGS §13): there the command lingers a moment after printing.
pub fn read_back(agent: Agent, cmd: &str) -> String {
    match agent {
        Agent::Qwen => format!("{cmd}; sleep 0.3"),
        _ => cmd.to_owned(),
    }
}

/// The failing command of attempt `n`. Each differs a little: Gemini CLI replaces a 5th
/// identical tool call by a "Potential loop detected" message and Qwen Code ends the run after
/// the 4th (StopFailure `loop_detected`), so identical calls would never fail five times.
pub fn failing(n: u32) -> String {
    format!("echo 'cannot find module parser' >&2; exit 1 # attempt {n}")
}

/// Five failures of a shell command: the retries are counted and the fifth escalates — the
/// escalation text reaches the model.
pub fn a_failing_command_escalates(agent: Agent) -> AgentRun {
    let (sb, run, d) = fails_five_times(agent);
    for i in 1..=4usize {
        let new = run.new_text(i);
        assert!(
            new.contains(&format!("[TOOL ERROR - RETRY {i}]")),
            "request {i} lacks the retry count:\n{new}\n{d}"
        );
    }
    let new = run.new_text(5);
    assert!(
        new.contains("[TOOL ERROR - ALTERNATIVE APPROACH NEEDED]"),
        "the escalation reached the model:\n{new}\n{d}"
    );
    let rec = last_tool_error(&sb, &run.session_id, &d);
    assert_eq!(rec["retry_count"], 5, "{rec:#}");
    run
}

/// The `last-tool-error.json` of session `sid` in `sb`, schema-checked; it must be there.
pub fn last_tool_error(sb: &AgentSandbox, sid: &str, d: &str) -> Value {
    let name = "last-tool-error.json";
    crate::e2e::ralph::session_state_in(&sb.omc_dir(), sid, name, "last-tool-error")
        .unwrap_or_else(|| panic!("no {name}\n{d}"))
}

/// With omc-hooks installed, the model runs five failing commands in a row (`failing(1..=5)`),
/// then gives up; the client exited cleanly after six main requests. Returns the sandbox, the
/// run and its diagnostics.
pub fn fails_five_times(agent: Agent) -> (AgentSandbox, AgentRun, String) {
    let sb = with_omc(agent);
    let mut sc = AgentScenario::new();
    for n in 1..=5 {
        sc = sc.reply_shell(failing(n));
    }
    let run = sb.run(
        "build the parser",
        sc.reply_text("The build keeps failing; I will try another way."),
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_requests().len(), 6, "{d}");
    (sb, run, d)
}

/// A project skill, where the client finds it.
pub const SKILL: &str = "---\nname: demo\ndescription: Demo skill for the tests. Use when asked to demo.\n---\n\nSay hello.\n";

/// Installed hooks a headless run of the pinned client cannot fire, with the reason.
pub fn not_fired_headless(agent: Agent) -> &'static [(&'static str, &'static str)] {
    match agent {
        // multi_agent_v1 subagents are not driven by these scenarios
        Agent::Codex => &[
            ("SubagentStart", "subagents not exercised"),
            ("SubagentStop", "subagents not exercised"),
            (
                "PermissionRequest",
                "not sent by `codex exec`, which asks the person nothing",
            ),
        ],
        Agent::Gemini => &[],
        Agent::Qwen => &[("SessionEnd", "never fired by headless -p runs")],
        Agent::Copilot => &[],
        // Droid 0.225 has neither event (its settings know nine: factory-FINDINGS.md §3), and
        // its subagents and compaction are not driven here
        Agent::Factory => &[
            ("PostToolUseFailure", "no such event in Droid"),
            ("PermissionRequest", "no such event in Droid"),
            ("SubagentStart", "no such event in Droid"),
            ("SubagentStop", "subagents not exercised"),
            ("PreCompact", "compaction not exercised"),
        ],
        Agent::CodeBuddy => &[
            ("SessionEnd", "never fired by its headless sessions"),
            (
                "PermissionRequest",
                "its headless runs here approve every tool, so nothing is asked",
            ),
            (
                "PostToolUseFailure",
                "a failing command arrives as PostToolUse",
            ),
            ("PreCompact", "compaction not exercised"),
        ],
        Agent::Cline => &[("SessionShutdown", "not fired by a headless run")],
        Agent::Kimi => &[
            ("SubagentStart", "subagents not exercised"),
            ("SubagentStop", "subagents not exercised"),
            (
                "PostToolUseFailure",
                "fired only for a tool that raises; a failing command is a PostToolUse",
            ),
        ],
        Agent::OpenCode | Agent::Kilo => &[("session.deleted", "no session is deleted")],
        Agent::Pi => &[],
    }
}

/// Every hook the installation added fires in the real client, decodes the client's payload
/// (the trace names the agent event, its neutral event and the client's session) and answers
/// or passes without failing: one turn that uses a shell command (passing and failing), the
/// client's skill and subagent tools where a row needs them, then a turn that compacts.
pub fn every_installed_hook_fires_and_decodes_the_payload(agent: Agent) {
    let sb = with_omc(agent);
    let installed = sb.installed_omc_hooks();
    let skills = match agent {
        Agent::Copilot => ".github/skills",
        Agent::OpenCode => ".opencode/skill",
        Agent::Kilo => ".kilo/skill",
        Agent::Pi => ".pi/skills",
        _ => "",
    };
    let skills = if skills.is_empty() {
        format!(".{}/skills", agent.name())
    } else {
        skills.to_owned()
    };
    sb.write(&format!("{skills}/demo/SKILL.md"), SKILL);
    let trace_file = sb.root().join("trace.jsonl");
    let trace_env = trace_file.to_string_lossy().into_owned();
    let mut sc = AgentScenario::new()
        .env("OMC_TRACE_FILE", trace_env.clone())
        .reply_shell("echo ok")
        .reply_shell("echo failing >&2; exit 3");
    // a subagent, and a file that is not there
    let look_around = serde_json::json!({"description": "look around", "prompt": "List the files.",
                                         "subagent_type": "general-purpose"});
    let missing = sb.project().join("no-such-file");
    let missing = missing.to_string_lossy();
    match agent {
        Agent::Codex | Agent::Cline | Agent::Kimi => {}
        Agent::Gemini => sc = sc.reply_call("activate_skill", serde_json::json!({"name": "demo"})),
        Agent::Qwen => {
            sc = sc
                .reply_call("skill", serde_json::json!({"skill": "demo"}))
                .reply_call("agent", look_around.clone())
                // the subagent's own (synchronous) model call
                .reply_text("nothing to report");
        }
        Agent::Copilot => sc = copilot_other_tools(&sb, sc),
        Agent::CodeBuddy => {
            sc = sc
                .reply_call("Agent", look_around)
                .reply_text("nothing to report");
        }
        Agent::Factory => {}
        // OpenCode's skill tool, and a read of a file that is not there: a tool that throws
        // (its failure arrives as a tool part in state `error`)
        Agent::OpenCode | Agent::Kilo => {
            sc = sc
                .reply_call("skill", serde_json::json!({"name": "demo"}))
                .reply_call("read", serde_json::json!({ "filePath": missing }))
        }
        Agent::Pi => {}
    }
    let first = sb.run("set the project up", sc.reply_text("all set"));
    first.assert_success();
    // a second session whose reported usage (or token limit) makes the client compact
    let mut sc = AgentScenario::new()
        .env("OMC_TRACE_FILE", trace_env)
        .reply_shell("echo before-compaction")
        .reply_text("compacted");
    sc = match agent {
        Agent::Codex => sc.arg("-c").arg("model_auto_compact_token_limit=12"),
        Agent::Gemini => sc,
        // max_context_size 128000 in the harness's config.toml
        Agent::Qwen | Agent::Kimi => sc.prompt_tokens(190_000),
        // a usage near the window the provider is said to have (copilot-FINDINGS.md §9)
        Agent::Copilot => sc
            .prompt_tokens(45_000)
            .env("COPILOT_PROVIDER_MAX_PROMPT_TOKENS", "50000"),
        Agent::Factory | Agent::CodeBuddy => sc,
        // Cline 3.0.65 runs no PreCompact hook
        Agent::Cline => sc,
        Agent::Kilo | Agent::Pi => sc.prompt_tokens(190_000),
        // OpenCode compacts again after every answer that reports the same usage
        Agent::OpenCode => sc.prompt_tokens_once(190_000),
    };
    let second = sb.run("compact please", sc);
    second.assert_success();

    let lines = crate::e2e_foundation::trace(&trace_file);
    let sessions = [first.session_id.as_str(), second.session_id.as_str()];
    let mut problems = Vec::new();
    let mut checked = 0;
    for (event, hook) in &installed {
        if not_fired_headless(agent).iter().any(|(e, _)| e == event) {
            continue;
        }
        checked += 1;
        let Some(neutral) = omc_hooks::hooks::find(hook).map(|h| h.event) else {
            problems.push(format!("{event}: installed an unknown subcommand {hook:?}"));
            continue;
        };
        let mine: Vec<&Value> = lines
            .iter()
            .filter(|l| l["hook"] == hook.as_str() && l["agent_event"] == event.as_str())
            .collect();
        if mine.is_empty() {
            problems.push(format!("{event} ({hook}) never ran"));
        }
        for l in mine {
            if l["agent"] != agent.name() {
                problems.push(format!("{event}: agent {}", l["agent"]));
            }
            // a failed command reaches post-tool-use as the neutral failure event (no client
            // but Qwen has a failure event of its own)
            let failure = hook == "post-tool-use" && l["event"] == "PostToolUseFailure";
            if l["event"] != neutral && !failure {
                problems.push(format!(
                    "{event}: decoded event {} (want {neutral})",
                    l["event"]
                ));
            }
            // Copilot runs a subagent's own prompt and Stop hooks with the subagent's id as the
            // session (copilot-FINDINGS.md §7): left alone, they answer nothing.
            let subagent_turn = agent == Agent::Copilot
                && ["UserPromptSubmit", "Stop"].contains(&event.as_str())
                && l["outcome"] == "noop";
            if !sessions.contains(&l["session_id"].as_str().unwrap_or("")) && !subagent_turn {
                problems.push(format!("{event}: session {}", l["session_id"]));
            }
            if !matches!(l["outcome"].as_str(), Some("answer" | "noop")) {
                problems.push(format!("{event}: outcome {}", l["outcome"]));
            }
        }
    }
    // Cline installs four hooks (the only ones it awaits or could use), one of them unfired.
    let least = if agent == Agent::Cline { 3 } else { 6 };
    assert!(
        checked >= least,
        "install --agent {} installed too little: {installed:?}",
        agent.name()
    );
    assert!(
        problems.is_empty(),
        "{}\ntrace: {lines:#?}\n{}\n{}",
        problems.join("; "),
        first.diagnostics(),
        second.diagnostics()
    );
}
