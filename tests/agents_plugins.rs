//! The agents served by our TypeScript plugin (OpenCode, Kilo Code, Pi): `install --agent`
//! writes one file of ours (the binary's path and the table's events baked in) and `uninstall`
//! gives the project back byte for byte, folders included; a file that is not ours is never
//! touched; `doctor` checks the plugin. Then the plugin itself, loaded by a stand-in host
//! (`tests/plugins/fake_host.mjs`, under Node.js) against this binary and against broken ones:
//! it applies each part of the answer the way its host takes it and fails open — a missing,
//! crashing, hanging or babbling binary is one diagnostic, never a thrown hook, a blocked call
//! or a held session. The real clients run the same file in `e2e_plugins`.

use crate::common::{BIN, Project, assert_exit_ok};
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// (agent, the plugin file in a project).
const PLUGINS: [(&str, &str); 3] = [
    ("opencode", ".opencode/plugins/omc-hooks.js"),
    ("kilo", ".kilo/plugins/omc-hooks.js"),
    ("pi", ".pi/extensions/omc-hooks.js"),
];

fn omc(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
    c.args(args)
        .current_dir(cwd)
        .env("OMC_NOW_MS", "1796305500000")
        .env(
            "XDG_DATA_HOME",
            format!("{}/data", crate::common::test_state_home()),
        )
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("PI_CODING_AGENT_DIR")
        .stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
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

use crate::common::{assert_has, assert_lacks};
use crate::install::snapshot;

/// The `CONFIG` object of a plugin file.
fn config(text: &str) -> Value {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("const CONFIG = "))
        .expect("a CONFIG line");
    serde_json::from_str(line.strip_suffix(';').unwrap()).unwrap()
}

fn canonical_bin() -> String {
    Path::new(BIN)
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[test]
fn each_plugin_is_one_file_of_ours_and_uninstall_gives_the_project_back() {
    for (agent, rel) in PLUGINS {
        // A project where the client's folder already holds something of the person's.
        let p = Project::new();
        let folder = rel.split('/').next().unwrap();
        std::fs::create_dir_all(p.path().join(folder).join("agent")).unwrap();
        std::fs::write(p.path().join(folder).join("agent/review.md"), "# mine\n").unwrap();
        let before = snapshot(p.path());

        let out = ok(&omc(
            &["install", "--agent", agent, "--project", "."],
            p.path(),
            &[],
        ));
        assert!(
            out.contains("Installed the omc-hooks plugin for"),
            "{agent}: {out}"
        );
        let file = p.path().join(rel);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.starts_with("// omc-hooks plugin for "), "{agent}");
        let c = config(&text);
        assert_eq!(c["agent"], agent);
        assert_eq!(
            c["bin"],
            canonical_bin(),
            "{agent}: the binary's absolute path"
        );
        // Every installed row of the table, with its hook and the manifest's timeout.
        let wire = omc_hooks::protocol::Agent::parse(agent).unwrap().wire();
        let rows: Vec<_> = omc_hooks::protocol::agents::table::rows(wire)
            .filter(|r| r.install != omc_hooks::protocol::agents::table::Install::No)
            .collect();
        let hooks = c["hooks"].as_object().unwrap();
        assert_eq!(hooks.len(), rows.len(), "{agent}");
        for r in rows {
            assert_eq!(hooks[r.event][0], r.hook, "{agent} {}", r.event);
            let ms = hooks[r.event][1].as_u64().unwrap();
            assert!((2000..=10000).contains(&ms), "{agent} {}: {ms}", r.event);
        }
        let registry =
            Path::new(&crate::common::test_state_home()).join("data/omc-hooks/installs.json");
        crate::schema::assert_valid(
            "installs",
            &serde_json::from_slice(&std::fs::read(registry).unwrap()).unwrap(),
        );

        let again = ok(&omc(
            &["install", "--agent", agent, "--project", "."],
            p.path(),
            &[],
        ));
        assert!(again.contains("nothing changed"), "{agent}: {again}");
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            text,
            "{agent}: idempotent"
        );

        let out = ok(&omc(
            &["uninstall", "--agent", agent, "--project", "."],
            p.path(),
            &[],
        ));
        assert!(
            out.contains("Removed the omc-hooks plugin"),
            "{agent}: {out}"
        );
        assert_eq!(
            snapshot(p.path()),
            before,
            "{agent}: byte for byte, folders included"
        );
        let again = ok(&omc(
            &["uninstall", "--agent", agent, "--project", "."],
            p.path(),
            &[],
        ));
        assert!(again.contains("not installed"), "{agent}: {again}");

        // In an empty project every folder install made goes again...
        let p = Project::new();
        ok(&omc(&["install", "--agent", agent], p.path(), &[]));
        assert!(p.path().join(rel).is_file(), "{agent}");
        ok(&omc(&["uninstall", "--agent", agent], p.path(), &[]));
        assert!(
            snapshot(p.path()).is_empty(),
            "{agent}: {:?}",
            snapshot(p.path())
        );
        // ...except one the client filled meanwhile (OpenCode writes its package.json there).
        ok(&omc(&["install", "--agent", agent], p.path(), &[]));
        std::fs::write(p.path().join(folder).join("package.json"), "{}\n").unwrap();
        ok(&omc(&["uninstall", "--agent", agent], p.path(), &[]));
        let left: Vec<String> = snapshot(p.path()).into_keys().collect();
        assert_eq!(
            left,
            [format!("{folder}/"), format!("{folder}/package.json")],
            "{agent}"
        );
    }
}

