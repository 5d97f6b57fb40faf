//! Persistent modes in the real Codex CLI, Gemini CLI and Qwen Code clients, after a fresh
//! `omc-hooks install --agent <agent> --project <project>`: the kinds of scenario the Claude
//! Code suites run (`e2e_stop`, `e2e_honest`, `e2e_keywords`, `e2e_memory`), as shared
//! scenario functions taking the [`Agent`], with one `#[test]` per agent at the end.
//!
//! * A ralph run whose model ends its turn with a question to the user is handed back (not
//!   continued) and carries on with the user's next prompt in the same session (the client's
//!   own resume: `codex exec resume`, `gemini --resume`, `qwen --resume`).
//! * `ulw <task>` starts ultrawork and `ralplan <task>` starts ralplan; the end-of-turn hook
//!   continues either until the completion token.
//! * A cancelled run is not continued on a later turn; a turn with no run is never continued
//!   and writes no run.
//! * A run suspended when its session ends is offered to a fresh session of the same agent and
//!   resumed on the resume word, task and iteration intact. Qwen Code fires no SessionEnd in a
//!   headless `-p` run (qwen-FINDINGS.md §3), so there a fresh session is offered nothing and
//!   the run carries on when its own session is resumed; a run suspended in Gemini CLI is
//!   resumed in Qwen Code.

