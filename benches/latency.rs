//! The latency benchmark (contract §10): whole-process wall time and peak RSS of one hook
//! invocation, per event, with realistic payloads and state, next to the cost of spawning
//! `/bin/true` measured in the same run.
//!
//! Run: `cargo bench --bench latency` (set `OMC_BENCH_RUNS` to change the runs per case,
//! default 200; `OMC_BENCH_ONLY=statusline,stop` to run only the cases whose name contains one
//! of the words, beside the baseline). Prints a Markdown table; BENCHMARKS.md holds a copy with the machine.
//! `OMC_BENCH_INSTALLED=cargo:/path/omc-hooks,npm:/prefix/bin/omc-hooks` also times the hook
//! commands each of those installs writes (`install --agent codex`), round by round.
//! Whole Claude Code sessions (20 tool calls) with and without the plugin: `benches/in_client.py`.
//!
//! Each case prepares a throw-away project, lets the real hooks build realistic state (an
//! active ralph run, a protected skill guard, a recent tool failure, edits) and snapshots the
//! session's state; before every timed run the snapshot is restored, so every invocation sees
//! the same state. Only the hook process is timed: spawn → payload written → exit reaped.

use omc_hooks::protocol::Agent;
use omc_hooks::protocol::agents::table;
use serde_json::{Value, json};
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_omc-hooks");
const SID: &str = "bench-session-0001";
const NOW: i64 = 1_796_305_500_000;

struct Sample {
    wall_us: f64,
    maxrss_kb: i64,
}

/// About 1 MB of what issue 26 calls a mixed paste — prose, fenced code, paths, inline code, a
/// quote, questions, a `git log`, log lines, a stack trace, a chat — and at its end the user's
/// own request, `ralph fix the tests`, which must still activate.
fn mixed_paste() -> String {
    let unit = "please look at the parser and tell me what changed in the last commit.\n\
        see src/ralph/mod.rs and `ultrawork` then <b>x</b> https://x.y/z\n\
        ```\nralph fix it\n```\n> quoted ralph line\nwhat is ralph? end to end tests\n\
        a1b2c3d feat: ralph fix flaky tests\n9f8e7d6 chore: ulw cleanup\n\
        2026-12-01T10:32:11Z INFO  keyword detected: autopilot build me a cli\n\
        Traceback (most recent call last):\n  File \"omc/ralph.py\", line 42, in run\n    \
        ralph(fix=True)\nPhaseError: build me a cli\n\n\
        alice: can someone ralph the flaky tests?\nbob: ulw it, there are 40 of them\n\n";
    let mut p = String::with_capacity((1 << 20) + 1024);
    while p.len() < 1 << 20 {
        p.push_str(unit);
    }
    p.push_str("ralph fix the tests");
    p
}

/// Spawns `program args` with `stdin`, waits with wait4 and returns wall time and peak RSS.
fn run_once(
    program: &str,
    args: &[&str],
    stdin: &[u8],
    cwd: &Path,
    env: &[(&str, String)],
) -> Sample {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("OMC_STATE_DIR")
        .env("OMC_NOW_MS", NOW.to_string());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let mut child = cmd.spawn().expect("spawn");
    if let Some(mut pipe) = child.stdin.take() {
        let _ = pipe.write_all(stdin);
    }
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY-free alternative does not exist in std: wait4 is the only way to get the child's
    // own rusage. `child` is not waited on elsewhere.
    let mut usage: libc::rusage = unsafe_zeroed_rusage();
    let r = wait4(pid, &mut status, &mut usage);
    let wall = start.elapsed();
    assert_eq!(r, pid, "wait4 failed");
    let st = std::process::ExitStatus::from_raw(status);
    assert!(
        st.success() || program == "/bin/true",
        "{program} {args:?} exited {st}"
    );
    std::mem::forget(child);
    Sample {
        wall_us: wall.as_secs_f64() * 1e6,
        maxrss_kb: usage.ru_maxrss,
    }
}

/// CPU time of the calling thread: on a shared machine, wall time also counts other tenants.
#[allow(unsafe_code)]
fn thread_cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which `ts` is.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

#[allow(unsafe_code)]
fn unsafe_zeroed_rusage() -> libc::rusage {
    // SAFETY: rusage is a plain C struct of integers; all-zero is a valid value.
    unsafe { std::mem::zeroed() }
}

#[allow(unsafe_code)]
fn wait4(pid: libc::pid_t, status: &mut libc::c_int, usage: &mut libc::rusage) -> libc::pid_t {
    // SAFETY: valid pointers to live locals; pid is our own unreaped child.
    unsafe { libc::wait4(pid, status, 0, usage) }
}

fn stats(samples: &[Sample]) -> (f64, f64, f64, i64) {
    let mut w: Vec<f64> = samples.iter().map(|s| s.wall_us).collect();
    w.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let pct = |p: f64| w[((w.len() - 1) as f64 * p).round() as usize];
    let rss = samples.iter().map(|s| s.maxrss_kb).max().unwrap_or(0);
    (pct(0.5), pct(0.1), pct(0.9), rss)
}

/// A project with `.git`, realistic state for SID, and a snapshot of `.omc` to restore.
struct Bench {
    dir: tempfile::TempDir,
    snapshot: Option<PathBuf>,
    /// The agent the seeding hooks are installed for (the session's recorded agent).
    agent: &'static str,
}

impl Bench {
    fn new() -> Bench {
        Bench::for_agent("claude")
    }