#[test]
fn a_file_that_is_not_ours_is_never_touched() {
    for (agent, rel) in PLUGINS {
        let p = Project::new();
        let file = p.path().join(rel);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let theirs = "export const Mine = async () => ({});\n";
        std::fs::write(&file, theirs).unwrap();
        for cmd in ["install", "uninstall"] {
            let out = omc(&[cmd, "--agent", agent], p.path(), &[]);
            assert_eq!(out.status.code(), Some(1), "{agent} {cmd}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("not written by omc-hooks"),
                "{agent} {cmd}: {err}"
            );
            assert_eq!(
                std::fs::read_to_string(&file).unwrap(),
                theirs,
                "{agent} {cmd}"
            );
        }
        assert!(
            !file.with_file_name("omc-hooks-install.json").exists(),
            "{agent}"
        );
    }
}

#[test]
fn user_scope_follows_each_clients_config_folder() {
    let p = Project::new();
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let xdg = h.join("xdg");
    let pi_dir = h.join("pi-agent");
    for (env, agent, want) in [
        (
            vec![],
            "opencode",
            h.join(".config/opencode/plugins/omc-hooks.js"),
        ),
        (
            vec![("XDG_CONFIG_HOME", &xdg)],
            "opencode",
            xdg.join("opencode/plugins/omc-hooks.js"),
        ),
        (
            vec![("XDG_CONFIG_HOME", &xdg)],
            "kilocode",
            xdg.join("kilo/plugins/omc-hooks.js"),
        ),
        (vec![], "pi", h.join(".pi/agent/extensions/omc-hooks.js")),
        (
            vec![("PI_CODING_AGENT_DIR", &pi_dir)],
            "pi",
            pi_dir.join("extensions/omc-hooks.js"),
        ),
    ] {
        let mut vars: Vec<(&str, &str)> = vec![("HOME", h.to_str().unwrap())];
        vars.extend(env.iter().map(|(k, v)| (*k, v.to_str().unwrap())));
        let before = snapshot(h);
        let out = ok(&omc(
            &["install", "--agent", agent, "--user"],
            p.path(),
            &vars,
        ));
        assert!(want.is_file(), "{agent}: {out}");
        ok(&omc(
            &["uninstall", "--agent", agent, "--user"],
            p.path(),
            &vars,
        ));
        assert_eq!(snapshot(h), before, "{agent}");
    }
    assert!(snapshot(p.path()).is_empty());
}

