//! `install --agent NAME` / `uninstall --agent NAME` for Codex, Gemini CLI, Qwen Code, Cursor
//! and the clients that copy Claude Code's format in their own folder (Factory Droid,
//! CodeBuddy, Qoder): each agent's file in its place and shape (timeouts in its unit), merged with what is
//! there, idempotent, given back byte for byte by uninstall (also Codex's `config.toml`, whose
//! feature switch is added only for a Codex that needs it), and the commands written really run
//! the hooks in that agent's format. Kimi CLI's TOML block and Cline's folder of hook scripts
//! have a test each.

use crate::common::assert_has;
use crate::common::{BIN, Project};
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const AGENTS: [(&str, &str); 8] = [
    ("codex", ".codex/hooks.json"),
    ("gemini", ".gemini/settings.json"),
    ("qwen", ".qwen/settings.json"),
    ("cursor", ".cursor/hooks.json"),
    ("factory", ".factory/settings.json"),
    ("codebuddy", ".codebuddy/settings.json"),
    ("qoder", ".qoder/settings.json"),
    ("auggie", ".augment/settings.json"),
];

fn omc(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
    c.args(args)
        .current_dir(cwd)
        .env("OMC_NOW_MS", "1796305500000")
        .env("PATH", "/usr/bin:/bin")
        // a project install is noted in the user's registry: never the real one
        .env("XDG_DATA_HOME", data_home())
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("GEMINI_CLI_HOME")
        .env_remove("QWEN_HOME")
        .env_remove("FACTORY_HOME_OVERRIDE")
        .env_remove("CODEBUDDY_CONFIG_DIR")
        .env_remove("QODER_CONFIG_DIR")
        .env_remove("QODER_CLI_HOME")
        .env_remove("KIMI_SHARE_DIR")
        .env_remove("CLINE_DIR")
        .stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// The data directory (and so the install registry) of this test process.
fn data_home() -> String {
    format!("{}/data", crate::common::test_state_home())
}

#[track_caller]
fn ok(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

fn read(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// Every (event, matcher, command, timeout) of ours in an installed file.
fn entries(agent: &str, v: &Value) -> Vec<(String, Option<String>, String, u64)> {
    let mut out = Vec::new();
    for (event, list) in v["hooks"].as_object().unwrap() {
        for item in list.as_array().unwrap() {
            let handlers: Vec<&Value> = if agent == "cursor" {
                vec![item]
            } else {
                item["hooks"].as_array().unwrap().iter().collect()
            };
            for h in handlers {
                let cmd = h["command"].as_str().unwrap().to_string();
                if cmd.contains("omc-hooks") {
                    out.push((
                        event.clone(),
                        item["matcher"].as_str().map(str::to_string),
                        cmd,
                        h["timeout"].as_u64().unwrap(),
                    ));
                }
            }
        }
    }
    out
}

/// Runs an installed hook command as the agent would (`sh -c`, in the project, `input` on
/// stdin, the clock fixed); it must exit 0. Returns its stdout.
fn run_installed(cmd: &str, dir: &Path, input: &Value) -> String {
    use std::io::Write;
    let mut child = Command::new("sh")
        .args(["-c", cmd])
        .current_dir(dir)
        .env("OMC_NOW_MS", "1796305500000")
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{cmd}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_agent_installs_into_an_existing_file_and_uninstalls_byte_for_byte() {
    for (agent, rel) in AGENTS {
        let p = Project::new();
        let file = p.path().join(rel);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        // The user's own file: their settings and one hook of theirs, 4-space indented.
        let user_hook = if agent == "cursor" {
            json!({"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}]}})
        } else {
            json!({"model": {"name": "m"}, "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "./hello.sh"}]}]}})
        };
        let mut original = serde_json::to_string_pretty(&user_hook)
            .unwrap()
            .replace("  ", "    ");
        original.push('\n');
        std::fs::write(&file, &original).unwrap();

        let text = ok(&omc(
            &["install", "--agent", agent, "--project", "."],
            p.path(),
            &[],
        ));
        assert!(text.contains("Installed omc-hooks for"), "{agent}: {text}");
        // The project is noted in the registry under the agent's name, as its schema allows.
        let registry = Path::new(&data_home()).join("omc-hooks/installs.json");
        crate::schema::assert_valid("installs", &read(&registry));
        let v = read(&file);
        let ours = entries(agent, &v);
        let table: Vec<_> = omc_hooks::protocol::agents::table::rows(
            omc_hooks::protocol::Agent::parse(agent).unwrap().wire(),
        )
        .filter(|r| r.install != omc_hooks::protocol::agents::table::Install::No)
        // Issue 46's three events are written for Claude Code alone, not its clones.
        .filter(|r| {
            agent == "claude"
                || !omc_hooks::protocol::agents::table::CLAUDE_CODE_ONLY.contains(&r.event)
        })
        .collect();
        assert_eq!(
            ours.len(),
            table.len(),
            "{agent}: one entry per installed row"
        );
        for r in &table {
            let e = ours
                .iter()
                .find(|(ev, ..)| ev == r.event)
                .unwrap_or_else(|| panic!("{agent}: no {} entry", r.event));
            assert!(
                e.2.ends_with(&format!(" --agent {agent} {}", r.hook)),
                "{agent}: {}",
                e.2
            );
            let want_matcher = match r.install {
                omc_hooks::protocol::agents::table::Install::Matcher(m) => Some(m.to_string()),
                _ => None,
            };
            assert_eq!(e.1, want_matcher, "{agent} {}", r.event);
            let secs = if r.hook == "session-end" {
                2
            } else if [
                "session-start",
                "pre-tool-use",
                "permission-request",
                "post-tool-use",
                "post-tool-use-failure",
                "subagent-start",
                "subagent-stop",
            ]
            .contains(&r.hook)
            {
                5
            } else {
                10
            };
            let want = if ["gemini", "auggie"].contains(&agent) {
                secs * 1000
            } else {
                secs
            };
            assert_eq!(e.3, want, "{agent} {}: timeout unit", r.hook);
        }
        // The user's hook and settings are still there, first.
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(if agent == "cursor" {
            "./fmt.sh"
        } else {
            "./hello.sh"
        }));
        assert!(
            text.contains("\n    \""),
            "{agent}: the file's indentation is kept"
        );
        if agent == "gemini" {
            assert_eq!(v["hooksConfig"]["enabled"], true);
        }
        // Issue 24: the client's own cap, which counts every continuation of a prompt, is
        // lifted so that a working run goes on (our cap hands back a model that does nothing).
        if agent == "qwen" {
            assert_eq!(v["stopHookBlockingCap"], 100);
        }
        if agent == "cursor" {
            let stop = &v["hooks"]["stop"][0];
            assert!(stop.get("loop_limit").is_some_and(Value::is_null), "{stop}");
            assert!(v["hooks"]["preToolUse"][0].get("loop_limit").is_none());
        }
        // Idempotent.
        let again = ok(&omc(
            &["install", "--agent", agent, "--project", "."],
            p.path(),
            &[],
        ));
        assert!(again.contains("nothing changed"), "{agent}: {again}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
        // Uninstall gives the original bytes back, and leaves no record behind.
        let out = ok(&omc(
            &["uninstall", "--agent", agent, "--project", "."],
            p.path(),
            &[],
        ));
        assert!(out.contains("Removed"), "{agent}: {out}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), original, "{agent}");
        assert!(
            !file.with_file_name("omc-hooks-install.json").exists(),
            "{agent}"
        );
        let again = ok(&omc(
            &["uninstall", "--agent", agent, "--project", "."],
            p.path(),
            &[],
        ));
        assert!(again.contains("not installed"), "{agent}: {again}");
    }
}

#[test]
fn qwens_own_block_cap_of_the_user_is_kept_and_named() {
    let p = Project::new();
    let file = p.path().join(".qwen/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let original = "{\n  \"stopHookBlockingCap\": 8\n}\n";
    std::fs::write(&file, original).unwrap();
    let out = omc(
        &["install", "--agent", "qwen", "--project", "."],
        p.path(),
        &[],
    );
    let text = format!("{}{}", ok(&out), String::from_utf8_lossy(&out.stderr));
    assert!(
        text.contains(
            "\"stopHookBlockingCap\": 8 in this file ends a run's turn after 7 continuations"
        ),
        "{text}"
    );
    assert_eq!(
        read(&file)["stopHookBlockingCap"],
        8,
        "the user's value stays"
    );
    ok(&omc(
        &["uninstall", "--agent", "qwen", "--project", "."],
        p.path(),
        &[],
    ));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
}

#[test]
fn a_file_install_created_goes_away_with_uninstall() {
    for (agent, rel) in AGENTS {
        let p = Project::new();
        ok(&omc(&["install", "--agent", agent], p.path(), &[]));
        let file = p.path().join(rel);
        assert!(file.is_file(), "{agent}");
        if agent == "cursor" {
            assert_eq!(read(&file)["version"], 1);
        }
        ok(&omc(&["uninstall", "--agent", agent], p.path(), &[]));
        assert!(!file.exists(), "{agent}");
        assert!(
            !file.parent().unwrap().exists(),
            "{agent}: the directory install made"
        );
        assert_eq!(p.files(), Vec::<String>::new(), "{agent}");
    }
}

#[test]
fn user_scope_follows_each_clients_home() {
    let p = Project::new();
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let codex_home = h.join("codex-home");
    let (g, q) = (h.join("g"), h.join("q"));
    let (cb, qh) = (h.join("cb"), h.join("qh"));
    let env = [
        ("HOME", h.to_str().unwrap()),
        ("CODEX_HOME", codex_home.to_str().unwrap()),
        ("GEMINI_CLI_HOME", g.to_str().unwrap()),
        ("QWEN_HOME", q.to_str().unwrap()),
        ("CODEBUDDY_CONFIG_DIR", cb.to_str().unwrap()),
        ("QODER_CLI_HOME", qh.to_str().unwrap()),
    ];
    for (agent, want) in [
        ("codex", codex_home.join("hooks.json")),
        ("gemini", h.join("g/.gemini/settings.json")),
        ("qwen", h.join("q/settings.json")),
        ("cursor", h.join(".cursor/hooks.json")),
        ("droid", h.join(".factory/settings.json")),
        ("codebuddy", h.join("cb/settings.json")),
        ("qoder", h.join("qh/.qoder/settings.json")),
    ] {
        let text = ok(&omc(
            &["install", "--agent", agent, "--user"],
            p.path(),
            &env,
        ));
        assert!(want.is_file(), "{agent}: {text}");
        ok(&omc(
            &["uninstall", "--agent", agent, "--user"],
            p.path(),
            &env,
        ));
        assert!(!want.exists(), "{agent}");
    }
    assert!(!p.path().join(".codex").exists());
}

/// A fake `codex` on PATH that reports `version`.
fn fake_codex(dir: &Path, version: &str) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let f = bin.join("codex");
    std::fs::write(&f, format!("#!/bin/sh\necho 'codex-cli {version}'\n")).unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

#[test]
fn codex_gets_its_feature_switch_only_when_its_version_needs_it() {
    let tools = tempfile::tempdir().unwrap();
    let config_text = "# my Codex settings\nmodel = \"gpt-5\"   # keep this comment\n\n[features]\nplugins = false\n\n[projects.\"/x\"]\ntrust_level = \"trusted\"\n";

    // An old Codex: the switch is added under [features], and taken out again exactly.
    let p = Project::new();
    let config = p.path().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, config_text).unwrap();
    let old = fake_codex(&tools.path().join("old"), "0.120.0");
    let path = format!("{}:/usr/bin:/bin", old.display());
    let text = ok(&omc(
        &["install", "--agent", "codex"],
        p.path(),
        &[("PATH", &path)],
    ));
    assert_has(&text, "added `[features] codex_hooks = true`");
    let edited = std::fs::read_to_string(&config).unwrap();
    assert!(
        edited.starts_with("# my Codex settings\nmodel = \"gpt-5\"   # keep this comment\n"),
        "{edited}"
    );
    assert_has(
        &edited,
        "plugins = false\ncodex_hooks = true # added by omc-hooks install",
    );
    let again = ok(&omc(
        &["install", "--agent", "codex"],
        p.path(),
        &[("PATH", &path)],
    ));
    assert_has(&again, "nothing changed");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), edited);
    ok(&omc(
        &["uninstall", "--agent", "codex"],
        p.path(),
        &[("PATH", &path)],
    ));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), config_text);
    assert!(!p.path().join(".codex/hooks.json").exists());

    // An old Codex and no config.toml: a file of install's own, gone after uninstall.
    let p = Project::new();
    ok(&omc(
        &["install", "--agent", "codex"],
        p.path(),
        &[("PATH", &path)],
    ));
    assert!(
        std::fs::read_to_string(p.path().join(".codex/config.toml"))
            .unwrap()
            .contains("[features]")
    );
    ok(&omc(
        &["uninstall", "--agent", "codex"],
        p.path(),
        &[("PATH", &path)],
    ));
    assert_eq!(p.files(), Vec::<String>::new());

    // A current Codex runs hooks by default: config.toml is not touched.
    let p = Project::new();
    let new = fake_codex(&tools.path().join("new"), "0.169.0");
    let path = format!("{}:/usr/bin:/bin", new.display());
    ok(&omc(
        &["install", "--agent", "codex"],
        p.path(),
        &[("PATH", &path)],
    ));
    assert!(!p.path().join(".codex/config.toml").exists());

    // A switch the user turned off is reported, not flipped.
    let p = Project::new();
    let config = p.path().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[features]\nhooks = false\n").unwrap();
    let text = ok(&omc(
        &["install", "--agent", "codex"],
        p.path(),
        &[("PATH", &path)],
    ));
    assert_has(&text, "[features] hooks = false");
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "[features]\nhooks = false\n"
    );

    // No codex on PATH: a note, nothing written to config.toml.
    let p = Project::new();
    let text = ok(&omc(&["install", "--agent", "codex"], p.path(), &[]));
    assert_has(&text, "no `codex` on PATH");
    assert!(text.contains("/hooks"), "the trust note: {text}");
    assert!(!p.path().join(".codex/config.toml").exists());
}

#[test]
fn the_installed_commands_run_the_hooks_in_each_agents_format() {
    for (agent, rel) in AGENTS {
        let p = Project::new();
        ok(&omc(&["install", "--agent", agent], p.path(), &[]));
        let v = read(&p.path().join(rel));
        let ours = entries(agent, &v);
        let command = |event: &str| {
            ours.iter()
                .find(|(e, ..)| e == event)
                .map(|(_, _, c, _)| c.clone())
                .unwrap()
        };
        let (prompt_event, stop_event) = match agent {
            "gemini" => ("BeforeAgent", "AfterAgent"),
            "cursor" => ("beforeSubmitPrompt", "stop"),
            _ => ("UserPromptSubmit", "Stop"),
        };
        let payload = |event: &str, extra: Value| {
            let mut v = json!({"session_id": "inst-1", "conversation_id": "inst-1", "cwd": p.path(),
                               "workspace_roots": [p.path()], "hook_event_name": event});
            for (k, x) in extra.as_object().unwrap() {
                v[k] = x.clone();
            }
            if agent != "cursor" {
                v.as_object_mut().unwrap().remove("conversation_id");
            }
            v
        };
        let run = |cmd: String, input: Value| run_installed(&cmd, p.path(), &input);
        if agent == "auggie" {
            // Its prompt and Stop hooks are not installed (their answers are not read): the
            // tool hook's context is what works.
            let answer: Value = serde_json::from_str(
                run(
                    command("PostToolUse"),
                    payload(
                        "PostToolUse",
                        json!({"tool_name": "launch-process", "tool_input": {"command": "make"},
                               "tool_output": "<return-code> 2 </return-code> <output> no rule </output>",
                               "tool_error": "<return-code> 2 </return-code> <output> no rule </output>"}),
                    ),
                )
                .trim(),
            )
            .unwrap_or_else(|e| panic!("{agent}: {e}"));
            assert!(
                answer["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .is_some_and(|t| t.contains("[TOOL ERROR")),
                "{agent}: {answer}"
            );
            continue;
        }
        run(
            command(prompt_event),
            payload(prompt_event, json!({"prompt": "ralph fix the parser"})),
        );
        let answer: Value = serde_json::from_str(
            run(
                command(stop_event),
                payload(
                    stop_event,
                    json!({"stop_hook_active": false, "loop_count": 0}),
                ),
            )
            .trim(),
        )
        .unwrap_or_else(|e| panic!("{agent}: {e}"));
        let continues = match agent {
            "gemini" => answer["decision"] == "deny",
            "cursor" => answer["followup_message"].is_string(),
            _ => answer["decision"] == "block",
        };
        assert!(continues, "{agent}: {answer}");
    }
}

#[test]
fn usage_errors_and_refusals() {
    let p = Project::new();
    let out = omc(&["install", "--agent", "vim"], p.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown agent 'vim'"));
    assert_eq!(
        omc(&["install", "--agent"], p.path(), &[]).status.code(),
        Some(2)
    );
    assert_eq!(
        omc(
            &["install", "--agent", "codex", "--agent", "qwen"],
            p.path(),
            &[]
        )
        .status
        .code(),
        Some(2)
    );
    let f = p.path().join(".gemini/settings.json");
    std::fs::create_dir_all(f.parent().unwrap()).unwrap();
    std::fs::write(&f, "{ not json").unwrap();
    let out = omc(&["install", "--agent", "gemini"], p.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "{ not json");
    // --agent claude is the Claude Code settings file, as without --agent (its default scope:
    // this machine's settings.local.json).
    ok(&omc(&["install", "--agent", "claude"], p.path(), &[]));
    assert!(p.path().join(".claude/settings.local.json").is_file());
}

#[test]
fn doctor_checks_the_other_agents_installs() {
    let p = Project::new();
    let home = tempfile::tempdir().unwrap();
    let env = [("HOME", home.path().to_str().unwrap())];
    ok(&omc(&["install", "--agent", "gemini"], p.path(), &env));
    ok(&omc(&["install", "--agent", "codex"], p.path(), &env));
    let doctor = |p: &Project| omc(&["doctor"], p.path(), &env);
    let out = doctor(&p);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_has(&text, ".gemini/settings.json: installed, 7 of 7 hooks");
    assert_has(&text, ".codex/hooks.json: installed, 10 of 10 hooks");
    assert_has(&text, "trust the omc-hooks entries");
    // Gemini's switch off, a hook removed by hand: both named, with the fix.
    let f = p.path().join(".gemini/settings.json");
    let mut v = read(&f);
    v["hooksConfig"]["enabled"] = json!(false);
    v["hooks"].as_object_mut().unwrap().remove("PreCompress");
    std::fs::write(&f, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let out = doctor(&p);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_has(&text, "lacks the Gemini CLI hooks pre-compact");
    assert_has(&text, "\"hooksConfig\": {\"enabled\": false}");
    assert_has(&text, "install --agent gemini' again");

    // A Claude-format client in its own folder: the same check, and Qoder's off switch.
    ok(&omc(&["install", "--agent", "qoder"], p.path(), &env));
    let text = String::from_utf8_lossy(&doctor(&p).stdout).into_owned();
    assert_has(&text, ".qoder/settings.json: installed, 11 of 11 hooks");
    let f = p.path().join(".qoder/settings.json");
    let mut v = read(&f);
    v["disableAllHooks"] = json!(true);
    std::fs::write(&f, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let text = String::from_utf8_lossy(&doctor(&p).stdout).into_owned();
    assert_has(&text, ".qoder/settings.json: \"disableAllHooks\": true");
}

#[test]
fn status_all_lists_a_project_installed_for_another_agent() {
    let data = tempfile::tempdir().unwrap();
    let data_s = data.path().to_str().unwrap();
    let env = [("XDG_DATA_HOME", data_s)];
    let registry = data.path().join("omc-hooks/installs.json");
    let p = Project::new();
    let out = ok(&omc(&["install", "--agent", "gemini"], p.path(), &env));
    assert_has(&out, "status --all");
    let reg = read(&registry);
    let noted = reg["agent_installs"].as_array().unwrap();
    assert_eq!(noted.len(), 1, "{reg}");
    assert_eq!(noted[0]["agent"], "gemini");
    let project = p.path().canonicalize().unwrap();
    assert_eq!(noted[0]["project"], project.to_str().unwrap());
    crate::schema::assert_valid("installs", &reg);

    // A run of that project shows in the view of every project.
    let run = json!({
        "schema_version": 1, "mode": "ralph", "active": true, "session_id": "g1",
        "project_path": project, "started_at": "2026-12-03T08:00:00Z",
        "last_checked_at": "2026-12-03T08:05:00Z", "iteration": 4, "max_iterations": 100,
        "prompt": "ralph fix the flaky test", "agent": "gemini"
    });
    p.write_json(".omc/state/sessions/g1/ralph-state.json", &run);
    let v: Value =
        serde_json::from_str(&ok(&omc(&["status", "--all", "--json"], p.path(), &env))).unwrap();
    let projects = v["projects"].as_array().unwrap();
    assert_eq!(projects.len(), 1, "{v}");
    let runs = projects[0]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{v}");
    assert_eq!(runs[0]["agent"], "gemini");
    assert_eq!(runs[0]["iteration"], 4);

    // Installing again keeps one note; uninstall takes it back, and the registry goes with it.
    ok(&omc(&["install", "--agent", "gemini"], p.path(), &env));
    assert_eq!(
        read(&registry)["agent_installs"].as_array().unwrap().len(),
        1
    );
    ok(&omc(&["uninstall", "--agent", "gemini"], p.path(), &env));
    assert!(!registry.exists(), "the last note gone, the registry goes");

    // A user-level install serves every project and is not noted.
    let home = tempfile::tempdir().unwrap();
    let home_s = home.path().to_str().unwrap();
    let env = [("XDG_DATA_HOME", data_s), ("HOME", home_s)];
    ok(&omc(
        &["install", "--agent", "qwen", "--user"],
        p.path(),
        &env,
    ));
    assert!(!registry.exists());
    ok(&omc(
        &["uninstall", "--agent", "qwen", "--user"],
        p.path(),
        &env,
    ));
}

/// Kimi CLI: `[[hooks]]` tables at the end of the user's `config.toml`, in one marked block
/// that uninstall cuts out again to the byte; no project install.
#[test]
fn kimi_gets_its_hooks_in_its_config_toml_and_back_byte_for_byte() {
    let p = Project::new();
    let home = tempfile::tempdir().unwrap();
    let share = home.path().join("kimi-share");
    std::fs::create_dir_all(&share).unwrap();
    let env = [
        ("HOME", home.path().to_str().unwrap()),
        ("KIMI_SHARE_DIR", share.to_str().unwrap()),
    ];
    let file = share.join("config.toml");
    // The person's file: a provider, a hook of theirs, no line break at the end.
    let original = "default_model = \"k2\"\n\n[providers.moonshot]\ntype = \"kimi\"\nbase_url = \"https://x\"\napi_key = \"sk\"\n\n[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"Shell\"\ncommand = \"./guard.sh\"";
    std::fs::write(&file, original).unwrap();

    // A project install is refused: Kimi reads no project file.
    let out = omc(&["install", "--agent", "kimi"], p.path(), &env);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--user"));
    assert_eq!(p.files(), Vec::<String>::new());

    let text = ok(&omc(
        &["install", "--agent", "kimi", "--user"],
        p.path(),
        &env,
    ));
    assert_has(&text, "Installed omc-hooks for Kimi CLI");
    let installed = std::fs::read_to_string(&file).unwrap();
    assert!(installed.starts_with(original));
    let doc: toml_edit::DocumentMut = installed.parse().unwrap();
    let hooks: Vec<&toml_edit::Table> = doc["hooks"].as_array_of_tables().unwrap().iter().collect();
    let rows: Vec<_> =
        omc_hooks::protocol::agents::table::rows(omc_hooks::protocol::agent::Wire::Kimi)
            .filter(|r| r.install != omc_hooks::protocol::agents::table::Install::No)
            .collect();
    assert_eq!(hooks.len(), rows.len() + 1, "ours after the person's own");
    assert_eq!(hooks[0]["command"].as_str(), Some("./guard.sh"));
    let get = |h: &toml_edit::Table, k: &str| h.get(k).and_then(|i| i.as_str()).map(str::to_string);
    for r in &rows {
        let h = hooks
            .iter()
            .find(|h| {
                get(h, "event").as_deref() == Some(r.event)
                    && get(h, "command").as_deref() != Some("./guard.sh")
            })
            .unwrap_or_else(|| panic!("no {}", r.event));
        let cmd = get(h, "command").unwrap();
        assert!(cmd.ends_with(&format!(" --agent kimi {}", r.hook)), "{cmd}");
        assert!(
            h.get("matcher").is_none(),
            "{}: '*' is no regex for Kimi",
            r.event
        );
        assert!((1..=600).contains(&h["timeout"].as_integer().unwrap()));
    }
    // Idempotent.
    let again = ok(&omc(
        &["install", "--agent", "kimi", "--user"],
        p.path(),
        &env,
    ));
    assert_has(&again, "nothing changed");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), installed);
    // The installed commands run the hooks, answered in Claude Code's format.
    let stop = hooks
        .iter()
        .filter(|h| get(h, "event").as_deref() == Some("PreToolUse"))
        .find_map(|h| get(h, "command").filter(|c| c != "./guard.sh"))
        .unwrap();
    run_installed(
        &stop,
        p.path(),
        &json!({"hook_event_name": "PreToolUse", "session_id": "k1", "cwd": p.path(),
                "tool_name": "Shell", "tool_input": {"command": "ls"}, "tool_call_id": "c1"}),
    );
    // Uninstall gives back the very bytes, final line break missing and all.
    let out = ok(&omc(
        &["uninstall", "--agent", "kimi", "--user"],
        p.path(),
        &env,
    ));
    assert_has(&out, "Removed 10");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
    assert!(!share.join("omc-hooks-install.json").exists());
    let again = ok(&omc(
        &["uninstall", "--agent", "kimi", "--user"],
        p.path(),
        &env,
    ));
    assert_has(&again, "not installed");

    // A file and folder install created go away with uninstall; doctor sees the install.
    let fresh = home.path().join(".kimi");
    let env = [("HOME", home.path().to_str().unwrap())];
    ok(&omc(
        &["install", "--agent", "kimi", "--user"],
        p.path(),
        &env,
    ));
    assert!(fresh.join("config.toml").is_file());
    let doctor = String::from_utf8_lossy(&omc(&["doctor"], p.path(), &env).stdout).into_owned();
    assert_has(&doctor, ".kimi/config.toml: installed, 10 of 10 hooks");
    ok(&omc(
        &["uninstall", "--agent", "kimi", "--user"],
        p.path(),
        &env,
    ));
    assert!(!fresh.exists());

    // `hooks` that is not a list of tables: refused, untouched.
    std::fs::write(&file, "hooks = []\n").unwrap();
    let env = [
        ("HOME", home.path().to_str().unwrap()),
        ("KIMI_SHARE_DIR", share.to_str().unwrap()),
    ];
    let out = omc(&["install", "--agent", "kimi", "--user"], p.path(), &env);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hooks = []\n");
}

/// Every file under `dir` with its bytes and mode, for a byte-for-byte comparison of a tree.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>, u32)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            if rel == ".git" {
                continue;
            }
            let mode = e.metadata().unwrap().permissions().mode();
            if p.is_dir() {
                out.push((format!("{rel}/"), Vec::new(), mode));
                stack.push(p);
            } else {
                out.push((rel, std::fs::read(&p).unwrap(), mode));
            }
        }
    }
    out.sort();
    out
}

/// GitHub Copilot CLI: a hook file of our own in the repository's `.github/hooks/` (Copilot
/// reads every `*.json` there; tests/e2e/copilot-FINDINGS.md §1), flat entries under Claude
/// Code's event names with `timeoutSec`; the record of what install made is a dotfile Copilot
/// does not read. Uninstall gives the tree back as it was: the folders install made go, the
/// person's own files and folders stay.
#[test]
fn copilot_gets_a_hook_file_of_its_own_and_uninstall_gives_the_tree_back() {
    use omc_hooks::protocol::agents::table::{self, Install};
    // An empty project, one with .github/ (a workflow), one with a hook file of the person's.
    for setup in ["", ".github/workflows/ci.yml", ".github/hooks/audit.json"] {
        let p = Project::new();
        if !setup.is_empty() {
            p.write_json(setup, &json!({"version": 1, "hooks": {}}));
        }
        let before = tree(p.path());
        let text = ok(&omc(&["install", "--agent", "copilot"], p.path(), &[]));
        assert_has(&text, "Installed omc-hooks for GitHub Copilot CLI");
        assert!(
            text.contains("--trust-folder"),
            "the trust step is said: {text}"
        );
        let file = p.path().join(".github/hooks/omc-hooks.json");
        let v = read(&file);
        assert_eq!(v["version"], 1);
        let rows: Vec<_> = table::rows(omc_hooks::protocol::agents::Wire::Copilot)
            .filter(|r| r.install != Install::No)
            .collect();
        assert_eq!(v["hooks"].as_object().unwrap().len(), rows.len(), "{v}");
        for r in &rows {
            let list = v["hooks"][r.event].as_array().unwrap();
            assert_eq!(list.len(), 1, "{}: {v}", r.event);
            let h = &list[0];
            assert_eq!(h["type"], "command");
            assert!(
                h["command"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!(" --agent copilot {}", r.hook)),
                "{h}"
            );
            assert!(h["timeoutSec"].as_u64().unwrap() > 0, "{h}");
            assert!(h.get("hooks").is_none(), "flat, not matcher groups: {h}");
        }
        // Nothing in the hooks folder but ours (and the person's) is JSON: Copilot would read it.
        let jsons: Vec<String> = std::fs::read_dir(file.parent().unwrap())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".json"))
            .collect();
        let mut want = vec!["omc-hooks.json".to_string()];
        if setup.ends_with("audit.json") {
            want.push("audit.json".into());
        }
        let mut jsons = jsons;
        jsons.sort();
        want.sort();
        assert_eq!(jsons, want);
        let installed = std::fs::read_to_string(&file).unwrap();
        let again = ok(&omc(&["install", "--agent", "copilot"], p.path(), &[]));
        assert_has(&again, "nothing changed");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), installed);
        let out = ok(&omc(&["uninstall", "--agent", "copilot"], p.path(), &[]));
        assert_has(&out, "Removed");
        assert_eq!(
            tree(p.path()),
            before,
            "setup {setup:?}: the tree as it was"
        );
    }
}

