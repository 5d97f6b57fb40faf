//! Long runs through the binary (issue 24, contract §6), with the clock pinned: the
//! continuation cap counts only continuations without progress (any tool event of the session
//! resets it), on every agent, while the clients that count every continuation of a prompt
//! (Qwen Code, Cursor) are never sent one they would refuse; a run's time budget, from the
//! configuration or said with the request (`ralph 2h …`, `ralph --max 40 …`), is shown and
//! ends the run; `status`, `mode show` and the status line show what bounds it.

use crate::common::command_in;
use crate::common::{BIN, Hook, Outcome, Project, assert_exit_ok};
use crate::common::{assert_has, assert_lacks};
use crate::schema::assert_valid;
use serde_json::{Value, json};
use std::process::Command;

/// The pinned clock of `common::Hook` (2026-12-03T13:45:00Z).
const NOW: i64 = 1_796_305_500_000;
const MIN: i64 = 60_000;
const TASK: &str = "fix the failing tests in src/parser";

fn with(mut base: Value, extra: Value) -> Value {
    for (k, v) in extra.as_object().unwrap() {
        base[k] = v.clone();
    }
    base
}

/// One agent's payloads, as its client sends them.
#[derive(Clone, Copy)]
struct Client {
    agent: &'static str,
    prompt_event: &'static str,
    stop_event: &'static str,
    pre_tool: &'static str,
    post_tool: &'static str,
}

const CLAUDE: Client = Client {
    agent: "claude",
    prompt_event: "UserPromptSubmit",
    stop_event: "Stop",
    pre_tool: "PreToolUse",
    post_tool: "PostToolUse",
};
const CODEX: Client = Client {
    agent: "codex",
    ..CLAUDE
};
const QWEN: Client = Client {
    agent: "qwen",
    ..CLAUDE
};
const GEMINI: Client = Client {
    agent: "gemini",
    prompt_event: "BeforeAgent",
    stop_event: "AfterAgent",
    pre_tool: "BeforeTool",
    post_tool: "AfterTool",
};
const CURSOR: Client = Client {
    agent: "cursor",
    prompt_event: "beforeSubmitPrompt",
    stop_event: "stop",
    pre_tool: "preToolUse",
    post_tool: "postToolUse",
};

impl Client {
    fn base(&self, p: &Project, sid: &str, event: &str) -> Value {
        match self.agent {
            "cursor" => json!({"conversation_id": sid, "generation_id": "g1",
                "hook_event_name": event, "cursor_version": "1.7.2",
                "workspace_roots": [p.path()]}),
            "gemini" => json!({"session_id": sid, "cwd": p.path(), "hook_event_name": event,
                "timestamp": "2026-12-03T08:38:50.314Z"}),
            "qwen" => json!({"session_id": sid, "cwd": p.path(), "hook_event_name": event,
                "timestamp": "2026-12-03T08:43:48.906Z", "permission_mode": "yolo",
                "prompt_id": format!("{sid}########0")}),
            "codex" => json!({"session_id": sid, "turn_id": "turn-1", "cwd": p.path(),
                "hook_event_name": event, "model": "mock-model"}),
            _ => json!({"session_id": sid, "cwd": p.path(), "hook_event_name": event,
                "prompt_id": "p1"}),
        }
    }

    fn run(&self, p: &Project, sub: &str, payload: Value, env: &[(&str, &str)]) -> Outcome {
        let mut h = Hook::new(sub)
            .agent(self.agent)
            .payload(payload)
            .cwd(p.path());
        for (k, v) in env {
            h = h.env(k, v);
        }
        h.run()
    }

    fn prompt(&self, p: &Project, sid: &str, text: &str, env: &[(&str, &str)]) -> Outcome {
        let payload = with(
            self.base(p, sid, self.prompt_event),
            json!({"prompt": text, "submitted_prompt": text}),
        );
        self.run(p, "user-prompt-submit", payload, env)
    }

    /// Sends a continuation back as the next prompt, as the agents that do so do (Gemini CLI,
    /// Qwen Code, Cursor); Claude Code and Codex continue inside the turn.
    fn echo(&self, p: &Project, sid: &str, text: &str, env: &[(&str, &str)]) {
        if matches!(self.agent, "gemini" | "qwen" | "cursor") {
            let payload = with(
                self.base(p, sid, self.prompt_event),
                json!({"prompt": text}),
            );
            self.run(p, "user-prompt-submit", payload, env)
                .expect_noop();
        }
    }

    /// One Stop; `n` is how many Stops of the turn came before (the loop flag, Cursor's count).
    fn stop(&self, p: &Project, sid: &str, n: u32, env: &[(&str, &str)]) -> Outcome {
        let extra = match self.agent {
            "cursor" => json!({"status": "completed", "loop_count": n}),
            "gemini" => json!({"prompt_response": "more to do", "stop_hook_active": n > 0}),
            _ => json!({"stop_hook_active": n > 0,
                "last_assistant_message": "I changed the tokenizer; more work remains."}),
        };
        let payload = with(self.base(p, sid, self.stop_event), extra);
        self.run(p, "stop", payload, env)
    }

    /// The agent runs one shell command: its pre- and post-tool events.
    fn work(&self, p: &Project, sid: &str, i: u32, env: &[(&str, &str)]) {
        let (tool, response) = match self.agent {
            "gemini" | "qwen" => ("run_shell_command", json!({"llmContent": "ok"})),
            "cursor" => ("Shell", json!("ok")),
            _ => ("Bash", json!({"stdout": "ok", "stderr": ""})),
        };
        let input = json!({"command": format!("cargo test step{i}")});
        let pre = with(
            self.base(p, sid, self.pre_tool),
            json!({"tool_name": tool, "tool_input": input}),
        );
        self.run(p, "pre-tool-use", pre, env).expect_valid();
        let post = with(
            self.base(p, sid, self.post_tool),
            json!({"tool_name": tool, "tool_input": input, "tool_response": response,
                   "tool_output": "ok"}),
        );
        self.run(p, "post-tool-use", post, env).expect_valid();
    }
}