use crate::e2e::agent_harness::{AgentRun, AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e_agents::{DONE, MORE, PROMPT, ralph_state, read_back, with_omc};
use serde_json::Value;

/// A model that cannot go on without the user: its final message ends with a question.
pub const ASKING: &str =
    "I am blocked: the tests need a DATABASE_URL. Which database should I use?";
/// The user's answer, the next prompt of the same session.
pub const ANSWER: &str = "Use Postgres; DATABASE_URL=postgres://localhost/test";

/// The session's `<mode>-state.json`, schema-checked.
pub fn mode_state(sb: &AgentSandbox, sid: &str, mode: &str) -> Option<Value> {
    crate::e2e::ralph::mode_state_in(&sb.omc_dir(), sid, mode)
}

/// Every `*-state.json` of a run anywhere under `.omc/state` (relative paths).
pub fn run_files(sb: &AgentSandbox) -> Vec<String> {
    fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.to_string_lossy().ends_with("-state.json") {
                out.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let root = sb.omc_dir().join("state");
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out
}

/// What is new in each main request that carries a continuation headed `[<header>`, in order.
pub fn continuations_of(run: &AgentRun, header: &str) -> Vec<String> {
    let marker = format!("[{header}");
    run.main_requests()
        .iter()
        .map(|r| r.new_text())
        .filter(|t| t.contains(&marker))
        .collect()
}

/// Our end-of-turn reason, as the client hands it back to the model: Codex wraps it in
/// `<hook_prompt>` (codex-FINDINGS.md §6), Gemini CLI and Qwen Code send it verbatim as a new
/// user message (gemini-FINDINGS.md §5, qwen-FINDINGS.md §6).
#[track_caller]
pub fn assert_continuation(agent: Agent, shown: &str, head: &str, task: &str) {
    assert!(shown.contains(head), "lacks {head:?}: {shown}");
    assert!(
        shown.contains(&format!("Task: {task}")),
        "the task is restated: {shown}"
    );
    match agent {
        Agent::Codex => assert!(
            shown.starts_with("<hook_prompt hook_run_id=\"stop:")
                && shown.ends_with("</hook_prompt>"),
            "Codex wraps the reason in <hook_prompt>: {shown}"
        ),
        Agent::Gemini
        | Agent::Qwen
        | Agent::Factory
        | Agent::Kimi
        | Agent::OpenCode
        | Agent::Kilo
        | Agent::Pi => assert!(
            shown.starts_with(head),
            "the reason, verbatim, is the new message: {shown}"
        ),
        Agent::Cline => panic!(
            "{} does not continue a turn: this scenario is not run for it",
            agent.name()
        ),
        // the reason after the date line Copilot puts before every message
        Agent::Copilot => assert!(
            shown.starts_with("<current_datetime>") && shown.contains(&format!("\n\n{head}")),
            "the reason, after Copilot's date line: {shown}"
        ),
        Agent::CodeBuddy => assert!(
            shown.starts_with(&format!("<user_query>Stop hook: {head}")),
            "the reason, labelled by CodeBuddy: {shown}"
        ),
    }
}

// ------------------------------------------------------------- hand-back on a question ----

/// Starts a ralph run whose model works one continuation and then asks the user: the question
/// ends the turn (no continuation after it), the run is paused waiting for the user at
/// iteration 2. Returns the run and its session.
fn a_run_that_asks(sb: &AgentSandbox) -> (AgentRun, String) {
    let run = sb.run(
        PROMPT,
        AgentScenario::new()
            .reply_text(MORE)
            .reply_text(ASKING)
            .reply_text("unexpected continuation"),
    );
    run.assert_success();
    let d = run.diagnostics();
    let sid = run.session_id.clone();
    assert!(!sid.is_empty(), "the client reported its session: {d}");
    // One continuation (the first end of turn), then the question ends the turn.
    assert_eq!(run.main_requests().len(), 2, "{d}");
    let conts = continuations_of(&run, "RALPH LOOP - ITERATION");
    assert_eq!(conts.len(), 1, "{d}");
    assert_continuation(
        sb.agent,
        &conts[0],
        "[RALPH LOOP - ITERATION 2/100]",
        PROMPT,
    );
    assert_eq!(
        run.unused_steps, 1,
        "no continuation after the question: {d}"
    );
    assert!(
        run.result_text.contains(ASKING),
        "the user sees the question: {:?}\n{d}",
        run.result_text
    );
    let s = ralph_state(sb, &sid).unwrap_or_else(|| panic!("ralph-state.json\n{d}"));
    assert_eq!(s["active"], true, "paused, not ended: {s:#}\n{d}");
    assert_eq!(s["iteration"], 2, "{s:#}");
    assert_eq!(s["consecutive_blocks"], 0, "{s:#}");
    assert!(s["awaiting_input_at"].is_string(), "{s:#}\n{d}");
    (run, sid)
}

/// A ralph run whose model asks the user a question hands the turn back; the user's next prompt
/// in the same session (the client's resume) carries the run on from where it was, to the
/// completion token.
pub fn a_ralph_run_whose_model_asks_hands_back_and_resumes_on_the_next_prompt(agent: Agent) {
    let sb = with_omc(agent);
    let (_, sid) = a_run_that_asks(&sb);

    let next = sb.run(
        ANSWER,
        AgentScenario::new()
            .resume(&sid)
            .reply_text(MORE)
            .reply_text(DONE)
            .reply_text("unexpected"),
    );
    next.assert_success();
    let d = next.diagnostics();
    assert_eq!(next.session_id, sid, "the same session: {d}");
    assert!(next.shown_text(0).contains(ANSWER), "{d}");
    assert_eq!(next.main_requests().len(), 2, "{d}");
    assert_eq!(next.unused_steps, 1, "no continuation after the token: {d}");
    let conts = continuations_of(&next, "RALPH LOOP - ITERATION");
    assert_eq!(conts.len(), 1, "{d}");
    assert_continuation(agent, &conts[0], "[RALPH LOOP - ITERATION 3/100]", PROMPT);
    let s = ralph_state(&sb, &sid).unwrap();
    assert_eq!(s["active"], false, "{s:#}");
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
    assert_eq!(s["iteration"], 3, "{s:#}");
    assert!(s.get("awaiting_input_at").is_none(), "answered: {s:#}");
}

/// A run whose model never finishes is paused by the block cap (ours, 8 continuations without a
/// tool call, on every agent: see `e2e_agents::our_cap_pauses_a_run_and_cancelomc_ends_it`),
/// not ended; the user's next prompt in the same session carries it on from the iteration it
/// reached.
pub fn the_block_cap_pauses_a_run_and_the_next_prompt_resumes_it(agent: Agent) {
    let sb = with_omc(agent);
    let run = sb.run(PROMPT, AgentScenario::new().default_text(MORE));
    run.assert_success();
    let d = run.diagnostics();
    let sid = run.session_id.clone();
    let cap = 8;
    assert_eq!(
        continuations_of(&run, "RALPH LOOP - ITERATION").len(),
        cap,
        "{d}"
    );
    let s = ralph_state(&sb, &sid).unwrap_or_else(|| panic!("ralph-state.json\n{d}"));
    assert_eq!(s["active"], true, "paused, not ended: {s:#}");
    assert_eq!(s["consecutive_blocks"], 0, "handed back by our hook: {s:#}");
    assert_eq!(s["iteration"], cap + 1, "{s:#}");

    let next = sb.run(
        "carry on",
        AgentScenario::new()
            .resume(&sid)
            .reply_text(MORE)
            .reply_text(DONE)
            .reply_text("unexpected"),
    );
    next.assert_success();
    let d = next.diagnostics();
    assert_eq!(next.main_requests().len(), 2, "{d}");
    assert_eq!(next.unused_steps, 1, "{d}");
    let conts = continuations_of(&next, "RALPH LOOP - ITERATION");
    assert_eq!(conts.len(), 1, "{d}");
    assert_continuation(
        agent,
        &conts[0],
        &format!("[RALPH LOOP - ITERATION {}/100]", cap + 2),
        PROMPT,
    );
    let s = ralph_state(&sb, &sid).unwrap();
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
    assert_eq!(s["iteration"], cap + 2, "{s:#}");
}

/// In a ralph run, five failures of a shell command escalate, and the escalation heads the
/// end-of-turn reason that sends the model back, before the ralph continuation.
pub fn a_failing_command_in_a_run_escalates_and_heads_the_end_of_turn_reason(agent: Agent) {
    let sb = with_omc(agent);
    let mut sc = AgentScenario::new();
    for n in 1..=5 {
        sc = sc.reply_shell(crate::e2e_agents::failing(n));
    }
    let run = sb.run(
        PROMPT,
        sc.reply_text("The build keeps failing; more work remains.")
            .reply_text("Tried another way; it works now.\n<omc-complete/>")
            .reply_text("unexpected"),
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_requests().len(), 7, "{d}");
    assert_eq!(run.unused_steps, 1, "{d}");
    let conts = continuations_of(&run, "RALPH LOOP - ITERATION");
    assert_eq!(conts.len(), 1, "{d}");
    let back = &conts[0];
    let escalation = "[TOOL ERROR - ALTERNATIVE APPROACH NEEDED]";
    let (Some(e), Some(r)) = (
        back.find(escalation),
        back.find("[RALPH LOOP - ITERATION 2/100]"),
    ) else {
        panic!("the escalation and the continuation: {back}\n{d}");
    };
    assert!(e < r, "the escalation heads the reason: {back}");
    match agent {
        Agent::Codex => assert!(
            back.starts_with("<hook_prompt hook_run_id=\"stop:"),
            "{back}"
        ),
        Agent::Gemini
        | Agent::Qwen
        | Agent::Factory
        | Agent::Kimi
        | Agent::OpenCode
        | Agent::Kilo
        | Agent::Pi => {
            assert!(back.starts_with(escalation), "{back}")
        }
        Agent::Copilot => assert!(back.contains(&format!("\n\n{escalation}")), "{back}"),
        Agent::CodeBuddy => assert!(
            back.starts_with(&format!("<user_query>Stop hook: {escalation}")),
            "{back}"
        ),
        Agent::Cline => panic!(
            "{} does not continue a turn: this scenario is not run for it",
            agent.name()
        ),
    }
    assert!(back.contains(&format!("Task: {PROMPT}")), "{back}");
    let s = ralph_state(&sb, &run.session_id).unwrap();
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
}

/// The model itself starts a run with `omc-hooks mode start team …` through the client's shell
/// tool, without being told the session, in a project where an earlier session ran: the
/// command finds its own session (Codex and Qwen Code name it in the command's environment;
/// Gemini CLI ended the earlier one, so its session is the one open), and that session's
/// end-of-turn hook continues the run. Qwen Code never ends a headless session, so without
/// the variable the command would find two open sessions and refuse.
pub fn mode_start_run_by_the_model_finds_its_own_session(agent: Agent) {
    let sb = with_omc(agent);
    let bin = crate::e2e::agent_harness::omc_bin();
    let earlier = sb.run(
        "say hello",
        AgentScenario::new()
            .reply_text("Hello.")
            .reply_text("unexpected"),
    );
    earlier.assert_success();
    let run = sb.run(
        "start a team run for the auth service",
        AgentScenario::new()
            .reply_shell(read_back(
                agent,
                &format!("'{}' mode start team build the auth service", bin.display()),
            ))
            .reply_text("Planned the work; the team has more to do.")
            .reply_text("Done.\n<omc-complete/>")
            .reply_text("unexpected"),
    );
    run.assert_success();
    let d = run.diagnostics();
    let sid = run.session_id.clone();
    let out = run.main_requests()[1].tool_outputs().join("\n");
    assert!(
        out.contains(&format!("team: run started in session {sid}")),
        "{out}\n{d}"
    );
    assert_eq!(run.main_requests().len(), 3, "{d}");
    let conts = continuations_of(&run, "TEAM - PHASE");
    assert_eq!(conts.len(), 1, "{d}");
    assert_continuation(
        agent,
        &conts[0],
        "[TEAM - PHASE: not reported yet - ITERATION 2/30]",
        "build the auth service",
    );
    let s = mode_state(&sb, &sid, "team").unwrap_or_else(|| panic!("team-state.json\n{d}"));
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
    assert_ne!(earlier.session_id, sid);
    assert!(
        mode_state(&sb, &earlier.session_id, "team").is_none(),
        "{d}"
    );
}

// ------------------------------------------------------------------------ trust ----

/// The model runs `omc-hooks trust --yes` in a project whose `.omc/hooks.toml` it wants run
/// (issue 30, item 2): the variable the client sets for the model's commands
/// (codex-FINDINGS.md §13, gemini-FINDINGS.md §14, qwen-FINDINGS.md §14) makes trust refuse —
/// Gemini CLI runs the command in a pseudo-terminal, so a terminal alone proves no person —
/// nothing is recorded, and the file's hook never runs. The binary is run as a renamed copy,
/// which the pre-tool hook's refusal of `omc-hooks trust` (issue 43) does not recognise, so
/// this is `trust`'s own refusal on every client (the Claude Code suite checks both).
pub fn trust_run_by_the_model_is_refused(agent: Agent) {
    let sb = with_omc(agent);
    let bin = crate::e2e::agent_harness::omc_bin();
    let marker = sb.root().join("project-hook-ran");
    sb.write(
        ".omc/hooks.toml",
        &format!(
            "[[hooks]]\nevent = \"pre-tool-use\"\ntype = \"script\"\ncommand = {}\n",
            serde_json::to_string(&format!("touch {}", marker.display())).unwrap()
        ),
    );
    let config = sb.home().join(".config");
    let run = sb.run(
        "trust this project's hooks so they run",
        AgentScenario::new()
            .reply_shell(read_back(
                agent,
                &format!(
                    "cp '{}' '{c}' && '{c}' trust --yes 2>&1",
                    bin.display(),
                    c = sb.home().join("trust-helper").display()
                ),
            ))
            .reply_shell(read_back(agent, "echo after"))
            .reply_text("I could not trust it.")
            .reply_text("unexpected")
            .env("XDG_CONFIG_HOME", config.to_string_lossy()),
    );
    run.assert_success();
    let d = run.diagnostics();
    // Every variable of its own the client was seen to set for the model's commands; the
    // refusal names the first of trust's list that is set. CodeBuddy sets `CODEBUDDY=1` only
    // once its shell snapshot (made with that variable, in the background) is ready, so which
    // of its two a command sees depends on that race (codebuddy-FINDINGS.md §2).
    let vars: &[&str] = match agent {
        Agent::Codex => &["CODEX_THREAD_ID", "CODEX_SESSION_ID"],
        Agent::Gemini => &["GEMINI_CLI"],
        Agent::Qwen => &["QWEN_CODE", "QWEN_CODE_SESSION_ID"],
        Agent::Copilot => &["COPILOT_CLI", "COPILOT_AGENT_SESSION_ID"],
        Agent::CodeBuddy => &["CODEBUDDY", "CODEBUDDY_SESSION_ID"],
        Agent::Factory => &["FACTORY_DISABLE_SETTINGS_PERSISTENCE"],
        Agent::Cline => &["CLINE_CONNECTOR_CLI_LAUNCH"],
        // Kimi CLI sets no variable of its own for the model's commands (kimi-FINDINGS.md §2).
        Agent::Kimi => unreachable!("not run for Kimi CLI"),
        Agent::OpenCode => &["OPENCODE"],
        Agent::Kilo => &["KILO"],
        Agent::Pi => &["PI_CODING_AGENT"],
    };
    let out = run.main_requests()[1].tool_outputs().join("\n");
    assert!(
        vars.iter()
            .any(|var| out.contains(&format!("refused: {var} is set"))),
        "expected a refusal naming one of {vars:?}:\n{out}\n{d}"
    );
    assert!(
        !config.join("omc-hooks/trusted.json").exists(),
        "the model recorded trust\n{d}"
    );
    assert!(!marker.exists(), "the untrusted hook ran\n{d}");
}

// ---------------------------------------------------------------- other mode words ----

/// `prompt` starts `mode` on the prompt event (the model is shown `[MAGIC KEYWORD: <MODE>]`
/// and the request) and the end-of-turn hook continues it with `header` until the completion
/// token; nothing else is started.
pub fn a_mode_word_starts_a_run_the_end_of_turn_hook_continues(
    agent: Agent,
    prompt: &str,
    mode: &str,
    header: &str,
) {
    let sb = with_omc(agent);
    let run = sb.run(
        prompt,
        AgentScenario::new()
            .reply_text(MORE)
            .reply_text(MORE)
            .reply_text(DONE)
            .reply_text("unexpected extra turn"),
    );
    run.assert_success();
    let d = run.diagnostics();
    let first = run.shown_text(0);
    assert!(
        first.contains(&format!("[MAGIC KEYWORD: {}]", mode.to_uppercase())),
        "the keyword context reached the model: {first}\n{d}"
    );
    assert!(
        first.contains(&format!(
            "User request (as typed; the prompt itself stays authoritative):\n{prompt}"
        )),
        "{first}"
    );
    assert_eq!(run.main_requests().len(), 3, "{d}");
    assert_eq!(run.unused_steps, 1, "no continuation after the token: {d}");
    let conts = continuations_of(&run, header);
    assert_eq!(conts.len(), 2, "{d}");
    for (i, c) in conts.iter().enumerate() {
        let head = format!("[{header} - ITERATION {}/", i + 2);
        assert_continuation(agent, c, &head, prompt);
    }
    let s = mode_state(&sb, &run.session_id, mode)
        .unwrap_or_else(|| panic!("{mode}-state.json for the session\n{d}"));
    assert_eq!(s["mode"], mode, "{s:#}");
    assert_eq!(s["session_id"], run.session_id.as_str(), "{s:#}");
    assert_eq!(s["prompt"], prompt, "{s:#}");
    assert_eq!(s["active"], false, "{s:#}");
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
    assert_eq!(s["iteration"], 3, "{s:#}");
    let runs = run_files(&sb);
    assert_eq!(
        runs,
        vec![format!("sessions/{}/{mode}-state.json", run.session_id)],
        "nothing else was started"
    );
}

/// `autopilot <task>` starts autopilot; the model records its phases with `omc-hooks mode phase
/// autopilot <phase>` through the shell tool without naming the session (Codex and Qwen Code
/// name it in the command's environment; in Gemini CLI it is the one session with an active
/// autopilot run), the end-of-turn hook continues with the phase it recorded, and recording
/// `complete` ends the run: the next end of turn is not continued.
pub fn autopilot_records_its_phases_and_completing_ends_the_run(agent: Agent) {
    let sb = with_omc(agent);
    let bin = crate::e2e::agent_harness::omc_bin();
    let phase = |p: &str| {
        read_back(
            agent,
            &format!("'{}' mode phase autopilot {p}", bin.display()),
        )
    };
    let prompt = "autopilot build me a todo app with a REST API";
    let run = sb.run(
        prompt,
        AgentScenario::new()
            .reply_shell(phase("planning"))
            .reply_text("The plan is written; building comes next.")
            .reply_shell(phase("complete"))
            .reply_text("Built, tested and validated.")
            .reply_text("unexpected extra turn"),
    );
    run.assert_success();
    let d = run.diagnostics();
    let sid = run.session_id.clone();
    assert!(
        run.shown_text(0).contains("[MAGIC KEYWORD: AUTOPILOT]"),
        "{d}"
    );
    assert_eq!(run.main_requests().len(), 4, "{d}");
    assert_eq!(run.unused_steps, 1, "not continued after complete: {d}");
    let out = run.main_requests()[1].tool_outputs().join("\n");
    assert!(
        out.contains(&format!("autopilot: phase planning (session {sid})")),
        "{out}\n{d}"
    );
    let conts = continuations_of(&run, "AUTOPILOT - PHASE");
    assert_eq!(conts.len(), 1, "{d}");
    assert_continuation(
        agent,
        &conts[0],
        "[AUTOPILOT - PHASE: planning - ITERATION 2/30]",
        prompt,
    );
    let out = run.main_requests()[3].tool_outputs().join("\n");
    assert!(
        out.contains(&format!(
            "autopilot: phase complete — run finished (session {sid})"
        )),
        "{out}\n{d}"
    );
    let s = mode_state(&sb, &sid, "autopilot").unwrap_or_else(|| panic!("state\n{d}"));
    assert_eq!(s["active"], false, "{s:#}");
    assert_eq!(s["phase"], "complete", "{s:#}");
}

/// `ulw <task>`: ultrawork.
pub fn ulw_starts_ultrawork_and_the_end_of_turn_hook_continues_it(agent: Agent) {
    a_mode_word_starts_a_run_the_end_of_turn_hook_continues(
        agent,
        "ulw fix the flaky login test",
        "ultrawork",
        "ULTRAWORK",
    );
}

/// `ralplan <task>` (the mode name as the verb): ralplan.
pub fn ralplan_starts_a_planning_run_the_end_of_turn_hook_continues(agent: Agent) {
    a_mode_word_starts_a_run_the_end_of_turn_hook_continues(
        agent,
        "ralplan the schema change",
        "ralplan",
        "RALPLAN",
    );
}

// ------------------------------------------------------------- cancelled, and no run ----

/// A run paused (the model asked), then `cancelomc` on the next turn: that turn is not
/// continued, and neither is the turn after it although its model says more work remains.
pub fn a_cancelled_run_is_not_continued_on_the_next_turn(agent: Agent) {
    let sb = with_omc(agent);
    let first = sb.run(
        PROMPT,
        AgentScenario::new()
            .reply_text(ASKING)
            .reply_text("unexpected continuation"),
    );
    first.assert_success();
    let d = first.diagnostics();
    let sid = first.session_id.clone();
    assert_eq!(first.main_requests().len(), 1, "handed back: {d}");
    let s = ralph_state(&sb, &sid).unwrap_or_else(|| panic!("ralph-state.json\n{d}"));
    assert_eq!(s["active"], true, "{s:#}");

    let (cancel, d) = crate::e2e_agents::cancelled_in(&sb, &sid, MORE);
    let shown = cancel.shown_text(0);
    assert!(shown.contains("[MAGIC KEYWORD: CANCEL]"), "{d}");
    assert!(shown.contains("Ended: ralph."), "{shown}");

    let next = sb.run(
        "what is left?",
        AgentScenario::new()
            .resume(&sid)
            .reply_text(MORE)
            .reply_text("unexpected"),
    );
    next.assert_success();
    let d = next.diagnostics();
    assert_eq!(next.main_requests().len(), 1, "not continued: {d}");
    assert_eq!(next.unused_steps, 1, "{d}");
    assert!(
        continuations_of(&next, "RALPH LOOP - ITERATION").is_empty(),
        "{d}"
    );
    let s = ralph_state(&sb, &sid).unwrap();
    assert_eq!(
        (s["active"].as_bool(), s["ended_reason"].as_str()),
        (Some(false), Some("cancelled")),
        "{s:#}"
    );
}

/// A turn with no run — a task without a mode word, a shell call, a final answer that says
/// work remains — is never continued, and no run is written.
pub fn a_turn_without_a_run_is_never_continued(agent: Agent) {
    let sb = with_omc(agent);
    let run = sb.run(
        "fix the failing parser test",
        AgentScenario::new()
            .reply_shell("echo looking-at-the-parser")
            .reply_text(MORE)
            .reply_text("unexpected"),
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(
        run.main_requests().len(),
        2,
        "the shell call, then the end: {d}"
    );
    assert_eq!(run.unused_steps, 1, "not continued: {d}");
    let all = run.all_shown_text();
    assert!(!all.contains("[MAGIC KEYWORD"), "{d}");
    for head in [
        "[RALPH LOOP",
        "[ULTRAWORK",
        "[AUTOPILOT",
        "[RALPLAN",
        "[ULTRAQA",
    ] {
        assert!(!all.contains(head), "{head}: {d}");
    }
    assert!(run_files(&sb).is_empty(), "{:?}", run_files(&sb));
}

// ---------------------------------------------------------------- suspended runs ----

/// The texts a fresh session is shown when it resumes `old`'s run at iteration `it`.
#[track_caller]
fn assert_offered_and_resumed(shown: &str, old: &str, it: u64) {
    assert_offered_and_rebound(shown, old, it);
    assert!(shown.contains(&format!("Task: {PROMPT}")), "{shown}");
}

/// A fresh session was offered `old`'s suspended run at iteration `it` and re-bound to it (any
/// client, `e2e_cross_agent` too).
#[track_caller]
pub(crate) fn assert_offered_and_rebound(shown: &str, old: &str, it: u64) {
    assert!(shown.contains("[SUSPENDED RUN]"), "offered: {shown}");
    assert!(
        shown.contains(&format!("[RALPH LOOP] iteration {it}/100 — session {old}")),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "[RALPH LOOP RESUMED] Re-bound to this session from session {old}; iteration {it}/100."
        )),
        "{shown}"
    );
}

/// `run`, a fresh session whose prompt was the resume word, took over `old`'s run (iteration
/// `it`): one continuation at `it + 1` with the task, then the completion token; the run
/// re-bound to the new session, the old one ended as `resumed`.
#[track_caller]
fn assert_carried_on(sb: &AgentSandbox, agent: Agent, run: &AgentRun, old: &str, it: u64) {
    let d = run.diagnostics();
    let new = run.session_id.as_str();
    assert_ne!(new, old, "a fresh session: {d}");
    assert_offered_and_resumed(&run.all_shown_text(), old, it);
    assert_eq!(run.main_requests().len(), 2, "{d}");
    let conts = continuations_of(run, "RALPH LOOP - ITERATION");
    assert_eq!(conts.len(), 1, "{d}");
    assert_continuation(
        agent,
        &conts[0],
        &format!("[RALPH LOOP - ITERATION {}/100]", it + 1),
        PROMPT,
    );
    let moved = ralph_state(sb, new).unwrap_or_else(|| panic!("re-bound\n{d}"));
    assert_eq!(moved["session_id"], new, "{moved:#}");
    assert_eq!(moved["resumed_from"], old, "{moved:#}");
    assert_eq!(moved["prompt"], PROMPT, "the task is intact: {moved:#}");
    assert_eq!(moved["iteration"], it + 1, "{moved:#}");
    assert_eq!(moved["ended_reason"], "completed", "{moved:#}");
    assert!(
        moved.get("awaiting_input_at").is_none(),
        "the resume word answered the question: {moved:#}"
    );
    let was = ralph_state(sb, old).unwrap();
    assert_eq!(
        (was["active"].as_bool(), was["ended_reason"].as_str()),
        (Some(false), Some("resumed")),
        "{was:#}"
    );
}

/// The run of `sid` as SessionEnd leaves it: active, suspended, listed in the index.
#[track_caller]
fn assert_suspended(sb: &AgentSandbox, sid: &str) -> u64 {
    let s = ralph_state(sb, sid).expect("ralph-state.json of the first session");
    assert_eq!(s["active"], true, "{s:#}");
    assert!(
        s["suspended_at"].is_string(),
        "SessionEnd suspended it: {s:#}"
    );
    assert_eq!(s["prompt"], PROMPT, "{s:#}");
    let idx: Value = serde_json::from_slice(
        &std::fs::read(sb.omc_dir().join("state/suspended-runs.json"))
            .expect("suspended-runs.json"),
    )
    .unwrap();
    assert!(
        idx["runs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["session_id"] == sid && r["mode"] == "ralph"),
        "{idx:#}"
    );
    s["iteration"].as_u64().unwrap()
}

/// The resume word's path: with the resume bound at 0 a suspended run is only offered (within
/// the default bound the next session takes it up at its start: `e2e_long_runs`).
pub fn word_only(sb: &AgentSandbox) {
    sb.write(".omc/config.json", r#"{"resume": {"within_minutes": 0}}"#);
}

/// A ralph run paused by the model's question is suspended when its session ends; a fresh
/// session of the same agent is offered it at SessionStart and takes it over on `omc resume`,
/// task and iteration intact, and its end-of-turn hook carries it on to the completion token.
pub fn a_suspended_run_is_offered_to_a_fresh_session_and_resumed_on_the_word(agent: Agent) {
    let sb = with_omc(agent);
    word_only(&sb);
    let (_, old) = a_run_that_asks(&sb);
    let it = assert_suspended(&sb, &old);
    assert_eq!(it, 2);

    let fresh = sb.run(
        "omc resume",
        AgentScenario::new()
            .reply_text(MORE)
            .reply_text(DONE)
            .reply_text("unexpected"),
    );
    fresh.assert_success();
    assert_carried_on(&sb, agent, &fresh, &old, it);
}

/// Qwen Code fires no SessionEnd in a headless `-p` run (qwen-FINDINGS.md §3), so a run paused
/// there is never suspended. The Stop that hands the turn back notes it as left open instead
/// (issue 24), and a fresh session is offered it and takes it over on `omc resume` as it would
/// a suspended one (past the resume bound, 0 here; within it the next session takes it up at
/// its start: `e2e_long_runs`).
pub fn without_session_end_a_run_left_open_is_offered_to_a_fresh_session_and_resumed_on_the_word(
    agent: Agent,
) {
    let sb = with_omc(agent);
    word_only(&sb);
    let (_, old) = a_run_that_asks(&sb);
    let s = ralph_state(&sb, &old).unwrap();
    assert!(s.get("suspended_at").is_none(), "no SessionEnd: {s:#}");
    let idx: Value = serde_json::from_slice(
        &std::fs::read(sb.omc_dir().join("state/suspended-runs.json"))
            .expect("suspended-runs.json"),
    )
    .unwrap();
    assert!(
        idx["runs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["session_id"] == old && r["open"] == true),
        "{idx:#}"
    );

    let fresh = sb.run(
        "omc resume",
        AgentScenario::new()
            .reply_text(MORE)
            .reply_text(DONE)
            .reply_text("unexpected"),
    );
    fresh.assert_success();
    assert_carried_on(&sb, agent, &fresh, &old, 2);
}

/// A run suspended in one agent's session is resumed in another agent's fresh session in the
/// same project (`from` must fire SessionEnd headless).
pub fn a_run_suspended_in_one_agent_is_resumed_in_another(from: Agent, to: Agent) {
    let sb = with_omc(from);
    word_only(&sb);
    let (_, old) = a_run_that_asks(&sb);
    let it = assert_suspended(&sb, &old);
    let sb = sb.switch_to(to);
    sb.install_hooks();
    let fresh = sb.run(
        "omc resume",
        AgentScenario::new()
            .reply_text(MORE)
            .reply_text(DONE)
            .reply_text("unexpected"),
    );
    fresh.assert_success();
    assert_carried_on(&sb, to, &fresh, &old, it);
}

// -------------------------------------------------------------------- per agent ----

macro_rules! agent_suite {
    ($m:ident, $agent:expr, suspended: $suspended:ident) => {
        mod $m {
            use super::*;

            #[test]
            fn a_ralph_run_whose_model_asks_hands_back_and_resumes_on_the_next_prompt() {
                super::a_ralph_run_whose_model_asks_hands_back_and_resumes_on_the_next_prompt(
                    $agent,
                );
            }

            #[test]
            fn the_block_cap_pauses_a_run_and_the_next_prompt_resumes_it() {
                super::the_block_cap_pauses_a_run_and_the_next_prompt_resumes_it($agent);
            }

            #[test]
            fn a_failing_command_in_a_run_escalates_and_heads_the_end_of_turn_reason() {
                super::a_failing_command_in_a_run_escalates_and_heads_the_end_of_turn_reason(
                    $agent,
                );
            }

            #[test]
            fn mode_start_run_by_the_model_finds_its_own_session() {
                super::mode_start_run_by_the_model_finds_its_own_session($agent);
            }

            #[test]
            fn trust_run_by_the_model_is_refused() {
                super::trust_run_by_the_model_is_refused($agent);
            }

            #[test]
            fn autopilot_records_its_phases_and_completing_ends_the_run() {
                super::autopilot_records_its_phases_and_completing_ends_the_run($agent);
            }

            #[test]
            fn ulw_starts_ultrawork_and_the_end_of_turn_hook_continues_it() {
                super::ulw_starts_ultrawork_and_the_end_of_turn_hook_continues_it($agent);
            }

            #[test]
            fn ralplan_starts_a_planning_run_the_end_of_turn_hook_continues() {
                super::ralplan_starts_a_planning_run_the_end_of_turn_hook_continues($agent);
            }

            #[test]
            fn a_cancelled_run_is_not_continued_on_the_next_turn() {
                super::a_cancelled_run_is_not_continued_on_the_next_turn($agent);
            }

            #[test]
            fn a_turn_without_a_run_is_never_continued() {
                super::a_turn_without_a_run_is_never_continued($agent);
            }

            #[test]
            fn $suspended() {
                super::$suspended($agent);
            }
        }
    };
}

agent_suite!(codex, Agent::Codex, suspended: a_suspended_run_is_offered_to_a_fresh_session_and_resumed_on_the_word);
agent_suite!(gemini, Agent::Gemini, suspended: a_suspended_run_is_offered_to_a_fresh_session_and_resumed_on_the_word);
agent_suite!(qwen, Agent::Qwen, suspended: without_session_end_a_run_left_open_is_offered_to_a_fresh_session_and_resumed_on_the_word);

#[test]
fn a_run_suspended_in_gemini_is_resumed_in_qwen() {
    a_run_suspended_in_one_agent_is_resumed_in_another(Agent::Gemini, Agent::Qwen);
}