#[test]
fn a_moved_binary_is_written_in_again_and_doctor_names_what_is_wrong() {
    let p = Project::new();
    let tools = tempfile::tempdir().unwrap();
    let other = tools.path().join("omc-hooks");
    // Copied by `cp`, not here: a file this process had open for writing could be inherited by
    // a process another test thread forks meanwhile, and exec would then fail (ETXTBSY).
    assert!(
        Command::new("cp")
            .arg(BIN)
            .arg(&other)
            .status()
            .unwrap()
            .success()
    );
    let home = tempfile::tempdir().unwrap();
    let env = [("HOME", home.path().to_str().unwrap())];
    let file = p.path().join(".opencode/plugins/omc-hooks.js");
    // Installed by another copy of the binary, which then goes away.
    let out = Command::new(&other)
        .args(["install", "--agent", "opencode"])
        .current_dir(p.path())
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .output()
        .unwrap();
    assert!(out.status.success());
    std::fs::remove_file(&other).unwrap();
    let doctor = || {
        let out = omc(&["doctor"], p.path(), &env);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, text) = doctor();
    assert_eq!(code, Some(1), "{text}");
    assert_has(&text, "which is not an existing executable");
    // This binary writes itself in: updated, and doctor is content.
    let out = ok(&omc(&["install", "--agent", "opencode"], p.path(), &env));
    assert_has(&out, "passes 9 events");
    assert_eq!(
        config(&std::fs::read_to_string(&file).unwrap())["bin"],
        canonical_bin()
    );
    let (_, text) = doctor();
    assert_has(
        &text,
        ".opencode/plugins/omc-hooks.js: plugin installed, running",
    );
    assert_lacks(&text, "not an existing executable");
    assert_lacks(&text, "another version");
    // A plugin another version wrote (its body differs): named, with the fix.
    let text_now = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text_now.replace("MAX_OUTPUT_CHARS = 100000", "MAX_OUTPUT_CHARS = 5"),
    )
    .unwrap();
    let (code, text) = doctor();
    assert_eq!(code, Some(1), "{text}");
    assert_has(&text, "written by another version of omc-hooks");
    ok(&omc(&["install", "--agent", "opencode"], p.path(), &env));
    // Kilo Code loads .opencode/plugins too: both installed is every event twice there.
    ok(&omc(&["install", "--agent", "kilo"], p.path(), &env));
    let (code, text) = doctor();
    assert_eq!(code, Some(1), "{text}");
    assert_has(&text, "Kilo Code loads both");
}

// ------------------------------------------------------------- the plugin in a host ----

