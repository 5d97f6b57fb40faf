//! Skill guards, compaction memory, concurrent tool failures and a team's user hook in the real
//! Codex CLI, Gemini CLI and Qwen Code clients — the kinds of scenarios `e2e_skills`,
//! `e2e_memory`, `e2e_hardening` and `e2e_user_hooks` run in Claude Code — after a plain `omc-hooks install --agent X --project
//! DIR`. The scenarios take the [`Agent`]; one `#[test]` per agent and scenario follows at the
//! end. What a client makes impossible headless is in its `tests/e2e/*-FINDINGS.md` and the
//! scenario asserts what does happen instead.

use crate::e2e::agent_harness::{AgentRun, AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e::model::Step;
use crate::e2e_agents::{DONE, MORE, PROMPT, continuations, ralph_state, with_omc};
use serde_json::{Value, json};

/// The hook trace (`OMC_TRACE_FILE`) of a run, one line per hook call, for diagnostics.
fn trace_text(path: &std::path::Path) -> String {
    crate::e2e_foundation::trace(path)
        .iter()
        .map(|l| {
            format!(
                "{} {} {} {}",
                l["agent_event"], l["hook"], l["event"], l["outcome"]
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

// ------------------------------------------------------------------- skill guards ----

const GUARDED: &str = "---\nname: guarded\ndescription: A multi-step workflow for the tests. Use when asked to run the guarded workflow.\n---\n\n\
Step 1: list the files. Step 2: write a summary. Then you are done.\n";

/// The client's own tool that loads a project skill, as the scripted model calls it; `None`
/// where the client has no such tool (Codex 0.169.0 lists skills in its instructions and the
/// model reads `SKILL.md` with the shell: codex-FINDINGS.md §10).
pub fn skill_call(agent: Agent, name: &str) -> Option<Step> {
    match agent {
        Agent::Codex => None,
        Agent::Gemini => Some(Step::Call("activate_skill".into(), json!({ "name": name }))),
        Agent::Qwen | Agent::Copilot => Some(Step::Call("skill".into(), json!({ "skill": name }))),
        Agent::Factory | Agent::CodeBuddy => panic!("skill guards not exercised in {agent:?}"),
        // no skill tool (kimi-FINDINGS.md, cline-FINDINGS.md)
        Agent::Cline | Agent::Kimi => None,
        Agent::OpenCode | Agent::Kilo => Some(Step::Call("skill".into(), json!({ "name": name }))),
        // Pi expands a skill into the prompt (`/skill:name`): no skill tool
        Agent::Pi => None,
    }
}

/// omc-hooks installed, the `guarded` project skill where the client reads project skills, and
/// the project's configuration making it `light` (3 reinforcements, 5 minutes).
fn guarded_project(agent: Agent) -> AgentSandbox {
    let sb = with_omc(agent);
    sb.write(
        &format!(".{}/skills/guarded/SKILL.md", agent.name()),
        GUARDED,
    );
    sb.write(
        ".omc/config.json",
        r#"{"skills":{"protection":{"guarded":"light"}}}"#,
    );
    sb
}

fn skill_stack(sb: &AgentSandbox, sid: &str) -> Option<Value> {
    let name = "skill-active-state.json";
    crate::e2e::ralph::session_state_in(&sb.omc_dir(), sid, name, "skill-active-state")
}

/// Main requests whose news is the guard's reason (earlier text repeats in later requests).
fn guard_blocks(run: &AgentRun) -> Vec<String> {
    run.main_requests()
        .iter()
        .map(|r| r.new_text())
        .filter(|t| t.contains("[SKILL ACTIVE: guarded]"))
        .collect()
}

/// How the client hands an end-of-turn reason back: Codex wraps it, the others send it as is.
fn assert_reason_shape(agent: Agent, shown: &str) {
    match agent {
        Agent::Codex => assert!(shown.starts_with("<hook_prompt"), "{shown}"),
        Agent::Gemini
        | Agent::Qwen
        | Agent::Factory
        | Agent::Kimi
        | Agent::OpenCode
        | Agent::Kilo
        | Agent::Pi => {
            assert!(shown.starts_with("[SKILL ACTIVE: guarded]"), "{shown}")
        }
        Agent::Copilot => assert!(shown.starts_with("<current_datetime>"), "{shown}"),
        Agent::CodeBuddy => assert!(shown.starts_with("<user_query>Stop hook: "), "{shown}"),
        Agent::Cline => panic!(
            "{} does not continue a turn: this scenario is not run for it",
            agent.name()
        ),
    }
}

/// In a [`guarded_project`], the model activates the `guarded` skill with the client's skill
/// tool and then goes on as `then` has it. Returns the sandbox and the run.
fn the_guarded_skill_then(
    agent: Agent,
    then: impl FnOnce(AgentScenario) -> AgentScenario,
) -> (AgentSandbox, AgentRun) {
    let sb = guarded_project(agent);
    let call = skill_call(agent, "guarded").expect("the client has a skill tool");
    let run = sb.run(
        "run the guarded workflow",
        then(AgentScenario::new().step(call)),
    );
    (sb, run)
}

/// The model activates the protected skill with the client's skill tool and then tries to end
/// the turn before the workflow is done: the end-of-turn hook sends it back with the guard's
/// reason; the completion token releases the guard and the turn ends.
pub fn an_early_stop_is_sent_back_until_the_skill_completes(agent: Agent) {
    let (sb, run) = the_guarded_skill_then(agent, |sc| {
        sc.reply_text("That is enough for now.")
            .reply_text("Listed the files and wrote the summary.\n<omc-complete/>")
            .reply_text("unexpected extra turn")
    });
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_requests().len(), 3, "{d}");
    assert_eq!(run.unused_steps, 1, "not sent back after completion: {d}");
    // The skill's instructions reached the model (the client loaded the project skill).
    let loaded = run.new_text(1);
    assert!(
        loaded.contains("Step 1: list the files"),
        "the skill tool returned the SKILL.md body:\n{loaded}\n{d}"
    );
    // The guard announces itself with the skill's result (the clients drop context answered
    // before the call: Agent::shows_pre_tool_context).
    assert!(
        loaded.contains("[SKILL GUARD: guarded (light)]"),
        "the guard's announcement came with the skill:\n{loaded}\n{d}"
    );
    let blocks = guard_blocks(&run);
    assert_eq!(blocks.len(), 1, "{d}");
    assert_reason_shape(agent, &blocks[0]);
    assert!(blocks[0].contains("(reinforcement 1/3,"), "{}", blocks[0]);
    assert!(
        skill_stack(&sb, &run.session_id).is_none(),
        "the completion token released the guard\n{d}"
    );
}

/// A model that never finishes the skill: the guard sends it back `light`'s three times, then
/// lets it stop and drops itself.
pub fn the_reinforcement_cap_lets_a_stubborn_model_stop(agent: Agent) {
    let (sb, run) = the_guarded_skill_then(agent, |sc| sc.default_text("I will not continue."));
    run.assert_success();
    let d = run.diagnostics();
    // the prompt, the skill's result, then one request per honoured block (3), no more
    assert_eq!(run.main_requests().len(), 5, "{d}");
    let blocks = guard_blocks(&run);
    assert_eq!(blocks.len(), 3, "{d}");
    for (i, b) in blocks.iter().enumerate() {
        assert_reason_shape(agent, b);
        assert!(b.contains(&format!("(reinforcement {}/3,", i + 1)), "{b}");
    }
    assert!(
        skill_stack(&sb, &run.session_id).is_none(),
        "released at the cap\n{d}"
    );
}

const T0: i64 = 1_796_305_500_000;
const MIN: i64 = 60_000;

/// A guard never holds a session hostage: the skill is activated and the session left with the
/// guard in place (its end-of-turn hook switched off for that run); the same session resumed
/// past `light`'s time to live (5 min) ends its turn at once, and the lapsed guard is gone.
pub fn the_ttl_releases_a_guard_left_behind(agent: Agent) {
    let (sb, first) = the_guarded_skill_then(agent, |sc| {
        sc.reply_text("paused")
            .env("OMC_NOW_MS", T0.to_string())
            .env("OMC_SKIP_HOOKS", "stop,session-end")
    });
    first.assert_success();
    let d = first.diagnostics();
    let sid = first.session_id.clone();
    let s = skill_stack(&sb, &sid).unwrap_or_else(|| panic!("the guard outlived the run\n{d}"));
    let g = &s["stack"][0];
    assert_eq!(g["skill_name"], "guarded", "{s:#}");
    assert_eq!(g["reinforcement_count"], 0, "{s:#}");
    assert_eq!(
        g["loaded_at"],
        omc_hooks::time::iso(T0),
        "the post-tool hook marked it loaded, not released: {s:#}"
    );

    let later = sb.run(
        "anything else?",
        AgentScenario::new()
            .resume(&sid)
            .reply_text("nothing")
            .reply_text("unexpected")
            .env("OMC_NOW_MS", (T0 + 7 * MIN).to_string()),
    );
    later.assert_success();
    let d = later.diagnostics();
    assert_eq!(later.session_id, sid, "{d}");
    assert_eq!(later.main_requests().len(), 1, "not sent back: {d}");
    assert!(guard_blocks(&later).is_empty(), "{d}");
    assert!(
        skill_stack(&sb, &sid).is_none(),
        "the expired guard was dropped\n{d}"
    );
}

/// Codex 0.169.0 has no skill tool: a project skill is only listed in the instructions (the
/// model is to open its SKILL.md itself), so no tool event names a skill and no guard can be
/// pushed. Asserted so that a Codex that grows one fails here and gets the scenarios above.
pub fn codex_lists_skills_but_has_no_skill_tool() {
    let sb = guarded_project(Agent::Codex);
    let run = sb.run(
        "run the guarded workflow",
        AgentScenario::new()
            .reply_shell("cat .codex/skills/guarded/SKILL.md")
            .reply_text("That is enough for now."),
    );
    run.assert_success();
    let d = run.diagnostics();
    let first = run.main_requests()[0];
    let tools: Vec<String> = first.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().or(t["type"].as_str()).map(str::to_owned))
        .collect();
    assert!(!tools.is_empty(), "{d}");
    assert!(
        !tools.iter().any(|t| t.to_lowercase().contains("skill")),
        "Codex now has a skill tool: {tools:?}"
    );
    // The skill is offered by name and description in the instructions, its body is not.
    let shown = first.shown_text();
    assert!(
        shown.contains("A multi-step workflow for the tests"),
        "the project skill is listed for the model: {d}"
    );
    assert!(!shown.contains("Step 1: list the files"), "{d}");
    // Reading the skill with the shell is an ordinary command: nothing guards the stop.
    assert_eq!(run.main_requests().len(), 2, "{d}");
    assert!(guard_blocks(&run).is_empty(), "{d}");
    assert!(skill_stack(&sb, &run.session_id).is_none(), "{d}");
}

// ------------------------------------------------------------- compaction memory ----

/// The session's checkpoints, oldest first.
fn checkpoints(sb: &AgentSandbox, sid: &str) -> Vec<Value> {
    crate::e2e::ralph::checkpoints_in(&sb.omc_dir(), sid)
}

fn notepad_entries(sb: &AgentSandbox) -> usize {
    std::fs::read_to_string(sb.omc_dir().join("notepad.md"))
        .map(|t| t.matches("Compaction (").count())
        .unwrap_or(0)
}

/// The scenario settings that make the client compact headless (codex-FINDINGS.md §2,
/// gemini-FINDINGS.md §12, qwen-FINDINGS.md §2).
fn compacting(agent: Agent, sc: AgentScenario) -> AgentScenario {
    match agent {
        Agent::Codex => sc.arg("-c").arg("model_auto_compact_token_limit=12"),
        Agent::Gemini => sc.prompt_tokens(900_000),
        Agent::Qwen | Agent::Kimi | Agent::Kilo | Agent::Pi => sc.prompt_tokens(190_000),
        Agent::OpenCode => sc.prompt_tokens_once(190_000),
        Agent::Cline => {
            panic!("Cline 3.0.65 runs no PreCompact hook: this scenario is not run for it")
        }
        other => panic!("compaction not exercised in {other:?}"),
    }
}

/// A ralph run in a session the client compacts: PreCompact writes a checkpoint of the run,
/// and after the compaction the model is shown the run (task and iteration) again — through
/// SessionStart `source: "compact"` where the client has it (Codex, Qwen), through the next
/// continuation where it does not (Gemini fires no event after compressing). The run goes on
/// to the completion token.
pub fn a_ralph_run_survives_a_compaction_and_the_model_sees_it(agent: Agent) {
    let sb = with_omc(agent);
    let trace_file = sb.root().join("trace.jsonl");
    // Codex compacts mid-turn only when a tool result needs a follow-up call: a command first.
    let run = sb.run(
        PROMPT,
        compacting(
            agent,
            AgentScenario::new()
                .env("OMC_TRACE_FILE", trace_file.to_string_lossy())
                .reply_shell("echo step-one")
                .reply_text(MORE)
                .reply_text(MORE)
                .reply_text(DONE)
                .reply_text("unexpected extra turn"),
        ),
    );
    run.assert_success();
    let d = format!("{}\ntrace:\n{}", run.diagnostics(), trace_text(&trace_file));
    let compactions: Vec<usize> = run.compaction_requests().iter().map(|r| r.seq).collect();
    assert!(!compactions.is_empty(), "the client compacted: {d}");
    assert_eq!(run.main_requests().len(), 4, "{d}");
    assert_eq!(run.unused_steps, 1, "{d}");
    assert_eq!(continuations(&run).len(), 2, "{d}");

    let sid = &run.session_id;
    let cps = checkpoints(&sb, sid);
    assert!(!cps.is_empty(), "PreCompact wrote a checkpoint\n{d}");
    let with_run: Vec<&Value> = cps
        .iter()
        .filter(|c| c["active_modes"][0]["mode"] == "ralph")
        .collect();
    assert!(!with_run.is_empty(), "{cps:#?}");
    assert_eq!(with_run[0]["active_modes"][0]["prompt"], PROMPT, "{cps:#?}");
    assert_eq!(with_run[0]["trigger"], "auto", "{cps:#?}");
    match agent {
        // a dated "Compaction (auto)" entry in the notepad's Working Memory
        Agent::Codex | Agent::Qwen => assert!(notepad_entries(&sb) >= 1, "{d}"),
        // PreCompress cannot tell a compression from any other model call: no entry
        Agent::Gemini => assert_eq!(notepad_entries(&sb), 0, "{d}"),
        Agent::Cline | Agent::Kimi => unreachable!("not run for {}", agent.name()),
        a => panic!("{}: compaction not exercised in this suite", a.name()),
    }

    // The first main request after a compaction shows the run again.
    let after: Vec<_> = run
        .main_requests()
        .into_iter()
        .filter(|r| r.seq > compactions[0])
        .collect();
    assert!(!after.is_empty(), "a model call after the compaction: {d}");
    let restored = |r: &crate::e2e::model::Recorded| {
        let shown = r.shown_text();
        shown.contains("[RALPH LOOP RESTORED] Iteration ")
            && shown.contains(&format!("Task: {PROMPT}"))
            && shown.contains("[CHECKPOINT BEFORE COMPACTION]")
    };
    match agent {
        // SessionStart(compact) runs before the next call: a developer message in it.
        Agent::Codex => assert!(
            restored(after[0]),
            "SessionStart(compact) restored the run and handed the checkpoint back in the \
             first call after the compaction:\n{}\n{d}",
            after[0].shown_text()
        ),
        // Qwen fires SessionStart(compact) without waiting for it (`void
        // fireSessionStartHook("compact").then(apply)`) and sends the next call at once: the
        // context reaches the system prompt of a *later* call, and stays there.
        Agent::Qwen => {
            let first = after.iter().position(|r| restored(r));
            assert!(
                first.is_some(),
                "a call after the compaction shows the restored run: {d}"
            );
            let sys = after[first.unwrap()]
                .messages
                .iter()
                .find(|m| m.role == crate::e2e::model::Role::System)
                .map(|m| m.text.clone())
                .unwrap_or_default();
            assert!(
                sys.contains("<qwen:session-start-context hidden=\"true\">")
                    && sys.contains("[RALPH LOOP RESTORED]"),
                "in the system prompt: {sys}"
            );
            assert!(
                after[first.unwrap()..].iter().all(|r| restored(r)),
                "and it stays there: {d}"
            );
        }
        Agent::Gemini => {
            // No SessionStart after compression: the continuation is what restates the run.
            let new = after[0].new_text();
            assert!(
                new.contains("[RALPH LOOP - ITERATION ") && new.contains(PROMPT),
                "the continuation after the compression restates task and iteration:\n{new}\n{d}"
            );
            assert!(!after.iter().any(|r| restored(r)), "{d}");
        }
        Agent::Cline | Agent::Kimi => unreachable!("not run for {}", agent.name()),
        a => panic!("{}: compaction not exercised in this suite", a.name()),
    }
    let s = ralph_state(&sb, sid).expect("ralph-state.json");
    assert_eq!(s["active"], false, "{s:#}");
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
    assert_eq!(s["iteration"], 3, "{s:#}");
}

/// Gemini CLI fires PreCompress before every model call, compression or not (gemini-FINDINGS.md
/// §3). A ralph run whose every turn fires it must not get a checkpoint, a notepad entry and a
/// "checkpoint saved before compaction" message each turn: without a compaction nothing is
/// written; the hook stays cheap.
pub fn pre_compress_on_every_turn_writes_nothing_without_a_compaction() {
    let sb = with_omc(Agent::Gemini);
    let run = sb.run(
        PROMPT,
        AgentScenario::new()
            .reply_shell("echo step-one")
            .reply_text(MORE)
            .reply_text(MORE)
            .reply_text(DONE),
    );
    run.assert_success();
    let d = run.diagnostics();
    assert!(run.compaction_requests().is_empty(), "{d}");
    assert_eq!(run.main_requests().len(), 4, "{d}");
    // One checkpoint, replaced in place as the run went on: the run as of the last model call.
    let cps = checkpoints(&sb, &run.session_id);
    assert_eq!(
        cps.len(),
        1,
        "{} checkpoints without a compaction: {cps:#?}",
        cps.len()
    );
    let dir = sb
        .omc_dir()
        .join("state/sessions")
        .join(&run.session_id)
        .join("checkpoints");
    assert!(dir.join("pending.json").is_file(), "{cps:#?}");
    assert_eq!(cps[0]["active_modes"][0]["iteration"], 3, "{cps:#?}");
    assert_eq!(
        notepad_entries(&sb),
        0,
        "no notepad entry without a compaction"
    );
    assert!(
        !run.stderr.contains("checkpoint saved before compaction")
            && !run.stdout.contains("checkpoint saved before compaction"),
        "no message claiming a compaction: {d}"
    );
}

// ------------------------------------------------- concurrent tool failures ----

const PARALLEL: u32 = 4;

/// The model asks for four failing commands in one answer (parallel tool calls); the client
/// runs them — concurrently where it does — and fires a post-tool hook for each. No update is
/// lost: every failure is counted once (retries 1 to 4 each reach the model exactly once,
/// `retry_count` ends at 4), and the state tree keeps the invariants of `tests/hardening`
/// (schema-valid JSON, no temporary file, nothing written outside `.omc`).
pub fn parallel_failing_commands_lose_no_update(agent: Agent) {
    let sb = with_omc(agent);
    let before: Vec<String> = std::fs::read_dir(sb.project())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    // Each command notes its start, waits a second, then notes how many had started by then:
    // 4 everywhere means the client ran them concurrently, 1, 2, 3, 4 one after the other.
    let trace_file = sb.root().join("trace.jsonl");
    let par = sb.root().join("par");
    std::fs::create_dir_all(par.join("seen")).unwrap();
    let p = par.display();
    let calls = (1..=PARALLEL)
        .map(|n| {
            Step::Shell(format!(
                "touch {p}/start-{n}; sleep 1; ls {p} | grep -c start- > {p}/seen/{n}; {}",
                crate::e2e_agents::failing(n)
            ))
        })
        .collect();
    let run = sb.run(
        "build the parser",
        AgentScenario::new()
            .env("OMC_TRACE_FILE", trace_file.to_string_lossy())
            .step(Step::Parallel(calls))
            .reply_text("The build keeps failing; I will try another way.")
            .reply_text("unexpected"),
    );
    run.assert_success();
    let d = format!("{}\ntrace:\n{}", run.diagnostics(), trace_text(&trace_file));
    assert_eq!(
        run.main_requests().len(),
        2,
        "one answer ran every call: {d}"
    );
    let outputs = run.main_requests()[1].tool_outputs();
    assert_eq!(outputs.len(), PARALLEL as usize, "{outputs:#?}\n{d}");
    let news = run.new_text(1);
    for n in 1..=PARALLEL {
        let tag = format!("[TOOL ERROR - RETRY {n}]");
        assert_eq!(
            news.matches(&tag).count(),
            1,
            "{tag} once — every failure counted, none twice:\n{news}\n{d}"
        );
    }
    let rec = crate::e2e_agents::last_tool_error(&sb, &run.session_id, &d);
    assert_eq!(rec["retry_count"], PARALLEL, "{rec:#}");
    let seen: Vec<u32> = (1..=PARALLEL)
        .map(|n| {
            std::fs::read_to_string(par.join(format!("seen/{n}")))
                .map(|t| t.trim().parse().unwrap_or(0))
                .unwrap_or(0)
        })
        .collect();
    let concurrent = seen.iter().all(|c| *c == PARALLEL);
    eprintln!(
        "{}: commands started by the time each had slept: {seen:?} ({})",
        agent.name(),
        if concurrent {
            "concurrent"
        } else {
            "not all concurrent"
        }
    );
    assert!(
        seen.iter().all(|c| (1..=PARALLEL).contains(c)),
        "every command ran: {seen:?}"
    );
    let keep: Vec<&str> = before.iter().map(String::as_str).collect();
    let tree = crate::hardening::kit::check_tree(&run.project, &keep, crate::hardening::kit::CLEAN);
    crate::hardening::kit::assert_no_cross_session_leak(&run.project, &[&run.session_id]);
    assert!(tree.json_files >= 1, "{:?}", tree.files);
}

// ---------------------------------------------------------------- the wrappers ----

// ------------------------------------------------------------------- user hooks ----

/// The reason [`a_user_hook_refusing_rm_rf`]'s entry gives.
pub const RM_RF_REASON: &str = "team policy: no rm -rf in this repository (omc-e2e)";

/// `build/` in the project of `sb`, and the person's hooks.toml with one pre-tool-use entry on
/// `Bash` that refuses `rm -rf` with [`RM_RF_REASON`]. Returns the `XDG_CONFIG_HOME` to pass.
pub fn a_user_hook_refusing_rm_rf(sb: &AgentSandbox) -> std::path::PathBuf {
    std::fs::create_dir_all(sb.project().join("build")).unwrap();
    let config = sb.home().join(".config");
    std::fs::create_dir_all(config.join("omc-hooks")).unwrap();
    let guard = format!(
        "if grep -q 'rm -rf'; then printf '%s' '{{\"action\":\"block\",\"reason\":\"{RM_RF_REASON}\"}}'; fi"
    );
    std::fs::write(
        config.join("omc-hooks/hooks.toml"),
        format!(
            "[[hooks]]\nevent = \"pre-tool-use\"\nmatcher = \"Bash\"\ntype = \"script\"\ncommand = {}\n",
            serde_json::to_string(&guard).unwrap()
        ),
    )
    .unwrap();
    config
}

/// One user hook in the person's hooks.toml, `matcher = "Bash"`, refuses `rm -rf` in every
/// agent: the agent's shell tool arrives as `Bash` whatever the agent calls it, the refusal is
/// answered in the agent's own terms, the command does not run and the model is shown the
/// reason; a harmless command is let through.
pub fn a_user_hook_on_bash_refuses_a_shell_command(agent: Agent) {
    let sb = with_omc(agent);
    let config = a_user_hook_refusing_rm_rf(&sb);
    let run = sb.run(
        "clean the build directory",
        AgentScenario::new()
            .env("XDG_CONFIG_HOME", config.to_string_lossy())
            .reply_shell("rm -rf build")
            .reply_shell(crate::e2e_agents::read_back(agent, "echo still-allowed"))
            .reply_text("I could not clean it.")
            .reply_text("unexpected"),
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_requests().len(), 3, "{d}");
    assert!(sb.project().join("build").is_dir(), "rm -rf ran: {d}");
    let refused = run.new_text(1);
    assert!(
        refused.contains(RM_RF_REASON),
        "the model sees the reason: {refused}\n{d}"
    );
    let allowed = run.main_requests()[2].tool_outputs().join("\n");
    assert!(allowed.contains("still-allowed"), "{allowed}\n{d}");
    assert!(!allowed.contains(RM_RF_REASON), "{allowed}");
}

#[test]
fn gemini_an_early_stop_is_sent_back_until_the_skill_completes() {
    an_early_stop_is_sent_back_until_the_skill_completes(Agent::Gemini);
}

#[test]
fn qwen_an_early_stop_is_sent_back_until_the_skill_completes() {
    an_early_stop_is_sent_back_until_the_skill_completes(Agent::Qwen);
}

#[test]
fn gemini_the_reinforcement_cap_lets_a_stubborn_model_stop() {
    the_reinforcement_cap_lets_a_stubborn_model_stop(Agent::Gemini);
}

#[test]
fn qwen_the_reinforcement_cap_lets_a_stubborn_model_stop() {
    the_reinforcement_cap_lets_a_stubborn_model_stop(Agent::Qwen);
}

#[test]
fn gemini_the_ttl_releases_a_guard_left_behind() {
    the_ttl_releases_a_guard_left_behind(Agent::Gemini);
}

#[test]
fn qwen_the_ttl_releases_a_guard_left_behind() {
    the_ttl_releases_a_guard_left_behind(Agent::Qwen);
}

#[test]
fn codex_has_no_skill_tool_so_no_skill_guard() {
    codex_lists_skills_but_has_no_skill_tool();
}

#[test]
fn codex_a_ralph_run_survives_a_compaction_and_the_model_sees_it() {
    a_ralph_run_survives_a_compaction_and_the_model_sees_it(Agent::Codex);
}

#[test]
fn gemini_a_ralph_run_survives_a_compaction_and_the_model_sees_it() {
    a_ralph_run_survives_a_compaction_and_the_model_sees_it(Agent::Gemini);
}

#[test]
fn qwen_a_ralph_run_survives_a_compaction_and_the_model_sees_it() {
    a_ralph_run_survives_a_compaction_and_the_model_sees_it(Agent::Qwen);
}

#[test]
fn gemini_pre_compress_on_every_turn_writes_nothing_without_a_compaction() {
    pre_compress_on_every_turn_writes_nothing_without_a_compaction();
}

#[test]
fn codex_parallel_failing_commands_lose_no_update() {
    parallel_failing_commands_lose_no_update(Agent::Codex);
}

#[test]
fn gemini_parallel_failing_commands_lose_no_update() {
    parallel_failing_commands_lose_no_update(Agent::Gemini);
}

#[test]
fn qwen_parallel_failing_commands_lose_no_update() {
    parallel_failing_commands_lose_no_update(Agent::Qwen);
}

#[test]
fn codex_a_user_hook_on_bash_refuses_a_shell_command() {
    a_user_hook_on_bash_refuses_a_shell_command(Agent::Codex);
}

#[test]
fn gemini_a_user_hook_on_bash_refuses_a_shell_command() {
    a_user_hook_on_bash_refuses_a_shell_command(Agent::Gemini);
}

#[test]
fn qwen_a_user_hook_on_bash_refuses_a_shell_command() {
    a_user_hook_on_bash_refuses_a_shell_command(Agent::Qwen);
}