#[test]
fn copilot_user_hooks_live_in_copilot_home() {
    let p = Project::new();
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let ch = h.join("copilot-home");
    for (env, want) in [
        (
            vec![("HOME", h.to_str().unwrap())],
            h.join(".copilot/hooks/omc-hooks.json"),
        ),
        (
            vec![
                ("HOME", h.to_str().unwrap()),
                ("COPILOT_HOME", ch.to_str().unwrap()),
            ],
            ch.join("hooks/omc-hooks.json"),
        ),
    ] {
        let text = ok(&omc(
            &["install", "--agent", "github-copilot", "--user"],
            p.path(),
            &env,
        ));
        assert!(want.is_file(), "{text}");
        assert!(
            text.contains("without asking"),
            "user hooks need no trust: {text}"
        );
        ok(&omc(
            &["uninstall", "--agent", "copilot", "--user"],
            p.path(),
            &env,
        ));
        assert!(!want.exists());
        assert!(
            !want.parent().unwrap().exists(),
            "the hooks folder install made"
        );
    }
    assert_eq!(p.files(), Vec::<String>::new());
}

/// The installed commands answer Copilot's payloads (recorded from 1.0.102) in Copilot's
/// format; doctor names the file and the trust step.
#[test]
fn copilots_installed_commands_answer_in_its_format_and_doctor_checks_them() {
    let p = Project::new();
    let home = tempfile::tempdir().unwrap();
    let env = [("HOME", home.path().to_str().unwrap())];
    ok(&omc(&["install", "--agent", "copilot"], p.path(), &env));
    let v = read(&p.path().join(".github/hooks/omc-hooks.json"));
    let run = |event: &str, input: Value| {
        let cmd = v["hooks"][event][0]["command"]
            .as_str()
            .unwrap()
            .to_string();
        run_installed(&cmd, p.path(), &input).trim().to_string()
    };
    let base = json!({"session_id": "cop-1", "timestamp": "2026-12-04T07:09:45.812Z",
                      "cwd": p.path()});
    let with = |event: &str, extra: Value| {
        let mut x = base.clone();
        x["hook_event_name"] = json!(event);
        for (k, val) in extra.as_object().unwrap() {
            x[k] = val.clone();
        }
        x
    };
    let a: Value = serde_json::from_str(&run(
        "UserPromptSubmit",
        with(
            "UserPromptSubmit",
            json!({"prompt": "ralph fix the parser"}),
        ),
    ))
    .unwrap();
    assert!(
        a["additionalContext"]
            .as_str()
            .is_some_and(|c| c.contains("[MAGIC KEYWORD: RALPH]")),
        "context at the top level: {a}"
    );
    assert!(a.get("hookSpecificOutput").is_none(), "{a}");
    let a: Value = serde_json::from_str(&run(
        "Stop",
        with(
            "Stop",
            json!({"transcript_path": "/h/events.jsonl", "stop_reason": "end_turn",
                   "stop_hook_active": false}),
        ),
    ))
    .unwrap();
    assert_eq!(a["decision"], "block", "{a}");
    let doctor = String::from_utf8_lossy(&omc(&["doctor"], p.path(), &env).stdout).into_owned();
    assert_has(
        &doctor,
        ".github/hooks/omc-hooks.json: installed, 10 of 10 hooks",
    );
    assert_has(&doctor, "--trust-folder");
}

