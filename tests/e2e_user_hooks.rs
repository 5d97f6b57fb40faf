//! User hooks in the real Claude Code client (issue 17): a script hook from the user's
//! hooks.toml blocks a Bash call and the model is shown its reason; a rewrite reaches the tool;
//! a refused prompt never reaches the model. Plus, ignored by default, the measurement of what
//! PreToolUse on every tool costs per call (BENCHMARKS.md).

use crate::e2e::{Sandbox, Scenario, plugin, plugin_dir};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;

const REASON: &str = "team policy: no rm -rf in this repository (omc-e2e)";

/// Writes the user's hooks.toml under the sandbox HOME; returns the XDG_CONFIG_HOME to pass.
fn user_hooks(sb: &Sandbox, text: &str) -> PathBuf {
    let config = sb.home().join(".config");
    std::fs::create_dir_all(config.join("omc-hooks")).unwrap();
    std::fs::write(config.join("omc-hooks/hooks.toml"), text).unwrap();
    config
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
    let run = sb.claude(
        plugin_dir(),
        "clean the build directory",
        Scenario::new()
            .reply_tool("Bash", json!({"command": "rm -rf build"}))
            .reply_tool("Bash", json!({"command": "echo still-allowed"}))
            .reply_text("could not clean it")
            .env("XDG_CONFIG_HOME", config.to_string_lossy()),
        None,
    );
    run.assert_success();
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
    let run = sb.claude(
        plugin_dir(),
        "say something",
        Scenario::new()
            .reply_tool("Bash", json!({"command": "echo ORIGINAL"}))
            .reply_text("done")
            .env("XDG_CONFIG_HOME", config.to_string_lossy()),
        None,
    );
    run.assert_success();
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
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); variants.len()];
    for _ in 0..rounds {
        for (i, (_, dir, hooks)) in variants.iter().enumerate() {
            let sb = Sandbox::new();
            let mut scenario = Scenario::new();
            for n in 0..CALLS {
                scenario = scenario.reply_tool("Bash", json!({"command": format!("echo {n}")}));
            }
            let mut scenario = scenario.reply_text("done");
            if let Some(text) = hooks {
                scenario = scenario.env("XDG_CONFIG_HOME", user_hooks(&sb, text).to_string_lossy());
            } else {
                scenario = scenario.env(
                    "XDG_CONFIG_HOME",
                    sb.home().join(".config").to_string_lossy(),
                );
            }
            let run = sb.claude(dir, "run the commands", scenario, None);
            run.assert_success();
            times[i].push(run.duration);
        }
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64() * 1000.0
    };
    let base = median(&mut times[0].clone());
    println!(
        "\n| variant ({CALLS} Bash calls per run, {rounds} runs) | median run (ms) | per tool call vs \"Skill\" (ms) |"
    );
    println!("|---|---:|---:|");
    for (i, (name, _, _)) in variants.iter().enumerate() {
        let m = median(&mut times[i]);
        println!("| {name} | {m:.0} | {:+.1} |", (m - base) / CALLS as f64);
    }
}