    fn for_agent(agent: &'static str) -> Bench {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        Bench {
            dir,
            snapshot: None,
            agent,
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A payload of Claude Code's `event` as this bench's agent sends it (its own event name
    /// for the hook that serves it, its own fields).
    fn payload(&self, event: &str, extra: Value) -> Vec<u8> {
        let hook = omc_hooks::hooks::HOOKS
            .iter()
            .find(|h| h.event == event)
            .map_or("stop", |h| h.name);
        let wire = Agent::parse(self.agent).unwrap().wire();
        let own = table::agent_event(wire, hook).unwrap_or(event);
        let mut v = agent_base(self.agent, self.path(), own);
        for (k, val) in extra.as_object().unwrap() {
            v[k] = val.clone();
        }
        serde_json::to_vec(&v).unwrap()
    }

    fn hook(&self, sub: &str, payload: &[u8]) {
        run_once(
            BIN,
            &["--agent", self.agent, sub],
            payload,
            self.path(),
            &[],
        );
    }

    /// The realistic state: ralph active, a protected skill running, a fresh failure, edits.
    fn seed(&mut self, edits: usize) {
        self.seed_with(edits, "ralph fix the failing tests in src/parser");
    }

    /// [`Bench::seed`] with the run started by `prompt`.
    fn seed_with(&mut self, edits: usize, prompt: &str) {
        let p = self.path().to_path_buf();
        self.hook(
            "session-start",
            &self.payload("SessionStart", json!({"source": "startup"})),
        );
        self.hook(
            "user-prompt-submit",
            &self.payload("UserPromptSubmit", json!({"prompt": prompt})),
        );
        // The agent's own skill tool (Codex and Cursor have none).
        let skill = match self.agent {
            "gemini" => {
                Some(json!({"tool_name": "activate_skill", "tool_input": {"name": "plan"}}))
            }
            "qwen" => Some(
                json!({"tool_name": "skill", "tool_input": {"skill": "plan"}, "tool_use_id": "toolu_1"}),
            ),
            "claude" => Some(
                json!({"tool_name": "Skill", "tool_input": {"skill": "plan"}, "tool_use_id": "toolu_1"}),
            ),
            "opencode" => Some(
                json!({"tool_name": "skill", "tool_input": {"name": "plan"}, "tool_use_id": "call_1"}),
            ),
            _ => None,
        };
        if let Some(extra) = skill {
            self.hook("pre-tool-use", &self.payload("PreToolUse", extra));
        }
        // Its own edit tool (Codex's apply_patch carries no file and line counts: none recorded).
        let edit_tool = match self.agent {
            "gemini" => "replace",
            "qwen" => "edit",
            "codex" => "apply_patch",
            _ => "Edit",
        };
        for i in 0..edits {
            let file = p.join(format!("src/file{}.rs", i % 50));
            let new = format!("fn a() {{\n    let x = {i};\n}}\n");
            let payload = if self.agent == "cursor" {
                let mut v = agent_base("cursor", &p, "afterFileEdit");
                v["file_path"] = json!(file);
                v["edits"] = json!([{"old_string": "fn a() {}\n", "new_string": new}]);
                serde_json::to_vec(&v).unwrap()
            } else if self.agent == "opencode" {
                self.payload("PostToolUse", json!({
                    "tool_name": "edit",
                    "tool_input": {"filePath": file, "oldString": "fn a() {}\n", "newString": new},
                    "tool_response": {"output": "Edit applied successfully.", "title": "src", "exit": null},
                    "tool_use_id": format!("call_e{i}")
                }))
            } else if self.agent == "pi" {
                self.payload("PostToolUse", json!({
                    "tool_name": "edit",
                    "tool_input": {"path": file, "edits": [{"oldText": "fn a() {}\n", "newText": new}]},
                    "tool_response": {"content": "Successfully replaced text.", "is_error": false},
                    "tool_use_id": format!("call_e{i}")
                }))
            } else {
                self.payload("PostToolUse", json!({
                    "tool_name": edit_tool,
                    "tool_input": {"file_path": file, "old_string": "fn a() {}\n", "new_string": new},
                    "tool_response": {"filePath": file, "success": true},
                    "tool_use_id": format!("toolu_e{i}")
                }))
            };
            self.hook("post-tool-use", &payload);
        }
        // A fresh failure, reported the agent's way.
        let (sub, event, extra) = match self.agent {
            "codex" => (
                "post-tool-use",
                "PostToolUse",
                json!({"tool_name": "Bash", "tool_input": {"command": "cargo test"},
                "tool_response": "Process exited with code 101\nOutput:\ntest parser::tests::it_parses ... FAILED\n", "tool_use_id": "toolu_f"}),
            ),
            "gemini" => (
                "post-tool-use",
                "PostToolUse",
                json!({"tool_name": "run_shell_command", "tool_input": {"command": "cargo test"},
                "tool_response": {"llmContent": "Output: test parser::tests::it_parses ... FAILED\nExit Code: 101", "returnDisplay": ""}}),
            ),
            "qwen" => (
                "post-tool-use",
                "PostToolUse",
                json!({"tool_name": "run_shell_command", "tool_input": {"command": "cargo test"},
                "tool_response": {"llmContent": "Command: cargo test\nOutput: FAILED\nError: (none)\nExit Code: 101", "returnDisplay": ""}, "tool_use_id": "toolu_f"}),
            ),
            "cursor" => (
                "post-tool-use-failure",
                "PostToolUseFailure",
                json!({"tool_name": "Shell", "tool_input": {"command": "cargo test"},
                "error_message": "Exit code 101", "failure_type": "error", "is_interrupt": false}),
            ),
            "kimi" | "cline" | "auggie" => {
                ("post-tool-use", "PostToolUse", failed_tool(self.agent))
            }
            "opencode" => (
                "post-tool-use",
                "PostToolUse",
                json!({"tool_name": "bash", "tool_input": {"command": "cargo test"},
                "tool_response": {"output": "test parser::tests::it_parses ... FAILED\n", "title": "cargo test", "exit": 101}, "tool_use_id": "call_f"}),
            ),
            "pi" => (
                "post-tool-use",
                "PostToolUse",
                json!({"tool_name": "bash", "tool_input": {"command": "cargo test"},
                "tool_response": {"content": "test parser::tests::it_parses ... FAILED\n\n\nCommand exited with code 101", "is_error": true}, "tool_use_id": "call_f"}),
            ),
            _ => (
                "post-tool-use-failure",
                "PostToolUseFailure",
                json!({"tool_name": "Bash", "tool_input": {"command": "cargo test"},
                "error": "Exit code 101\ntest parser::tests::it_parses ... FAILED", "is_interrupt": false, "tool_use_id": "toolu_f"}),
            ),
        };
        self.hook(sub, &self.payload(event, extra));
        assert!(
            p.join(format!(".omc/state/sessions/{SID}/ralph-state.json"))
                .is_file(),
            "{}: seeding did not start the run",
            self.agent
        );
        let snap = tempfile::tempdir().unwrap().keep();
        copy_tree(&p.join(".omc"), &snap.join("omc"));
        self.snapshot = Some(snap);
    }

    fn restore(&self) {
        let Some(snap) = &self.snapshot else { return };
        let sess = Path::new("state/sessions").join(SID);
        let live = self.path().join(".omc").join(&sess);
        let _ = std::fs::remove_dir_all(&live);
        copy_tree(&snap.join("omc").join(&sess), &live);
    }
}

fn copy_tree(from: &Path, to: &Path) {
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    std::fs::create_dir_all(to).unwrap();
    for e in entries.flatten() {
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

struct Row {
    case: String,
    median: f64,
    p10: f64,
    p90: f64,
    rss: i64,
    /// The median of `sh -c true` spawned interleaved with this case (one before each of its
    /// runs): the floor under the same load as the case itself.
    floor: f64,
}

/// Times `program args` with `payload`, each run preceded by one `sh -c true` (untimed state
/// restore in between), so case and floor see the same load on a shared machine.
fn measure(runs: usize, b: &Bench, program: &str, args: &[&str], payload: &[u8]) -> Row {
    measure_env(runs, b, program, args, payload, &[])
}

fn measure_env(
    runs: usize,
    b: &Bench,
    program: &str,
    args: &[&str],
    payload: &[u8],
    env: &[(&str, String)],
) -> Row {
    sample(runs, b, program, args, payload, env, true)
}

/// [`measure`] without restoring the state between runs: the same event again and again, each
/// run rewriting the files the last one wrote, as in a session (a restored state gives every
/// run fresh files).
fn measure_repeated(runs: usize, b: &Bench, args: &[&str], payload: &[u8]) -> Row {
    sample(runs, b, BIN, args, payload, &[], false)
}

/// `runs` runs of `program`, each after one of the floor; the state restored before each when
/// `restore` (and once, before the warm-up, always).
fn sample(
    runs: usize,
    b: &Bench,
    program: &str,
    args: &[&str],
    payload: &[u8],
    env: &[(&str, String)],
    restore: bool,
) -> Row {
    let mut samples = Vec::with_capacity(runs);
    let mut floor = Vec::with_capacity(runs);
    // One warm-up run, not counted.
    b.restore();
    run_once(program, args, payload, b.path(), env);
    for _ in 0..runs {
        floor.push(run_once("/bin/sh", &["-c", "true"], payload, b.path(), &[]));
        if restore {
            b.restore();
        }
        samples.push(run_once(program, args, payload, b.path(), env));
    }
    let (median, p10, p90, rss) = stats(&samples);
    Row {
        case: String::new(),
        median,
        p10,
        p90,
        rss,
        floor: stats(&floor).0,
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return; // `cargo test --benches` / `cargo bench --no-run` style probes
    }
    let runs: usize = std::env::var("OMC_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    // OMC_BENCH_ONLY=statusline,stop: only the cases whose name contains one of these (the
    // `/bin/true` baseline always runs, so every ratio still has its same-run baseline).
    let only: Vec<String> = std::env::var("OMC_BENCH_ONLY")
        .map(|v| {
            v.split(',')
                .map(|w| w.trim().to_string())
                .filter(|w| !w.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let want = |case: &str| only.is_empty() || only.iter().any(|w| case.contains(w.as_str()));
    let mut rows: Vec<Row> = Vec::new();
    let mut b = Bench::new();
    b.seed(20);

    let transcript = b.path().join("transcript.jsonl");
    std::fs::write(&transcript, tail_line(120_000)).unwrap();

    let mut base = measure(runs, &b, "/bin/true", &[], &b.payload("Stop", json!({})));
    base.case = "`/bin/true` (baseline)".into();
    let baseline = base.median;
    rows.push(base);
    // Every agent runs its hooks through a shell (`sh -c '<command>'`): the floor a hook
    // process can reach as the agents start it.
    let mut sh = measure(
        runs,
        &b,
        "/bin/sh",
        &["-c", "true"],
        &b.payload("Stop", json!({})),
    );
    sh.case = "`sh -c true` (baseline: how the agents start a hook)".into();
    let sh_floor = sh.median;
    rows.push(sh);
    // `true` is a builtin of sh: a hook command is a program the shell must also exec.
    let mut sh_exec = measure(
        runs,
        &b,
        "/bin/sh",
        &["-c", "/bin/true"],
        &b.payload("Stop", json!({})),
    );
    sh_exec.case = "`sh -c /bin/true` (a shell that runs a program, for scale)".into();
    rows.push(sh_exec);

    let events: Vec<(&str, &str, Value)> = vec![
        (
            "session-start",
            "SessionStart",
            json!({"source": "compact"}),
        ),
        (
            "user-prompt-submit",
            "UserPromptSubmit",
            json!({"prompt": "ralph keep fixing the parser until every test passes"}),
        ),
        (
            "user-prompt-submit",
            "UserPromptSubmit",
            json!({"prompt": "what does the parser do with empty input?"}),
        ),
        (
            "pre-tool-use",
            "PreToolUse",
            json!({"tool_name": "Skill", "tool_input": {"skill": "review"}, "tool_use_id": "toolu_2"}),
        ),
        (
            "post-tool-use",
            "PostToolUse",
            json!({"tool_name": "Edit", "tool_input": {"file_path": b.path().join("src/lib.rs"), "old_string": "a\n", "new_string": "b\nc\n"}, "tool_response": {"success": true}, "tool_use_id": "toolu_3"}),
        ),
        (
            "post-tool-use-failure",
            "PostToolUseFailure",
            json!({"tool_name": "Bash", "tool_input": {"command": "cargo test"}, "error": "Exit code 101", "is_interrupt": false, "tool_use_id": "toolu_4"}),
        ),
        (
            "subagent-start",
            "SubagentStart",
            json!({"agent_id": "agent-1", "agent_type": "Explore"}),
        ),
        (
            "subagent-stop",
            "SubagentStop",
            json!({"agent_id": "agent-1", "agent_type": "Explore", "stop_hook_active": false, "last_assistant_message": "found it"}),
        ),
        (
            "pre-compact",
            "PreCompact",
            json!({"trigger": "auto", "custom_instructions": null}),
        ),
        (
            "stop",
            "Stop",
            json!({"stop_hook_active": false, "last_assistant_message": "Fixed two tests; three remain.", "background_tasks": []}),
        ),
        ("session-end", "SessionEnd", json!({"reason": "other"})),
    ];
    for (sub, event, extra) in &events {
        if !want(sub) {
            continue;
        }
        let payload = b.payload(event, extra.clone());
        let mut r = measure(runs, &b, BIN, &[sub], &payload);
        let what = extra
            .get("prompt")
            .and_then(Value::as_str)
            .map(|p| {
                if p.starts_with("ralph") {
                    " (ralph prompt)"
                } else {
                    " (question)"
                }
            })
            .unwrap_or("");
        r.case = format!("`{sub}`{what}");
        rows.push(r);
    }

    // A session's steady state: an edit during the run, again and again, with no restore in
    // between (each run rewrites `work.json` and `edits.json` as the last one left them).
    if want("steady") {
        let payload = b.payload(
            "PostToolUse",
            json!({"tool_name": "Edit", "tool_input": {"file_path": b.path().join("src/lib.rs"), "old_string": "a\n", "new_string": "b\nc\n"}, "tool_response": {"success": true}, "tool_use_id": "toolu_3"}),
        );
        let mut r = measure_repeated(runs, &b, &["post-tool-use"], &payload);
        r.case = "`post-tool-use` (edit), repeated without a restore".into();
        rows.push(r);
    }

    // The status line: a payload Claude Code sent (recorded), pointed at this session; the
    // seeded state gives the full line (ralph, skill guard, recent failure, context figure).
    if want("statusline") {
        let mut v: Value = serde_json::from_str(include_str!(
            "../tests/fixtures/claude-code/statusline-context-91.json"
        ))
        .unwrap();
        v["session_id"] = json!(SID);
        v["cwd"] = json!(b.path());
        v["workspace"]["current_dir"] = json!(b.path());
        v["workspace"]["project_dir"] = json!(b.path());
        let mut r = measure(
            runs,
            &b,
            BIN,
            &["statusline"],
            &serde_json::to_vec(&v).unwrap(),
        );
        r.case = "`statusline` (status line command, not a hook)".into();
        rows.push(r);
    }

    // How the hook is reached. Claude Code runs a hook's command with `/bin/sh -c`; the
    // manifest's command finds the binary inside that shell (hooks.rs `LAUNCHER`). Compared on
    // `subagent-stop` (reads only): the binary spawned directly, the command an `install`ed
    // settings entry gives the shell, and the manifest command finding the binary as a
    // marketplace install (plugin `bin/omc-hooks`) and as a checkout (`target/release`).
    if want("reach") {
        let payload = b.payload(
            "SubagentStop",
            json!({"agent_id": "agent-1", "agent_type": "Explore", "stop_hook_active": false}),
        );
        let plugin = tempfile::tempdir().unwrap();
        let launcher = omc_hooks::hooks::launcher("subagent-stop");
        let mut reach = |case: &str, program: &str, args: &[&str]| {
            let mut r = measure(runs, &b, program, args, &payload);
            r.case = case.into();
            rows.push(r);
        };
        reach(
            "`subagent-stop`, binary spawned directly",
            BIN,
            &["subagent-stop"],
        );
        let settings_cmd = format!("\"{BIN}\" subagent-stop");
        reach(
            "`subagent-stop`, `sh -c` of an installed settings entry",
            "/bin/sh",
            &["-c", &settings_cmd],
        );
        for (rel, what) in [
            ("bin/omc-hooks", "marketplace bundle, `bin/`"),
            ("target/release/omc-hooks", "checkout, `target/release/`"),
        ] {
            let _ = std::fs::remove_dir_all(plugin.path().join("bin"));
            let _ = std::fs::remove_dir_all(plugin.path().join("target"));
            let link = plugin.path().join(rel);
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(BIN, &link).unwrap();
            let cmd = launcher.replace("${CLAUDE_PLUGIN_ROOT}", &plugin.path().to_string_lossy());
            reach(
                &format!("`subagent-stop`, `sh -c` of the manifest command ({what})"),
                "/bin/sh",
                &["-c", &cmd],
            );
        }
        let sh = measure(runs, &b, "/bin/sh", &["-c", "exit 0"], &payload);
        let mut sh = sh;
        sh.case = "`sh -c 'exit 0'` (the shell alone)".into();
        rows.push(sh);
    }

    // Every agent's adapter, with its own payloads, on the same realistic state (seeded through
    // that agent's hooks, so the session's recorded agent is that agent).
    let mut agent_rows: Vec<Row> = Vec::new();
    // (Kilo Code runs the OpenCode plugin and adapter: OpenCode's rows are its own.)
    for agent in [
        "claude",
        "codex",
        "gemini",
        "qwen",
        "cursor",
        "copilot",
        "factory",
        "codebuddy",
        "kimi",
        "cline",
        "auggie",
        "opencode",
        "pi",
    ] {
        if !want(agent) && !want("agents") {
            continue;
        }
        let mut ab = Bench::for_agent(agent);
        ab.seed(20);
        std::fs::write(ab.path().join("transcript.jsonl"), tail_line(120_000)).unwrap();
        // Kimi's Stop reads the model's last message from its session file, under its share
        // folder: one there, as the client leaves it, beside other projects' folders.
        let mut env: Vec<(&str, String)> = Vec::new();
        if agent == "kimi" {
            let share = ab.path().join("kimi-share");
            for i in 0..20 {
                std::fs::create_dir_all(share.join(format!("sessions/other-project-{i:02}")))
                    .unwrap();
            }
            let session = share.join(format!("sessions/0123abcd/{SID}"));
            std::fs::create_dir_all(&session).unwrap();
            let mut context = String::new();
            for i in 0..200 {
                context.push_str(&format!(
                    "{{\"role\":\"user\",\"content\":\"step {i}\"}}\n{{\"role\":\"assistant\",\"content\":\"did step {i}; more to do\"}}\n{{\"role\": \"_usage\", \"token_count\": {i}}}\n"
                ));
            }
            std::fs::write(session.join("context.jsonl"), context).unwrap();
            env.push(("KIMI_SHARE_DIR", share.to_string_lossy().into_owned()));
        }
        for (sub, label, payload) in agent_cases(agent, ab.path()) {
            let mut r = measure_env(runs, &ab, BIN, &["--agent", agent, sub], &payload, &env);
            r.case = format!("{agent} `{label}`");
            agent_rows.push(r);
        }
    }

    // Scale: 10 000 session directories.
    if want("10 000 sessions") {
        let mut big = Bench::new();
        for i in 0..10_000 {
            let d = big.path().join(format!(".omc/state/sessions/other-{i:05}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(
                d.join("ralph-state.json"),
                br#"{"active":false,"mode":"ralph"}"#,
            )
            .unwrap();
        }
        big.seed(20);
        for (sub, event, extra) in [
            (
                "stop",
                "Stop",
                json!({"stop_hook_active": false, "last_assistant_message": "more to do"}),
            ),
            (
                "session-start",
                "SessionStart",
                json!({"source": "startup"}),
            ),
        ] {
            let mut r = measure(runs, &big, BIN, &[sub], &big.payload(event, extra));
            r.case = format!("`{sub}`, 10 000 sessions in `.omc/state`");
            rows.push(r);
        }
    }

    // Scale: a 1 GB transcript (sparse; only its tail is real JSON).
    if want("1 GB transcript") {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&transcript)
            .unwrap();
        f.set_len(1 << 30).unwrap();
        drop(f);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&transcript)
            .unwrap();
        f.write_all(b"\n").unwrap();
        f.write_all(&tail_line(150_000)).unwrap();
        drop(f);
        let mut r = measure(
            runs,
            &b,
            BIN,
            &["stop"],
            &b.payload(
                "Stop",
                json!({"stop_hook_active": false, "last_assistant_message": "more to do"}),
            ),
        );
        r.case = "`stop`, 1 GB transcript".into();
        rows.push(r);
        std::fs::write(&transcript, tail_line(120_000)).unwrap();
    }

    // Scale (issue 44): the first Stop of a run with a token budget started late in a long
    // session — 50 MiB of transcript written before the run's prompt, a few messages after it.
    // The count must begin where the transcript stood when the run started.
    if want("token budget") {
        let mut late = Bench::new();
        let path = late.path().join("transcript.jsonl");
        write_transcript(&path, 50 << 20, NOW - 3_600_000, 0);
        late.seed_with(20, "ralph --tokens 2m fix the failing tests in src/parser");
        write_transcript_lines(&path, 6, NOW + 1_000, 1_000_000);
        let mut r = measure(
            runs,
            &late,
            BIN,
            &["stop"],
            &late.payload(
                "Stop",
                json!({"stop_hook_active": false, "last_assistant_message": "more to do"}),
            ),
        );
        r.case = "`stop`, first of a token budget run, 50 MiB transcript before it".into();
        rows.push(r);
        // The same run with no cursor: started before the 50 MiB were written (as a run started
        // by `mode start`, or an older version's run, finds its transcript).
        let mut blind = Bench::new();
        let path = blind.path().join("transcript.jsonl");
        blind.seed_with(20, "ralph --tokens 2m fix the failing tests in src/parser");
        write_transcript(&path, 50 << 20, NOW - 3_600_000, 0);
        write_transcript_lines(&path, 6, NOW + 1_000, 1_000_000);
        let mut r = measure(
            runs,
            &blind,
            BIN,
            &["stop"],
            &blind.payload(
                "Stop",
                json!({"stop_hook_active": false, "last_assistant_message": "more to do"}),
            ),
        );
        r.case = "`stop`, first of a token budget run with no cursor, 50 MiB transcript".into();
        rows.push(r);
    }

    // Scale (issue 44): a shell call's output of 100 KiB and of 8 MiB (a test run's lines, with
    // timings), and an edit to a 32 MiB file, while a run is active (so each is marked).
    if want("large output") {
        for (bytes, label) in [(100 << 10, "100 KiB"), (8 << 20, "8 MiB")] {
            let payload = b.payload(
                "PostToolUse",
                json!({"tool_name": "Bash", "tool_input": {"command": "cargo test --workspace 2>&1", "description": "Run the tests"},
                    "tool_response": {"stdout": test_output(bytes), "stderr": "", "interrupted": false, "isImage": false},
                    "tool_use_id": "toolu_big"}),
            );
            let mut r = measure(runs, &b, BIN, &["post-tool-use"], &payload);
            r.case = format!("`post-tool-use`, shell output of {label}");
            rows.push(r);
            // What any program pays to take the payload through the pipe: the floor beside
            // which the hook's own work on it shows (the floor column's `sh -c true` reads none
            // of it).
            let mut r = measure(runs, &b, "cat", &[], &payload);
            r.case = format!("`cat` of the same payload ({label}), reading it and nothing else");
            rows.push(r);
        }
    }
    if want("32 MiB file") {
        let file = b.path().join("src/big.rs");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let line = "    let value = compute(alpha, beta, gamma); // a line of a large file\n";
        std::fs::write(&file, line.repeat((32 << 20) / line.len())).unwrap();
        let payload = b.payload(
            "PostToolUse",
            json!({"tool_name": "Edit", "tool_input": {"file_path": file, "old_string": "alpha", "new_string": "alpha2"},
                "tool_response": {"filePath": file, "success": true}, "tool_use_id": "toolu_bigedit"}),
        );
        let mut r = measure(runs, &b, BIN, &["post-tool-use"], &payload);
        r.case = "`post-tool-use`, edit of a 32 MiB file".into();
        rows.push(r);
        std::fs::remove_file(&file).unwrap();
    }

    // Scale: a 1 MB prompt.
    if want("1 MB prompt") {
        let prompt = "please look at the parser and tell me what changed in the last commit. "
            .repeat(1 << 20 >> 6);
        let mut r = measure(
            runs,
            &b,
            BIN,
            &["user-prompt-submit"],
            &b.payload("UserPromptSubmit", json!({"prompt": prompt})),
        );
        r.case = "`user-prompt-submit`, 1 MB prompt".into();
        rows.push(r);
    }

    // Scale: a 1 MB mixed paste (issue 26) — prose, code, paths, quotes, a git log, log lines,
    // a stack trace, a chat, some 40 000 mode mentions — then the user's own `ralph fix …`,
    // which the last half of the judged candidates reaches: every sanitiser rule, the judging
    // bound, and a run started.
    if want("mixed paste") {
        let mut r = measure(
            runs,
            &b,
            BIN,
            &["user-prompt-submit"],
            &b.payload("UserPromptSubmit", json!({"prompt": mixed_paste()})),
        );
        r.case = "`user-prompt-submit`, 1 MB mixed paste".into();
        rows.push(r);
    }

    // Scale: 1 000 edits recorded before a PreCompact.
    if want("1 000 edits") {
        let mut e = Bench::new();
        e.seed(1_000);
        let mut r = measure(
            runs,
            &e,
            BIN,
            &["pre-compact"],
            &e.payload("PreCompact", json!({"trigger": "auto"})),
        );
        r.case = "`pre-compact` after 1 000 edits".into();
        rows.push(r);
    }

    // Export: the same hook with export off and on, interleaved run by run so that both see
    // the same machine; then the hook that finds no flusher and starts one.
    let export = want("export").then(|| export_cases(runs, &mut rows));

    // Start-up and footprint against another build (e.g. main without export), same run.
    if let Ok(other) = std::env::var("OMC_BENCH_COMPARE_BIN") {
        compare_builds(runs, &other, &mut rows);
    }

    // The hooks of installs made different ways (cargo, npm), as their hook files run them.
    let installed = std::env::var("OMC_BENCH_INSTALLED")
        .ok()
        .map(|spec| installed_cases(runs, &spec));

    // The price of a state write on this disk, in-process, no hook around it: through the
    // file's spare (how hooks write state files: written in place and exchanged), with a new
    // temporary file exchanged with the old one (which is then unlinked: `write_atomic`, and
    // the spare's fallback), and with `OMC_DURABLE=1` (the spare plus an fsync of the file and
    // of the directory). The same file rewritten, as a session rewrites its state: the three
    // alternate, so drift hits all alike.
    let writes = want("write").then(|| {
        let d = tempfile::tempdir().unwrap();
        let body = vec![b'x'; 400];
        let (mut spare, mut fresh, mut durable) = (Vec::new(), Vec::new(), Vec::new());
        let (a, b) = (d.path().join("a.json"), d.path().join("b.json"));
        for _ in 0..runs {
            let state: fn(&Path, &[u8]) -> std::io::Result<()> = omc_hooks::state::fs::write_state;
            let atomic: fn(&Path, &[u8]) -> std::io::Result<()> =
                omc_hooks::state::fs::write_atomic;
            for (on, into, path, write) in [
                (false, &mut spare, &a, state),
                (false, &mut fresh, &b, atomic),
                (true, &mut durable, &a, state),
            ] {
                omc_hooks::state::fs::set_durable(on);
                let t = Instant::now();
                write(path, &body).unwrap();
                into.push(Sample {
                    wall_us: t.elapsed().as_secs_f64() * 1e6,
                    maxrss_kb: 0,
                });
            }
        }
        omc_hooks::state::fs::set_durable(false);
        (stats(&spare), stats(&fresh), stats(&durable))
    });

    // Keyword detection alone, in-process: the contract's 1 MB prose prompt (and 256 KB / 4 MB
    // of the same, for linearity), and 1 MB of mixed material (prose, fenced code, paths, URLs,
    // quotes, questions and mode mentions: every pass of the sanitiser and the judging bound).
    let prose = |bytes: usize| {
        "please look at the parser and tell me what changed in the last commit. ".repeat(bytes >> 6)
    };
    let mut mixed = String::new();
    while mixed.len() < 1 << 20 {
        mixed.push_str("please look at the parser and tell me what changed in the last commit.\n");
        mixed.push_str("see src/ralph/mod.rs and `ultrawork` then <b>x</b> https://x.y/z\n");
        mixed.push_str(
            "```\nralph fix it\n```\n> quoted ralph line\nwhat is ralph? end to end tests\n",
        );
    }
    let detect_cases = [
        ("prose", prose(1 << 18)),
        ("prose", prose(1 << 20)),
        ("prose", prose(1 << 22)),
        ("mixed", mixed),
        ("mixed paste", mixed_paste()),
    ];
    // (kind, bytes, wall stats, thread CPU median)
    type DetectRow = (String, usize, (f64, f64, f64, i64), f64);
    let detect_rows: Vec<DetectRow> = detect_cases
        .iter()
        .filter(|_| want("keyword detection"))
        .map(|(kind, prompt)| {
            if *kind == "mixed paste" {
                // the case is what it claims: the request after the paste is judged and acted on
                let d = omc_hooks::capabilities::keywords::detect(prompt, &[]);
                assert_eq!(d.modes, vec!["ralph"], "{:?}", d.candidates.last());
            }
            let mut cpu = Vec::new();
            let mut w: Vec<Sample> = (0..20)
                .map(|_| {
                    let (t, c) = (Instant::now(), thread_cpu_ms());
                    let d = omc_hooks::capabilities::keywords::detect(prompt, &[]);
                    std::hint::black_box(d);
                    cpu.push(thread_cpu_ms() - c);
                    Sample {
                        wall_us: t.elapsed().as_secs_f64() * 1e6,
                        maxrss_kb: 0,
                    }
                })
                .collect();
            w.sort_by(|a, b| a.wall_us.partial_cmp(&b.wall_us).unwrap());
            cpu.sort_by(|a, b| a.partial_cmp(b).unwrap());
            (
                kind.to_string(),
                prompt.len(),
                stats(&w),
                cpu[cpu.len() / 2],
            )
        })
        .collect();

    println!("runs per case: {runs}; binary: {BIN}");
    for (kind, len, st, cpu) in &detect_rows {
        println!(
            "keyword detection alone, in-process, {len} byte {kind} prompt: median {:.1} ms (p10–p90 {:.1}–{:.1}), thread CPU median {cpu:.1} ms",
            st.0 / 1000.0,
            st.1 / 1000.0,
            st.2 / 1000.0
        );
    }
    if let Some((spare, fresh, durable)) = writes {
        let ms = |s: (f64, f64, f64, i64)| {
            format!(
                "median {:.3} ms (p10–p90 {:.3}–{:.3})",
                s.0 / 1000.0,
                s.1 / 1000.0,
                s.2 / 1000.0
            )
        };
        println!(
            "one atomic state write of a file rewritten again and again, in-process: through its spare (written in place, exchanged) {}; a new temporary file exchanged with the old one, which is then unlinked {}; with OMC_DURABLE=1 (spare + fsync file + exchange + fsync dir) {}",
            ms(spare),
            ms(fresh),
            ms(durable)
        );
    }
    if let Some(export) = &export {
        println!(
            "export, in-process: enqueue of one post-tool-use event (redact, serialise, append) median {:.3} ms (p10–p90 {:.3}–{:.3}); with two sinks {:.3} ms",
            export.0.0 / 1000.0,
            export.0.1 / 1000.0,
            export.0.2 / 1000.0,
            export.1.0 / 1000.0
        );
    }
    println!();
    let table = |rows: &[Row]| {
        println!(
            "| case | median (ms) | p10–p90 (ms) | × `/bin/true` | × `sh -c true` | × `sh -c true` interleaved | peak RSS (MB) |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|");
        for r in rows {
            println!(
                "| {} | {:.2} | {:.2}–{:.2} | {:.2} | {:.2} | {} | {:.1} |",
                r.case,
                r.median / 1000.0,
                r.p10 / 1000.0,
                r.p90 / 1000.0,
                r.median / baseline,
                r.median / sh_floor,
                if r.floor.is_nan() {
                    "–".to_string()
                } else {
                    format!("{:.2}", r.median / r.floor)
                },
                r.rss as f64 / 1024.0
            );
        }
    };
    table(&rows);
    println!();
    println!("Per agent (`omc-hooks --agent NAME <hook>`, each agent's own payloads):");
    println!();
    table(&agent_rows);
    if let Some((rows, ratios)) = &installed {
        println!();
        println!(
            "Installed (OMC_BENCH_INSTALLED): `sh -c` of the command each install wrote, Codex payloads, round by round:"
        );
        println!();
        table(rows);
        println!();
        for line in ratios {
            println!("{line}");
        }
    }
}

/// The hook commands that `install --agent codex` writes when run from each binary of `spec`
/// (`label:path,label:path`, e.g. a `cargo install`ed one and npm's launcher), timed as the
/// client runs them (`/bin/sh -c '<command>'`, the agent's own payload) on the same seeded
/// project, **round by round**: each round runs `sh -c true`, then every install's command
/// (in an order that rotates each round), restoring the state before each. Then, for scale,
/// the same event through the first `npm` label's launcher itself (what a hook would cost if
/// an install named the launcher: Node.js starting each time). Returns the rows and one line
/// per event with each install's median over the first's.
fn installed_cases(runs: usize, spec: &str) -> (Vec<Row>, Vec<String>) {
    let arms: Vec<(String, String)> = spec
        .split(',')
        .filter_map(|p| p.split_once(':'))
        .map(|(l, p)| (l.trim().to_string(), p.trim().to_string()))
        .collect();
    assert!(
        arms.len() >= 2,
        "OMC_BENCH_INSTALLED=label:path,label:path (two or more)"
    );
    let mut b = Bench::for_agent("codex");
    b.seed(20);
    std::fs::write(b.path().join("transcript.jsonl"), tail_line(120_000)).unwrap();
    // Each install into a scratch project of its own, its registry in a scratch home; only
    // the commands it wrote are used.
    let scratch = tempfile::tempdir().unwrap();
    let commands: Vec<std::collections::HashMap<String, String>> = arms
        .iter()
        .enumerate()
        .map(|(i, (label, bin))| {
            let project = scratch.path().join(format!("p{i}"));
            std::fs::create_dir_all(project.join(".git")).unwrap();
            let home = scratch.path().join(format!("h{i}"));
            let out = Command::new(bin)
                .args(["install", "--agent", "codex", "--project"])
                .arg(&project)
                .env("HOME", &home)
                .env("XDG_DATA_HOME", home.join("share"))
                .env("CODEX_HOME", home.join("codex"))
                .stdin(Stdio::null())
                .output()
                .unwrap_or_else(|e| panic!("{label}: {bin}: {e}"));
            assert!(out.status.success(), "{label}: {bin} install failed");
            let v: Value =
                serde_json::from_slice(&std::fs::read(project.join(".codex/hooks.json")).unwrap())
                    .unwrap();
            let mut by_sub = std::collections::HashMap::new();
            for groups in v["hooks"].as_object().unwrap().values() {
                for g in groups.as_array().unwrap() {
                    for h in g["hooks"].as_array().unwrap() {
                        let c = h["command"].as_str().unwrap().to_string();
                        let sub = c.split_whitespace().last().unwrap().to_string();
                        by_sub.insert(sub, c);
                    }
                }
            }
            println!("{label}: install --agent codex wrote `{}`", by_sub["stop"]);
            by_sub
        })
        .collect();
    let mut rows = Vec::new();
    let mut ratios = Vec::new();
    for (sub, label, payload) in agent_cases("codex", b.path()) {
        let mut samples: Vec<Vec<Sample>> = arms.iter().map(|_| Vec::new()).collect();
        let mut floor = Vec::new();
        for round in 0..=runs {
            let f = run_once("/bin/sh", &["-c", "true"], &payload, b.path(), &[]);
            for k in 0..arms.len() {
                let i = (round + k) % arms.len();
                b.restore();
                let s = run_once(
                    "/bin/sh",
                    &["-c", &commands[i][sub]],
                    &payload,
                    b.path(),
                    &[],
                );
                // Round 0 warms up, uncounted.
                if round > 0 {
                    samples[i].push(s);
                }
            }
            if round > 0 {
                floor.push(f);
            }
        }
        let floor = stats(&floor).0;
        let medians: Vec<f64> = samples.iter().map(|s| stats(s).0).collect();
        for ((arm, _), s) in arms.iter().zip(&samples) {
            let (median, p10, p90, rss) = stats(s);
            rows.push(Row {
                case: format!("codex `{label}`, {arm} install"),
                median,
                p10,
                p90,
                rss,
                floor,
            });
        }
        let others: Vec<String> = arms
            .iter()
            .zip(&medians)
            .skip(1)
            .map(|((arm, _), m)| format!("{arm} ÷ {} {:.2}", arms[0].0, m / medians[0]))
            .collect();
        ratios.push(format!("codex `{label}`: {}", others.join(", ")));
    }
    // For scale: the launcher itself as the hook (Node.js, then the binary), `Stop` only.
    if let Some((arm, bin)) = arms.iter().find(|(l, _)| l == "npm") {
        let (_, label, payload) = agent_cases("codex", b.path())
            .into_iter()
            .find(|(s, _, _)| *s == "stop")
            .unwrap();
        let cmd = format!("'{bin}' --agent codex stop");
        let mut r = measure(runs, &b, "/bin/sh", &["-c", &cmd], &payload);
        r.case = format!("codex `{label}`, `sh -c` of {arm}'s launcher (not what install writes)");
        rows.push(r);
    }
    (rows, ratios)
}

/// The events each agent's installed hooks receive, as that agent sends them (the payloads
/// recorded from the pinned clients in `tests/fixtures/{codex,gemini,qwen,copilot,factory,
/// codebuddy,opencode,pi}/`; Cursor's fields as its hooks documentation,
/// cursor.com/docs/agent/hooks, gives them), for the bench session: (subcommand, label,
/// payload).
fn agent_cases(agent: &str, project: &Path) -> Vec<(&'static str, String, Vec<u8>)> {
    let base = |event: &str| agent_base(agent, project, event);
    let with = |event: &str, extra: Value| -> Vec<u8> {
        let mut v = base(event);
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        serde_json::to_vec(&v).unwrap()
    };
    let file = project.join("src/lib.rs");
    let ralph = "ralph keep fixing the parser until every test passes";
    let question = "what does the parser do with empty input?";
    let mut stop_extra = json!({"stop_hook_active": false, "last_assistant_message": "Fixed two tests; three remain.",
        "prompt_response": "Fixed two tests; three remain.", "status": "completed", "loop_count": 0});
    // Copilot's and Droid's Stop name no final message: it is read from the session's log (the
    // bench session's transcript file; Copilot's own layout, where the hook may wait for the
    // log's next batch, is not the bench's: copilot-FINDINGS.md §5).
    match agent {
        "copilot" => {
            stop_extra = json!({"stop_hook_active": false, "stop_reason": "end_turn",
                "transcript_path": project.join("transcript.jsonl")})
        }
        "factory" => {
            stop_extra = json!({"stop_hook_active": false, "message_id": "m-1",
                "tool_execution_count": 1, "elapsed_time": 2000})
        }
        _ => {}
    }
    match agent {
        "gemini" => vec![
            (
                "session-start",
                "SessionStart".into(),
                with("SessionStart", json!({"source": "startup"})),
            ),
            (
                "user-prompt-submit",
                "BeforeAgent (ralph prompt)".into(),
                with("BeforeAgent", json!({"prompt": ralph})),
            ),
            (
                "user-prompt-submit",
                "BeforeAgent (question)".into(),
                with("BeforeAgent", json!({"prompt": question})),
            ),
            (
                "pre-tool-use",
                "BeforeTool".into(),
                with(
                    "BeforeTool",
                    json!({"tool_name": "activate_skill", "tool_input": {"name": "review"}}),
                ),
            ),
            (
                "post-tool-use",
                "AfterTool".into(),
                with(
                    "AfterTool",
                    json!({"tool_name": "replace",
                "tool_input": {"file_path": file, "old_string": "a\n", "new_string": "b\nc\n"},
                "tool_response": {"llmContent": "Successfully modified file", "returnDisplay": "ok"}}),
                ),
            ),
            (
                "post-tool-use",
                "AfterTool (failed command)".into(),
                with(
                    "AfterTool",
                    json!({"tool_name": "run_shell_command",
                "tool_input": {"command": "cargo test"},
                "tool_response": {"llmContent": "<untrusted_context>\nOutput: FAILED\nExit Code: 101\n</untrusted_context>", "returnDisplay": "FAILED"}}),
                ),
            ),
            (
                "pre-compact",
                "PreCompress".into(),
                with("PreCompress", json!({"trigger": "auto"})),
            ),
            ("stop", "AfterAgent".into(), with("AfterAgent", stop_extra)),
            (
                "session-end",
                "SessionEnd".into(),
                with("SessionEnd", json!({"reason": "exit"})),
            ),
        ],
        "opencode" => vec![
            (
                "session-start",
                "session.created".into(),
                with("session.created", json!({"source": "startup"})),
            ),
            (
                "user-prompt-submit",
                "chat.message (ralph prompt)".into(),
                with("chat.message", json!({"prompt": ralph})),
            ),
            (
                "user-prompt-submit",
                "chat.message (question)".into(),
                with("chat.message", json!({"prompt": question})),
            ),
            (
                "pre-tool-use",
                "tool.execute.before".into(),
                with(
                    "tool.execute.before",
                    json!({"tool_name": "skill", "tool_input": {"name": "review"}, "tool_use_id": "call_2"}),
                ),
            ),
            (
                "post-tool-use",
                "tool.execute.after".into(),
                with(
                    "tool.execute.after",
                    json!({"tool_name": "bash", "tool_input": {"command": "ls", "description": "list"},
                "tool_response": {"output": "a\n", "title": "ls", "exit": 0}, "tool_use_id": "call_3"}),
                ),
            ),
            (
                "post-tool-use",
                "tool.execute.after (failed command)".into(),
                with(
                    "tool.execute.after",
                    json!({"tool_name": "bash", "tool_input": {"command": "cargo test", "description": "test"},
                "tool_response": {"output": "FAILED\n", "title": "cargo test", "exit": 101}, "tool_use_id": "call_4"}),
                ),
            ),
            (
                "post-tool-use-failure",
                "message.part.updated (a tool threw)".into(),
                with(
                    "message.part.updated",
                    json!({"tool_name": "read", "tool_input": {"filePath": "/nope"}, "tool_use_id": "call_5",
                "error": "File not found: /nope"}),
                ),
            ),
            (
                "pre-compact",
                "experimental.session.compacting".into(),
                with("experimental.session.compacting", json!({})),
            ),
            (
                "stop",
                "session.idle".into(),
                with(
                    "session.idle",
                    json!({"stop_hook_active": false, "last_assistant_message": "Fixed two tests; three remain."}),
                ),
            ),
            (
                "session-end",
                "session.deleted".into(),
                with("session.deleted", json!({"reason": "deleted"})),
            ),
        ],
        "pi" => vec![
            (
                "session-start",
                "session_start".into(),
                with("session_start", json!({"source": "startup"})),
            ),
            (
                "user-prompt-submit",
                "input (ralph prompt)".into(),
                with(
                    "input",
                    json!({"prompt": ralph, "input_source": "interactive"}),
                ),
            ),
            (
                "user-prompt-submit",
                "input (question)".into(),
                with(
                    "input",
                    json!({"prompt": question, "input_source": "interactive"}),
                ),
            ),
            (
                "pre-tool-use",
                "tool_call".into(),
                with(
                    "tool_call",
                    json!({"tool_name": "bash", "tool_input": {"command": "ls"}, "tool_use_id": "call_2"}),
                ),
            ),
            (
                "post-tool-use",
                "tool_result".into(),
                with(
                    "tool_result",
                    json!({"tool_name": "bash", "tool_input": {"command": "ls"},
                "tool_response": {"content": "a", "is_error": false}, "tool_use_id": "call_3"}),
                ),
            ),
            (
                "post-tool-use",
                "tool_result (failed command)".into(),
                with(
                    "tool_result",
                    json!({"tool_name": "bash", "tool_input": {"command": "cargo test"},
                "tool_response": {"content": "FAILED\n\n\nCommand exited with code 101", "is_error": true}, "tool_use_id": "call_4"}),
                ),
            ),
            (
                "pre-compact",
                "session_before_compact".into(),
                with("session_before_compact", json!({})),
            ),
            (
                "stop",
                "agent_end".into(),
                with(
                    "agent_end",
                    json!({"stop_hook_active": false, "stop_reason": "stop", "last_assistant_message": "Fixed two tests; three remain."}),
                ),
            ),
            (
                "session-end",
                "session_shutdown".into(),
                with("session_shutdown", json!({"reason": "quit"})),
            ),
        ],
        "cursor" => vec![
            (
                "session-start",
                "sessionStart".into(),
                with(
                    "sessionStart",
                    json!({"session_id": SID, "composer_mode": "agent"}),
                ),
            ),
            (
                "user-prompt-submit",
                "beforeSubmitPrompt (ralph prompt)".into(),
                with(
                    "beforeSubmitPrompt",
                    json!({"prompt": ralph, "attachments": []}),
                ),
            ),
            (
                "user-prompt-submit",
                "beforeSubmitPrompt (question)".into(),
                with(
                    "beforeSubmitPrompt",
                    json!({"prompt": question, "attachments": []}),
                ),
            ),
            (
                "post-tool-use",
                "postToolUse".into(),
                with(
                    "postToolUse",
                    json!({"tool_name": "Shell", "tool_input": {"command": "ls"}, "tool_output": "a b", "tool_use_id": "t1"}),
                ),
            ),
            (
                "post-tool-use-failure",
                "postToolUseFailure".into(),
                with(
                    "postToolUseFailure",
                    json!({"tool_name": "Shell",
                "tool_input": {"command": "cargo test"}, "error_message": "exit code 101", "failure_type": "error", "is_interrupt": false}),
                ),
            ),
            (
                "subagent-start",
                "subagentStart".into(),
                with(
                    "subagentStart",
                    json!({"subagent_type": "explore", "prompt": "find it"}),
                ),
            ),
            (
                "subagent-stop",
                "subagentStop".into(),
                with(
                    "subagentStop",
                    json!({"subagent_type": "explore", "status": "completed", "result": "found"}),
                ),
            ),
            (
                "pre-compact",
                "preCompact".into(),
                with("preCompact", json!({"trigger": "auto"})),
            ),
            ("stop", "stop".into(), with("stop", stop_extra)),
            (
                "session-end",
                "sessionEnd".into(),
                with(
                    "sessionEnd",
                    json!({"session_id": SID, "reason": "completed"}),
                ),
            ),
        ],
        "kimi" => vec![
            (
                "session-start",
                "SessionStart".into(),
                with("SessionStart", json!({"source": "startup"})),
            ),
            (
                "user-prompt-submit",
                "UserPromptSubmit (ralph prompt)".into(),
                with("UserPromptSubmit", json!({"prompt": ralph})),
            ),
            (
                "user-prompt-submit",
                "UserPromptSubmit (question)".into(),
                with("UserPromptSubmit", json!({"prompt": question})),
            ),
            (
                "pre-tool-use",
                "PreToolUse".into(),
                with(
                    "PreToolUse",
                    json!({"tool_name": "Shell", "tool_input": {"command": "ls"}, "tool_call_id": "call_2"}),
                ),
            ),
            (
                "post-tool-use",
                "PostToolUse".into(),
                with(
                    "PostToolUse",
                    json!({"tool_name": "Shell", "tool_input": {"command": "ls"}, "tool_call_id": "call_3",
                "tool_output": "is_error=False output='a\\n' message='Command executed successfully.' display=[] extras=None"}),
                ),
            ),
            (
                "post-tool-use",
                "PostToolUse (failed command)".into(),
                serde_json::to_vec(&{
                    let mut v = base("PostToolUse");
                    for (k, x) in failed_tool("kimi").as_object().unwrap() {
                        v[k] = x.clone();
                    }
                    v
                })
                .unwrap(),
            ),
            (
                "subagent-start",
                "SubagentStart".into(),
                with(
                    "SubagentStart",
                    json!({"agent_name": "coder", "prompt": "List the files."}),
                ),
            ),
            (
                "subagent-stop",
                "SubagentStop".into(),
                with(
                    "SubagentStop",
                    json!({"agent_name": "coder", "response": "found it"}),
                ),
            ),
            (
                "pre-compact",
                "PreCompact".into(),
                with(
                    "PreCompact",
                    json!({"trigger": "auto", "token_count": 190005}),
                ),
            ),
            (
                "stop",
                "Stop (last message from its session file)".into(),
                with("Stop", json!({"stop_hook_active": false})),
            ),
            (
                "session-end",
                "SessionEnd".into(),
                with("SessionEnd", json!({"reason": "exit"})),
            ),
        ],
        "cline" => vec![
            (
                "session-start",
                "TaskStart".into(),
                with("TaskStart", json!({"taskStart": {"taskMetadata": {}}})),
            ),
            (
                "pre-tool-use",
                "PreToolUse".into(),
                with(
                    "PreToolUse",
                    json!({"iteration": 1, "tool_call": {"id": "call_2", "name": "run_commands", "input": {"commands": ["ls"]}},
                "preToolUse": {"toolName": "run_commands", "parameters": {"commands": "[\"ls\"]"}}}),
                ),
            ),
            (
                "post-tool-use",
                "PostToolUse".into(),
                with(
                    "PostToolUse",
                    json!({"iteration": 1, "tool_result": {"id": "call_3", "name": "run_commands", "input": {"commands": ["ls"]},
                "output": [{"query": "ls", "result": "a\n", "success": true}], "durationMs": 20}}),
                ),
            ),
            (
                "post-tool-use",
                "PostToolUse (failed command)".into(),
                with("PostToolUse", failed_tool("cline")),
            ),
            (
                "session-end",
                "SessionShutdown".into(),
                with("SessionShutdown", json!({"reason": "aborted"})),
            ),
        ],
        "auggie" => vec![
            (
                "session-start",
                "SessionStart".into(),
                with("SessionStart", json!({})),
            ),
            (
                "pre-tool-use",
                "PreToolUse".into(),
                with(
                    "PreToolUse",
                    json!({"tool_name": "launch-process", "tool_input": {"command": "ls", "wait": true},
                "tool_output": null, "tool_error": null, "is_mcp_tool": false}),
                ),
            ),
            (
                "post-tool-use",
                "PostToolUse".into(),
                with(
                    "PostToolUse",
                    json!({"tool_name": "launch-process", "tool_input": {"command": "ls", "wait": true},
                "tool_output": "Here are the results from executing the command. <return-code> 0 </return-code> <output> a </output>",
                "tool_error": null, "is_mcp_tool": false}),
                ),
            ),
            (
                "post-tool-use",
                "PostToolUse (failed command)".into(),
                with("PostToolUse", failed_tool("auggie")),
            ),
            (
                "session-end",
                "SessionEnd".into(),
                with("SessionEnd", json!({})),
            ),
        ],
        _ => {
            let (shell, failed_response, ok_response): (&str, Value, Value) = match agent {
                "codex" => (
                    "Bash",
                    json!(
                        "Chunk ID: 1\nWall time: 2 seconds\nProcess exited with code 101\nOutput:\nFAILED\n"
                    ),
                    json!("ok\n"),
                ),
                "qwen" => (
                    "run_shell_command",
                    json!({"llmContent": "Command: cargo test\nOutput: FAILED\nError: (none)\nExit Code: 101", "returnDisplay": "FAILED"}),
                    json!({"llmContent": "Command: ls\nOutput: a\nError: (none)\nExit Code: 0", "returnDisplay": "a"}),
                ),
                "copilot" => (
                    "Bash",
                    json!({"result_type": "success", "text_result_for_llm": "FAILED\n<shellId: 0 completed with exit code 101>"}),
                    json!({"result_type": "success", "text_result_for_llm": "a\n<shellId: 1 completed with exit code 0>"}),
                ),
                "factory" => (
                    "Execute",
                    Value::Null,
                    json!("a\n\n\n[Process exited with code 0]"),
                ),
                "codebuddy" => (
                    "Bash",
                    json!({"exitCode": 101, "signal": null, "interrupted": false, "is_error": true, "error": "FAILED\n"}),
                    json!({"exitCode": 0, "signal": null, "interrupted": false}),
                ),
                _ => ("Bash", Value::Null, json!({"stdout": "a", "stderr": ""})),
            };
            // Copilot names a tool's outcome `tool_result`.
            let response_key = if agent == "copilot" {
                "tool_result"
            } else {
                "tool_response"
            };
            let post = |command: &str, response: &Value, id: &str| {
                let mut v = json!({"tool_name": shell, "tool_input": {"command": command},
                    "tool_use_id": id});
                v[response_key] = response.clone();
                v
            };
            let skill = if agent == "qwen" { "skill" } else { "Skill" };
            let mut v = vec![
                (
                    "session-start",
                    "SessionStart".into(),
                    with("SessionStart", json!({"source": "startup"})),
                ),
                (
                    "user-prompt-submit",
                    "UserPromptSubmit (ralph prompt)".into(),
                    with("UserPromptSubmit", json!({"prompt": ralph})),
                ),
                (
                    "user-prompt-submit",
                    "UserPromptSubmit (question)".into(),
                    with("UserPromptSubmit", json!({"prompt": question})),
                ),
            ];
            if agent != "codex" {
                v.push(("pre-tool-use", "PreToolUse".into(), with("PreToolUse", json!({"tool_name": skill, "tool_input": {"skill": "review"}, "tool_use_id": "toolu_2"}))));
            }
            v.push((
                "post-tool-use",
                "PostToolUse".into(),
                with("PostToolUse", post("ls", &ok_response, "toolu_3")),
            ));
            if agent == "factory" {
                // Droid runs no hook after a command that fails (factory-FINDINGS.md §6).
            } else if agent == "claude" {
                v.push(("post-tool-use-failure", "PostToolUseFailure".into(), with("PostToolUseFailure", json!({"tool_name": "Bash",
                    "tool_input": {"command": "cargo test"}, "error": "Exit code 101", "is_interrupt": false, "tool_use_id": "toolu_4"}))));
            } else {
                v.push((
                    "post-tool-use",
                    "PostToolUse (failed command)".into(),
                    with(
                        "PostToolUse",
                        post("cargo test", &failed_response, "toolu_4"),
                    ),
                ));
            }
            v.extend([
                ("subagent-start", "SubagentStart".into(), with("SubagentStart", json!({"agent_id": "agent-1", "agent_type": "Explore"}))),
                ("subagent-stop", "SubagentStop".into(), with("SubagentStop", json!({"agent_id": "agent-1", "agent_type": "Explore", "stop_hook_active": false, "last_assistant_message": "found it"}))),
                ("pre-compact", "PreCompact".into(), with("PreCompact", json!({"trigger": "auto"}))),
                ("stop", "Stop".into(), with("Stop", stop_extra)),
                ("session-end", "SessionEnd".into(), with("SessionEnd", json!({"reason": "other"}))),
            ]);
            v
        }
    }
}

/// A Claude Code transcript of about `bytes`: a user's tool result and the assistant's message
/// with its usage, stamped 0.1 s apart from `from_ms`, message ids from `first_id`.
fn write_transcript(path: &Path, bytes: usize, from_ms: i64, first_id: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let result = "test parser::tests::case ... ok\n".repeat(40);
    let (mut written, mut i) = (0, 0);
    while written < bytes {
        let at = omc_hooks::time::iso(from_ms + i as i64 * 100);
        let user = json!({"type": "user", "timestamp": at, "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": format!("toolu_{}", first_id + i), "content": result}]}});
        let line = transcript_line(first_id + i, &at);
        let user = serde_json::to_vec(&user).unwrap();
        f.write_all(&user).unwrap();
        f.write_all(b"\n").unwrap();
        f.write_all(&line).unwrap();
        written += user.len() + 1 + line.len();
        i += 1;
    }
}

/// `n` more assistant messages appended to the transcript at `path`.
fn write_transcript_lines(path: &Path, n: usize, from_ms: i64, first_id: usize) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    for i in 0..n {
        let at = omc_hooks::time::iso(from_ms + i as i64 * 1_000);
        f.write_all(&transcript_line(first_id + i, &at)).unwrap();
    }
}

/// One assistant message with its usage, stamped `at`.
fn transcript_line(id: usize, at: &str) -> Vec<u8> {
    let v = json!({"type": "assistant", "timestamp": at, "message": {"id": format!("msg_{id:08}"),
        "model": "claude-sonnet-4-5", "role": "assistant",
        "content": [{"type": "text", "text": "Ran the tests; two still fail."}],
        "usage": {"input_tokens": 12, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 40_000, "output_tokens": 150}}});
    let mut s = serde_json::to_vec(&v).unwrap();
    s.push(b'\n');
    s
}

/// About `bytes` of a test run's output: test lines, timings, a summary.
fn test_output(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 256);
    let mut i = 0;
    while out.len() < bytes {
        out.push_str(&format!(
            "test parser::tests::case_{i:06} ... ok\n    finished case {i} in 0.{:03}s\n",
            i % 997
        ));
        i += 1;
    }
    out.push_str(&format!(
        "\ntest result: ok. {i} passed; 0 failed; finished in 12.34s\n"
    ));
    out
}

/// One transcript line of an assistant message with usage, as Claude Code writes them.
fn tail_line(input_tokens: u64) -> Vec<u8> {
    let v = json!({
        "type": "assistant",
        "message": {
            "model": "claude-sonnet-4-5",
            "role": "assistant",
            "content": [{"type": "text", "text": "working"}],
            "usage": {"input_tokens": input_tokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 10}
        }
    });
    let mut s = serde_json::to_vec(&v).unwrap();
    s.push(b'\n');
    s
}

/// A loopback HTTP receiver for the export cases: answers every request with 200, or holds
/// it unanswered (`hang`). Runs for the rest of the process.
fn receiver(hang: bool) -> u16 {
    use std::io::{BufRead, BufReader, Read};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut w = stream.try_clone().unwrap();
                let mut r = BufReader::new(stream);
                loop {
                    let mut len = 0usize;
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    loop {
                        line.clear();
                        if r.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let l = line.trim_end().to_ascii_lowercase();
                        if l.is_empty() {
                            break;
                        }
                        if let Some(v) = l.strip_prefix("content-length:") {
                            len = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; len];
                    if r.read_exact(&mut body).is_err() {
                        return;
                    }
                    if hang {
                        std::thread::sleep(std::time::Duration::from_secs(3600));
                    }
                    let _ = w.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
                }
            });
        }
    });
    port
}