#[test]
fn cline_gets_one_script_per_event_and_the_folder_back_as_it_was() {
    use omc_hooks::protocol::agents::table::{Install, rows};
    let installed: Vec<_> = rows(omc_hooks::protocol::Agent::Cline.wire())
        .filter(|r| r.install != Install::No)
        .collect();
    // A project with rules and a hook script of the person's own for PreToolUse.
    let p = Project::new();
    let hooks = p.path().join(".clinerules/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::write(p.path().join(".clinerules/style.md"), "Use tabs.\n").unwrap();
    std::fs::write(hooks.join("PreToolUse.sh"), "#!/bin/sh\necho '{}'\n").unwrap();
    std::fs::set_permissions(
        hooks.join("PreToolUse.sh"),
        std::fs::Permissions::from_mode(0o750),
    )
    .unwrap();
    let before = tree(p.path());
    let text = ok(&omc(
        &["install", "--agent", "cline", "--project", "."],
        p.path(),
        &[],
    ));
    assert_has(&text, "Installed omc-hooks for Cline");
    let registry = Path::new(&data_home()).join("omc-hooks/installs.json");
    crate::schema::assert_valid("installs", &read(&registry));
    for r in &installed {
        let name = if r.event == "PreToolUse" {
            "PreToolUse.bash"
        } else {
            &format!("{}.sh", r.event)
        };
        let script =
            std::fs::read_to_string(hooks.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(script.starts_with("#!/bin/sh\n"), "{script}");
        assert!(
            script
                .trim_end()
                .ends_with(&format!(" --agent cline {}", r.hook)),
            "{script}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(hooks.join("PreToolUse.sh")).unwrap(),
        "#!/bin/sh\necho '{}'\n",
        "the person's script is theirs"
    );
    // Idempotent.
    let again = ok(&omc(
        &["install", "--agent", "cline", "--project", "."],
        p.path(),
        &[],
    ));
    assert_has(&again, "nothing changed");
    // The script Cline runs for PostToolUse answers a recorded failure in Cline's terms.
    let mut payload = read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cline/PostToolUse-failed.json"),
    );
    payload["workspaceRoots"] = json!([p.path()]);
    payload["workspaceInfo"]["rootPath"] = json!(p.path());
    let mut child = Command::new(hooks.join("PostToolUse.sh"))
        .current_dir(p.path())
        .env("XDG_DATA_HOME", data_home())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        answer["contextModification"]
            .as_str()
            .is_some_and(|t| t.contains("run_commands")),
        "{answer}"
    );
    let doctor = String::from_utf8_lossy(&omc(&["doctor"], p.path(), &[]).stdout).into_owned();
    assert_has(
        &doctor,
        &format!(
            ".clinerules/hooks: installed, {n} of {n} hooks",
            n = installed.len()
        ),
    );
    // Uninstall: the very tree that was there, modes included.
    let out = ok(&omc(
        &["uninstall", "--agent", "cline", "--project", "."],
        p.path(),
        &[],
    ));
    assert_has(&out, "Removed");
    std::fs::remove_dir_all(p.path().join(".omc")).ok();
    assert_eq!(tree(p.path()), before);
    let again = ok(&omc(
        &["uninstall", "--agent", "cline", "--project", "."],
        p.path(),
        &[],
    ));
    assert_has(&again, "not installed");

    // A fresh project: the folders install made go again; the user scope follows CLINE_DIR.
    let fresh = Project::new();
    ok(&omc(&["install", "--agent", "cline"], fresh.path(), &[]));
    assert!(
        fresh
            .path()
            .join(".clinerules/hooks/PostToolUse.sh")
            .is_file()
    );
    ok(&omc(&["uninstall", "--agent", "cline"], fresh.path(), &[]));
    assert_eq!(fresh.files(), Vec::<String>::new());
    assert!(!fresh.path().join(".clinerules").exists());
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("cline-config");
    let env = [
        ("HOME", home.path().to_str().unwrap()),
        ("CLINE_DIR", dir.to_str().unwrap()),
    ];
    ok(&omc(
        &["install", "--agent", "cline", "--user"],
        fresh.path(),
        &env,
    ));
    assert!(dir.join("hooks/TaskStart.sh").is_file());
    ok(&omc(
        &["uninstall", "--agent", "cline", "--user"],
        fresh.path(),
        &env,
    ));
    assert!(!dir.exists());
}

#[test]
fn status_all_says_which_terminal_a_run_lives_in() {
    let data = tempfile::tempdir().unwrap();
    let data_s = data.path().to_str().unwrap();
    let env = [("XDG_DATA_HOME", data_s)];
    let p = Project::new();
    ok(&omc(&["install", "--agent", "gemini"], p.path(), &env));
    std::fs::create_dir_all(p.omc()).unwrap();
    // The session starts in iTerm on /dev/pts/7: session.json records it.
    let mut start = crate::common::payload("SessionStart", "t1", p.path());
    start["source"] = json!("startup");
    crate::common::Hook::new("session-start")
        .payload(start)
        .cwd(p.path())
        .env("TERM_PROGRAM", "iTerm.app")
        .env("OMC_TTY", "/dev/pts/7")
        .env("WEZTERM_PANE", "7")
        .run()
        .expect_valid();
    let marker = read(&p.session_dir("t1").join("session.json"));
    assert_eq!(marker["term_program"], "iTerm.app", "{marker}");
    assert_eq!(marker["tty"], "/dev/pts/7");
    crate::schema::assert_valid("session", &marker);
    let project = p.path().canonicalize().unwrap();
    p.write_json(
        ".omc/state/sessions/t1/ralph-state.json",
        &json!({
            "schema_version": 1, "mode": "ralph", "active": true, "session_id": "t1",
            "project_path": project, "started_at": "2026-12-03T08:00:00Z",
            "last_checked_at": "2026-12-03T08:05:00Z", "iteration": 2, "max_iterations": 100,
            "prompt": "ralph fix it"
        }),
    );
    let text = ok(&omc(&["status", "--all"], p.path(), &env));
    assert_has(&text, "iTerm.app /dev/pts/7 WezTerm pane 7");
    let v: Value =
        serde_json::from_str(&ok(&omc(&["status", "--all", "--json"], p.path(), &env))).unwrap();
    assert_eq!(
        v["projects"][0]["runs"][0]["terminal"],
        json!({"program": "iTerm.app", "tty": "/dev/pts/7", "id": "WezTerm pane 7"})
    );
}
