//! Runs one hook subcommand: stdin → decode → capabilities → one answer on stdout.
//!
//! This is where the wire contract (§3) is enforced for every subcommand alike: the kill
//! switches, the bounded read, the internal deadline, panics caught, exit code 0, and nothing
//! or one JSON object on stdout. Capabilities only ever see a [`Ctx`] and return an [`Answer`].

use crate::capabilities::continuation;
use crate::capabilities::{self, Ctx};
use crate::config::Config;
use crate::env::Env;
use crate::hooks::Hook;
use crate::protocol::agents::{self, Agent};
use crate::protocol::stdin::{self, Payload};
use crate::protocol::{Answer, HookInput, output};
use crate::state::{Scope, Store, root};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

/// Runs `hook` against the process's stdin and prints its answer. Always returns 0.
///
/// `agent` is the agent the hook was installed for (`--agent`); `None` when the name given
/// was not one we know, and then the payload's shape decides (best effort).
///
/// The work runs on the main thread. The internal deadline ([`crate::platform::deadline`]: a
/// timer signal on Unix) ends the process with a no-op when it passes (a stdin that never
/// closes, a wedged file system, a runaway computation). The two agree through a gate: whoever
/// takes it first decides whether an answer is printed, so the deadline never cuts a
/// half-written answer.
pub fn run_hook(hook: Hook, env: Env, agent: Option<Agent>) -> i32 {
    let started = Instant::now();
    let mut seen = Traced {
        agent,
        ..Traced::default()
    };
    // What the switches say that cannot be read is said once per process, in one line, before
    // anything else: the person's typo must not silently do nothing (contract §3).
    let problems = capabilities::config_notice::switch_problems(&env);
    if !problems.is_empty() {
        crate::diag!("{}", problems.join("; "));
    }
    if env.disabled || crate::hooks::skipped_by(&env.skip_hooks, hook) {
        if env.debug {
            crate::diag!("{} skipped by DISABLE_OMC / OMC_SKIP_HOOKS", hook.name);
        }
        trace(&env, hook, &seen, "skipped");
        return 0;
    }
    let expiry = crate::platform::deadline::Expiry {
        stderr_line: format!(
            "{}\n",
            crate::diag::line(&format!(
                "{}: internal deadline of {} ms passed; no-op",
                hook.name,
                hook.deadline.as_millis()
            ))
        ),
        trace: env
            .trace_file
            .as_ref()
            .map(|path| (path.clone(), trace_line(hook, &seen, "deadline"))),
    };
    let deadline = match crate::platform::deadline::arm(hook.deadline, expiry) {
        Ok(d) => d,
        Err(e) => {
            crate::diag!(
                "{}: cannot start the deadline watchdog: {e}; no-op",
                hook.name
            );
            return 0;
        }
    };
    let result = catch_unwind(AssertUnwindSafe(|| handle(hook, &env, &mut seen, started)));
    if !deadline.answer() {
        return 0; // the deadline passed and is ending the process
    }
    let outcome = match result {
        Ok(value) => {
            output::emit(value.as_ref());
            if value.is_some() { "answer" } else { "noop" }
        }
        Err(_) => {
            crate::diag!("{}: internal error (panic); no-op", hook.name);
            "panic"
        }
    };
    if let Some(path) = &env.trace_file {
        write_trace(path, hook, &seen, outcome);
    }
    0
}

/// What the worker learned about the payload, for the trace.
#[derive(Default)]
struct Traced {
    /// The declared agent (`--agent`), if one we know was given.
    agent: Option<Agent>,
    /// The agent the payload's shape points to.
    shape: Option<Agent>,
    /// The event as the agent named it.
    agent_event: Option<String>,
    /// The neutral event the hook served.
    event: Option<String>,
    session_id: Option<String>,
}

fn trace(env: &Env, hook: Hook, seen: &Traced, outcome: &str) {
    if let Some(path) = &env.trace_file {
        write_trace(path, hook, seen, outcome);
    }
}

/// Appends one JSON line to the trace file (`OMC_TRACE_FILE`); failures are ignored.
fn write_trace(path: &std::path::Path, hook: Hook, seen: &Traced, outcome: &str) {
    use std::io::Write;
    let line = trace_line(hook, seen, outcome);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path);
    if let Ok(mut f) = file {
        let _ = f.write_all(line.as_bytes());
    }
}