/// Export off against export on, interleaved; the hook that starts the flusher; and the
/// in-process cost of `enqueue` (one sink, two sinks).
/// Median, p10, p90 (µs) and peak RSS (KB) of a set of samples.
type Stats = (f64, f64, f64, i64);

fn export_cases(runs: usize, rows: &mut Vec<Row>) -> (Stats, Stats) {
    let mut b = Bench::new();
    b.seed(20);
    // The payload names its project (`cwd`), and the hook resolves the project from it: each
    // project needs its own, or every arm would spool into one project and share one flusher.
    let payload_of = |x: &Bench| {
        x.payload(
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "cargo test -p parser -- --nocapture"}, "tool_response": {"stdout": "test result: ok. 42 passed; 0 failed", "stderr": "", "interrupted": false}, "tool_use_id": "toolu_9"}),
        )
    };
    let payload = payload_of(&b);
    let ok = receiver(false);
    let hang = receiver(true);
    let linger = ("OMC_EXPORT_LINGER_MS", "600000".to_string());
    let arms: Vec<(&str, Vec<(&str, String)>)> = vec![
        ("`post-tool-use`, export off", vec![]),
        (
            "`post-tool-use`, export on: batch webhook (flusher running, receiver answering)",
            vec![
                (
                    "OMC_EXPORT_WEBHOOK_URL",
                    format!("http://127.0.0.1:{ok}/batch"),
                ),
                ("OMC_EXPORT_WEBHOOK_SECRET", "bench-key".into()),
                linger.clone(),
            ],
        ),
        (
            "`post-tool-use`, export on: webhook + OTLP (two sinks, flusher running)",
            vec![
                (
                    "OMC_EXPORT_WEBHOOK_URL",
                    format!("http://127.0.0.1:{ok}/batch"),
                ),
                ("OMC_EXPORT_OTLP", format!("http://127.0.0.1:{ok}")),
                linger.clone(),
            ],
        ),
        (
            "`post-tool-use`, export on: receiver never answers (flusher stuck in a request)",
            vec![
                (
                    "OMC_EXPORT_WEBHOOK_URL",
                    format!("http://127.0.0.1:{hang}/batch"),
                ),
                ("OMC_EXPORT_BATCH_SIZE", "1".into()),
                linger.clone(),
            ],
        ),
    ];
    // Each arm gets its own project (its own spool and flusher); warm-up starts the flushers.
    let benches: Vec<Bench> = arms
        .iter()
        .map(|_| {
            let mut x = Bench::new();
            x.seed(20);
            x
        })
        .collect();
    let payloads: Vec<Vec<u8>> = benches.iter().map(payload_of).collect();
    for (((_, env), x), payload) in arms.iter().zip(&benches).zip(&payloads) {
        x.restore();
        run_once(BIN, &["post-tool-use"], payload, x.path(), env);
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    let mut samples: Vec<Vec<Sample>> = arms.iter().map(|_| Vec::with_capacity(runs)).collect();
    for _ in 0..runs {
        for (i, ((_, env), x)) in arms.iter().zip(&benches).enumerate() {
            x.restore();
            samples[i].push(run_once(
                BIN,
                &["post-tool-use"],
                &payloads[i],
                x.path(),
                env,
            ));
        }
    }
    // Paired: the difference of each arm's run from the export-off run of the same round,
    // so that load bursts that hit both cancel out.
    for (i, (case, _)) in arms.iter().enumerate().skip(1) {
        let mut d: Vec<f64> = samples[i]
            .iter()
            .zip(&samples[0])
            .map(|(on, off)| on.wall_us - off.wall_us)
            .collect();
        d.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let q = |p: f64| d[((d.len() - 1) as f64 * p).round() as usize] / 1000.0;
        println!(
            "paired difference from export off, {case}: median {:+.3} ms (p25–p75 {:+.3}–{:+.3})",
            q(0.5),
            q(0.25),
            q(0.75)
        );
    }
    for ((case, _), s) in arms.iter().zip(&samples) {
        let (median, p10, p90, rss) = stats(s);
        rows.push(Row {
            case: (*case).to_string(),
            median,
            p10,
            p90,
            rss,
            // Timed in rounds with their pair, not beside `sh -c true`.
            floor: f64::NAN,
        });
    }
    // The first event after the flusher has left: this hook starts it (fork + exec of the
    // flusher, not waited for). Between runs, wait for the flusher to deliver and leave.
    {
        let env = vec![
            (
                "OMC_EXPORT_WEBHOOK_URL",
                format!("http://127.0.0.1:{ok}/batch"),
            ),
            ("OMC_EXPORT_BATCH_SIZE", "1".into()),
            ("OMC_EXPORT_LINGER_MS", "0".into()),
        ];
        let store = omc_hooks::state::Store::new(
            omc_hooks::state::Root {
                project: b.path().to_path_buf(),
                omc: b.path().join(".omc"),
            },
            NOW,
        );
        let n = runs.min(100);
        let mut s = Vec::with_capacity(n);
        for _ in 0..n {
            while store.flusher_busy().unwrap_or(false) {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            b.restore();
            s.push(run_once(BIN, &["post-tool-use"], &payload, b.path(), &env));
        }
        let (median, p10, p90, rss) = stats(&s);
        rows.push(Row {
            case: format!(
                "`post-tool-use`, export on, no flusher running: the hook starts it ({n} runs)"
            ),
            median,
            p10,
            p90,
            rss,
            // Timed in rounds with their pair, not beside `sh -c true`.
            floor: f64::NAN,
        });
    }
    // In-process: what enqueue itself costs, the flusher lock held so nothing is started.
    let inproc = |kinds: Vec<omc_hooks::export::SinkKind>| {
        let d = tempfile::tempdir().unwrap();
        let store = omc_hooks::state::Store::new(
            omc_hooks::state::Root {
                project: d.path().to_path_buf(),
                omc: d.path().join(".omc"),
            },
            NOW,
        );
        let _held = store.flusher_try_lock(b"{}").unwrap().unwrap();
        let sinks: Vec<_> = kinds
            .into_iter()
            .map(omc_hooks::export::SinkSpec::with_defaults)
            .collect();
        let env = omc_hooks::env::Env::default();
        let input = omc_hooks::protocol::HookInput::decode(&payload).unwrap();
        let mut w: Vec<Sample> = (0..runs.max(1000))
            .map(|_| {
                let ev =
                    omc_hooks::export::ExportEvent::new("post-tool-use", "claude", &input, NOW);
                let t = Instant::now();
                std::hint::black_box(omc_hooks::export::enqueue(&store, &env, &ev, &sinks));
                Sample {
                    wall_us: t.elapsed().as_secs_f64() * 1e6,
                    maxrss_kb: 0,
                }
            })
            .collect();
        w.sort_by(|a, b| a.wall_us.partial_cmp(&b.wall_us).unwrap());
        stats(&w)
    };
    let hook = omc_hooks::export::SinkKind::BatchWebhook {
        url: "http://127.0.0.1:9/b".into(),
        method: omc_hooks::export::Method::Post,
        headers: vec![],
        secret_env: None,
    };
    let otlp = omc_hooks::export::SinkKind::Otlp {
        endpoint: Some("http://127.0.0.1:9".into()),
        headers: vec![],
    };
    (inproc(vec![hook.clone()]), inproc(vec![hook, otlp]))
}

/// `--version` (start-up alone) and `post-tool-use` with export off, for this build and
/// another one, interleaved; and both binaries' sizes.
fn compare_builds(runs: usize, other: &str, rows: &mut Vec<Row>) {
    let mut b = Bench::new();
    b.seed(20);
    let payload = b.payload(
        "PostToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a"}, "tool_use_id": "toolu_c"}),
    );
    let size = |p: &str| std::fs::metadata(p).map_or(0, |m| m.len());
    println!(
        "binary sizes: this build {} bytes, {other} {} bytes",
        size(BIN),
        size(other)
    );
    let mut cases: Vec<(String, &str, Vec<&str>, Vec<u8>)> = vec![
        (
            "`--version`, this build".into(),
            BIN,
            vec!["--version"],
            payload.clone(),
        ),
        (
            format!("`--version`, {other}"),
            other,
            vec!["--version"],
            payload.clone(),
        ),
    ];
    // Every Claude Code event (issue 44), each build in turn on the same restored state.
    for (sub, event, extra) in [
        (
            "session-start",
            "SessionStart",
            json!({"source": "compact"}),
        ),
        (
            "user-prompt-submit",
            "UserPromptSubmit",
            json!({"prompt": "ralph keep fixing the parser until every test passes"}),
        ),
        (
            "pre-tool-use",
            "PreToolUse",
            json!({"tool_name": "Skill", "tool_input": {"skill": "review"}, "tool_use_id": "toolu_2"}),
        ),
        (
            "post-tool-use",
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a"}, "tool_use_id": "toolu_c"}),
        ),
        (
            "post-tool-use-failure",
            "PostToolUseFailure",
            json!({"tool_name": "Bash", "tool_input": {"command": "cargo test"}, "error": "Exit code 101", "is_interrupt": false, "tool_use_id": "toolu_4"}),
        ),
        (
            "pre-compact",
            "PreCompact",
            json!({"trigger": "auto", "custom_instructions": null}),
        ),
        (
            "stop",
            "Stop",
            json!({"stop_hook_active": false, "last_assistant_message": "Fixed two tests; three remain.", "background_tasks": []}),
        ),
    ] {
        let p = b.payload(event, extra);
        cases.push((format!("`{sub}`, this build"), BIN, vec![sub], p.clone()));
        cases.push((format!("`{sub}`, {other}"), other, vec![sub], p));
    }
    let mut samples: Vec<Vec<Sample>> = cases.iter().map(|_| Vec::new()).collect();
    for _ in 0..runs {
        for (i, (_, prog, args, payload)) in cases.iter().enumerate() {
            b.restore();
            samples[i].push(run_once(prog, args, payload, b.path(), &[]));
        }
    }
    for ((case, _, _, _), s) in cases.iter().zip(&samples) {
        let (median, p10, p90, rss) = stats(s);
        rows.push(Row {
            case: case.clone(),
            median,
            p10,
            p90,
            rss,
            // Timed in rounds with their pair, not beside `sh -c true`.
            floor: f64::NAN,
        });
    }
}

