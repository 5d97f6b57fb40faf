//! Re-records `tests/fixtures/<client>/*.json` from the pinned real clients: every event each
//! client fires, with the recorder (`tests/e2e/recorder/record.sh`) as the only hook (for
//! OpenCode, Kilo Code and Pi, run by our plugin in place of the binary). Ignored in normal
//! runs; `tests/e2e/record-agent-fixtures.sh [codex|gemini|qwen|…]` runs it
//! (`FIXTURE_OUT=<dir>` overrides the output directory of a single client).
//!
//! Each client runs a few sessions: a first turn with a passing and a failing shell command
//! whose end-of-turn hook blocks once (so the continuation and `stop_hook_active: true` are
//! seen), a resumed session answered by text only, and where the client compacts, a turn
//! whose reported token usage forces it. The payloads are saved as `<Event>[-variant].json`;
//! the test fails when an expected variant was not seen. Ids, paths and timestamps are real.

use crate::e2e::agent_harness::{AgentRun, AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e_agents::recorded;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn out_dir(agent: Agent) -> PathBuf {
    std::env::var_os("FIXTURE_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures")
                .join(agent.name())
        })
}

/// Makes `$REC_DIR/respond/<event>` answer with `script` (sh).
fn responder(rec: &Path, event: &str, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    let d = rec.join("respond");
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(event);
    std::fs::write(&p, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Blocks the first end-of-turn event of the run with this reason.
fn block_once(rec: &Path, event: &str, decision: &str) {
    responder(
        rec,
        event,
        &format!(
            r#"n=$(ls "$REC_DIR" | grep -c -- '-{event}.json$'); if [ "$n" = 1 ]; then printf '{{"decision":"{decision}","reason":"{CONTINUE}"}}\n'; fi"#
        ),
    );
}

/// The reason the recorder's end-of-turn hook blocks with once.
pub const CONTINUE: &str = "CONTINUE-MARKER: run the tests before stopping";

fn with_rec(sc: AgentScenario, rec: &Path) -> AgentScenario {
    sc.env("REC_DIR", rec.to_string_lossy())
}

type Pred = Box<dyn Fn(&str, &Value) -> bool>;
/// Recorded payloads, (event, payload) in firing order.
type Events = Vec<(String, Value)>;

fn s(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_owned()
}

fn ev(name: &'static str) -> Pred {
    Box::new(move |e, _| e == name)
}

fn ev_where(name: &'static str, f: impl Fn(&Value) -> bool + 'static) -> Pred {
    Box::new(move |e, v| e == name && f(v))
}

/// A fixture's name and how to find its payload among the recorded events.
type Pick = (String, Pred);

fn pick(name: &str, pred: Pred) -> Pick {
    (name.to_owned(), pred)
}

/// The first payload of `event`, saved under its name.
fn only(event: &'static str) -> Pick {
    pick(event, ev(event))
}

/// `SessionStart-<source>`.
fn session_start(source: &'static str) -> Pick {
    pick(
        &format!("SessionStart-{source}"),
        ev_where("SessionStart", move |v| s(v, "source") == source),
    )
}

/// The prompt event of the first turn ("record all events").
fn first_prompt(event: &'static str) -> Pick {
    pick(
        event,
        ev_where(event, |v| s(v, "prompt") == "record all events"),
    )
}

/// `<event>-continuation`: the prompt event that carries the blocked turn's [`CONTINUE`].
fn continuation_prompt(event: &'static str) -> Pick {
    pick(
        &format!("{event}-continuation"),
        ev_where(event, |v| s(v, "prompt") == CONTINUE),
    )
}

/// The end-of-turn event of a turn no hook has continued yet (`stop_hook_active: false`).
fn turn_end(event: &'static str) -> Pick {
    pick(event, ev_where(event, |v| v["stop_hook_active"] == false))
}

/// `<event>-hook-active`: the end-of-turn event of a continued turn.
fn turn_end_continued(event: &'static str) -> Pick {
    pick(
        &format!("{event}-hook-active"),
        ev_where(event, |v| v["stop_hook_active"] == true),
    )
}

fn failing(v: &Value) -> bool {
    v["tool_input"]["command"]
        .as_str()
        .is_some_and(|c| c.contains("exit 3"))
}

/// Writes one fixture per pick; returns the names not seen.
fn save(all: &[(String, Value)], picks: Vec<Pick>, out: &Path) -> Vec<String> {
    std::fs::create_dir_all(out).unwrap();
    let mut missing = Vec::new();
    for (name, pred) in &picks {
        match all.iter().find(|(e, v)| pred(e, v)) {
            Some((_, v)) => {
                let mut txt = serde_json::to_string_pretty(v).unwrap();
                txt.push('\n');
                std::fs::write(out.join(format!("{name}.json")), txt).unwrap();
            }
            None => missing.push(name.clone()),
        }
    }
    missing
}

fn summary(label: &str, run: &AgentRun, events: &[(String, Value)]) {
    let names: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
    eprintln!(
        "[record] {label}: exit {}, {} model requests, {:?}, events: {}",
        run.status,
        run.requests.len(),
        run.duration,
        names.join(" ")
    );
}

const OK_CMD: &str = "echo hello-e2e";
const FAIL_CMD: &str = "echo failing >&2; exit 3";

/// Run 1 for every client: a passing and a failing shell command, the end-of-turn hook blocks
/// once, then a resumed session answered with text only.
fn first_and_resumed(
    agent: Agent,
    sb: &AgentSandbox,
    end_event: &str,
    decision: &str,
) -> (Events, Events) {
    let rec1 = sb.root().join("rec1");
    block_once(&rec1, end_event, decision);
    let run1 = sb.run(
        "record all events",
        with_rec(
            AgentScenario::new()
                .reply_shell(OK_CMD)
                .reply_shell(FAIL_CMD)
                .reply_text("all done")
                .reply_text("FINAL-AFTER-CONTINUATION"),
            &rec1,
        ),
    );
    run1.assert_success();
    let e1 = recorded(&rec1);
    summary("run 1", &run1, &e1);
    assert!(
        !run1.session_id.is_empty(),
        "no session id in the {} output\n{}",
        agent.name(),
        run1.diagnostics()
    );

    let rec2 = sb.root().join("rec2");
    let run2 = sb.run(
        "second turn",
        with_rec(
            AgentScenario::new()
                .resume(&run1.session_id)
                .reply_text("second done"),
            &rec2,
        ),
    );
    run2.assert_success();
    let e2 = recorded(&rec2);
    summary("run 2 (resumed, text only)", &run2, &e2);
    (e1, e2)
}

fn finish(agent: Agent, missing: Vec<String>, out: &Path) {
    eprintln!(
        "[record] {} fixtures written to {}",
        agent.name(),
        out.display()
    );
    assert!(
        missing.is_empty(),
        "{}: no payload recorded for {missing:?}",
        agent.name()
    );
}

#[test]
#[ignore = "re-records tests/fixtures/codex: tests/e2e/record-agent-fixtures.sh codex"]
fn record_codex_fixtures() {
    let agent = Agent::Codex;
    let sb = AgentSandbox::new(agent);
    sb.record_hooks();
    let (e1, e2) = first_and_resumed(agent, &sb, "Stop", "block");

    // run 3: auto-compaction, forced by a tiny token limit
    let rec3 = sb.root().join("rec3");
    let run3 = sb.run(
        "compact please",
        with_rec(
            AgentScenario::new()
                .arg("-c")
                .arg("model_auto_compact_token_limit=12")
                .reply_shell("echo before-compaction")
                .reply_text("compacted and done"),
            &rec3,
        ),
    );
    run3.assert_success();
    let e3 = recorded(&rec3);
    summary("run 3 (compaction)", &run3, &e3);

    let all: Events = e1.into_iter().chain(e2).chain(e3).collect();
    let picks: Vec<Pick> = vec![
        session_start("startup"),
        session_start("resume"),
        session_start("compact"),
        only("UserPromptSubmit"),
        pick("PreToolUse-Bash", ev_where("PreToolUse", |v| !failing(v))),
        pick("PostToolUse-Bash", ev_where("PostToolUse", |v| !failing(v))),
        pick("PostToolUse-Bash-failed", ev_where("PostToolUse", failing)),
        only("PreModelRequest"),
        only("PostModelRequest"),
        turn_end("Stop"),
        turn_end_continued("Stop"),
        pick("PreCompact-auto", ev("PreCompact")),
        pick("PostCompact-auto", ev("PostCompact")),
        only("SessionEnd"),
    ];
    let out = out_dir(agent);
    let missing = save(&all, picks, &out);
    finish(agent, missing, &out);
}

#[test]
#[ignore = "re-records tests/fixtures/gemini: tests/e2e/record-agent-fixtures.sh gemini"]
fn record_gemini_fixtures() {
    let agent = Agent::Gemini;
    let sb = AgentSandbox::new(agent);
    sb.record_hooks();
    let (e1, e2) = first_and_resumed(agent, &sb, "AfterAgent", "deny");
    let all: Events = e1.into_iter().chain(e2).collect();
    let tool = |v: &Value| s(v, "tool_name") == "run_shell_command";
    let picks: Vec<Pick> = vec![
        session_start("startup"),
        session_start("resume"),
        first_prompt("BeforeAgent"),
        continuation_prompt("BeforeAgent"),
        only("BeforeModel"),
        only("BeforeToolSelection"),
        only("AfterModel"),
        pick(
            "BeforeTool-run_shell_command",
            ev_where("BeforeTool", move |v| tool(v) && !failing(v)),
        ),
        pick(
            "AfterTool-run_shell_command",
            ev_where("AfterTool", move |v| tool(v) && !failing(v)),
        ),
        pick(
            "AfterTool-run_shell_command-failed",
            ev_where("AfterTool", move |v| tool(v) && failing(v)),
        ),
        only("PreCompress"),
        turn_end("AfterAgent"),
        turn_end_continued("AfterAgent"),
        pick(
            "AfterAgent-text-only",
            ev_where("AfterAgent", |v| s(v, "prompt") == "second turn"),
        ),
        only("SessionEnd"),
    ];
    let out = out_dir(agent);
    let missing = save(&all, picks, &out);
    finish(agent, missing, &out);
}

#[test]
#[ignore = "re-records tests/fixtures/qwen: tests/e2e/record-agent-fixtures.sh qwen"]
fn record_qwen_fixtures() {
    let agent = Agent::Qwen;
    let sb = AgentSandbox::new(agent);
    sb.record_hooks();
    let (e1, e2) = first_and_resumed(agent, &sb, "Stop", "block");

    // run 3: auto-compaction, forced by a reported usage near the context limit
    let rec3 = sb.root().join("rec3");
    let run3 = sb.run(
        "compact please",
        with_rec(
            AgentScenario::new()
                .prompt_tokens(190_000)
                .reply_shell("echo before-compaction")
                .reply_text("compacted and done"),
            &rec3,
        ),
    );
    run3.assert_success();
    let e3 = recorded(&rec3);
    summary("run 3 (compaction)", &run3, &e3);

    // run 4: the same tool call over and over ends in loop detection (StopFailure)
    let rec4 = sb.root().join("rec4");
    let mut sc = AgentScenario::new();
    for _ in 0..12 {
        sc = sc.reply_shell("echo same-again");
    }
    let run4 = sb.run("loop please", with_rec(sc, &rec4));
    let e4 = recorded(&rec4);
    summary("run 4 (loop detection)", &run4, &e4);

    let all: Events = e1.into_iter().chain(e2).chain(e3).chain(e4).collect();
    let shell = |v: &Value| s(v, "tool_name") == "run_shell_command";
    let picks: Vec<Pick> = vec![
        only("InstructionsLoaded"),
        session_start("startup"),
        session_start("resume"),
        session_start("compact"),
        only("Notification"),
        first_prompt("UserPromptSubmit"),
        pick(
            "UserPromptSubmit-empty",
            ev_where("UserPromptSubmit", |v| s(v, "prompt").is_empty()),
        ),
        continuation_prompt("UserPromptSubmit"),
        pick(
            "PreToolUse-run_shell_command",
            ev_where("PreToolUse", move |v| shell(v) && !failing(v)),
        ),
        pick(
            "PostToolUse-run_shell_command",
            ev_where("PostToolUse", move |v| shell(v) && !failing(v)),
        ),
        pick(
            "PostToolUseFailure-run_shell_command",
            ev_where("PostToolUseFailure", move |v| shell(v) && failing(v)),
        ),
        only("PostToolBatch"),
        only("MessageDisplay"),
        turn_end("Stop"),
        turn_end_continued("Stop"),
        pick("PreCompact-auto", ev("PreCompact")),
        pick("PostCompact-auto", ev("PostCompact")),
        pick("StopFailure-loop", ev("StopFailure")),
    ];
    let out = out_dir(agent);
    let missing = save(&all, picks, &out);
    finish(agent, missing, &out);
}

#[test]
#[ignore = "re-records tests/fixtures/copilot: tests/e2e/record-agent-fixtures.sh copilot"]
fn record_copilot_fixtures() {
    let agent = Agent::Copilot;
    let sb = AgentSandbox::new(agent);
    sb.record_hooks();
    sb.write(".github/skills/demo/SKILL.md", crate::e2e_agents::SKILL);
    let (e1, e2) = first_and_resumed(agent, &sb, "Stop", "block");

    // run 3: a tool that fails outright, a skill, a subagent (its own prompt and Stop)
    let rec3 = sb.root().join("rec3");
    let run3 = sb.run(
        "use the other tools",
        with_rec(
            AgentScenario::new()
                .step(crate::e2e::model::Step::Call(
                    "view".into(),
                    serde_json::json!({"path": sb.project().join("missing.txt")}),
                ))
                .step(crate::e2e::model::Step::Call(
                    "skill".into(),
                    serde_json::json!({"skill": "demo"}),
                ))
                .step(crate::e2e::model::Step::Call(
                    "task".into(),
                    serde_json::json!({"description": "look around", "prompt": "List the files.",
                                       "agent_type": "explore", "name": "looker"}),
                ))
                .reply_text("nothing to report")
                .reply_text("all done"),
            &rec3,
        ),
    );
    run3.assert_success();
    let e3 = recorded(&rec3);
    summary("run 3 (other tools, subagent)", &run3, &e3);

    // run 4: auto-compaction, forced by a reported usage near the window it is told of
    let rec4 = sb.root().join("rec4");
    let run4 = sb.run(
        "compact please",
        with_rec(
            AgentScenario::new()
                .prompt_tokens(45_000)
                .env("COPILOT_PROVIDER_MAX_PROMPT_TOKENS", "50000")
                .reply_shell("echo before-compaction")
                .reply_shell("echo after-compaction")
                .reply_text("compacted and done"),
            &rec4,
        ),
    );
    run4.assert_success();
    let e4 = recorded(&rec4);
    summary("run 4 (compaction)", &run4, &e4);

    let all: Events = e1.into_iter().chain(e2).chain(e3).chain(e4).collect();
    let sub = |v: &Value| v.get("agent_id").is_some();
    let picks: Vec<Pick> = vec![
        session_start("new"),
        session_start("resume"),
        first_prompt("UserPromptSubmit"),
        continuation_prompt("UserPromptSubmit"),
        pick(
            "UserPromptSubmit-subagent",
            ev_where("UserPromptSubmit", move |v| sub(v)),
        ),
        pick("PreToolUse-Bash", ev_where("PreToolUse", |v| !failing(v))),
        pick(
            "PostToolUse-Bash",
            ev_where("PostToolUse", |v| {
                !failing(v) && s(v, "tool_name") == "Bash"
            }),
        ),
        pick("PostToolUse-Bash-failed", ev_where("PostToolUse", failing)),
        pick(
            "PostToolUse-skill",
            ev_where("PostToolUse", |v| s(v, "tool_name") == "skill"),
        ),
        pick("PostToolUseFailure-Read", ev("PostToolUseFailure")),
        only("SubagentStart"),
        only("SubagentStop"),
        pick("Stop-subagent", ev_where("Stop", move |v| sub(v))),
        pick(
            "Stop",
            ev_where("Stop", move |v| v["stop_hook_active"] == false && !sub(v)),
        ),
        turn_end_continued("Stop"),
        pick("PreCompact-auto", ev("PreCompact")),
        only("SessionEnd"),
    ];
    let out = out_dir(agent);
    let missing = save(&all, picks, &out);
    finish(agent, missing, &out);
}

#[test]
#[ignore = "re-records tests/fixtures/factory: tests/e2e/record-agent-fixtures.sh factory"]
fn record_factory_fixtures() {
    let agent = Agent::Factory;
    let sb = AgentSandbox::new(agent);
    sb.record_hooks();
    let (e1, e2) = first_and_resumed(agent, &sb, "Stop", "block");
    let all: Events = e1.into_iter().chain(e2).collect();
    let picks: Vec<Pick> = vec![
        session_start("startup"),
        session_start("resume"),
        first_prompt("UserPromptSubmit"),
        pick(
            "PreToolUse-Execute",
            ev_where("PreToolUse", |v| !failing(v)),
        ),
        pick(
            "PreToolUse-Execute-failing",
            ev_where("PreToolUse", failing),
        ),
        pick("PostToolUse-Execute", ev("PostToolUse")),
        turn_end("Stop"),
        turn_end_continued("Stop"),
        only("SessionEnd"),
    ];
    let out = out_dir(agent);
    let missing = save(&all, picks, &out);
    finish(agent, missing, &out);
}

#[test]
#[ignore = "re-records tests/fixtures/codebuddy: tests/e2e/record-agent-fixtures.sh codebuddy"]
fn record_codebuddy_fixtures() {
    let agent = Agent::CodeBuddy;
    let sb = AgentSandbox::new(agent);
    sb.record_hooks();
    let (e1, e2) = first_and_resumed(agent, &sb, "Stop", "block");
    let all: Events = e1.into_iter().chain(e2).collect();
    let picks: Vec<Pick> = vec![
        session_start("startup"),
        session_start("resume"),
        first_prompt("UserPromptSubmit"),
        pick(
            "UserPromptSubmit-continuation",
            ev_where("UserPromptSubmit", |v| {
                s(v, "prompt") == format!("Stop hook: {CONTINUE}")
            }),
        ),
        only("Notification"),
        pick("PreToolUse-Bash", ev_where("PreToolUse", |v| !failing(v))),
        pick("PostToolUse-Bash", ev_where("PostToolUse", |v| !failing(v))),
        pick("PostToolUse-Bash-failed", ev_where("PostToolUse", failing)),
        turn_end("Stop"),
        turn_end_continued("Stop"),
    ];
    let out = out_dir(agent);
    let missing = save(&all, picks, &out);
    finish(agent, missing, &out);
}

/// Kimi CLI continues on a Stop refusal (`permissionDecision: deny`), not on `decision`.
fn deny_once(rec: &Path, event: &str) {
    responder(
        rec,
        event,
        &format!(
            r#"n=$(ls "$REC_DIR" | grep -c -- '-{event}.json$'); if [ "$n" = 1 ]; then printf '{{"hookSpecificOutput":{{"permissionDecision":"deny","permissionDecisionReason":"{CONTINUE}"}}}}\n'; fi"#
        ),
    );
}

#[test]
#[ignore = "re-records tests/fixtures/kimi: tests/e2e/record-agent-fixtures.sh kimi"]
fn record_kimi_fixtures() {
    let agent = Agent::Kimi;
    let sb = AgentSandbox::new(agent);
    sb.record_hooks();
    // run 1: a passing and a failing command; the Stop hook refuses once (one more turn)
    let rec1 = sb.root().join("rec1");
    deny_once(&rec1, "Stop");
    let run1 = sb.run(
        "record all events",
        with_rec(
            AgentScenario::new()
                .reply_shell(OK_CMD)
                .reply_shell(FAIL_CMD)
                .reply_text("all done")
                .reply_text("FINAL-AFTER-CONTINUATION"),
            &rec1,
        ),
    );
    run1.assert_success();
    let e1 = recorded(&rec1);
    summary("run 1", &run1, &e1);
    assert!(!run1.session_id.is_empty(), "{}", run1.diagnostics());

    // run 2: the session resumed, a subagent
    let rec2 = sb.root().join("rec2");
    let run2 = sb.run(
        "second turn",
        with_rec(
            AgentScenario::new()
                .resume(&run1.session_id)
                .step(crate::e2e::model::Step::Call(
                    "Agent".into(),
                    serde_json::json!({"description": "look around",
                        "prompt": "List the files.", "subagent_type": "coder"}),
                ))
                .reply_text("nothing to report")
                .reply_text("second done"),
            &rec2,
        ),
    );
    run2.assert_success();
    let e2 = recorded(&rec2);
    summary("run 2 (resumed, a subagent)", &run2, &e2);

    // run 3: auto-compaction, forced by a reported usage over max_context_size × 0.85
    let rec3 = sb.root().join("rec3");
    let run3 = sb.run(
        "compact please",
        with_rec(
            AgentScenario::new()
                .prompt_tokens(190_000)
                .reply_shell("echo before-compaction")
                .reply_text("compacted and done"),
            &rec3,
        ),
    );
    run3.assert_success();
    let e3 = recorded(&rec3);
    summary("run 3 (compaction)", &run3, &e3);

    let all: Events = e1.into_iter().chain(e2).chain(e3).collect();
    let shell = |v: &Value| s(v, "tool_name") == "Shell";
    let picks: Vec<Pick> = vec![
        session_start("startup"),
        session_start("resume"),
        only("UserPromptSubmit"),
        pick(
            "PreToolUse-Shell",
            ev_where("PreToolUse", move |v| shell(v) && !failing(v)),
        ),
        pick(
            "PostToolUse-Shell",
            ev_where("PostToolUse", move |v| shell(v) && !failing(v)),
        ),
        pick(
            "PostToolUse-Shell-failed",
            ev_where("PostToolUse", move |v| shell(v) && failing(v)),
        ),
        only("SubagentStart"),
        only("SubagentStop"),
        only("Stop"),
        pick("PreCompact-auto", ev("PreCompact")),
        pick("PostCompact-auto", ev("PostCompact")),
        only("SessionEnd"),
    ];
    let out = out_dir(agent);
    let missing = save(&all, picks, &out);
    finish(agent, missing, &out);
}

#[test]
#[ignore = "re-records tests/fixtures/cline: tests/e2e/record-agent-fixtures.sh cline"]
fn record_cline_fixtures() {
    let agent = Agent::Cline;
    let sb = AgentSandbox::new(agent);
    sb.record_hooks();
    // Headless Cline fires the task's start and end and the tool hooks; its prompt, resume and
    // shutdown hooks belong to the interactive UI (cline-FINDINGS.md).
    let rec = sb.root().join("rec1");
    let run = sb.run(
        "record all events",
        with_rec(
            AgentScenario::new()
                .reply_shell(OK_CMD)
                .reply_shell(FAIL_CMD)
                .reply_text("all done"),
            &rec,
        ),
    );
    run.assert_success();
    let all = recorded(&rec);
    summary("run 1", &run, &all);
    let command = |v: &Value| {
        let call = v.get("tool_call").or_else(|| v.get("tool_result"));
        call.and_then(|c| c["input"]["commands"][0].as_str())
            .unwrap_or("")
            .to_owned()
    };
    let ok = move |v: &Value| command(v) == OK_CMD;
    let bad = move |v: &Value| command(v) == FAIL_CMD;
    let picks: Vec<Pick> = vec![
        only("TaskStart"),
        pick("PreToolUse-run_commands", ev_where("PreToolUse", ok)),
        pick("PostToolUse-run_commands", ev_where("PostToolUse", ok)),
        pick("PostToolUse-failed", ev_where("PostToolUse", bad)),
        only("TaskComplete"),
    ];
    let out = out_dir(agent);
    let missing = save(&all, picks, &out);
    finish(agent, missing, &out);
}

/// Makes the plugin's end-of-turn answer continue the first time, with [`CONTINUE`].
fn continue_once(rec: &Path, event: &str) {
    responder(
        rec,
        event,
        &format!(
            r#"n=$(ls "$REC_DIR" | grep -c -- '-{event}.json$'); if [ "$n" = 1 ]; then printf '{{"continue":"{CONTINUE}"}}\n'; fi"#
        ),
    );
}

/// OpenCode and Kilo Code through our plugin (the recorder in place of the binary): a turn
/// with a passing and a failing shell command and a read of a missing file (a tool that
/// throws), continued once; a resumed session; a compaction.
fn record_opencode_like(agent: Agent) {
    let sb = AgentSandbox::new(agent);
    sb.record_hooks();
    let rec1 = sb.root().join("rec1");
    continue_once(&rec1, "session.idle");
    let missing = sb.project().join("no-such-file");
    let run1 = sb.run(
        "record all events",
        with_rec(
            AgentScenario::new()
                .reply_shell(OK_CMD)
                .reply_shell(FAIL_CMD)
                .step(crate::e2e::model::Step::Call(
                    "read".into(),
                    serde_json::json!({"filePath": missing.to_string_lossy()}),
                ))
                .reply_text("all done")
                .reply_text("FINAL-AFTER-CONTINUATION"),
            &rec1,
        ),
    );
    let e1 = recorded(&rec1);
    summary("run 1", &run1, &e1);
    let rec2 = sb.root().join("rec2");
    let run2 = sb.run(
        "second turn",
        with_rec(
            AgentScenario::new()
                .resume(&run1.session_id)
                .reply_text("second done"),
            &rec2,
        ),
    );
    let e2 = recorded(&rec2);
    summary("run 2 (resumed, text only)", &run2, &e2);
    let rec3 = sb.root().join("rec3");
    let sc = AgentScenario::new()
        .reply_shell("echo before-compaction")
        .reply_text("compacted and done");
    // OpenCode compacts again after every answer that reports the same usage
    let sc = if agent == Agent::OpenCode {
        sc.prompt_tokens_once(190_000)
    } else {
        sc.prompt_tokens(190_000)
    };
    let run3 = sb.run("compact please", with_rec(sc, &rec3));
    let e3 = recorded(&rec3);
    summary("run 3 (compaction)", &run3, &e3);

    let all: Events = e1.into_iter().chain(e2).chain(e3).collect();
    let bash = |v: &Value| s(v, "tool_name") == "bash";
    let picks: Vec<Pick> = vec![
        only("session.created"),
        first_prompt("chat.message"),
        continuation_prompt("chat.message"),
        pick(
            "tool.execute.before-bash",
            ev_where("tool.execute.before", move |v| bash(v) && !failing(v)),
        ),
        pick(
            "tool.execute.after-bash",
            ev_where("tool.execute.after", move |v| bash(v) && !failing(v)),
        ),
        pick(
            "tool.execute.after-bash-failed",
            ev_where("tool.execute.after", move |v| bash(v) && failing(v)),
        ),
        pick(
            "message.part.updated-read-failed",
            ev_where("message.part.updated", |v| s(v, "tool_name") == "read"),
        ),
        turn_end("session.idle"),
        turn_end_continued("session.idle"),
        only("experimental.session.compacting"),
        only("session.compacted"),
    ];
    let out = out_dir(agent);
    let missing = save(&all, picks, &out);
    finish(agent, missing, &out);
}

#[test]
#[ignore = "re-records tests/fixtures/opencode: tests/e2e/record-agent-fixtures.sh opencode"]
fn record_opencode_fixtures() {
    record_opencode_like(Agent::OpenCode);
}

#[test]
#[ignore = "re-records tests/fixtures/kilo: tests/e2e/record-agent-fixtures.sh kilo"]
fn record_kilo_fixtures() {
    record_opencode_like(Agent::Kilo);
}

#[test]
#[ignore = "re-records tests/fixtures/pi: tests/e2e/record-agent-fixtures.sh pi"]
fn record_pi_fixtures() {
    let agent = Agent::Pi;
    let sb = AgentSandbox::new(agent);
    sb.record_hooks();
    let rec1 = sb.root().join("rec1");
    continue_once(&rec1, "agent_end");
    let run1 = sb.run(
        "record all events",
        with_rec(
            AgentScenario::new()
                .reply_shell(OK_CMD)
                .reply_shell(FAIL_CMD)
                .reply_text("all done")
                .reply_text("FINAL-AFTER-CONTINUATION"),
            &rec1,
        ),
    );
    let e1 = recorded(&rec1);
    summary("run 1", &run1, &e1);
    let rec2 = sb.root().join("rec2");
    let run2 = sb.run(
        "compact please",
        with_rec(
            AgentScenario::new()
                .resume(&run1.session_id)
                .prompt_tokens(190_000)
                .reply_shell("echo before-compaction")
                .reply_text("compacted and done"),
            &rec2,
        ),
    );
    let e2 = recorded(&rec2);
    summary("run 2 (resumed, compaction)", &run2, &e2);

    let all: Events = e1.into_iter().chain(e2).collect();
    let bash = |v: &Value| s(v, "tool_name") == "bash";
    let picks: Vec<Pick> = vec![
        only("session_start"),
        first_prompt("input"),
        pick(
            "input-continuation",
            ev_where("input", |v| s(v, "input_source") == "extension"),
        ),
        pick(
            "tool_call-bash",
            ev_where("tool_call", move |v| bash(v) && !failing(v)),
        ),
        pick(
            "tool_result-bash",
            ev_where("tool_result", move |v| bash(v) && !failing(v)),
        ),
        pick(
            "tool_result-bash-failed",
            ev_where("tool_result", move |v| bash(v) && failing(v)),
        ),
        turn_end("agent_end"),
        turn_end_continued("agent_end"),
        only("session_before_compact"),
        only("session_compact"),
        only("session_shutdown"),
    ];
    let out = out_dir(agent);
    let missing = save(&all, picks, &out);
    finish(agent, missing, &out);
}