/// The continuation text, whatever the agent's shape.
fn continuation(out: &Outcome) -> Option<String> {
    out.expect_valid();
    if out.stdout.trim().is_empty() {
        return None;
    }
    let v = out.json();
    ["reason", "followup_message"]
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

fn note(out: &Outcome) -> String {
    if out.stdout.trim().is_empty() {
        return String::new();
    }
    out.system_message()
}

fn ralph(p: &Project, sid: &str) -> Value {
    let v = p
        .read_json(&format!(".omc/state/sessions/{sid}/ralph-state.json"))
        .expect("ralph-state.json");
    assert_valid("mode-state", &v);
    v
}

/// Starts a ralph run in `sid` with the keyword, as the user types it.
fn start(c: Client, p: &Project, sid: &str, env: &[(&str, &str)]) {
    c.prompt(p, sid, &format!("ralph {TASK}"), env)
        .expect_valid();
    assert_eq!(ralph(p, sid)["active"], true, "{}", c.agent);
}

/// The model works (one tool call) between every Stop: `turns` continuations in a row, then
/// it only talks and is handed back after `idle` more. Returns the hand-back's note.
fn work_then_talk(
    c: Client,
    p: &Project,
    sid: &str,
    turns: u32,
    idle: u32,
    env: &[(&str, &str)],
) -> String {
    let mut n = 0;
    for i in 0..turns {
        let out = c.stop(p, sid, n, env);
        let text = continuation(&out)
            .unwrap_or_else(|| panic!("{}: stop {n} not continued: {}", c.agent, out.stdout));
        assert!(
            text.contains(&format!("ITERATION {}/100", n + 2)),
            "{}: {text}",
            c.agent
        );
        n += 1;
        // An agent that sends the continuation back as a prompt does so before working.
        c.echo(p, sid, &text, env);
        c.work(p, sid, i, env);
        assert_eq!(ralph(p, sid)["consecutive_blocks"], 0, "{}", c.agent);
    }
    for k in 1..=idle {
        let out = c.stop(p, sid, n, env);
        let text = continuation(&out).unwrap_or_else(|| panic!("{}: {}", c.agent, out.stdout));
        c.echo(p, sid, &text, env);
        n += 1;
        assert_eq!(ralph(p, sid)["consecutive_blocks"], k, "{}", c.agent);
    }
    let out = c.stop(p, sid, n, env);
    assert_eq!(continuation(&out), None, "{}: handed back", c.agent);
    let s = ralph(p, sid);
    assert_eq!(s["active"], true, "{}: paused, not ended", c.agent);
    assert_eq!(s["iteration"], 1 + turns + idle, "{}", c.agent);
    note(&out)
}

#[test]
fn a_model_that_works_is_continued_past_eight_on_every_agent_and_handed_back_when_it_talks() {
    for c in [CLAUDE, CODEX, GEMINI] {
        let p = Project::new();
        let sid = format!("{}-long", c.agent);
        start(c, &p, &sid, &[]);
        let note = work_then_talk(c, &p, &sid, 30, 8, &[]);
        let who = if c.agent == "claude" {
            "Claude Code"
        } else {
            "omc-hooks"
        };
        assert!(
            note.contains(&format!(
                "ralph paused — no tool ran in the last 8 continuations ({who} allows 8 in a row without one)"
            )),
            "{}: {note}",
            c.agent
        );
        let s = ralph(&p, &sid);
        assert_eq!(
            s["paused_reason"], "no tool ran in the last 8 continuations",
            "{}",
            c.agent
        );
        // The user's next prompt resumes it.
        c.prompt(&p, &sid, "go on", &[]).expect_valid();
        let s = ralph(&p, &sid);
        assert!(s.get("paused_reason").is_none(), "{s}");
        assert!(continuation(&c.stop(&p, &sid, 0, &[])).is_some());
    }
}

#[test]
fn claude_codes_raised_cap_does_not_raise_ours_and_its_lowered_one_counts_only_idle_stops() {
    let p = Project::new();
    start(CLAUDE, &p, "s1", &[]);
    let raised = [("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "20")];
    let note = work_then_talk(CLAUDE, &p, "s1", 2, 8, &raised);
    assert_has(&note, "(omc-hooks allows 8 in a row without one)");

    // Claude Code's own lower cap counts blocks without a tool call too: work keeps the run
    // going past it, and talking is handed back at it.
    let p = Project::new();
    start(CLAUDE, &p, "s1", &[]);
    let low = [("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "3")];
    let note = work_then_talk(CLAUDE, &p, "s1", 12, 3, &low);
    assert_has(
        &note,
        "no tool ran in the last 3 continuations (Claude Code allows 3 in a row",
    );
}

#[test]
fn qwen_counts_every_continuation_of_a_prompt_so_its_cap_holds_even_while_the_model_works() {
    let p = Project::new();
    let env = [("QWEN_CODE_STOP_HOOK_BLOCK_CAP", "3")];
    start(QWEN, &p, "q1", &env);
    for n in 0..2 {
        let text = continuation(&QWEN.stop(&p, "q1", n, &env)).expect("continued");
        QWEN.echo(&p, "q1", &text, &env);
        QWEN.work(&p, "q1", n, &env);
    }
    // The 3rd block of the prompt would be refused by the client: handed back instead, though
    // the model worked each time.
    let out = QWEN.stop(&p, "q1", 2, &env);
    assert_eq!(continuation(&out), None);
    assert!(
        note(&out).contains(
            "ralph paused after 2 continuations since your last message (Qwen Code allows 2 per prompt)"
        ),
        "{}",
        note(&out)
    );
    assert_eq!(
        ralph(&p, "q1")["paused_reason"],
        "Qwen Code allows 2 continuations per prompt"
    );
}

/// A project whose Qwen Code settings hold what `install --agent qwen` puts there (see
/// agents_install).
fn qwen_project() -> Project {
    let p = Project::new();
    std::fs::create_dir_all(p.path().join(".qwen")).unwrap();
    std::fs::write(
        p.path().join(".qwen/settings.json"),
        r#"{"stopHookBlockingCap": 100}"#,
    )
    .unwrap();
    p
}

#[test]
fn qwen_with_the_cap_install_writes_continues_a_working_run_for_a_long_time() {
    let p = qwen_project();
    start(QWEN, &p, "q2", &[]);
    let note = work_then_talk(QWEN, &p, "q2", 30, 8, &[]);
    assert_has(&note, "no tool ran in the last 8 continuations");
}

#[test]
fn cursor_follows_up_within_its_loop_limit_and_past_five_when_ours_lifts_it() {
    // No hooks.json entry of ours: the documented default of 5 follow-ups.
    let p = Project::new();
    start(CURSOR, &p, "c1", &[]);
    for n in 0..5 {
        assert!(continuation(&CURSOR.stop(&p, "c1", n, &[])).is_some());
        CURSOR.work(&p, "c1", n, &[]);
    }
    let out = CURSOR.stop(&p, "c1", 5, &[]);
    assert_eq!(continuation(&out), None);
    assert_eq!(
        ralph(&p, "c1")["paused_reason"],
        "Cursor allows 5 continuations per prompt"
    );

    // `loop_limit: null` on our stop entry (what install writes): no limit of Cursor's.
    let p = Project::new();
    std::fs::create_dir_all(p.path().join(".cursor")).unwrap();
    std::fs::write(
        p.path().join(".cursor/hooks.json"),
        format!(
            r#"{{"version":1,"hooks":{{"stop":[{{"command":"'{BIN}' --agent cursor stop","loop_limit":null}}]}}}}"#
        ),
    )
    .unwrap();
    start(CURSOR, &p, "c2", &[]);
    work_then_talk(CURSOR, &p, "c2", 12, 8, &[]);
    // (Cursor shows no note at the end of a turn; the run says why.)
    assert_eq!(
        ralph(&p, "c2")["paused_reason"],
        "no tool ran in the last 8 continuations"
    );
}

// ------------------------------------------------------------------ budgets ----

fn claude_prompt(p: &Project, sid: &str, text: &str) -> Outcome {
    CLAUDE.prompt(p, sid, text, &[])
}

fn claude_stop_at(p: &Project, sid: &str, at: i64, active: bool) -> Outcome {
    Hook::new("stop")
        .payload(with(
            CLAUDE.base(p, sid, "Stop"),
            json!({"stop_hook_active": active, "last_assistant_message": "more to do"}),
        ))
        .cwd(p.path())
        .now(at)
        .run()
}

#[test]
fn a_time_budget_said_with_the_request_is_kept_out_of_the_task_shown_and_ends_the_run() {
    let p = Project::new();
    let out = claude_prompt(&p, "s1", &format!("ralph 2h {TASK}"));
    out.expect_context("[MAGIC KEYWORD: RALPH]").expect_context(
        "[TIME BUDGET] ralph: 2 h. The run ends when its time is spent, finished or not",
    );
    let s = ralph(&p, "s1");
    assert_eq!(
        s["prompt"],
        format!("ralph {TASK}"),
        "the budget is not the task"
    );
    assert_eq!(s["max_minutes"], 120);
    assert_eq!(s["deadline_at"], omc_hooks::time::iso(NOW + 120 * MIN));
    assert_eq!(s["max_iterations"], 100);

    let text = continuation(&claude_stop_at(&p, "s1", NOW + MIN, false)).unwrap();
    assert!(
        text.starts_with("[RALPH LOOP - ITERATION 2/100 · 1 h 59 min left]"),
        "{text}"
    );
    assert_has(&text, &format!("Task: ralph {TASK}"));
    let text = continuation(&claude_stop_at(&p, "s1", NOW + 86 * MIN, false)).unwrap();
    assert!(
        text.starts_with("[RALPH LOOP - ITERATION 3/100 · 34 min left]"),
        "{text}"
    );
    // The budget is spent: the run ends and says so.
    let out = claude_stop_at(&p, "s1", NOW + 121 * MIN, true);
    assert_eq!(continuation(&out), None);
    assert_eq!(
        note(&out),
        "omc-hooks: ralph stopped at its limit of 2 h; the run is over and the task may not be \
         finished. Start a new run to continue."
    );
    let s = ralph(&p, "s1");
    assert_eq!(s["active"], false);
    assert_eq!(s["ended_reason"], "max_minutes");
}

#[test]
fn an_iteration_budget_said_with_the_request_ends_the_run_at_it() {
    let p = Project::new();
    claude_prompt(&p, "s1", &format!("ralph --max 12 {TASK}"))
        .expect_context("(at most 12 iterations)");
    let s = ralph(&p, "s1");
    assert_eq!(s["max_iterations"], 12);
    assert_eq!(s["prompt"], format!("ralph {TASK}"));
    for i in 2..=12 {
        let text = continuation(&claude_stop_at(&p, "s1", NOW, i > 2)).unwrap();
        assert!(
            text.starts_with(&format!("[RALPH LOOP - ITERATION {i}/12]")),
            "{text}"
        );
        CLAUDE.work(&p, "s1", i, &[]);
    }
    let out = claude_stop_at(&p, "s1", NOW, true);
    assert_eq!(continuation(&out), None);
    assert!(note(&out).contains("ralph stopped at its limit of 12 iterations"));
    assert_eq!(ralph(&p, "s1")["ended_reason"], "max_iterations");
}

#[test]
fn detect_shows_the_budget_and_judges_the_prompt_as_the_hook_does() {
    let out = Command::new(BIN)
        .args(["detect", "--json", "ralph 2h --max 12 fix the tests"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["modes"], json!(["ralph"]), "{v}");
    assert_eq!(v["budget"]["max_minutes"], 120, "{v}");
    assert_eq!(v["budget"]["max_iterations"], 12, "{v}");
    assert_eq!(v["budget"]["judged"], "ralph fix the tests", "{v}");
    let out = Command::new(BIN)
        .args(["detect", "--json", "ralph fix the tests"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["budget"], Value::Null, "{v}");
}

#[test]
fn budget_words_elsewhere_are_the_request_as_typed() {
    let p = Project::new();
    // Not after the mode's name: the words stay in the task, no budget.
    claude_prompt(&p, "s1", "ralph fix the 2h timeout in the scheduler")
        .expect_context("[MAGIC KEYWORD: RALPH]");
    let s = ralph(&p, "s1");
    assert_eq!(s["prompt"], "ralph fix the 2h timeout in the scheduler");
    assert!(s.get("max_minutes").is_none(), "{s}");
    // A mention is still a mention.
    let q = Project::new();
    claude_prompt(&q, "s1", "what does ralph 2h mean?").expect_noop();
    assert!(
        q.read_json(".omc/state/sessions/s1/ralph-state.json")
            .is_none()
    );
}

#[test]
fn the_configured_time_budget_applies_to_new_runs_and_is_shown_everywhere() {
    let p = Project::new();
    p.write_json(".omc/config.json", &json!({"ralph": {"max_minutes": 45}}));
    claude_prompt(&p, "s1", &format!("ralph {TASK}"))
        .expect_context("[TIME BUDGET] ralph: 45 min.");
    assert_eq!(ralph(&p, "s1")["max_minutes"], 45);
    let text = continuation(&claude_stop_at(&p, "s1", NOW + 11 * MIN, false)).unwrap();
    assert!(
        text.starts_with("[RALPH LOOP - ITERATION 2/100 · 34 min left]"),
        "{text}"
    );

    let cli = |args: &[&str]| {
        let out = command_in(p.path())
            .args(args)
            .env("OMC_NOW_MS", (NOW + 11 * MIN).to_string())
            .env_remove("CLAUDE_CODE_SESSION_ID")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let status = cli(&["status"]);
    assert_has(&status, "iter 2/100 · 34 min left");
    let json: Value = serde_json::from_str(&cli(&["status", "--json"])).unwrap();
    let run = &json["sessions"][0]["modes"][0];
    assert_eq!(run["max_minutes"], 45);
    assert_eq!(run["time_left_ms"], 34 * MIN);
    let show = cli(&["mode", "show"]);
    assert_has(&show, "ralph  iteration 2/100 · 34 min left");
    let line = Command::new(BIN)
        .args(["statusline", "--color", "never"])
        .current_dir(p.path())
        .env("OMC_NOW_MS", (NOW + 11 * MIN).to_string())
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(
                json!({"session_id": "s1", "cwd": p.path()})
                    .to_string()
                    .as_bytes(),
            )?;
            c.wait_with_output()
        })
        .unwrap();
    let line = String::from_utf8_lossy(&line.stdout);
    assert!(line.starts_with("ralph 2/100 34 min left"), "{line}");
}

/// What `omc-hooks status` prints for `p`, at the pinned clock.
fn status_text(p: &Project) -> String {
    let out = command_in(p.path())
        .arg("status")
        .env("OMC_NOW_MS", NOW.to_string())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_paused_run_says_why_in_status() {
    let p = Project::new();
    start(CLAUDE, &p, "s1", &[]);
    work_then_talk(CLAUDE, &p, "s1", 1, 8, &[]);
    let text = status_text(&p);
    assert_has(&text, "paused: no tool ran in the last 8 continuations");
}

#[test]
fn mode_start_takes_the_same_budget_words() {
    let p = Project::new();
    let out = Command::new(BIN)
        .args([
            "mode",
            "start",
            "ralph",
            "90m",
            "--max",
            "5",
            "port",
            "the",
            "cli",
            "--session",
            "s9",
        ])
        .current_dir(p.path())
        .env("OMC_NOW_MS", NOW.to_string())
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_exit_ok(&out);
    assert_has(&text, "(iteration 1/5, time budget 1 h 30 min)");
    let s = ralph(&p, "s9");
    assert_eq!(s["prompt"], "port the cli");
    assert_eq!(s["max_iterations"], 5);
    assert_eq!(s["max_minutes"], 90);
}

// ------------------------------------------------------------ across sessions ----

fn at(h: Hook, ms: i64) -> Outcome {
    h.now(ms).run()
}

fn session_start(c: Client, p: &Project, sid: &str, source: &str, now: i64) -> Outcome {
    let event = if c.agent == "cursor" {
        "sessionStart"
    } else {
        "SessionStart"
    };
    let payload = with(c.base(p, sid, event), json!({"source": source}));
    at(
        Hook::new("session-start")
            .agent(c.agent)
            .payload(payload)
            .cwd(p.path()),
        now,
    )
}

fn session_end(p: &Project, sid: &str, now: i64) {
    at(
        Hook::new("session-end")
            .payload(with(
                CLAUDE.base(p, sid, "SessionEnd"),
                json!({"reason": "other"}),
            ))
            .cwd(p.path()),
        now,
    )
    .expect_noop();
}

fn stop_at(c: Client, p: &Project, sid: &str, n: u32, now: i64) -> Outcome {
    let extra = match c.agent {
        "gemini" => json!({"prompt_response": "more to do", "stop_hook_active": n > 0}),
        _ => json!({"stop_hook_active": n > 0, "last_assistant_message": "Here is the answer."}),
    };
    at(
        Hook::new("stop")
            .agent(c.agent)
            .payload(with(c.base(p, sid, c.stop_event), extra))
            .cwd(p.path()),
        now,
    )
}

/// A ralph run of `sid` at iteration 7 with a 60-minute time budget, 15 minutes of it used.
fn seed_run(p: &Project, sid: &str, started: i64) {
    p.write_json(
        &format!(".omc/state/sessions/{sid}/ralph-state.json"),
        &json!({
            "schema_version": 1, "mode": "ralph", "active": true, "session_id": sid,
            "project_path": p.path(), "prompt": format!("ralph {TASK}"),
            "started_at": omc_hooks::time::iso(started),
            "last_checked_at": omc_hooks::time::iso(started + 15 * MIN),
            "iteration": 7, "max_iterations": 100, "consecutive_blocks": 0,
            "max_minutes": 60, "deadline_at": omc_hooks::time::iso(started + 60 * MIN),
        }),
    );
}

#[test]
fn a_run_suspended_within_the_bound_is_continued_by_the_next_new_session() {
    let p = Project::new();
    let t0 = NOW - 60 * MIN;
    seed_run(&p, "one", t0);
    session_end(&p, "one", t0 + 15 * MIN);

    // A new session (not a resume of the first), 45 minutes later: the run is its own now, and
    // the model is told its task at once.
    let ctx = session_start(CLAUDE, &p, "two", "startup", NOW).context();
    assert!(
        ctx.starts_with(
            "[RALPH LOOP RESUMED] The run from session one, left unfinished 45 min ago, \
             continues in this session: iteration 7/100 · 45 min left.\n\
             Task: ralph fix the failing tests in src/parser"
        ),
        "{ctx}"
    );
    assert_lacks(&ctx, "[SUSPENDED RUN]");
    let s = ralph(&p, "two");
    assert_eq!(s["session_id"], "two");
    assert_eq!(s["iteration"], 7);
    // The time spent suspended does not count against the budget.
    assert_eq!(s["deadline_at"], omc_hooks::time::iso(NOW + 45 * MIN));
    assert!(s.get("suspended_at").is_none());
    assert_eq!(ralph(&p, "one")["ended_reason"], "resumed");

    // Its next Stop continues it, whatever the user asked first.
    let text = continuation(&stop_at(CLAUDE, &p, "two", 0, NOW + MIN)).expect("continued");
    assert!(
        text.starts_with("[RALPH LOOP - ITERATION 8/100 · 44 min left]"),
        "{text}"
    );
    // The resume word in the session that took the run up says so (not "nothing to resume").
    let out = at(
        Hook::new("user-prompt-submit")
            .payload(with(
                CLAUDE.base(&p, "two", "UserPromptSubmit"),
                json!({"prompt": "omc resume"}),
            ))
            .cwd(p.path()),
        NOW + 2 * MIN,
    );
    assert_eq!(
        out.context(),
        "[OMC RESUME] The RALPH LOOP run from session one was already taken up by this session \
         when it started (iteration 8/100); carry on with it: each stop sends you back to it \
         until it is done."
    );
    // A third session is told nothing: the run has moved.
    session_start(CLAUDE, &p, "three", "startup", NOW + 3 * MIN).expect_noop();
}

#[test]
fn an_old_run_is_only_offered_and_never_rearmed_without_the_persons_word() {
    // Issue 30: the session's own run, suspended ten days ago, comes back with `--resume`.
    let p = Project::new();
    let t0 = NOW - 10 * 24 * 60 * MIN;
    seed_run(&p, "s1", t0);
    session_end(&p, "s1", t0 + 15 * MIN);
    let ctx = session_start(CLAUDE, &p, "s1", "resume", NOW).context();
    assert!(ctx.starts_with("[SUSPENDED RUN]"), "{ctx}");
    assert_has(&ctx, "- [RALPH LOOP] iteration 7/100 — session s1");
    assert_lacks(&ctx, "RESTORED");
    assert!(ralph(&p, "s1").get("suspended_at").is_some());
    // An unrelated question is answered and the turn ends: nothing blocks.
    CLAUDE.prompt(&p, "s1", "what does the parser return on EOF?", &[]);
    assert_eq!(continuation(&stop_at(CLAUDE, &p, "s1", 0, NOW + MIN)), None);
    assert_eq!(ralph(&p, "s1")["iteration"], 7);
    // The person's word re-arms it, in the same session; the next Stop continues it.
    let out = at(
        Hook::new("user-prompt-submit")
            .payload(with(
                CLAUDE.base(&p, "s1", "UserPromptSubmit"),
                json!({"prompt": "omc resume"}),
            ))
            .cwd(p.path()),
        NOW + 2 * MIN,
    );
    assert!(
        out.context().starts_with("[RALPH LOOP RESUMED]"),
        "{}",
        out.context()
    );
    let s = ralph(&p, "s1");
    assert!(s.get("suspended_at").is_none(), "{s}");
    assert_eq!(s["active"], true);
    assert!(continuation(&stop_at(CLAUDE, &p, "s1", 0, NOW + 3 * MIN)).is_some());

    // Another session's run suspended three days ago: a new session is only offered it.
    let q = Project::new();
    let t0 = NOW - 3 * 24 * 60 * MIN;
    seed_run(&q, "old", t0);
    session_end(&q, "old", t0 + 15 * MIN);
    let ctx = session_start(CLAUDE, &q, "new", "startup", NOW).context();
    assert!(ctx.starts_with("[SUSPENDED RUN]"), "{ctx}");
    assert!(
        q.read_json(".omc/state/sessions/new/ralph-state.json")
            .is_none()
    );
    assert_eq!(
        continuation(&stop_at(CLAUDE, &q, "new", 0, NOW + MIN)),
        None
    );
}

#[test]
fn the_resume_bound_is_configurable() {
    // 0: never without the word, even a minute later.
    let p = Project::new();
    p.write_json(
        ".omc/config.json",
        &json!({"resume": {"within_minutes": 0}}),
    );
    seed_run(&p, "one", NOW - 20 * MIN);
    session_end(&p, "one", NOW - MIN);
    let ctx = session_start(CLAUDE, &p, "two", "startup", NOW).context();
    assert!(ctx.starts_with("[SUSPENDED RUN]"), "{ctx}");
    assert!(
        p.read_json(".omc/state/sessions/two/ralph-state.json")
            .is_none()
    );
    let ctx = session_start(CLAUDE, &p, "one", "resume", NOW).context();
    assert!(ctx.starts_with("[SUSPENDED RUN]"), "{ctx}");
    assert!(ralph(&p, "one").get("suspended_at").is_some());

    // 600: a run suspended five hours ago is still taken back.
    let q = Project::new();
    q.write_json(
        ".omc/config.json",
        &json!({"resume": {"within_minutes": 600}}),
    );
    seed_run(&q, "one", NOW - 320 * MIN);
    session_end(&q, "one", NOW - 300 * MIN);
    let ctx = session_start(CLAUDE, &q, "one", "resume", NOW).context();
    assert!(ctx.starts_with("[RALPH LOOP RESTORED]"), "{ctx}");
}

#[test]
fn qwen_leaves_a_handed_back_run_open_and_the_next_new_session_takes_it_up() {
    // Qwen Code fires no SessionEnd headless: nothing suspends the run.
    let p = qwen_project();
    start(QWEN, &p, "q1", &[]);
    work_then_talk(QWEN, &p, "q1", 2, 8, &[]);
    let idx = p
        .read_json(".omc/state/suspended-runs.json")
        .expect("index");
    assert_valid("suspended-runs", &idx);
    assert_eq!(idx["runs"][0]["open"], true, "{idx}");
    assert!(ralph(&p, "q1").get("suspended_at").is_none());

    let ctx = session_start(QWEN, &p, "q2", "startup", NOW + MIN).context();
    assert!(
        ctx.starts_with("[RALPH LOOP RESUMED] The run from session q1, left unfinished 1 min ago"),
        "{ctx}"
    );
    assert_eq!(ralph(&p, "q1")["ended_reason"], "resumed");
    let text = continuation(&stop_at(QWEN, &p, "q2", 0, NOW + 2 * MIN)).expect("continued");
    assert_has(&text, "ITERATION 12/100");

    // A run its session touched again after the hand-back (the person answered) is not left
    // open: a new session leaves it alone.
    let q = qwen_project();
    start(QWEN, &q, "q1", &[]);
    work_then_talk(QWEN, &q, "q1", 1, 8, &[]);
    at(
        Hook::new("user-prompt-submit")
            .agent("qwen")
            .payload(with(
                QWEN.base(&q, "q1", "UserPromptSubmit"),
                json!({"prompt": "yes, go on", "submitted_prompt": "yes, go on"}),
            ))
            .cwd(q.path()),
        NOW + MIN,
    )
    .expect_valid();
    session_start(QWEN, &q, "q2", "startup", NOW + 2 * MIN);
    assert!(
        q.read_json(".omc/state/sessions/q2/ralph-state.json")
            .is_none()
    );
    assert_eq!(ralph(&q, "q1")["active"], true);

    // The session that left it open, resumed: its own live run again, not offered to itself.
    let r = qwen_project();
    start(QWEN, &r, "q1", &[]);
    work_then_talk(QWEN, &r, "q1", 1, 8, &[]);
    let ctx = session_start(QWEN, &r, "q1", "resume", NOW + MIN).context();
    assert!(ctx.starts_with("[RALPH LOOP RESTORED]"), "{ctx}");
    assert_lacks(&ctx, "[SUSPENDED RUN]");
    let idx = r.read_json(".omc/state/suspended-runs.json").unwrap();
    assert_eq!(idx["runs"], json!([]), "{idx}");

    // Claude Code suspends at SessionEnd, so its hand-backs are not noted.
    let r = Project::new();
    start(CLAUDE, &r, "c1", &[]);
    work_then_talk(CLAUDE, &r, "c1", 1, 8, &[]);
    assert!(r.read_json(".omc/state/suspended-runs.json").is_none());
}

// ------------------------------------------------ issue 34: progress from what happened ----

impl Client {
    /// The agent runs `cmd`, which prints `output` (or fails with it): its pre- and post-tool
    /// events, as each client sends them.
    fn shell(
        &self,
        p: &Project,
        sid: &str,
        cmd: &str,
        output: &str,
        ok: bool,
        env: &[(&str, &str)],
    ) {
        let tool = match self.agent {
            "gemini" | "qwen" => "run_shell_command",
            "cursor" => "Shell",
            _ => "Bash",
        };
        let input = json!({"command": cmd});
        let pre = with(
            self.base(p, sid, self.pre_tool),
            json!({"tool_name": tool, "tool_input": input}),
        );
        self.run(p, "pre-tool-use", pre, env).expect_valid();
        let (sub, event, extra) = match (self.agent, ok) {
            ("claude", false) => (
                "post-tool-use-failure",
                "PostToolUseFailure",
                json!({"error": format!("Exit code 1\n{output}")}),
            ),
            ("gemini" | "qwen", _) => (
                "post-tool-use",
                self.post_tool,
                json!({"tool_response": {"llmContent": format!(
                    "Command: {cmd}\nOutput: {output}\nExit Code: {}", if ok { 0 } else { 1 })}}),
            ),
            ("codex", _) => (
                "post-tool-use",
                self.post_tool,
                json!({"tool_response": format!(
                    "{output}\nProcess exited with code {}", if ok { 0 } else { 1 })}),
            ),
            _ => (
                "post-tool-use",
                self.post_tool,
                json!({"tool_response": {"stdout": output, "stderr": ""}}),
            ),
        };
        let post = with(
            self.base(p, sid, event),
            with(json!({"tool_name": tool, "tool_input": input}), extra),
        );
        self.run(p, sub, post, env).expect_valid();
    }
}

/// Stops until the run is handed back, the agent doing `each` between them; returns how many
/// were continued and the hand-back's note.
fn until_handed_back(
    c: Client,
    p: &Project,
    sid: &str,
    env: &[(&str, &str)],
    mut each: impl FnMut(u32),
) -> (u32, String) {
    for n in 0..40 {
        let out = c.stop(p, sid, n + 1, env);
        match continuation(&out) {
            Some(text) => {
                c.echo(p, sid, &text, env);
                each(n);
            }
            None => return (n, note(&out)),
        }
    }
    panic!("{}: never handed back", c.agent);
}

const QWEN_CAP: (&str, &str) = ("QWEN_CODE_STOP_HOOK_BLOCK_CAP", "100");

#[test]
fn a_model_repeating_the_same_command_is_handed_back_and_told_what_repeated() {
    for c in [CLAUDE, CODEX, GEMINI, QWEN] {
        let p = Project::new();
        let sid = format!("{}-same-ls", c.agent);
        let env = [QWEN_CAP];
        start(c, &p, &sid, &env);
        // Two turns of new work, then the same `ls` with the same output every turn.
        let (n, note) = until_handed_back(c, &p, &sid, &env, |i| match i {
            0 => c.shell(&p, &sid, "cargo build", "Finished in 1.2s", true, &env),
            1 => c.shell(&p, &sid, "cargo test", "3 passed", true, &env),
            _ => c.shell(&p, &sid, "ls", "src\ntests", true, &env),
        });
        // Continuation 0 and 1 each followed by new work, the third (first `ls`) too; then 8
        // without progress.
        assert_eq!(n, 3 + 8, "{}: {note}", c.agent);
        let s = ralph(&p, &sid);
        assert_eq!(s["active"], true, "{}", c.agent);
        assert_eq!(s["pause_kind"], "no_progress", "{}: {s}", c.agent);
        assert_eq!(
            s["paused_reason"],
            "no progress in the last 8 continuations: ran `ls` again with the same output",
            "{}",
            c.agent
        );
        assert!(
            note.contains("ran `ls` again with the same output"),
            "{}: {note}",
            c.agent
        );
        assert_valid(
            "work",
            &p.read_json(&format!(".omc/state/sessions/{sid}/work.json"))
                .unwrap(),
        );
    }
}

#[test]
fn going_round_two_commands_or_the_same_failure_is_no_progress() {
    for c in [CODEX, QWEN, CLAUDE, GEMINI] {
        let p = Project::new();
        let sid = format!("{}-two", c.agent);
        let env = [QWEN_CAP];
        start(c, &p, &sid, &env);
        let (n, _) = until_handed_back(c, &p, &sid, &env, |i| {
            let cmd = if i % 2 == 0 { "git status" } else { "git diff" };
            c.shell(&p, &sid, cmd, &format!("out of {cmd}"), true, &env)
        });
        assert_eq!(n, 2 + 8, "{}", c.agent);
        let p = Project::new();
        let sid = format!("{}-fail", c.agent);
        start(c, &p, &sid, &env);
        let (n, _) = until_handed_back(c, &p, &sid, &env, |_| {
            c.shell(
                &p,
                &sid,
                "python3 check.py",
                "AssertionError: 2 != 3 (took 0.01s)",
                false,
                &env,
            )
        });
        assert_eq!(n, 1 + 8, "{}", c.agent);
        assert_eq!(
            ralph(&p, &sid)["paused_reason"],
            "no progress in the last 8 continuations: ran `python3 check.py` again with the same error",
            "{}",
            c.agent
        );
    }
}

#[test]
fn a_new_command_each_turn_goes_on_past_twenty_five() {
    for c in [CLAUDE, CODEX, GEMINI, QWEN] {
        let p = Project::new();
        let sid = format!("{}-new", c.agent);
        let env = [QWEN_CAP];
        start(c, &p, &sid, &env);
        for n in 0..30 {
            let out = c.stop(&p, &sid, n + 1, &env);
            let text = continuation(&out).unwrap_or_else(|| panic!("{}: stop {n}", c.agent));
            c.echo(&p, &sid, &text, &env);
            c.shell(
                &p,
                &sid,
                &format!("echo step-{n}"),
                &format!("step-{n}"),
                true,
                &env,
            );
        }
    }
}

#[test]
fn an_edit_made_and_undone_is_no_progress() {
    let c = CLAUDE;
    let p = Project::new();
    let sid = "toggle";
    start(c, &p, sid, &[]);
    let file = p.path().join("app.py");
    std::fs::write(&file, "x = 1\n").unwrap();
    let edit = |old: &str, new: &str| {
        let input = json!({"file_path": file, "old_string": old, "new_string": new});
        let pre = with(
            c.base(&p, sid, "PreToolUse"),
            json!({"tool_name": "Edit", "tool_input": input}),
        );
        c.run(&p, "pre-tool-use", pre, &[]).expect_valid();
        let body = std::fs::read_to_string(&file).unwrap().replace(old, new);
        std::fs::write(&file, body).unwrap();
        let post = with(
            c.base(&p, sid, "PostToolUse"),
            json!({"tool_name": "Edit", "tool_input": input,
                   "tool_response": {"filePath": file, "oldString": old, "newString": new}}),
        );
        c.run(&p, "post-tool-use", post, &[]).expect_valid();
    };
    let (n, _) = until_handed_back(c, &p, sid, &[], |i| match i {
        0 => c.shell(&p, sid, "pytest -q", "1 failed", false, &[]),
        _ if i % 2 == 1 => edit("x = 1", "x = 2"),
        _ => edit("x = 2", "x = 1"),
    });
    // The first edit gives the file new content; every one after only brings back a seen one.
    assert_eq!(n, 2 + 8);
    // Named relative to the project, as the README shows it (issue 43), not by the absolute
    // path the client sent.
    assert_eq!(
        ralph(&p, sid)["paused_reason"],
        "no progress in the last 8 continuations: edited `app.py` back to content it had before"
    );
}

#[test]
fn a_hand_back_lasts_until_the_next_prompt() {
    let c = CLAUDE;
    let p = Project::new();
    let sid = "lasts";
    start(c, &p, sid, &[]);
    let (n, _) = until_handed_back(c, &p, sid, &[], |_| {});
    assert_eq!(n, 8);
    // More Stops without a prompt, fresh or not, are let through (was `BBBBBBBBAB…`).
    for flag in [0, 1, 0, 3] {
        assert_eq!(continuation(&c.stop(&p, sid, flag, &[])), None);
    }
    c.prompt(&p, sid, "please go on", &[]).expect_valid();
    assert!(continuation(&c.stop(&p, sid, 0, &[])).is_some());
}

#[test]
fn a_completion_claim_needs_the_verify_commands_to_pass_after_the_last_change() {
    let c = CLAUDE;
    let p = Project::new();
    // The project's verify commands are used once the person trusted them (issue 41).
    let config_home = crate::common::trusted_verify(&p, &json!({"verify": ["python3 check.py"]}));
    let env = config_home.env();
    let sid = "verify";
    start(c, &p, sid, &env);
    let claim = |n: u32| {
        let payload = with(
            c.base(&p, sid, "Stop"),
            json!({"stop_hook_active": n > 0,
                   "last_assistant_message": "All fixed.\n<omc-complete/>"}),
        );
        c.run(&p, "stop", payload, &env)
    };
    // A claim before the check was run: sent back, told to run it.
    let text = continuation(&claim(0)).expect("not accepted");
    assert!(
        text.starts_with("[VERIFY] The completion claim was not accepted"),
        "{text}"
    );
    assert_has(&text, "`python3 check.py` has not been run");
    assert_has(&text, "[RALPH LOOP - ITERATION 2/100]");
    // The check fails: the claim is sent back with the end of its output.
    c.shell(
        &p,
        sid,
        "python3 check.py",
        "Traceback …\nAssertionError: total is 2, want 3",
        false,
        &env,
    );
    let text = continuation(&claim(1)).expect("not accepted");
    assert_has(&text, "`python3 check.py` failed");
    assert_has(&text, "AssertionError: total is 2, want 3");
    // Fixed (an edit) and run again, passing: the claim ends the run, verified.
    let file = p.path().join("total.py");
    std::fs::write(&file, "TOTAL = 3\n").unwrap();
    let post = with(
        c.base(&p, sid, "PostToolUse"),
        json!({"tool_name": "Write", "tool_input": {"file_path": file, "content": "TOTAL = 3\n"}}),
    );
    c.run(&p, "post-tool-use", post, &env).expect_valid();
    // Passing before the last change does not count: here it ran after it.
    c.shell(&p, sid, "cd . && python3 check.py", "ok", true, &env);
    let out = claim(2);
    assert_eq!(continuation(&out), None, "{}", out.stdout);
    let s = ralph(&p, sid);
    assert_eq!(s["active"], false);
    assert_eq!(s["ended_reason"], "completed");
    assert_eq!(s["verified"], true);
    // A change after the passing run makes the evidence stale.
    let p2 = Project::new();
    p2.write_json(
        ".omc/config.json",
        &json!({"ralph": {"verify": ["make check"]}}),
    );
    crate::common::trust_as_person(p2.path(), config_home.path());
    start(c, &p2, sid, &env);
    c.shell(&p2, sid, "make check", "all good", true, &env);
    let f2 = p2.path().join("a.txt");
    std::fs::write(&f2, "new").unwrap();
    let post = with(
        c.base(&p2, sid, "PostToolUse"),
        json!({"tool_name": "Write", "tool_input": {"file_path": f2, "content": "new"}}),
    );
    c.run(&p2, "post-tool-use", post, &env).expect_valid();
    let payload = with(
        c.base(&p2, sid, "Stop"),
        json!({"stop_hook_active": false, "last_assistant_message": "Done.\n<omc-complete/>"}),
    );
    let text = continuation(&c.run(&p2, "stop", payload, &env)).expect("stale evidence");
    assert_has(&text, "ran after `make check` last ran");
    // Without verify, a claim ends the run as before, recorded as not verified.
    let p3 = Project::new();
    start(c, &p3, sid, &env);
    let payload = with(
        c.base(&p3, sid, "Stop"),
        json!({"stop_hook_active": false, "last_assistant_message": "Done.\n<omc-complete/>"}),
    );
    assert_eq!(continuation(&c.run(&p3, "stop", payload, &env)), None);
    let s = ralph(&p3, sid);
    assert_eq!(
        (s["ended_reason"].as_str(), s["verified"].as_bool()),
        (Some("completed"), Some(false))
    );
}

// ------------------------------------- issue 41: evidence the model cannot bend ----

impl Client {
    /// The agent's completion claim at a Stop.
    fn claim(&self, p: &Project, sid: &str, n: u32, env: &[(&str, &str)]) -> Outcome {
        let payload = with(
            self.base(p, sid, self.stop_event),
            json!({"stop_hook_active": n > 0,
                   "last_assistant_message": "All fixed and checked.\n<omc-complete/>"}),
        );
        self.run(p, "stop", payload, env)
    }

    /// Codex's `apply_patch` through the shell: PreToolUse with the whole command and no
    /// PostToolUse (tests/e2e/codex-FINDINGS.md §15); the patch is applied in between.
    fn apply_patch(&self, p: &Project, sid: &str, file: &str, body: &str, env: &[(&str, &str)]) {
        let cmd = format!(
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: {file}\n@@\n-x\n+{body}\n*** End Patch\nEOF"
        );
        let pre = with(
            self.base(p, sid, self.pre_tool),
            json!({"tool_name": "Bash", "tool_input": {"command": cmd}, "tool_use_id": "call_9"}),
        );
        self.run(p, "pre-tool-use", pre, env).expect_valid();
        std::fs::write(p.path().join(file), body).unwrap();
    }
}

/// Claude Code: an edit, the check passes, then `sed -i` through Bash: the claim is not
/// accepted and the model is told to run the check again; after it does, the claim ends the
/// run, verified.
#[test]
fn a_change_through_the_shell_after_the_passing_check_voids_it() {
    let c = CLAUDE;
    let p = Project::new();
    // The project's verify commands are used once the person trusted them (issue 41).
    let config_home = crate::common::trusted_verify(&p, &json!({"verify": ["pytest -q"]}));
    let env = config_home.env();
    let sid = "sed-after";
    start(c, &p, sid, &env);
    let file = p.path().join("app.py");
    std::fs::write(&file, "TOTAL = 3\n").unwrap();
    let post = with(
        c.base(&p, sid, "PostToolUse"),
        json!({"tool_name": "Write", "tool_input": {"file_path": file, "content": "TOTAL = 3\n"}}),
    );
    c.run(&p, "post-tool-use", post, &env).expect_valid();
    c.shell(&p, sid, "pytest -q", "1 passed in 0.01s", true, &env);
    // Reading after the check leaves it standing.
    c.shell(
        &p,
        sid,
        "git diff --stat && cat app.py",
        "TOTAL = 3",
        true,
        &env,
    );
    c.shell(&p, sid, "sed -i 's/3/2/' app.py", "", true, &env);
    let text = continuation(&c.claim(&p, sid, 0, &env)).expect("not accepted");
    assert!(
        text.starts_with("[VERIFY] The completion claim was not accepted"),
        "{text}"
    );
    assert!(
        text.contains("ran after `pytest -q` last ran") && text.contains("Run `pytest -q` again"),
        "{text}"
    );
    assert_eq!(ralph(&p, sid)["active"], true);
    // The same `sed -i` again, repeating seen work, still voids a check run in between.
    c.shell(&p, sid, "pytest -q", "1 passed in 0.02s", true, &env);
    c.shell(&p, sid, "sed -i 's/3/2/' app.py", "", true, &env);
    assert!(continuation(&c.claim(&p, sid, 1, &env)).is_some());
    // A check begun (its pre-tool event) and not yet ended is in the log, which stays valid.
    let pre = with(
        c.base(&p, sid, "PreToolUse"),
        json!({"tool_name": "Bash", "tool_input": {"command": "pytest -q"}}),
    );
    c.run(&p, "pre-tool-use", pre, &env).expect_valid();
    let log = p
        .read_json(&format!(".omc/state/sessions/{sid}/work.json"))
        .unwrap();
    assert_eq!(log["running"][0]["command"], "pytest -q", "{log}");
    assert_valid("work", &log);
    // Run again after the last change: accepted, verified.
    c.shell(&p, sid, "pytest -q", "1 passed in 0.02s", true, &env);
    assert_eq!(continuation(&c.claim(&p, sid, 2, &env)), None);
    let s = ralph(&p, sid);
    assert_eq!(
        (s["ended_reason"].as_str(), s["verified"].as_bool()),
        (Some("completed"), Some(true)),
        "{s}"
    );
    assert_valid(
        "work",
        &p.read_json(&format!(".omc/state/sessions/{sid}/work.json"))
            .unwrap(),
    );
}

/// Codex: every edit is `apply_patch` in the shell, which fires only PreToolUse; a patch after
/// the passing check leaves the run unverified.
#[test]
fn an_apply_patch_after_the_passing_check_voids_it() {
    let c = CODEX;
    let p = Project::new();
    // The project's verify commands are used once the person trusted them (issue 41).
    let config_home = crate::common::trusted_verify(&p, &json!({"verify": ["python3 check.py"]}));
    let env = config_home.env();
    let sid = "patch-after";
    start(c, &p, sid, &env);
    c.apply_patch(&p, sid, "app.py", "TOTAL = 3\n", &env);
    c.shell(&p, sid, "python3 check.py", "ok", true, &env);
    c.apply_patch(&p, sid, "app.py", "TOTAL = 2\n", &env);
    let text = continuation(&c.claim(&p, sid, 0, &env)).expect("not accepted");
    assert_has(&text, "ran after `python3 check.py` last ran");
    assert_eq!(ralph(&p, sid)["active"], true);
    c.shell(&p, sid, "python3 check.py", "ok", true, &env);
    assert_eq!(continuation(&c.claim(&p, sid, 1, &env)), None);
    assert_eq!(ralph(&p, sid)["verified"], true);
}

/// The same failing test, its output differing only by one volatile number each time (pytest's
/// numbered temporary path, pytest-randomly's seed, an object address, a Node pid), is handed
/// back within 8 continuations without progress.
#[test]
fn the_same_failure_with_a_new_volatile_number_each_run_is_no_progress() {
    let shapes: [fn(u32) -> String; 4] = [
        |i| {
            format!(
                "E FileNotFoundError: /tmp/pytest-of-ann/pytest-{i}/test_load0/data.json\n1 failed in 0.0{i}s"
            )
        },
        |i| {
            format!(
                "Using --randomly-seed={}\nFAILED test_app.py::test_total - assert 2 == 3",
                1000 + i * 7919
            )
        },
        |i| {
            format!(
                "assert <app.Total object at 0x7f3a{:08x}> == 3",
                0x2c1b_9d30u32.wrapping_add(i * 4096)
            )
        },
        |i| {
            format!(
                "(node:{}) UnhandledPromiseRejection: total is 2, want 3",
                4000 + i * 13
            )
        },
    ];
    for (k, shape) in shapes.iter().enumerate() {
        for c in [CLAUDE, CODEX, GEMINI, QWEN] {
            let p = Project::new();
            let sid = format!("{}-volatile-{k}", c.agent);
            let env = [QWEN_CAP];
            start(c, &p, &sid, &env);
            let (n, note) = until_handed_back(c, &p, &sid, &env, |i| {
                c.shell(&p, &sid, "pytest -q", &shape(i), false, &env)
            });
            assert_eq!(n, 1 + 8, "{} {k}: {note}", c.agent);
            assert!(
                note.contains("ran `pytest -q` again with the same error"),
                "{} {k}: {note}",
                c.agent
            );
        }
    }
}

/// Claude Code's transcript lines: one assistant message of `tokens` input tokens.
fn transcript_call(path: &std::path::Path, id: &str, tokens: u64) {
    use std::io::Write;
    let line = json!({"type": "assistant", "timestamp": "2026-12-03T13:45:00.000Z",
        "message": {"id": id, "role": "assistant", "model": "m",
                    "usage": {"input_tokens": tokens, "output_tokens": 5,
                              "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}});
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    // Claude Code writes one line per content block, the same usage on each.
    writeln!(f, "{line}\n{line}").unwrap();
}

#[test]
fn a_run_ends_on_its_token_budget_and_says_so() {
    for how in ["config", "prompt"] {
        let c = CLAUDE;
        let p = Project::new();
        let sid = format!("tokens-{how}");
        let transcript = p.path().join("t.jsonl");
        if how == "config" {
            p.write_json(
                ".omc/config.json",
                &json!({"ralph": {"max_tokens": 100000}}),
            );
            start(c, &p, &sid, &[]);
        } else {
            c.prompt(&p, &sid, &format!("ralph --tokens 100k {TASK}"), &[])
                .expect_valid();
            assert_eq!(ralph(&p, &sid)["prompt"], format!("ralph {TASK}"));
        }
        assert_eq!(ralph(&p, &sid)["max_tokens"], 100_000);
        let mut ended = None;
        for n in 0..10u32 {
            transcript_call(&transcript, &format!("msg-{n}-a"), 15_000);
            transcript_call(&transcript, &format!("msg-{n}-b"), 15_000);
            let payload = with(
                c.base(&p, &sid, "Stop"),
                json!({"stop_hook_active": n > 0, "transcript_path": transcript,
                       "last_assistant_message": "more to do"}),
            );
            let out = c.run(&p, "stop", payload, &[]);
            match continuation(&out) {
                Some(text) => {
                    let used = (n + 1) * 30_010 / 1000;
                    assert_has(&text, &format!("· {used}k/100k tokens]"));
                    c.shell(&p, &sid, &format!("echo {n}"), &format!("{n}"), true, &[]);
                }
                None => {
                    ended = Some((n, note(&out)));
                    break;
                }
            }
        }
        let (n, note) = ended.expect("ended on its budget");
        assert_eq!(n, 3, "{how}: 4 calls of 30k reach 100k");
        assert_has(&note, "stopped at its limit of 100k tokens (120k spent)");
        let s = ralph(&p, &sid);
        assert_eq!(s["ended_reason"], "max_tokens");
        assert_eq!(s["tokens_used"], 4 * 30_010);
        // `status` names the reason.
        let text = status_text(&p);
        assert_has(&text, "token budget spent; 120k/100k tokens");
    }
}

/// Issue 44: a run started late in a long session counts only what the client recorded after
/// it started, however the earlier records are stamped: the prompt that starts the run sets
/// its cursor at the session file's end (Claude Code's transcript; Codex's rollout, whose last
/// cumulative total before the run is the base its growth is counted from).
#[test]
fn a_run_started_late_counts_from_where_the_session_file_stood() {
    use std::io::Write;
    for c in [CLAUDE, CODEX] {
        let p = Project::new();
        let sid = format!("late-{}", c.agent);
        let file = p.path().join("session.jsonl");
        let codex_total = |total: u64| {
            json!({"timestamp": "2026-12-03T13:45:00.000Z", "type": "event_msg",
                "payload": {"type": "token_count", "info": {"total_token_usage": {"total_tokens": total}}}})
        };
        // Before the run: 150k tokens' worth of calls, stamped as late as the run's start.
        for n in 0..10u64 {
            match c.agent {
                "codex" => {
                    let mut f = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(&file)
                        .unwrap();
                    writeln!(f, "{}", codex_total((n + 1) * 15_000)).unwrap();
                }
                _ => transcript_call(&file, &format!("before-{n}"), 15_000),
            }
        }
        let payload = with(
            c.base(&p, &sid, c.prompt_event),
            json!({"prompt": format!("ralph --tokens 100k {TASK}"), "transcript_path": file}),
        );
        c.run(&p, "user-prompt-submit", payload, &[]).expect_valid();
        assert_eq!(
            ralph(&p, &sid)["token_cursor"]["offset"],
            std::fs::metadata(&file).unwrap().len(),
            "{}",
            c.agent
        );
        // The run's own call: 30k.
        let expected = match c.agent {
            "codex" => {
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&file)
                    .unwrap();
                writeln!(f, "{}", codex_total(180_000)).unwrap();
                30_000
            }
            _ => {
                transcript_call(&file, "run-a", 15_000);
                30_010 / 2
            }
        };
        let payload = with(
            c.base(&p, &sid, c.stop_event),
            json!({"stop_hook_active": false, "transcript_path": file,
                   "last_assistant_message": "more to do"}),
        );
        let text = continuation(&c.run(&p, "stop", payload, &[])).expect("the run goes on");
        assert_has(&text, "/100k tokens");
        assert_eq!(ralph(&p, &sid)["tokens_used"], expected, "{}", c.agent);
    }
}

#[test]
fn a_budget_said_slightly_wrong_is_named_and_the_run_starts() {
    for (said, word) in [
        ("ralph 0m", "0m"),
        ("ralph 7d", "7d"),
        ("ralph 2 h", "2 h"),
        ("ralph --max 0", "--max 0"),
        ("ralph -max 40", "-max 40"),
    ] {
        let p = Project::new();
        let out = CLAUDE.prompt(&p, "b", &format!("{said} {TASK}"), &[]);
        let v = out.json();
        let msg = v["systemMessage"].as_str().unwrap_or_default();
        assert!(
            msg.contains(&format!("did not understand `{word}`")),
            "{said}: {}",
            out.stdout
        );
        let s = ralph(&p, "b");
        assert_eq!(s["active"], true, "{said}");
        assert_eq!(s["prompt"], format!("ralph {TASK}"), "{said}");
        assert_eq!(s["max_iterations"], 100, "{said}: the default");
    }
}

/// Issue 44: the person's own verify list (`config.json` in their omc-hooks config directory)
/// is read on a tool event only while a run is live — a tool event with no run does not look
/// for it (a directory in its place, which every reading names on stderr, is not named) — and
/// while a run is live it holds the run as before: Codex's `apply_patch` after the passing
/// check, counted at the pre-tool event, voids it.
#[test]
fn the_persons_own_verify_list_is_read_on_a_tool_event_only_while_a_run_is_live() {
    let c = CODEX;
    let p = Project::new();
    let broken = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(broken.path().join("omc-hooks/config.json")).unwrap();
    let broken_home = broken.path().to_string_lossy().into_owned();
    let broken_env = [("XDG_CONFIG_HOME", broken_home.as_str())];
    let named = |out: &Outcome| out.stderr.contains("config.json: not a regular file");
    let pre = with(
        c.base(&p, "no-run", c.pre_tool),
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "call_1"}),
    );
    let out = c.run(&p, "pre-tool-use", pre, &broken_env);
    out.expect_valid();
    assert!(
        !named(&out),
        "read on a tool event with no run: {}",
        out.stderr
    );
    // A Stop still reads it (it may judge a claim): the directory is named there.
    let out = c.claim(&p, "no-run", 0, &broken_env);
    assert!(named(&out), "{}", out.stderr);

    let config_home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config_home.path().join("omc-hooks")).unwrap();
    std::fs::write(
        config_home.path().join("omc-hooks/config.json"),
        json!({"verify": ["python3 check.py"]}).to_string(),
    )
    .unwrap();
    let home = config_home.path().to_string_lossy().into_owned();
    let env = [("XDG_CONFIG_HOME", home.as_str())];
    let sid = "persons-list";
    start(c, &p, sid, &env);
    c.apply_patch(&p, sid, "app.py", "TOTAL = 3\n", &env);
    c.shell(&p, sid, "python3 check.py", "ok", true, &env);
    c.apply_patch(&p, sid, "app.py", "TOTAL = 2\n", &env);
    let text = continuation(&c.claim(&p, sid, 0, &env)).expect("not accepted");
    assert_has(&text, "ran after `python3 check.py` last ran");
    c.shell(&p, sid, "python3 check.py", "ok", true, &env);
    assert_eq!(continuation(&c.claim(&p, sid, 1, &env)), None);
    assert_eq!(ralph(&p, sid)["verified"], true);
}

/// Issue 44: a shell call's 8 MiB of output is shortened before the payload is parsed (its
/// ends and a digest of its middle), and progress is judged as on the whole: the same output
/// again is no new work, an output that differs only in its middle is.
#[test]
fn eight_mib_outputs_differing_only_in_the_middle_are_new_work_and_the_same_one_is_not() {
    let c = CLAUDE;
    let p = Project::new();
    let sid = "huge-output";
    start(c, &p, sid, &[]);
    let big = |middle: &str| {
        let half: String = (0..150_000)
            .map(|i| format!("test module_{i}::case ... ok\n"))
            .collect();
        assert!(half.len() > 4 << 20);
        format!("{half}{middle}{half}")
    };
    let a = big("test parser::total ... ok\n");
    let b = big("test parser::total ... FAILED\n");
    assert!(a.len() > 8 << 20);
    let blocks = || ralph(&p, sid)["consecutive_blocks"].as_u64().unwrap();
    assert!(continuation(&c.stop(&p, sid, 0, &[])).is_some());
    assert_eq!(blocks(), 1);
    c.shell(&p, sid, "cargo test", &a, true, &[]);
    assert_eq!(blocks(), 0, "the first output is new work");
    assert!(continuation(&c.stop(&p, sid, 1, &[])).is_some());
    c.shell(&p, sid, "cargo test", &a, true, &[]);
    assert_eq!(blocks(), 1, "the same output again is not");
    assert!(continuation(&c.stop(&p, sid, 2, &[])).is_some());
    assert_eq!(blocks(), 2);
    c.shell(&p, sid, "cargo test", &b, true, &[]);
    assert_eq!(blocks(), 0, "a new middle is new work");
}
