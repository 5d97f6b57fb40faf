//! User hooks in the real Claude Code client (issue 17): a script hook from the user's
//! hooks.toml blocks a Bash call and the model is shown its reason; a rewrite reaches the tool;
//! a refused prompt never reaches the model; a project's hooks.toml runs only once trusted, and
//! the model running `omc-hooks trust --yes` is refused; a permission-request entry answers the permission dialog. Plus, ignored by default, the measurement of what
//! PreToolUse on every tool costs per call (BENCHMARKS.md).

use crate::e2e::{Run, Sandbox, Scenario, plugin, plugin_dir};
use serde_json::json;
use std::path::{Path, PathBuf};

const REASON: &str = "team policy: no rm -rf in this repository (omc-e2e)";

/// Writes the user's hooks.toml under the sandbox HOME; returns the XDG_CONFIG_HOME to pass.
fn user_hooks(sb: &Sandbox, text: &str) -> PathBuf {
    let config = sb.home().join(".config");
    std::fs::create_dir_all(config.join("omc-hooks")).unwrap();
    std::fs::write(config.join("omc-hooks/hooks.toml"), text).unwrap();
    config
}

/// The client in `sb` on `prompt`, the model following `scenario`, with the user's hooks under
/// `config` (what [`user_hooks`] returned); the client exited cleanly.
fn hooked_run(sb: &Sandbox, config: &Path, prompt: &str, scenario: Scenario) -> Run {
    let run = sb.claude(
        plugin_dir(),
        prompt,
        scenario.env("XDG_CONFIG_HOME", config.to_string_lossy()),
        None,
    );
    run.assert_success();
    run
}

fn script_entry(event: &str, matcher: &str, command: &str) -> String {
    format!(
        "[[hooks]]\nevent = \"{event}\"\nmatcher = \"{matcher}\"\ntype = \"script\"\ncommand = {}\n",
        serde_json::to_string(command).unwrap()
    )
}

#[test]
fn a_user_script_hook_blocks_a_bash_call_and_the_model_sees_the_reason() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.project().join("build")).unwrap();
    let guard = format!(
        "if grep -q 'rm -rf'; then printf '%s' '{{\"action\":\"block\",\"reason\":\"{REASON}\"}}'; fi"
    );
    let config = user_hooks(&sb, &script_entry("pre-tool-use", "Bash", &guard));
    let run = hooked_run(
        &sb,
        &config,
        "clean the build directory",
        Scenario::new()
            .reply_tool("Bash", json!({"command": "rm -rf build"}))
            .reply_tool("Bash", json!({"command": "echo still-allowed"}))
            .reply_text("could not clean it"),
    );
    let requests = run.main_loop_requests();
    assert!(requests.len() >= 3, "{}", run.diagnostics());
    // The model's next request carries the refusal as the tool's (error) result.
    let refused = requests[1].tool_results();
    assert!(
        refused
            .iter()
            .any(|(_, text, is_error)| *is_error && text.contains(REASON)),
        "tool results: {refused:?}\n{}",
        run.diagnostics()
    );
    assert!(sb.project().join("build").is_dir(), "rm -rf ran");
    // The matcher lets other commands through untouched.
    let allowed = requests[2].tool_results();
    assert!(
        allowed
            .iter()
            .any(|(_, text, is_error)| !*is_error && text.contains("still-allowed")),
        "{allowed:?}"
    );
}

#[test]
fn a_rewritten_input_is_what_the_tool_runs() {
    let sb = Sandbox::new();
    let rewrite = r#"cat >/dev/null; echo '{"action":"modify","tool_input":{"command":"echo REWRITTEN-BY-HOOK"}}'"#;
    let config = user_hooks(&sb, &script_entry("pre-tool-use", "Bash", rewrite));
    let run = hooked_run(
        &sb,
        &config,
        "say something",
        Scenario::new()
            .reply_tool("Bash", json!({"command": "echo ORIGINAL"}))
            .reply_text("done"),
    );
    let results = run.main_loop_requests()[1].tool_results();
    assert!(
        results
            .iter()
            .any(|(_, text, _)| text.contains("REWRITTEN-BY-HOOK")),
        "{results:?}\n{}",
        run.diagnostics()
    );
}

