//! The packages the repository ships, loaded by the real clients (pinned, `e2e::clients`):
//! the Gemini CLI extension `extensions/gemini/` linked with `gemini extensions link`, and the
//! Codex plugin installed with `codex plugin marketplace add` + `codex plugin add`; each time
//! the package's hooks are the only ones in the sandbox (no `install --agent`), then a ralph run
//! in it.

use crate::e2e::agent_harness::{AgentRun, AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e::codex::{install_plugin, trust_entries_as};
use crate::e2e::gemini::link_extension;
use crate::e2e_agents::{DONE, MORE, PROMPT, assert_wrapped, continuations, ralph_state};
use serde_json::Value;

/// `gemini extensions link <checkout>/extensions/gemini --consent` into a fresh home, with
/// `hooksConfig` left at the client's default: the linked extension's hooks run the checkout's
/// `target/release/omc-hooks`, a `ralph …` prompt starts a run (our context reaches the model)
/// and AfterAgent continues it until the completion token.
#[test]
fn the_linked_gemini_extension_runs_a_ralph_loop() {
    let sb = AgentSandbox::new(Agent::Gemini);
    // No hook setting of ours: hooksConfig.enabled defaults to true in 0.61.0 and it is what
    // decides whether an extension's hooks/hooks.json is read at all.
    let settings_path = sb.client_home().join("settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings_path).unwrap()).unwrap();
    settings.as_object_mut().unwrap().remove("hooksConfig");
    std::fs::write(&settings_path, settings.to_string()).unwrap();

    let ext = link_extension(&sb);
    let install = sb
        .client_home()
        .join("extensions/omc-hooks/.gemini-extension-install.json");
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(&install)
            .unwrap_or_else(|e| panic!("{} after the link: {e}", install.display())),
    )
    .unwrap();
    assert_eq!(meta["type"], "link", "{meta}");
    assert_eq!(meta["source"], ext.to_str().unwrap(), "{meta}");
    // the hooks come only from the extension
    assert!(!sb.project().join(".gemini").exists());

    let run = sb.run(
        PROMPT,
        AgentScenario::new()
            .reply_text(MORE)
            .reply_text(DONE)
            .reply_text("unexpected extra turn"),
    );
    a_ralph_loop_ran_to_its_token(
        Agent::Gemini,
        &sb,
        &run,
        "<hook_context>[MAGIC KEYWORD: RALPH]",
    );
}

/// `codex plugin marketplace add <checkout>` + `codex plugin add omc-hooks@omc-hooks` into a
/// fresh `CODEX_HOME` with `[features] plugins` on and nothing said about `plugin_hooks` (a
/// removed flag in 0.169.0): Codex copies the plugin into its cache and reads
/// `extensions/codex/hooks.json` there. No run bypasses hook trust: untrusted, the plugin's hooks
/// are skipped without a word; once trusted in `config.toml` (keyed by plugin id and the hooks
/// file's path in the plugin) they run from the copy with `PLUGIN_ROOT` set to it, and a
/// `ralph …` prompt runs to its completion token on those hooks alone.
#[test]
fn the_installed_codex_plugin_runs_a_ralph_loop() {
    let sb = AgentSandbox::new(Agent::Codex);
    let root = install_plugin(&sb);
    let cfg = std::fs::read_to_string(sb.client_home().join("config.toml")).unwrap();
    assert!(
        cfg.contains("[plugins.\"omc-hooks@omc-hooks\"]\nenabled = true"),
        "{cfg}"
    );
    assert!(!cfg.contains("plugin_hooks"), "{cfg}");
    for rel in [
        ".codex-plugin/plugin.json",
        "extensions/codex/hooks.json",
        "target/release/omc-hooks",
    ] {
        assert!(root.join(rel).is_file(), "{} in the plugin cache", rel);
    }
    // the hooks come only from the plugin
    assert!(!sb.project().join(".codex").exists());
    assert!(!sb.client_home().join("hooks.json").exists());

    // installed and enabled, but not trusted: nothing of ours runs
    let untrusted = sb.run(
        PROMPT,
        AgentScenario::new().trusted_hooks_only().reply_text(DONE),
    );
    untrusted.assert_success();
    let d = untrusted.diagnostics();
    assert!(
        !untrusted.shown_text(0).contains("[MAGIC KEYWORD: RALPH]"),
        "an untrusted plugin hook ran: {d}"
    );
    assert!(!sb.omc_dir().exists(), "{d}");

    let cfg_path = sb.client_home().join("config.toml");
    let mut cfg = std::fs::read_to_string(&cfg_path).unwrap();
    cfg.push_str(&trust_entries_as(
        &root.join("extensions/codex/hooks.json"),
        "omc-hooks@omc-hooks:extensions/codex/hooks.json",
    ));
    std::fs::write(&cfg_path, cfg).unwrap();

    let run = sb.run(
        PROMPT,
        AgentScenario::new()
            .trusted_hooks_only()
            .reply_text(MORE)
            .reply_text(DONE)
            .reply_text("unexpected extra turn"),
    );
    a_ralph_loop_ran_to_its_token(Agent::Codex, &sb, &run, "[MAGIC KEYWORD: RALPH]");
}

/// A `ralph …` run of two model turns on the package's hooks: the keyword context (`context`,
/// as the client wraps it) reached the model, one continuation restated the task (as the
/// client wraps a continuation), and the run ended `completed` at iteration 2.
fn a_ralph_loop_ran_to_its_token(agent: Agent, sb: &AgentSandbox, run: &AgentRun, context: &str) {
    run.assert_success();
    let d = run.diagnostics();
    let shown = run.shown_text(0);
    assert!(
        shown.contains(context),
        "the keyword context reached the model: {shown}\n{d}"
    );
    assert_eq!(run.main_requests().len(), 2, "{d}");
    assert_eq!(run.unused_steps, 1, "no continuation after the token: {d}");
    let conts = continuations(run);
    assert_eq!(conts.len(), 1, "{d}");
    assert_wrapped(agent, &conts[0], "[RALPH LOOP - ITERATION 2/100]");
    assert!(
        conts[0].contains(PROMPT),
        "the continuation restates the task verbatim: {}\n{d}",
        conts[0]
    );
    let s = ralph_state(sb, &run.session_id).expect("ralph-state.json for the client's session");
    assert_eq!(s["active"], false, "{s:#}");
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
    assert_eq!(s["iteration"], 2, "{s:#}");
}