/// The trace file's line for one invocation, newline included.
fn trace_line(hook: Hook, seen: &Traced, outcome: &str) -> String {
    let line = serde_json::json!({
        "hook": hook.name,
        "agent": seen.agent.map(Agent::name),
        "shape": seen.shape.map(Agent::name),
        "agent_event": seen.agent_event,
        "event": seen.event,
        "session_id": seen.session_id,
        "outcome": outcome,
    });
    format!("{line}\n")
}

/// Reads, decodes and decides. Returns the encoded answer, or `None` for a no-op.
fn handle(hook: Hook, env: &Env, seen: &mut Traced, started: Instant) -> Option<serde_json::Value> {
    let bytes = match stdin::read_capped(
        std::io::stdin().lock(),
        stdin::MAX_PAYLOAD_BYTES,
        crate::platform::widen_stdin_pipe,
    ) {
        Payload::Complete(b) => b,
        Payload::TooLarge => {
            crate::diag!(
                "{}: payload larger than {} bytes; no-op",
                hook.name,
                stdin::MAX_PAYLOAD_BYTES
            );
            return None;
        }
        Payload::Failed(e) => {
            crate::diag!("{}: cannot read stdin: {e}; no-op", hook.name);
            return None;
        }
    };
    let map = match crate::protocol::input::parse_object(&bytes) {
        Ok(m) => m,
        Err(e) => {
            crate::diag!("{}: {e}; no-op", hook.name);
            return None;
        }
    };
    drop(bytes); // the payload is parsed: hold a large prompt once, not twice
    let declared = seen.agent.unwrap_or_else(|| {
        let shape = agents::detect_shape(&map).unwrap_or_default();
        crate::diag!(
            "{}: no known --agent given; reading the payload as {} by its shape",
            hook.name,
            shape.name()
        );
        shape
    });
    let mut input = agents::decode_map(declared, map);
    seen.agent = Some(declared);
    seen.shape = input.shape;
    seen.agent_event = input.agent_event.clone();
    seen.session_id = input.session_id.clone();
    if agents::stands_down(&input) {
        crate::diag!(
            "{}: a GitHub Copilot CLI payload sent to a hook installed for Claude Code; no-op \
             (`omc-hooks install --agent copilot` serves Copilot)",
            hook.name
        );
        return None;
    }
    let hook = agents::route(hook, &mut input, env);
    seen.event = input.hook_event_name.clone();
    // The neutral event is compared, so the check holds for every agent; an event of another
    // agent's that no hook serves (Gemini's BeforeModel, say) is not acted on either.
    if !crate::hooks::serves(hook, input.hook_event_name.as_deref()) || !agents::served(&input) {
        crate::diag!(
            "{}: payload is for {}, not {}; no-op",
            hook.name,
            input
                .agent_event
                .as_deref()
                .or(input.hook_event_name.as_deref())
                .unwrap_or("?"),
            hook.event
        );
        return None;
    }
    let root = match root::find(env, input.cwd.as_deref()) {
        root::Found::Project(root) => root,
        root::Found::UnusableCwd(cwd) => {
            let shown: String = cwd.chars().take(200).collect();
            crate::diag!(
                "{}: the payload's cwd '{shown}' is not an existing directory, and \
                 CLAUDE_PROJECT_DIR does not name the project; no-op",
                hook.name
            );
            return None;
        }
        root::Found::FilesystemRoot => {
            crate::diag!(
                "{}: the project would be the filesystem root '/'; no state is kept there \
                 (every project without its own .git below would share it); no-op",
                hook.name
            );
            return None;
        }
    };
    let answer = decide_in(hook, env, &input, started, root);
    agents::encode(&input, hook, &answer)
}

/// Runs the capabilities registered for `hook` on a decoded payload and merges their answers.
/// Public for tests and for the demo, which replay payloads without a process boundary.
pub fn decide(hook: Hook, env: &Env, input: &HookInput) -> Answer {
    decide_from(hook, env, input, Instant::now())
}

/// [`decide`] for a hook process that started at `started`: the user hooks' share of the
/// deadline counts from there. The user's own hooks (`hooks.toml`) run first; when one of them
/// refuses the event's action, the action does not happen and our capabilities have nothing
/// to record, so they do not run — only export does, since a team watching its agents wants
/// to see what its own checks refused. A rewritten tool input is what they then see.
pub fn decide_from(hook: Hook, env: &Env, input: &HookInput, started: Instant) -> Answer {
    decide_in(
        hook,
        env,
        input,
        started,
        root::resolve(env, input.cwd.as_deref()),
    )
}