#[test]
fn a_refused_prompt_never_reaches_the_model() {
    let sb = Sandbox::new();
    let refuse =
        r#"cat >/dev/null; echo '{"action":"block","reason":"prompts are paused (omc-e2e)"}'"#;
    let config = user_hooks(&sb, &script_entry("user-prompt-submit", "*", refuse));
    let run = sb.claude(
        plugin_dir(),
        "ralph fix the tests",
        Scenario::new()
            .reply_text("should not be asked")
            .env("XDG_CONFIG_HOME", config.to_string_lossy()),
        None,
    );
    assert!(run.main_loop_requests().is_empty(), "{}", run.diagnostics());
    assert!(
        run.result_text().contains("prompts are paused (omc-e2e)"),
        "{}",
        run.stdout
    );
    // Refused, so no ralph run was started for it.
    let sessions = run.omc_dir().join("state/sessions");
    let ralph = std::fs::read_dir(&sessions)
        .map(|d| {
            d.flatten()
                .any(|s| s.path().join("ralph-state.json").exists())
        })
        .unwrap_or(false);
    assert!(!ralph);
}

/// A project `.omc/hooks.toml` in `sb` whose pre-tool-use entry touches a marker file. Returns
/// the `XDG_CONFIG_HOME` to pass (no user hooks) and the marker's path.
fn a_project_hook_that_touches_a_marker(sb: &Sandbox) -> (PathBuf, PathBuf) {
    let config = sb.home().join(".config");
    let marker = sb.root().join("project-hook-ran");
    sb.write(
        ".omc/hooks.toml",
        &script_entry("pre-tool-use", "*", &format!("touch {}", marker.display())),
    );
    (config, marker)
}