/// Runs the plugin file `plugin` in the stand-in host `kind` (`opencode` or `pi`) with `steps`,
/// in `cwd`; returns its result. Node.js must be installed (as for the real-client suites).
fn host(kind: &str, plugin: &Path, cwd: &Path, steps: Value) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/plugins/fake_host.mjs");
    let mut child = Command::new("node")
        .arg(script)
        .args([kind, plugin.to_str().unwrap()])
        .current_dir(cwd)
        .env("XDG_STATE_HOME", crate::common::test_state_home())
        .env("OMC_NOW_MS", "1796305500000")
        .env_remove("OMC_TRACE_FILE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node (Node.js) runs the stand-in host; install it to run these tests");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(steps.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_exit_ok(&out);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The plugin file install writes for `agent` into `p`, its CONFIG's binary replaced by `bin`
/// and its timeouts by `timeout_ms` when given.
fn plugin_file(p: &Project, agent: &str, bin: Option<&Path>, timeout_ms: Option<u64>) -> PathBuf {
    ok(&omc(&["install", "--agent", agent], p.path(), &[]));
    let rel = PLUGINS.iter().find(|(a, _)| *a == agent).unwrap().1;
    let file = p.path().join(rel);
    let text = std::fs::read_to_string(&file).unwrap();
    let mut c = config(&text);
    if let Some(b) = bin {
        c["bin"] = json!(b);
    }
    if let Some(ms) = timeout_ms {
        for v in c["hooks"].as_object_mut().unwrap().values_mut() {
            v[1] = json!(ms);
        }
    }
    let line = text
        .lines()
        .find(|l| l.starts_with("const CONFIG = "))
        .unwrap();
    std::fs::write(&file, text.replace(line, &format!("const CONFIG = {c};"))).unwrap();
    file
}

/// A stand-in binary: `sh` running `body`.
fn fake_bin(dir: &Path, body: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let f = dir.join("omc-hooks");
    std::fs::write(&f, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
    f
}

fn opencode_prompt(sid: &str, text: &str) -> Value {
    json!({"hook": "chat.message", "input": {"sessionID": sid},
           "output": {"message": {"id": "msg_1", "sessionID": sid},
                      "parts": [{"id": "prt_23fc4c932001hzxMF8MPNWoDuc", "type": "text", "text": text}]}})
}

#[test]
fn opencode_plugin_applies_the_binarys_answers() {
    let p = Project::new();
    let file = plugin_file(&p, "opencode", None, None);
    let sid = "ses_plugin1";
    let failing = |n: u32| {
        json!({"hook": "tool.execute.after",
               "input": {"tool": "bash", "sessionID": sid, "callID": format!("call_{n}"),
                         "args": {"command": format!("make # {n}")}},
               "output": {"title": "make", "output": "make: *** no rule\n",
                          "metadata": {"exit": 2, "output": "make: *** no rule\n"}}})
    };
    let mut steps = vec![
        json!({"event": {"type": "session.created", "properties": {"sessionID": sid,
               "info": {"id": sid, "directory": p.path()}}}}),
        opencode_prompt(sid, "ralph fix the failing parser test"),
        json!({"event": {"type": "session.idle", "properties": {"sessionID": sid}}}),
    ];
    steps.extend((1..=5).map(failing));
    let r = host("opencode", &file, p.path(), json!(steps));
    let s = r["steps"].as_array().unwrap();
    assert!(
        s.iter()
            .all(|x| x.get("threw").is_none() && x.get("hung").is_none()),
        "{r:#}"
    );
    // The keyword's context: a synthetic part after the prompt, with an id OpenCode accepts.
    let parts = s[1]["output"]["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2, "{r:#}");
    assert_eq!(parts[1]["synthetic"], true);
    assert!(
        parts[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("[MAGIC KEYWORD: RALPH]"),
        "{r:#}"
    );
    let id = parts[1]["id"].as_str().unwrap();
    assert!(id.starts_with("prt_23fc4c932002") && id.len() == 30, "{id}");
    assert_eq!(parts[1]["messageID"], "msg_1");
    // The idle session is continued with the next prompt.
    let prompts = r["prompts"].as_array().unwrap();
    assert_eq!(prompts.len(), 1, "{r:#}");
    assert_eq!(prompts[0]["id"], sid);
    assert!(
        prompts[0]["text"]
            .as_str()
            .unwrap()
            .contains("[RALPH LOOP - ITERATION 2/"),
        "{r:#}"
    );
    // Failing commands: the count, then the escalation, appended to the tool's output.
    for n in 1..=4 {
        let out = s[2 + n]["output"]["output"].as_str().unwrap();
        assert!(out.starts_with("make: *** no rule\n\n\n"), "{out}");
        assert_has(out, &format!("[TOOL ERROR - RETRY {n}]"));
    }
    let out = s[7]["output"]["output"].as_str().unwrap();
    assert_has(out, "[TOOL ERROR - ALTERNATIVE APPROACH NEEDED]");
    assert!(
        r["logs"].as_array().unwrap().is_empty(),
        "no diagnostic: {r:#}"
    );
    let state = p.session_dir(sid);
    assert!(state.join("ralph-state.json").is_file());
    assert!(state.join("last-tool-error.json").is_file());
}

#[test]
fn opencode_plugin_refuses_rewrites_and_holds_nothing_it_was_not_told() {
    let p = Project::new();
    let dir = tempfile::tempdir().unwrap();
    // One stand-in answer per hook the test drives.
    let bin = fake_bin(
        dir.path(),
        r#"cat > /dev/null
case "$3" in
  pre-tool-use) echo '{"deny":"not on main"}';;
  post-tool-use-failure) echo '{"message":"FAILURE-SEEN"}';;
  user-prompt-submit) echo '{"context":"CTX","message":"a note"}';;
  session-start) echo '{"context":"START"}';;
  stop) echo '{"message":"paused"}';;
esac"#,
    );
    let file = plugin_file(&p, "opencode", Some(&bin), None);
    let sid = "ses_plugin2";
    let r = host(
        "opencode",
        &file,
        p.path(),
        json!([
            {"event": {"type": "session.created", "properties": {"info": {"id": sid}}}},
            opencode_prompt(sid, "hello"),
            {"hook": "tool.execute.before", "input": {"tool": "bash", "sessionID": sid, "callID": "c1"},
             "output": {"args": {"command": "git push"}}},
            // the refused call's error part is not a failure to pass on
            {"event": {"type": "message.part.updated", "properties": {"part": {"type": "tool",
              "sessionID": sid, "callID": "c1", "tool": "bash", "state": {"status": "error", "error": "not on main"}}}}},
            {"event": {"type": "session.idle", "properties": {"sessionID": sid}}},
        ]),
    );
    let s = r["steps"].as_array().unwrap();
    let parts = s[1]["output"]["parts"].as_array().unwrap();
    let texts: Vec<&str> = parts.iter().map(|p| p["text"].as_str().unwrap()).collect();
    assert_eq!(
        texts,
        ["hello", "START", "CTX"],
        "session start's context joins the first prompt"
    );
    assert_eq!(
        s[2]["threw"], "not on main",
        "a refusal throws, as OpenCode wants"
    );
    assert_eq!(s[3].get("threw"), None);
    assert!(
        r["prompts"].as_array().unwrap().is_empty(),
        "no continue, no prompt: {r:#}"
    );
    assert_eq!(r["toasts"], json!(["a note", "paused"]));

    // A refused prompt fails with the reason (OpenCode then never calls the model), and the
    // person is told why; in Pi the prompt is handled and never reaches the model.
    let bin = fake_bin(
        dir.path(),
        r#"cat > /dev/null; echo '{"deny":"prompts are closed"}'"#,
    );
    let file = plugin_file(&p, "opencode", Some(&bin), None);
    let r = host(
        "opencode",
        &file,
        p.path(),
        json!([opencode_prompt(sid, "hello")]),
    );
    assert_eq!(r["steps"][0]["threw"], "prompts are closed", "{r:#}");
    assert_eq!(r["toasts"], json!(["prompts are closed"]));
    let file = plugin_file(&p, "pi", Some(&bin), None);
    let r = host(
        "pi",
        &file,
        p.path(),
        json!([{"on": "input", "event": {"text": "hello", "source": "interactive"}}]),
    );
    assert_eq!(
        r["steps"][0]["returned"],
        json!({"action": "handled"}),
        "{r:#}"
    );
    assert_eq!(r["notes"][0]["text"], "prompts are closed", "{r:#}");

    // A rewrite changes the very arguments object the tool runs with.
    let bin = fake_bin(
        dir.path(),
        r#"cat > /dev/null; echo '{"tool_input":{"command":"git push --dry-run"}}'"#,
    );
    let file = plugin_file(&p, "opencode", Some(&bin), None);
    let r = host(
        "opencode",
        &file,
        p.path(),
        json!([{"hook": "tool.execute.before", "input": {"tool": "bash", "sessionID": sid, "callID": "c2"},
                "output": {"args": {"command": "git push", "description": "push"}}}]),
    );
    assert_eq!(
        r["steps"][0]["output"]["args"],
        json!({"command": "git push --dry-run"})
    );
}