/// [`decide_from`] in the project `root` already found.
fn decide_in(
    hook: Hook,
    env: &Env,
    input: &HookInput,
    started: Instant,
    root: Option<root::Root>,
) -> Answer {
    let now_ms = env.now_ms();
    let store = root.map(|r| Store::new(r, now_ms));
    let scope = Scope::for_session(input.session_id.as_deref());
    // Read once for this hook: the user hooks run from them, export and the notifications
    // find their sinks in them (`Ctx::hook_files`).
    let hook_files = catch_unwind(AssertUnwindSafe(|| {
        crate::config::hooks_toml::load(env, store.as_ref())
    }))
    .unwrap_or_else(|_| {
        crate::diag!(
            "{}: reading hooks.toml panicked; no user hook runs",
            hook.name
        );
        Default::default()
    });
    let user = catch_unwind(AssertUnwindSafe(|| {
        crate::user_hooks::run(
            hook,
            env,
            input,
            store.as_ref(),
            &scope,
            started,
            &hook_files,
        )
    }))
    .unwrap_or_else(|_| {
        crate::diag!("{}: user hooks panicked; skipped", hook.name);
        crate::user_hooks::Outcome::default()
    });
    let rewritten;
    let input = match &user.answer.updated_input {
        Some(tool_input) => {
            rewritten = HookInput {
                tool_input: Some(tool_input.clone()),
                ..input.clone()
            };
            &rewritten
        }
        None => input,
    };
    let config = store
        .as_ref()
        .map(Config::load)
        .unwrap_or_default()
        .with_env(env);
    // A project's verify commands only once the person trusted them; the person's own always
    // (on a tool event, read by the one capability that needs them, only while a run is live).
    let config = capabilities::verify_trust::apply_project(config, env);
    let config = if capabilities::verify_trust::defers_person_lists(hook.event) {
        config
    } else {
        capabilities::verify_trust::with_person_lists(config, env)
    };
    let ctx = Ctx {
        hook,
        input,
        env,
        now_ms,
        scope,
        store,
        config,
        hook_files: hook_files.into(),
    };
    let mut answer = user.answer;
    if user.refused && hook.event == "Stop" {
        answer = relay_stop_block(&ctx, answer);
    }
    if user.refused {
        run_all(&ctx, capabilities::AFTER_EVERY_HOOK, &mut answer);
        return answer;
    }
    if !continuation::admit(&ctx) {
        return answer;
    }
    // Run ends and waits are read from the run files around the capabilities that make them.
    let watch = catch_unwind(AssertUnwindSafe(|| capabilities::run_events::before(&ctx)))
        .ok()
        .flatten();
    run_all(&ctx, capabilities::for_hook(hook.name), &mut answer);
    if let Some(watch) = watch
        && catch_unwind(AssertUnwindSafe(|| {
            capabilities::run_events::after(&ctx, watch)
        }))
        .is_err()
    {
        crate::diag!("{}: notification events panicked; skipped", hook.name);
    }
    run_all(&ctx, capabilities::AFTER_EVERY_HOOK, &mut answer);
    if catch_unwind(AssertUnwindSafe(|| continuation::after(&ctx, &answer))).is_err() {
        crate::diag!(
            "{}: recording the session's agent panicked; skipped",
            hook.name
        );
    }
    answer
}

/// A block one of the person's own stop hooks answered is relayed only while the session
/// makes progress (the same cap as a run's continuations without new work) and not after a
/// cancel until the next prompt: a stop script that always blocks must not hold a session
/// forever, and Codex and Gemini CLI have no cap of their own.
fn relay_stop_block(ctx: &capabilities::Ctx<'_>, answer: Answer) -> Answer {
    let Some(store) = &ctx.store else {
        return answer;
    };
    let cap = ctx.stop_limits().idle.max;
    match capabilities::persistent_mode::progress::relay_user_block(store, &ctx.scope, cap) {
        Ok(()) => answer,
        Err(why) => {
            crate::diag!("stop: a hooks.toml stop hook's block is not relayed: {why}");
            Answer::system_message(format!(
                "omc-hooks: your stop hook's block was not passed on ({why}); the turn ends. \
                 It is relayed again after your next message."
            ))
        }
    }
}