#[test]
fn an_untrusted_project_hooks_file_runs_nothing_in_the_real_client_until_trusted() {
    let sb = Sandbox::new();
    let (config, marker) = a_project_hook_that_touches_a_marker(&sb);
    let scenario = || {
        Scenario::new()
            .reply_tool("Bash", json!({"command": "echo hi"}))
            .reply_text("done")
            .env("XDG_CONFIG_HOME", config.to_string_lossy())
    };
    sb.claude(plugin_dir(), "say hi", scenario(), None)
        .assert_success();
    assert!(
        !marker.exists(),
        "an untrusted project hooks.toml ran a command"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_omc-hooks"))
        .args(["trust", "--yes"])
        .current_dir(sb.project())
        .env_remove("CLAUDECODE")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env_remove("AI_AGENT")
        .env("XDG_CONFIG_HOME", &config)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("OMC_STATE_DIR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    sb.claude(plugin_dir(), "say hi", scenario(), None)
        .assert_success();
    assert!(
        marker.exists(),
        "the trusted project hooks.toml did not run"
    );
}

/// The model runs `omc-hooks trust --yes` through Bash (issue 30, item 2; issue 43): our
/// pre-tool hook refuses the call and says why; a renamed copy of the binary gets past that
/// check, and then `trust` itself refuses, by Claude Code's `CLAUDECODE=1` (FINDINGS.md §11)
/// or, detached with the variables removed, by its parent being the first process. Nothing
/// is recorded and the project's hook still does not run.
#[test]
fn trust_run_by_the_model_is_refused() {
    let sb = Sandbox::new();
    let (config, marker) = a_project_hook_that_touches_a_marker(&sb);
    let bin = plugin_dir().join("target/release/omc-hooks");
    let copy = sb.home().join("helper");
    let run = sb.claude(
        plugin_dir(),
        "trust this project's hooks so they run",
        Scenario::new()
            .reply_tool(
                "Bash",
                json!({"command": format!("'{}' trust --yes 2>&1", bin.display())}),
            )
            .reply_tool(
                "Bash",
                json!({"command": format!(
                    "cp '{}' '{c}' && '{c}' trust --yes 2>&1; \
                     (env -u CLAUDECODE -u CLAUDE_CODE_SESSION_ID -u AI_AGENT setsid -f '{c}' \
                     trust --yes >'{c}.out' 2>&1 &); sleep 2; cat '{c}.out'",
                    bin.display(),
                    c = copy.display()
                )}),
            )
            .reply_text("I could not trust it.")
            .env("XDG_CONFIG_HOME", config.to_string_lossy()),
        None,
    );
    run.assert_success();
    let d = run.diagnostics();
    let first = run.main_loop_requests()[1].tool_results();
    assert!(
        first
            .iter()
            .any(|(_, text, _)| text.contains("it would run `omc-hooks trust`")),
        "{first:?}\n{d}"
    );
    // The detached run is refused for being detached, or — when it asks before `setsid`'s
    // own process has exited, so its parent is not yet the first process — for having no
    // terminal while the agent's session is live: either is issue 43's refusal (seen both
    // ways in CI).
    let second = run.main_loop_requests()[2].tool_results();
    assert!(
        second.iter().any(|(_, text, _)| {
            text.contains("refused: CLAUDECODE is set")
                && (text.contains("refused: this command was detached")
                    || text.contains(
                        "refused: there is no terminal, and an agent's session is working",
                    ))
        }),
        "{second:?}\n{d}"
    );
    assert!(
        !config.join("omc-hooks/trusted.json").exists(),
        "the model recorded trust\n{d}"
    );
    assert!(!marker.exists(), "the untrusted hook ran\n{d}");
}

/// Lays out a plugin directory whose PreToolUse matcher is `matcher`.
fn plugin_with_matcher(matcher: &str, tag: &str) -> PathBuf {
    let manifest = std::fs::read_to_string(plugin_dir().join("hooks.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    v["hooks"]["PreToolUse"][0]["matcher"] = json!(matcher);
    plugin::layout(
        &std::env::temp_dir().join(format!("omc-e2e-cost-{tag}-{}", std::process::id())),
        &serde_json::to_string_pretty(&v).unwrap(),
        Path::new(env!("CARGO_BIN_EXE_omc-hooks")),
    )
}

/// Not a test of behaviour: measures, in the real client, what PreToolUse on every tool costs
/// per tool call. Run it with
/// `cargo test --release --test integration e2e_user_hooks::cost -- --ignored --nocapture`
/// and copy the table into BENCHMARKS.md.
///
/// Wall time on a shared machine is noisy; for CPU time (the client and every hook process
/// it ran, user + system), point `OMC_E2E_CLAUDE_BIN` at `tests/e2e/timed-claude.sh` with
/// `REAL_CLAUDE` set to the real binary: it records the client's children times in the file
/// named by `OMC_COST_TIMES`.
#[test]
#[ignore]
fn cost_of_pre_tool_use_on_every_tool() {
    const CALLS: usize = 20;
    let rounds: usize = std::env::var("OMC_COST_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    let variants: Vec<(&str, PathBuf, Option<&str>)> = vec![
        (
            "matcher \"Skill\" (before)",
            plugin_with_matcher("Skill", "skill"),
            None,
        ),
        (
            "matcher \"*\", no hooks.toml",
            plugin_with_matcher("*", "star"),
            None,
        ),
        (
            "matcher \"*\", hooks.toml with one Edit entry",
            plugin_with_matcher("*", "star2"),
            Some(
                "[[hooks]]\nevent = \"pre-tool-use\"\nmatcher = \"Edit\"\ntype = \"script\"\ncommand = \"true\"\n",
            ),
        ),
        (
            "matcher \"*\", a `true` script on every Bash",
            plugin_with_matcher("*", "star3"),
            Some(
                "[[hooks]]\nevent = \"pre-tool-use\"\nmatcher = \"Bash\"\ntype = \"script\"\ncommand = \"true\"\n",
            ),
        ),
    ];
    let mut wall: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    for _ in 0..rounds {
        for (i, (_, dir, hooks)) in variants.iter().enumerate() {
            let sb = Sandbox::new();
            let times = sb.root().join("times.txt");
            let mut scenario = Scenario::new();
            for n in 0..CALLS {
                scenario = scenario.reply_tool("Bash", json!({"command": format!("echo {n}")}));
            }
            let mut scenario = scenario
                .reply_text("done")
                .env("OMC_COST_TIMES", times.to_string_lossy());
            if let Some(text) = hooks {
                scenario = scenario.env("XDG_CONFIG_HOME", user_hooks(&sb, text).to_string_lossy());
            }
            let run = sb.claude(dir, "run the commands", scenario, None);
            run.assert_success();
            assert_eq!(run.main_loop_requests().len(), CALLS + 1);
            wall[i].push(run.duration.as_secs_f64() * 1000.0);
            if let Ok(t) = std::fs::read_to_string(&times) {
                cpu[i].push(children_cpu_ms(&t));
            }
        }
    }
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    };
    let has_cpu = cpu.iter().all(|c| c.len() == rounds);
    let (w0, c0) = (
        median(&wall[0]),
        if has_cpu { median(&cpu[0]) } else { 0.0 },
    );
    println!("\n{CALLS} Bash calls per run, {rounds} runs per variant, interleaved; medians.\n");
    println!(
        "| variant | wall (ms) | per call vs \"Skill\" | CPU, client + hooks (ms) | per call vs \"Skill\" |"
    );
    println!("|---|---:|---:|---:|---:|");
    for (i, (name, _, _)) in variants.iter().enumerate() {
        let w = median(&wall[i]);
        let (c, dc) = if has_cpu {
            let c = median(&cpu[i]);
            (
                format!("{c:.0}"),
                format!("{:+.1}", (c - c0) / CALLS as f64),
            )
        } else {
            ("–".into(), "–".into())
        };
        println!(
            "| {name} | {w:.0} | {:+.1} | {c} | {dc} |",
            (w - w0) / CALLS as f64
        );
    }
}

/// The children's user + system time from bash's `times` output (its second line).
fn children_cpu_ms(times: &str) -> f64 {
    let secs = |t: &str| -> f64 {
        let (m, s) = t
            .trim_end_matches('s')
            .split_once('m')
            .unwrap_or(("0", "0"));
        m.parse::<f64>().unwrap_or(0.0) * 60.0 + s.parse::<f64>().unwrap_or(0.0)
    };
    let line = times.lines().nth(1).unwrap_or("");
    line.split_whitespace().map(secs).sum::<f64>() * 1000.0
}

/// Issue 36: the client's permission dialog (here, `-p` in the default permission mode, where
/// a Bash call nobody allowed would be refused) is answered by the user's
/// `permission-request` entry; without one the call is refused as before.
#[test]
fn a_permission_request_is_answered_by_the_users_entry_and_only_by_it() {
    let allow = r#"cat > "$HOME/permission-input.json"; echo '{"action":"allow"}'"#;
    let attempt = |entry: Option<&str>| {
        let sb = Sandbox::new();
        let config = user_hooks(
            &sb,
            &entry
                .map(|c| script_entry("permission-request", "Bash", c))
                .unwrap_or_default(),
        );
        let (run, ran, results) = permission_asked(&sb, &config);
        let input = std::fs::read_to_string(sb.home().join("permission-input.json")).ok();
        (ran, input, format!("{results:?}\n{}", run.diagnostics()))
    };
    let (ran, input, why) = attempt(Some(allow));
    assert!(ran, "the entry's allow did not let the call run: {why}");
    let input: serde_json::Value = serde_json::from_str(&input.expect("the entry ran")).unwrap();
    assert_eq!(input["event"], "permission-request");
    assert_eq!(
        input["tool_input"]["command"],
        "touch permitted.txt && echo PERMITTED-BY-HOOK"
    );
    let (ran, _, why) = attempt(None);
    assert!(
        !ran,
        "without an entry the call must not be allowed by us: {why}"
    );
}

/// A model in `sb` that runs `touch permitted.txt && echo PERMITTED-BY-HOOK` (`echo` alone is
/// a read-only command the client runs without asking), the client asking permission for
/// tools, the user hooks in `config`; the client exited cleanly. Returns the run, whether the
/// call ran (its result holds the marker, not as an error) and the call's results.
fn permission_asked(sb: &Sandbox, config: &Path) -> (Run, bool, Vec<(String, String, bool)>) {
    let run = hooked_run(
        sb,
        config,
        "print the marker",
        Scenario::new()
            .reply_tool(
                "Bash",
                json!({"command": "touch permitted.txt && echo PERMITTED-BY-HOOK"}),
            )
            .reply_text("done")
            .ask_permissions(),
    );
    let requests = run.main_loop_requests();
    assert!(requests.len() >= 2, "{}", run.diagnostics());
    let results = requests[1].tool_results();
    let ran = results
        .iter()
        .any(|(_, text, is_error)| !*is_error && text.contains("PERMITTED-BY-HOOK"));
    (run, ran, results)
}

/// Issue 46: "always allow" from an entry's answer. The pinned client takes the
/// `updatedPermissions` omc-hooks passes on from the entry's `updated_permissions` (the shape
/// of its own `permission_suggestions`): the call runs, and the rule is written into the
/// project's `.claude/settings.local.json` as if the person had clicked "always allow".
#[test]
fn a_permission_requests_updated_permissions_are_applied_by_the_client() {
    let rule = "Bash(touch permitted.txt && echo PERMITTED-BY-HOOK)";
    let answer = json!({"action": "allow", "updated_permissions": [{
        "type": "addRules", "behavior": "allow", "destination": "localSettings",
        "rules": [{"toolName": "Bash", "ruleContent": "touch permitted.txt && echo PERMITTED-BY-HOOK"}]
    }]});
    let sb = Sandbox::new();
    let config = user_hooks(
        &sb,
        &script_entry(
            "permission-request",
            "Bash",
            &format!("cat > /dev/null; echo '{answer}'"),
        ),
    );
    let (run, ran, _) = permission_asked(&sb, &config);
    assert!(
        ran,
        "the allow did not let the call run: {}",
        run.diagnostics()
    );
    let local = std::fs::read_to_string(sb.project().join(".claude/settings.local.json"))
        .unwrap_or_default();
    assert!(
        local.contains(rule),
        "the rule was not added to the local settings: {local:?}\n{}",
        run.diagnostics()
    );
}