#[test]
fn the_plugins_fail_open_on_a_missing_crashing_hanging_or_babbling_binary() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, Option<PathBuf>, &str); 4] = [
        (
            "missing",
            Some(dir.path().join("gone/omc-hooks")),
            "cannot run",
        ),
        (
            "crashing",
            Some(fake_bin(
                &dir.path().join("c"),
                "cat >/dev/null; echo boom >&2; exit 3",
            )),
            "exited with 3",
        ),
        (
            "hanging",
            Some(fake_bin(&dir.path().join("h"), "exec sleep 30")),
            "did not answer within 300 ms",
        ),
        (
            "babbling",
            Some(fake_bin(
                &dir.path().join("b"),
                "cat >/dev/null; echo 'not json'",
            )),
            "not JSON",
        ),
    ];
    for (what, bin, said) in cases {
        let p = Project::new();
        // OpenCode: every hook and event settles without throwing, nothing is added, one
        // diagnostic in OpenCode's log however many events went wrong.
        let file = plugin_file(&p, "opencode", bin.as_deref(), Some(300));
        let sid = "ses_open";
        let r = host(
            "opencode",
            &file,
            p.path(),
            json!([
                {"event": {"type": "session.created", "properties": {"info": {"id": sid}}}},
                opencode_prompt(sid, "ralph go"),
                {"hook": "tool.execute.before", "input": {"tool": "bash", "sessionID": sid, "callID": "c"},
                 "output": {"args": {"command": "ls"}}},
                {"hook": "tool.execute.after", "input": {"tool": "bash", "sessionID": sid, "callID": "c", "args": {}},
                 "output": {"title": "ls", "output": "a\n", "metadata": {"exit": 1}}},
                {"event": {"type": "session.idle", "properties": {"sessionID": sid}}},
            ]),
        );
        for (i, s) in r["steps"].as_array().unwrap().iter().enumerate() {
            assert!(
                s.get("threw").is_none() && s.get("hung").is_none(),
                "{what} step {i}: {r:#}"
            );
        }
        assert_eq!(
            r["steps"][1]["output"]["parts"].as_array().unwrap().len(),
            1,
            "{what}"
        );
        assert_eq!(r["steps"][3]["output"]["output"], "a\n", "{what}");
        assert!(r["prompts"].as_array().unwrap().is_empty(), "{what}");
        let logs = r["logs"].as_array().unwrap();
        assert_eq!(logs.len(), 1, "{what}: {logs:?}");
        assert!(logs[0].as_str().unwrap().contains(said), "{what}: {logs:?}");

        // Pi: the same; a tool call is never blocked by a broken binary.
        let file = plugin_file(&p, "pi", bin.as_deref(), Some(300));
        let r = host(
            "pi",
            &file,
            p.path(),
            json!([
                {"on": "session_start", "event": {"reason": "startup"}},
                {"on": "input", "event": {"text": "ralph go", "source": "interactive"}},
                {"on": "before_agent_start", "event": {"prompt": "ralph go"}},
                {"on": "tool_call", "event": {"toolName": "bash", "toolCallId": "c", "input": {"command": "ls"}}},
                {"on": "tool_result", "event": {"toolName": "bash", "toolCallId": "c", "input": {"command": "ls"},
                  "content": [{"type": "text", "text": "a"}], "isError": true}},
                {"on": "agent_end", "event": {"messages": [{"role": "assistant", "content": [{"type": "text", "text": "done"}], "stopReason": "stop"}]}},
            ]),
        );
        for (i, s) in r["steps"].as_array().unwrap().iter().enumerate() {
            assert!(
                s.get("threw").is_none() && s.get("hung").is_none(),
                "pi {what} step {i}: {r:#}"
            );
            assert_eq!(
                s["returned"],
                Value::Null,
                "pi {what} step {i}: nothing applied: {r:#}"
            );
        }
        assert!(r["sent"].as_array().unwrap().is_empty(), "pi {what}");
        let notes = r["notes"].as_array().unwrap();
        assert_eq!(notes.len(), 1, "pi {what}: {notes:?}");
        assert!(
            notes[0]["text"].as_str().unwrap().contains(said),
            "pi {what}: {notes:?}"
        );
    }
}