/// Runs `caps` in order and merges their answers into `answer`; a capability that panics is
/// skipped with a diagnostic, never the hook.
fn run_all(ctx: &Ctx<'_>, caps: &[capabilities::Capability], answer: &mut Answer) {
    // OMC's script names in OMC_SKIP_HOOKS skip the work of ours that does their job.
    let skipped = crate::hooks::skipped_capabilities(&ctx.env.skip_hooks, ctx.env.skip_omc_only);
    let whole = std::ptr::eq(caps, capabilities::for_hook(ctx.hook.name))
        && crate::hooks::omc_skips_hook_work(&ctx.env.skip_hooks, ctx.hook, ctx.env.skip_omc_only);
    for cap in caps {
        if (skipped.contains(&cap.name) || whole) && !crate::hooks::UNSKIPPABLE.contains(&cap.name)
        {
            if ctx.env.debug {
                crate::diag!("{}: {} skipped by OMC_SKIP_HOOKS", ctx.hook.name, cap.name);
            }
            continue;
        }
        match catch_unwind(AssertUnwindSafe(|| (cap.run)(ctx))) {
            Ok(a) => answer.merge(a),
            Err(_) => crate::diag!(
                "{}: capability {} panicked; skipped",
                ctx.hook.name,
                cap.name
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::hooks_toml::LOADS;
    use std::collections::HashMap;

    /// A project with a `.git`, its own configuration and state folders, and the environment
    /// a hook sees there (the project, the folders, a pinned clock).
    struct Scratch {
        _project: tempfile::TempDir,
        _config: tempfile::TempDir,
        dir: String,
        env: Env,
    }

    fn scratch() -> Scratch {
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(project.path().join(".git")).unwrap();
        let config = tempfile::tempdir().unwrap();
        let dir = project.path().to_string_lossy().into_owned();
        let xdg = config.path().to_string_lossy().into_owned();
        let env = Env::from_lookup(
            |k| match k {
                "CLAUDE_PROJECT_DIR" => Some(dir.clone()),
                "XDG_CONFIG_HOME" | "XDG_STATE_HOME" => Some(xdg.clone()),
                "OMC_NOW_MS" => Some("1796305500000".to_string()),
                _ => None,
            },
            Some(project.path().to_path_buf()),
            HashMap::new(),
        );
        Scratch {
            _project: project,
            _config: config,
            dir,
            env,
        }
    }

    /// Issue 44: SessionStart reads this session's run files once. Un-suspending, ending stale
    /// runs and restoring share one read (they read them once each before: three times).
    #[test]
    fn session_start_reads_the_runs_files_once() {
        let Scratch { dir, env, .. } = &scratch();
        let run = |name: &str, event: &str, extra: serde_json::Value| {
            let mut v =
                serde_json::json!({"session_id": "s1", "hook_event_name": event, "cwd": dir});
            for (k, x) in extra.as_object().unwrap() {
                v[k] = x.clone();
            }
            let input = HookInput::decode(v.to_string().as_bytes()).unwrap();
            crate::state::READS.with(|r| r.borrow_mut().clear());
            let answer = decide(crate::hooks::find(name).unwrap(), env, &input);
            let reads = crate::state::READS.with(|r| r.borrow().clone());
            (answer, reads)
        };
        run(
            "user-prompt-submit",
            "UserPromptSubmit",
            serde_json::json!({"prompt": "ralph fix the tests"}),
        );
        let (answer, reads) = run(
            "session-start",
            "SessionStart",
            serde_json::json!({"source": "resume"}),
        );
        let text = answer.context.unwrap_or_default();
        assert!(text.contains("RALPH LOOP RESTORED"), "{text}");
        let ralph = reads.iter().filter(|n| *n == "ralph-state.json").count();
        assert_eq!(ralph, 1, "{reads:?}");
    }

    /// Issue 44: each hook reads the `hooks.toml` files once — the user hooks, export's sinks,
    /// the run notifications and the trust notice share what was read (they read them again
    /// each before: three times on a Stop, twice on every other event).
    #[test]
    fn every_hook_reads_the_hook_files_once() {
        let Scratch { dir, env, .. } = &scratch();
        let payload = |event: &str| {
            serde_json::json!({
                "session_id": "s1", "hook_event_name": event, "cwd": dir,
                "prompt": "ralph fix the tests", "tool_name": "Bash",
                "tool_input": {"command": "ls"}, "tool_response": {"stdout": ""},
                "source": "startup", "trigger": "auto"
            })
            .to_string()
        };
        for name in [
            "session-start",
            "user-prompt-submit",
            "pre-tool-use",
            "post-tool-use",
            "pre-compact",
            "stop",
        ] {
            let hook = crate::hooks::find(name).unwrap();
            let input = HookInput::decode(payload(hook.event).as_bytes()).unwrap();
            LOADS.with(|n| n.set(0));
            decide(hook, env, &input);
            assert_eq!(LOADS.with(|n| n.get()), 1, "{name}");
        }
    }
}