/// A failing `cargo test` as Kimi, Cline and Auggie report it after the tool (the fields added
/// to the agent's base payload).
fn failed_tool(agent: &str) -> Value {
    match agent {
        "kimi" => {
            json!({"tool_name": "Shell", "tool_input": {"command": "cargo test"}, "tool_call_id": "call_f",
            "tool_output": "is_error=True output='test parser::tests::it_parses ... FAILED\\n' message='Command failed with exit code: 101.' display=[] extras=None"})
        }
        "cline" => json!({"iteration": 2, "tool_result": {"id": "call_f", "name": "run_commands",
            "input": {"commands": ["cargo test"]},
            "output": [{"query": "cargo test", "result": "[Command exited with code 101]\n\n[stderr]\nFAILED\n",
                        "error": "Command exited with code 101", "success": false}], "durationMs": 900}}),
        _ => {
            let text = "Here are the results from executing the command. <return-code> 101 </return-code> <output> test parser::tests::it_parses ... FAILED </output>";
            json!({"tool_name": "launch-process", "tool_input": {"command": "cargo test", "wait": true},
                "tool_output": text, "tool_error": text, "is_mcp_tool": false})
        }
    }
}

/// The fields every payload of `agent` carries, for the bench session and `event` (the
/// agent's own name for it), as each client sends them (`tests/fixtures/{codex,gemini,qwen,
/// copilot,factory,codebuddy,kimi,cline}/`; for Cursor, cursor.com/docs/agent/hooks; for
/// Auggie, its 0.36.0 code).
fn agent_base(agent: &str, project: &Path, event: &str) -> Value {
    let transcript = project.join("transcript.jsonl");
    match agent {
        "codex" => json!({"session_id": SID, "turn_id": "turn-1", "transcript_path": transcript,
            "cwd": project, "hook_event_name": event, "model": "gpt-5", "permission_mode": "bypassPermissions"}),
        "gemini" => json!({"session_id": SID, "transcript_path": transcript, "cwd": project,
            "hook_event_name": event, "timestamp": "2026-12-03T08:38:50.314Z"}),
        "qwen" => json!({"session_id": SID, "transcript_path": transcript, "cwd": project,
            "hook_event_name": event, "timestamp": "2026-12-03T08:38:50.314Z",
            "permission_mode": "yolo", "prompt_id": format!("{SID}########1")}),
        "cursor" => {
            json!({"conversation_id": SID, "generation_id": "g-1", "model": "claude-sonnet-4",
            "hook_event_name": event, "cursor_version": "1.7.2", "workspace_roots": [project],
            "user_email": null, "transcript_path": null})
        }
        "copilot" => json!({"hook_event_name": event, "session_id": SID,
            "timestamp": "2026-12-04T07:09:45.812Z", "cwd": project}),
        "factory" => json!({"session_id": SID, "transcript_path": transcript, "cwd": project,
            "permission_mode": "auto-high", "hook_event_name": event}),
        "codebuddy" => json!({"session_id": SID, "transcript_path": transcript, "cwd": project,
            "hook_event_name": event, "permission_mode": "bypassPermissions", "client": "CLI",
            "version": "2.117.0", "model": "mock-model"}),
        "kimi" => json!({"hook_event_name": event, "session_id": SID, "cwd": project}),
        "cline" => {
            let hook_name = [
                ("TaskStart", "agent_start"),
                ("TaskResume", "agent_resume"),
                ("TaskComplete", "agent_end"),
                ("PreToolUse", "tool_call"),
                ("PostToolUse", "tool_result"),
                ("UserPromptSubmit", "prompt_submit"),
                ("SessionShutdown", "session_shutdown"),
            ]
            .iter()
            .find(|(e, _)| *e == event)
            .map_or(event, |(_, h)| *h);
            json!({"clineVersion": "", "timestamp": "2026-12-04T05:46:39.192Z",
            "taskId": "conv_1796363198781_4vgb4eh", "sessionContext": {"rootSessionId": SID},
            "workspaceRoots": [project], "workspaceInfo": {"rootPath": project, "hint": "p"},
            "userId": "unknown", "agent_id": "agent_1", "parent_agent_id": null,
            "hookName": hook_name})
        }
        "auggie" => json!({"hook_event_name": event, "conversation_id": SID,
            "workspace_roots": [project]}),
        // Our plugins' payloads (tests/fixtures/{opencode,pi}/).
        "opencode" | "pi" => json!({"hook_event_name": event, "session_id": SID, "cwd": project,
            "omc_plugin": agent}),
        _ => json!({"session_id": SID, "transcript_path": transcript, "cwd": project,
            "hook_event_name": event, "permission_mode": "default"}),
    }
}