#[test]
fn pi_extension_applies_the_binarys_answers() {
    let p = Project::new();
    let file = plugin_file(&p, "pi", None, None);
    let ctx = json!({"session": "01a2-pi"});
    let r = host(
        "pi",
        &file,
        p.path(),
        json!([
            {"on": "session_start", "event": {"reason": "startup"}, "ctx": ctx},
            {"on": "input", "event": {"text": "ralph fix the failing parser test", "source": "interactive"}, "ctx": ctx},
            {"on": "before_agent_start", "event": {"prompt": "ralph fix the failing parser test"}, "ctx": ctx},
            {"on": "tool_result", "event": {"toolName": "bash", "toolCallId": "c1", "input": {"command": "make"},
              "content": [{"type": "text", "text": "make: nope\n\n\nCommand exited with code 2"}], "isError": true}, "ctx": ctx},
            {"on": "agent_end", "event": {"messages": [{"role": "assistant", "content": [{"type": "text", "text": "more to do"}], "stopReason": "stop"}]}, "ctx": ctx},
            // our continuation comes back as input from an extension: left alone, no context
            {"on": "input", "event": {"text": "$last_sent", "source": "extension"}, "ctx": ctx},
            // print mode: no UI, so no new prompt can run; said once
            {"on": "agent_end", "event": {"messages": [{"role": "assistant", "content": [{"type": "text", "text": "more"}], "stopReason": "stop"}]},
             "ctx": {"session": "01a2-pi", "hasUI": false}},
        ]),
    );
    let s = r["steps"].as_array().unwrap();
    assert!(s.iter().all(|x| x.get("threw").is_none()), "{r:#}");
    assert_eq!(
        s[1]["returned"],
        Value::Null,
        "input takes no context itself"
    );
    let msg = &s[2]["returned"]["message"];
    assert_eq!(msg["customType"], "omc-hooks");
    assert_eq!(msg["display"], false);
    assert!(
        msg["content"]
            .as_str()
            .unwrap()
            .starts_with("[MAGIC KEYWORD: RALPH]"),
        "{r:#}"
    );
    let content = s[3]["returned"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 2, "{r:#}");
    assert!(
        content[1]["text"]
            .as_str()
            .unwrap()
            .contains("[TOOL ERROR - RETRY 1]"),
        "{r:#}"
    );
    let sent = r["sent"].as_array().unwrap();
    assert_eq!(
        sent.len(),
        1,
        "one continuation (none in print mode): {r:#}"
    );
    assert!(
        sent[0]["text"]
            .as_str()
            .unwrap()
            .contains("[RALPH LOOP - ITERATION 2/"),
        "{r:#}"
    );
    assert_eq!(sent[0]["opts"], Value::Null, "idle: a new prompt");
    let notes = r["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n["text"].as_str().unwrap().contains("pi -p")),
        "{notes:?}"
    );
    let state = p.session_dir("01a2-pi");
    assert!(state.join("ralph-state.json").is_file());
}
