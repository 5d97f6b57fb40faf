//! Say only what happened (issue 18), through the real binary: a mode that could not be written
//! is reported as not started, a checkpoint that could not be written as not saved, and `doctor`
//! and `status` name the cause and the fix (read-only root, refused symlink, full disk); every
//! place shows the same limits under `OMC_RALPH_HARD_MAX`; ultraqa, team and pipeline can be
//! started; configuration mistakes are named and the rest of the file still applies; a model
//! that asks the user is let go, and the run resumes on the next prompt; a hook acts only on its
//! own event; and the smaller items (`mode bogus`, OMC's files without `mode`, the session's
//! duration from its SessionStart).

use crate::common::{BIN, Hook, Outcome, Project, payload};
use crate::common::{assert_has, assert_lacks};
use crate::hardening::kit::{self, Mount};
use crate::schema::{assert_valid, violations};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

/// The pinned clock of `common::Hook`.
const NOW: i64 = 1_796_305_500_000;
const MIN: i64 = 60_000;

fn with(mut v: Value, extra: Value) -> Value {
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

fn prompt(p: &Project, sid: &str, text: &str) -> Hook {
    Hook::new("user-prompt-submit")
        .payload(with(
            payload("UserPromptSubmit", sid, p.path()),
            json!({ "prompt": text }),
        ))
        .cwd(p.path())
}

fn stop(p: &Project, sid: &str, message: &str) -> Hook {
    Hook::new("stop")
        .payload(with(
            payload("Stop", sid, p.path()),
            json!({"stop_hook_active": false, "last_assistant_message": message}),
        ))
        .cwd(p.path())
}

fn reason(out: &Outcome) -> String {
    out.json()["reason"].as_str().unwrap_or("").to_string()
}

/// A person's command in `dir`: (exit code, stdout, stderr).
fn cli(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .current_dir(dir)
        .env("OMC_NOW_MS", NOW.to_string())
        .env("PATH", "/nonexistent")
        .env("XDG_STATE_HOME", crate::common::test_state_home())
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env_remove("CODEX_THREAD_ID")
        .env_remove("QWEN_CODE_SESSION_ID")
        .env_remove("OMC_STATE_DIR")
        .env_remove("OMC_RALPH_HARD_MAX");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    crate::common::code_out_err(&out)
}

fn state(p: &Project, sid: &str, mode: &str) -> Option<Value> {
    let v = p.read_json(&format!(".omc/state/sessions/{sid}/{mode}-state.json"))?;
    assert_valid("mode-state", &v);
    Some(v)
}

// ------------------------------------------------------------------ 1. failed writes

/// Makes `dir` read-only with a read-only bind mount; `None` (with the reason printed) where
/// this process may not mount.
fn read_only(dir: &Path) -> Option<Mount> {
    if let Err(why) = kit::can_mount() {
        eprintln!("read-only bind mount SKIPPED: {why}");
        return None;
    }
    let guard = Mount::new(&["--bind", dir.to_str().unwrap()], dir).ok()?;
    match kit::mount(&["-o", "remount,bind,ro"], dir) {
        Ok(()) => Some(guard),
        Err(why) => {
            eprintln!("read-only remount SKIPPED: {why}");
            None
        }
    }
}

/// The hooks, `doctor` and `status` on a project whose state cannot be written: the mode is
/// said not to have started, the checkpoint not to have been saved, and both commands name
/// `cause` with its fix.
#[track_caller]
fn assert_reported(p: &Project, env: &[(&str, &str)], cause: &str, fix: &str) {
    let mut h = prompt(p, "s1", "ralph fix the failing tests");
    for (k, v) in env {
        h = h.env(k, v);
    }
    let out = h.run();
    out.expect_valid();
    let ctx = out.context();
    assert!(
        ctx.starts_with("[MAGIC KEYWORD: RALPH]\n\n[RALPH NOT STARTED] omc-hooks could not save the ralph run because "),
        "{ctx}"
    );
    assert_has(&ctx, cause);
    assert_lacks(&ctx, "RALPH mode is on");
    assert_lacks(&ctx, "Stop hook sends you back");
    assert!(out.stderr.contains("cannot start ralph"), "{}", out.stderr);

    let mut h = Hook::new("pre-compact")
        .payload(with(
            payload("PreCompact", "s1", p.path()),
            json!({"trigger": "manual", "custom_instructions": null}),
        ))
        .cwd(p.path());
    for (k, v) in env {
        h = h.env(k, v);
    }
    let out = h.run();
    out.expect_valid();
    let note = out.system_message();
    assert!(
        note.starts_with("omc-hooks checkpoint NOT saved before compaction, because "),
        "{note}"
    );
    assert!(note.contains(cause) && note.contains(fix), "{note}");

    let (code, text, _) = cli(p.path(), &["doctor"], env);
    assert_eq!(code, 1, "{text}");
    assert_has(
        &text,
        &format!("the hooks cannot write state, because {cause}"),
    );
    assert_has(&text, &format!("fix: {fix}"));
    assert_lacks(&text, "No problems found");

    let (code, text, _) = cli(p.path(), &["status"], env);
    assert_eq!(code, 0);
    assert!(text.starts_with("The hooks cannot write state: "), "{text}");
    assert_has(&text, cause);
    assert_has(&text, &format!("fix: {fix}"));
    let (_, json_text, _) = cli(p.path(), &["status", "--json"], env);
    let v: Value = serde_json::from_str(&json_text).unwrap();
    assert_eq!(v["state_writable"], false);
    assert!(
        v["write_problem"]["cause"]
            .as_str()
            .unwrap()
            .contains(cause)
    );
}

#[test]
fn a_read_only_project_says_the_mode_did_not_start_and_doctor_says_why() {
    let p = Project::new();
    // Always available: a state directory the kernel refuses (sysfs).
    let refused = "/sys/fs/omc-hooks-honest";
    assert!(std::fs::create_dir(refused).is_err());
    assert_reported(
        &p,
        &[("OMC_STATE_DIR", refused)],
        "this user may not write to /sys/fs",
        "give this user write access to /sys/fs",
    );
    // A read-only filesystem where the project is.
    if let Some(_ro) = read_only(p.path()) {
        let dir = p.path().display().to_string();
        assert_reported(
            &p,
            &[],
            &format!("{dir} is on a read-only filesystem"),
            "make the project writable (remount it read-write), or set OMC_STATE_DIR",
        );
        assert!(!p.omc().exists());
    }
}

#[test]
fn a_cancel_that_cannot_be_written_is_not_reported_as_done() {
    let p = Project::new();
    prompt(&p, "s1", "ralph fix the failing tests")
        .run()
        .expect_context("RALPH mode is on");
    let Some(_ro) = read_only(&p.omc()) else {
        return;
    };
    let out = prompt(&p, "s1", "cancelomc").run();
    let ctx = out.context();
    assert!(
        ctx.contains("NOT ended: ralph (because ") && ctx.contains("is on a read-only filesystem)"),
        "{ctx}"
    );
    assert_lacks(&ctx, "Nothing was running");
    let (code, _, err) = cli(p.path(), &["cancel"], &[]);
    assert_eq!(code, 1, "{err}");
    assert_has(&err, "NOT cancelled in session s1: ralph (because ");
    assert_eq!(state(&p, "s1", "ralph").unwrap()["active"], true);
}

/// Issue 30, item 7: on a read-only `.omc` a cancel names the one run that exists (not all
/// seven modes), says why it could not be ended and the fix, to the model and the person alike;
/// meanwhile the Stop hook cannot continue the run either.
#[test]
fn a_cancel_on_a_read_only_state_names_only_the_run_and_the_fix() {
    let p = Project::new();
    prompt(&p, "s1", "ralph fix the failing tests")
        .run()
        .expect_context("RALPH mode is on");
    let Some(_ro) = read_only(&p.omc()) else {
        return;
    };
    let out = prompt(&p, "s1", "cancelomc").run();
    let ctx = out.context();
    assert_has(&ctx, "NOT ended: ralph (because ");
    for other in [
        "autopilot",
        "ultrawork",
        "ultraqa",
        "ralplan",
        "team (",
        "pipeline",
    ] {
        assert!(!ctx.contains(other), "{other} has no run: {ctx}");
    }
    let msg = out.system_message();
    assert!(
        msg.starts_with("omc-hooks: cancel could not end ralph (because ")
            && msg.contains("is on a read-only filesystem). Make the project writable")
            && msg.contains("then cancel again"),
        "{msg}"
    );
    let (code, _, err) = cli(p.path(), &["cancel"], &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("NOT cancelled in session s1: ralph (because ")
            && err.contains("Make the project writable"),
        "{err}"
    );
    assert_lacks(&err, "autopilot");
    // The Stop hook does not continue a run it cannot record.
    stop(&p, "s1", "still working").run().expect_noop();
}

/// Issue 30, item 7: on a full disk a cancel still ends the run — its file is moved aside, a
/// rename that needs no new space — and it stays ended once space is freed.
#[test]
fn a_cancel_on_a_full_disk_ends_the_run_for_good() {
    if let Err(why) = kit::can_mount() {
        eprintln!("full disk SKIPPED: {why}");
        return;
    }
    let p = Project::new();
    std::fs::create_dir(p.omc()).unwrap();
    let _disk = Mount::new(&["-t", "tmpfs", "-o", "size=64k", "tmpfs"], &p.omc()).unwrap();
    prompt(&p, "s1", "ralph fix the failing tests")
        .run()
        .expect_context("RALPH mode is on");
    let filler = p.omc().join("filler");
    let mut f = std::fs::File::create(&filler).unwrap();
    use std::io::Write;
    while f.write_all(&[b'f'; 1024]).is_ok() {}
    while f.write_all(b"f").is_ok() {}
    drop(f);
    let (code, out, err) = cli(p.path(), &["cancel"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert_has(&out, "Cancelled in session s1: ralph.");
    assert!(
        out.contains("ralph's file could not be rewritten because the disk holding")
            && out.contains("so it was moved aside to"),
        "{out}"
    );
    stop(&p, "s1", "still working").run().expect_noop();
    // Space is freed: the run does not come back.
    std::fs::remove_file(&filler).unwrap();
    stop(&p, "s1", "still working").run().expect_noop();
    let (_, status, _) = cli(p.path(), &["status"], &[]);
    assert_has(&status, "No active runs");
}

#[test]
fn a_symlinked_state_directory_is_refused_and_named() {
    let p = Project::new();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::create_dir(p.omc()).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), p.omc().join("state")).unwrap();
    let link = p.omc().join("state").display().to_string();
    assert_reported(
        &p,
        &[],
        &format!("{link} is a symlink, and omc-hooks refuses to write through one"),
        &format!("replace {link} with a real directory"),
    );
    assert_eq!(
        std::fs::read_dir(elsewhere.path()).unwrap().count(),
        0,
        "nothing written through the link"
    );
}

#[test]
fn a_full_disk_is_named() {
    if let Err(why) = kit::can_mount() {
        eprintln!("full disk SKIPPED: {why}");
        return;
    }
    let p = Project::new();
    std::fs::create_dir(p.omc()).unwrap();
    let _disk = Mount::new(&["-t", "tmpfs", "-o", "size=64k", "tmpfs"], &p.omc()).unwrap();
    std::fs::create_dir_all(p.omc().join("state/sessions/s1")).unwrap();
    let mut filler = std::fs::File::create(p.omc().join("filler")).unwrap();
    use std::io::Write;
    while filler.write_all(&[b'f'; 1024]).is_ok() {}
    while filler.write_all(b"f").is_ok() {}
    drop(filler);
    let dir = p.omc().display().to_string();
    assert_reported(
        &p,
        &[],
        &format!("the disk holding {dir}"),
        "free some space on that disk",
    );
}

// ------------------------------------------------------------------ 2. one source for limits

#[test]
fn the_hard_max_is_the_same_everywhere() {
    let p = Project::new();
    let low = [("OMC_RALPH_HARD_MAX", "3")];
    let out = prompt(&p, "s1", "ralph fix the failing tests")
        .env("OMC_RALPH_HARD_MAX", "3")
        .run();
    out.expect_context("(at most 3 iterations)");
    assert_eq!(state(&p, "s1", "ralph").unwrap()["max_iterations"], 3);
    // A run recorded before the variable was set (max 100) is held to it too.
    let old = {
        let mut v = state(&p, "s1", "ralph").unwrap();
        v["max_iterations"] = json!(100);
        v["session_id"] = json!("s2");
        v
    };
    p.write_json(".omc/state/sessions/s2/ralph-state.json", &old);

    let (_, text, _) = cli(p.path(), &["status"], &low);
    assert_eq!(text.matches("iter 1/3").count(), 2, "{text}");
    assert_lacks(&text, "/100");
    let (_, json_text, _) = cli(p.path(), &["status", "--json"], &low);
    let v: Value = serde_json::from_str(&json_text).unwrap();
    assert_eq!(v["sessions"][0]["modes"][0]["max_iterations"], 3);
    let (_, shown, _) = cli(p.path(), &["mode", "show"], &low);
    assert_eq!(shown.matches("iteration 1/3").count(), 2, "{shown}");

    for (i, sid) in [(2, "s1"), (3, "s1"), (2, "s2")] {
        let out = stop(&p, sid, "Progress; more to do.")
            .env("OMC_RALPH_HARD_MAX", "3")
            .run();
        assert!(
            reason(&out).starts_with(&format!("[RALPH LOOP - ITERATION {i}/3]")),
            "{}",
            out.stdout
        );
    }
    let (_, shown, _) = cli(p.path(), &["mode", "show", "--session", "s1"], &low);
    assert_has(&shown, "iteration 3/3");
    let out = stop(&p, "s1", "Progress; more to do.")
        .env("OMC_RALPH_HARD_MAX", "3")
        .run();
    assert_eq!(
        out.system_message(),
        "omc-hooks: ralph stopped at its limit of 3 iterations; the run is over and the task may not be finished. Start a new run to continue."
    );
    assert_eq!(
        state(&p, "s1", "ralph").unwrap()["ended_reason"],
        "max_iterations"
    );
}

// ------------------------------------------------------------------ 3. every mode startable

#[test]
fn mode_start_starts_every_persistent_mode() {
    for mode in omc_hooks::modes::PERSISTENT {
        let p = Project::new();
        let (code, out, err) = cli(
            p.path(),
            &[
                "mode",
                "start",
                mode,
                "--session",
                "s1",
                "the",
                "login",
                "flow",
            ],
            &[],
        );
        assert_eq!(code, 0, "{mode}: {err}");
        assert!(
            out.starts_with(&format!("{mode}: run started in session s1 (iteration 1/")),
            "{out}"
        );
        let s = state(&p, "s1", mode).expect(mode);
        assert_eq!(
            (s["active"].clone(), s["prompt"].clone()),
            (json!(true), json!("the login flow"))
        );
        let out = stop(&p, "s1", "Progress; more to do.").run();
        let header = format!("[{}", mode.to_ascii_uppercase());
        assert!(reason(&out).starts_with(&header), "{mode}: {}", out.stdout);
    }
}

/// Codex and Qwen Code name the session in the environment of the model's commands as Claude
/// Code does, so `mode start` needs no `--session` in a project with several open sessions
/// (Qwen Code ends none in a headless run); with two agents' variables set (an agent started
/// from another agent's command), the session that started last is the inner agent's.
#[test]
fn mode_start_takes_the_session_its_agent_names() {
    let q = Project::new();
    let start = |sid: &str, at: i64| {
        Hook::new("session-start")
            .payload(with(
                payload("SessionStart", sid, q.path()),
                json!({"source": "startup"}),
            ))
            .cwd(q.path())
            .now(at)
            .run()
            .expect_valid();
    };
    start("outer", NOW);
    start("inner", NOW + MIN);
    let (code, _, err) = cli(q.path(), &["mode", "start", "team", "x"], &[]);
    assert_eq!(code, 2, "{err}");
    assert_has(&err, "several sessions are open");
    for (env, want) in [
        (&[("QWEN_CODE_SESSION_ID", "outer")][..], "outer"),
        (&[("CODEX_THREAD_ID", "inner")][..], "inner"),
        (
            &[
                ("CLAUDE_CODE_SESSION_ID", "outer"),
                ("CODEX_THREAD_ID", "inner"),
            ][..],
            "inner",
        ),
        (
            &[
                ("CLAUDE_CODE_SESSION_ID", "inner"),
                ("QWEN_CODE_SESSION_ID", "outer"),
            ][..],
            "inner",
        ),
        // Not started in this project: the agents' order decides (Claude Code first).
        (
            &[
                ("CLAUDE_CODE_SESSION_ID", "gone-1"),
                ("CODEX_THREAD_ID", "gone-2"),
            ][..],
            "gone-1",
        ),
    ] {
        let (code, out, err) = cli(q.path(), &["mode", "start", "team", "x"], env);
        assert_eq!(code, 0, "{env:?}: {err}");
        assert!(
            out.contains(&format!("run started in session {want} ")),
            "{env:?}: {out}"
        );
    }
}

#[test]
fn mode_start_finds_the_session_or_asks_for_it() {
    let p = Project::new();
    // Claude Code sets CLAUDE_CODE_SESSION_ID for the commands the model runs.
    let (code, out, err) = cli(
        p.path(),
        &["mode", "start", "team", "build", "the", "auth", "service"],
        &[("CLAUDE_CODE_SESSION_ID", "abc-1")],
    );
    assert_eq!(code, 0, "{err}");
    assert_has(&out, "session abc-1");
    assert!(state(&p, "abc-1", "team").is_some());

    // Without it, the one session open in the project (started, not ended).
    let q = Project::new();
    let (code, _, err) = cli(q.path(), &["mode", "start", "pipeline", "x"], &[]);
    assert_eq!(code, 1);
    assert_has(&err, "no open session found");
    assert_has(&err, "/omc-hooks:<mode> <task>");
    for sid in ["old", "live"] {
        Hook::new("session-start")
            .payload(with(
                payload("SessionStart", sid, q.path()),
                json!({"source": "startup"}),
            ))
            .cwd(q.path())
            .run()
            .expect_valid();
    }
    Hook::new("session-end")
        .payload(with(
            payload("SessionEnd", "old", q.path()),
            json!({"reason": "other"}),
        ))
        .cwd(q.path())
        .now(NOW + MIN)
        .run()
        .expect_valid();
    let (code, out, err) = cli(
        q.path(),
        &["mode", "start", "pipeline", "lint, test, ship"],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert_has(&out, "session live");
    assert_eq!(
        state(&q, "live", "pipeline").unwrap()["prompt"],
        "lint, test, ship"
    );

    // Usage errors say what is missing.
    for (args, want) in [
        (&["mode", "start"][..], "start needs a mode"),
        (
            &["mode", "start", "bogus", "x"],
            "'bogus' is not a persistent mode; one of ralph",
        ),
        (
            &["mode", "start", "ultraqa", "--session", "s1"],
            "start ultraqa needs a task",
        ),
    ] {
        let (code, _, err) = cli(q.path(), args, &[]);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn the_slash_commands_start_their_run_and_say_so() {
    let p = Project::new();
    let out = prompt(&p, "s1", "/omc-hooks:ultraqa the login flow")
        .env("OMC_RALPH_HARD_MAX", "7")
        .run();
    let ctx = out.context();
    assert!(
        ctx.starts_with("[OMC-HOOKS COMMAND: ULTRAQA]\n\nULTRAQA mode is on: QA cycles on the user's task until every test passes. Each time you try to stop before that, the Stop hook sends you back (at most 7 iterations; the run gives up after 10 failing cycles)."),
        "{ctx}"
    );
    assert_has(
        &ctx,
        &format!("`{BIN} mode tests ultraqa passing --session s1`"),
    );
    let s = state(&p, "s1", "ultraqa").unwrap();
    assert_eq!(
        (s["prompt"].clone(), s["max_iterations"].clone()),
        (json!("the login flow"), json!(7))
    );
    assert!(
        reason(&stop(&p, "s1", "Ran them.").run())
            .starts_with("[ULTRAQA - CYCLE 1/10 - ITERATION 2/7]")
    );

    for (mode, header) in [
        ("team", "TEAM mode is on"),
        ("pipeline", "PIPELINE mode is on"),
    ] {
        let out = prompt(&p, "s2", &format!("/omc-hooks:{mode} build the release")).run();
        assert!(out.context().contains(header), "{}", out.context());
        assert!(state(&p, "s2", mode).is_some());
    }
    // No task: nothing is started, and the model is told to ask.
    let out = prompt(&p, "s3", "/omc-hooks:team").run();
    assert_eq!(
        out.context(),
        "[OMC-HOOKS COMMAND: TEAM]\n\n[TEAM NOT STARTED] No task was given after /omc-hooks:team, so no run was started: ask the user what the team run should work on."
    );
    assert!(state(&p, "s3", "team").is_none());
    // The same words not at the start of the prompt start nothing.
    prompt(&p, "s4", "what does /omc-hooks:ultraqa do?")
        .run()
        .expect_noop();
    assert!(!p.session_dir("s4").exists());
}

#[test]
fn the_plugin_ships_one_command_per_mode_without_a_keyword() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("commands");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["pipeline.md", "team.md", "ultraqa.md"]);
    for n in names {
        let text = std::fs::read_to_string(dir.join(&n)).unwrap();
        assert!(text.starts_with("---\ndescription: "), "{n}");
        assert!(text.contains("\ndisable-model-invocation: true\n"), "{n}");
        assert!(text.contains("$ARGUMENTS") && !text.contains("!`"), "{n}");
    }
}

// ------------------------------------------------------------------ 4. configuration errors

#[test]
fn configuration_errors_are_named_once_and_the_rest_applies() {
    let p = Project::new();
    let config = json!({
        "keyword": {"disabled": ["tdd"]},
        "keywords": {"disabled": ["tdd"]},
        "ralph": {"max_iterations": "fifty"},
        "autopilot": {"max_iterations": 12}
    });
    p.write_json(".omc/config.json", &config);
    // The test-side schema checker agrees the file is invalid at these keys.
    let schema_errors = violations(&crate::schema::schema("config"), &config);
    assert_eq!(schema_errors.len(), 2, "{schema_errors:?}");

    let (code, text, _) = cli(p.path(), &["doctor"], &[]);
    assert_eq!(code, 1, "{text}");
    let file = p.omc().join("config.json").display().to_string();
    for (key, problem, fix) in [
        (
            "keyword",
            "unknown key (did you mean `keywords`?)",
            "rename it to `keywords`, or remove it",
        ),
        (
            "ralph.max_iterations",
            "expected a whole number, found the string \"fifty\"",
            "make it a whole number",
        ),
    ] {
        let want = format!("{file}: `{key}`: {problem}\n     fix: {fix}");
        assert!(text.contains(&want), "missing {want:?} in\n{text}");
    }
    assert!(
        text.contains(&format!(
            "config    {file}: 2 problem(s); the hooks use the rest"
        )),
        "{text}"
    );

    // The hooks keep the valid part: tdd stays disabled, autopilot's limit applies, ralph gets
    // its default instead of "fifty".
    let first = Hook::new("session-start")
        .payload(with(
            payload("SessionStart", "s1", p.path()),
            json!({"source": "startup"}),
        ))
        .cwd(p.path())
        .run();
    let note = first.system_message();
    assert!(
        note.starts_with(&format!("omc-hooks: {file} has 2 error(s) — `keyword`: unknown key (did you mean `keywords`?) (and 1 more).")),
        "{note}"
    );
    assert_has(&note, "omc-hooks doctor");
    let out = prompt(&p, "s1", "ralph fix the parser with tdd").run();
    out.expect_context("[MAGIC KEYWORD: RALPH]");
    assert!(!out.context().contains("TDD"), "{}", out.context());
    assert_eq!(out.system_message(), "", "told once per session");
    assert_eq!(state(&p, "s1", "ralph").unwrap()["max_iterations"], 100);
    assert!(
        stop(&p, "s1", "more to do")
            .run()
            .json()
            .get("systemMessage")
            .is_none()
    );
    let notices = p.read_json(".omc/state/sessions/s1/notices.json").unwrap();
    assert_valid("notices", &notices);
    // Another session is told too; a changed set of problems is told again.
    assert!(
        prompt(&p, "s2", "hello")
            .run()
            .system_message()
            .contains("has 2 error(s)")
    );
    p.write_json(
        ".omc/config.json",
        &json!({"autopilot": {"max_iterations": "x"}}),
    );
    assert!(
        prompt(&p, "s1", "hello")
            .run()
            .system_message()
            .contains("has 1 error(s)")
    );
    let out = prompt(&p, "s1", "autopilot build a CLI").run();
    out.expect_context("(at most 30 continuations)");
}

#[test]
fn invalid_json_is_named_and_nothing_of_it_is_used() {
    let p = Project::new();
    p.write_omc(
        "config.json",
        b"{\"keywords\": {\"disabled\": [\"ralph\"]},}",
    );
    let (code, text, _) = cli(p.path(), &["doctor"], &[]);
    assert_eq!(code, 1);
    assert_has(
        &text,
        "config.json: not valid JSON (trailing comma at line 1",
    );
    assert_has(
        &text,
        "fix: repair the JSON; until then none of the file is used",
    );
    let out = prompt(&p, "s1", "ralph fix the tests").run();
    out.expect_context("RALPH mode is on");
    assert!(
        out.system_message().contains("not valid JSON"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains("config.json: 1 problem(s)"),
        "{}",
        out.stderr
    );
    let (_, status, _) = cli(p.path(), &["status"], &[]);
    assert_has(&status, "config.json has 1 error(s), first not valid JSON");
    // A symlinked file is not followed, and not mistaken for no configuration.
    std::fs::remove_file(p.omc().join("config.json")).unwrap();
    let real = p.path().join("elsewhere.json");
    std::fs::write(&real, b"{}").unwrap();
    std::os::unix::fs::symlink(&real, p.omc().join("config.json")).unwrap();
    let (code, text, _) = cli(p.path(), &["doctor"], &[]);
    assert_eq!(code, 1);
    assert!(
        text.contains(
            "config.json: cannot be read (it must be a regular, readable file, not a symlink)"
        ),
        "{text}"
    );
    std::fs::remove_file(p.omc().join("config.json")).unwrap();
    // A valid file: doctor says so.
    p.write_json(".omc/config.json", &json!({"ralph": {"max_iterations": 5}}));
    let (_, text, _) = cli(p.path(), &["doctor"], &[]);
    assert_has(&text, "config.json: valid");
}

#[test]
fn the_runtime_checker_and_the_schema_agree() {
    // Each of these is checked both by the binary (through doctor) and by the test-side JSON
    // Schema validator against state-schema/config.schema.json.
    let schema = crate::schema::schema("config");
    for (config, valid) in [
        (json!({}), true),
        (
            json!({"$schema": "x", "skills": {"protection": {"a:b": "light"}}}),
            true,
        ),
        (
            json!({"pipeline": {"max_iterations": 20}, "keywords": {"disabled": []}}),
            true,
        ),
        (json!({"skills": {"protection": {"plan": "Heavy"}}}), false),
        (json!({"skills": {"protect": {}}}), false),
        (json!({"ultraqa": {"max_iterations": 0}}), false),
        (json!({"keywords": {"disabled": "tdd"}}), false),
        (json!({"keywords": {"disabled": ["cancel"]}}), false),
        (json!({"team": []}), false),
        (json!([]), false),
    ] {
        assert_eq!(
            violations(&schema, &config).is_empty(),
            valid,
            "schema: {config}"
        );
        let p = Project::new();
        p.write_json(".omc/config.json", &config);
        let (_, text, _) = cli(p.path(), &["doctor"], &[]);
        assert_eq!(
            text.contains("config.json: valid"),
            valid,
            "binary: {config}\n{text}"
        );
    }
}

// ------------------------------------------------------------------ 5. the model asks the user

#[test]
fn a_blocked_model_asking_the_user_pauses_the_run_and_the_next_prompt_resumes_it() {
    let p = Project::new();
    prompt(&p, "s1", "ralph fix the failing tests")
        .run()
        .expect_valid();
    let asking = "I am blocked: the tests need a DATABASE_URL. Which database should I use?";
    let out = stop(&p, "s1", asking).run();
    out.expect_valid();
    assert!(
        out.json().get("decision").is_none(),
        "no block: {}",
        out.stdout
    );
    assert_eq!(
        out.system_message(),
        "omc-hooks: ralph is waiting for you — the model asked you a question. Answer and it carries on with your next message (or type cancelomc to end it)."
    );
    let s = state(&p, "s1", "ralph").unwrap();
    assert_eq!(
        (s["iteration"].clone(), s["active"].clone()),
        (json!(1), json!(true))
    );
    assert_eq!(s["awaiting_input_at"], omc_hooks::time::iso(NOW));
    let (_, text, _) = cli(p.path(), &["status"], &[]);
    assert_has(&text, "waiting for your answer");

    // The user answers: the run carries on.
    prompt(&p, "s1", "Use Postgres.").run().expect_valid();
    assert!(
        state(&p, "s1", "ralph")
            .unwrap()
            .get("awaiting_input_at")
            .is_none()
    );
    let out = stop(&p, "s1", "Configured Postgres; two tests still fail.").run();
    assert!(
        reason(&out).starts_with("[RALPH LOOP - ITERATION 2/100]"),
        "{}",
        out.stdout
    );

    // The marker hands back too; a question followed by more work does not.
    let out = stop(&p, "s1", "<omc-needs-input/> I need the staging API key.").run();
    assert!(
        out.system_message()
            .contains("the model says it needs your input")
    );
    prompt(&p, "s1", "here it is").run().expect_valid();
    let out = stop(
        &p,
        "s1",
        "Should I continue? I'll keep going with the parser.",
    )
    .run();
    assert!(
        reason(&out).starts_with("[RALPH LOOP - ITERATION 3/100]"),
        "{}",
        out.stdout
    );
    let out = stop(&p, "s1", "Parser done. Should I continue?").run();
    assert!(
        reason(&out).starts_with("[RALPH LOOP - ITERATION 4/100]"),
        "asking leave to go on is not a hand-back: {}",
        out.stdout
    );
}

#[test]
fn a_protected_skill_asking_the_user_waits_without_spending_a_reinforcement() {
    let p = Project::new();
    Hook::new("pre-tool-use")
        .payload(with(
            payload("PreToolUse", "s1", p.path()),
            json!({"tool_name": "Skill", "tool_input": {"skill": "plan"}, "tool_use_id": "toolu_1"}),
        ))
        .cwd(p.path())
        .run()
        .expect_valid();
    let out = stop(
        &p,
        "s1",
        "Before I plan: should the API stay backwards compatible?",
    )
    .run();
    assert!(out.json().get("decision").is_none(), "{}", out.stdout);
    assert_eq!(
        out.system_message(),
        "omc-hooks: the `plan` skill is waiting for you — the model asked you a question. Answer and it carries on with your next message (or type cancelomc to end it)."
    );
    let stack = p
        .read_json(".omc/state/sessions/s1/skill-active-state.json")
        .unwrap();
    assert_eq!(stack["stack"][0]["reinforcement_count"], 0);
    let out = stop(&p, "s1", "Drafted the first half of the plan.").run();
    assert!(
        reason(&out).starts_with("[SKILL ACTIVE: plan]"),
        "{}",
        out.stdout
    );
    assert!(
        reason(&out).contains("(reinforcement 1/5"),
        "{}",
        out.stdout
    );
}

// ------------------------------------------------------------------ 6. only its own events

#[test]
fn stop_acts_only_on_stop_payloads() {
    let p = Project::new();
    prompt(&p, "s1", "ralph fix the failing tests")
        .run()
        .expect_valid();
    for event in ["SubagentStop", "Notification", "UserPromptSubmit"] {
        let out = Hook::new("stop")
            .payload(with(
                payload(event, "s1", p.path()),
                json!({"last_assistant_message": "more to do"}),
            ))
            .cwd(p.path())
            .run();
        out.expect_noop();
        assert!(
            out.stderr
                .contains(&format!("payload is for {event}, not Stop")),
            "{}",
            out.stderr
        );
        assert_eq!(state(&p, "s1", "ralph").unwrap()["iteration"], 1, "{event}");
    }
    // No event name (older clients, hand-written payloads) and Stop itself are acted on.
    let mut v = with(
        payload("Stop", "s1", p.path()),
        json!({"last_assistant_message": "more"}),
    );
    v.as_object_mut().unwrap().remove("hook_event_name");
    let out = Hook::new("stop").payload(v).cwd(p.path()).run();
    assert!(reason(&out).contains("ITERATION 2/100"), "{}", out.stdout);
    assert!(reason(&stop(&p, "s1", "more").run()).contains("ITERATION 3/100"));
    // Another subcommand the same way: a UserPromptSubmit payload starts nothing as a Stop
    // payload did not, and a Stop payload given to user-prompt-submit starts nothing.
    let out = Hook::new("user-prompt-submit")
        .payload(with(
            payload("Stop", "s2", p.path()),
            json!({"prompt": "ralph fix it"}),
        ))
        .cwd(p.path())
        .run();
    out.expect_noop();
    assert!(state(&p, "s2", "ralph").is_none());
}

// ------------------------------------------------------------------ 7. smaller items

#[test]
fn mode_with_an_unknown_command_says_so() {
    let p = Project::new();
    let (code, _, err) = cli(p.path(), &["mode", "bogus"], &[]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(
            "omc-hooks mode: unknown command 'bogus'; one of start, show, phase, tests, stage"
        ),
        "{err}"
    );
    let (code, _, err) = cli(p.path(), &["mode", "phase", "ultraqa", "x"], &[]);
    assert_eq!(code, 2);
    assert_has(&err, "ultraqa does not report a phase");
    let (code, _, err) = cli(p.path(), &["mode", "tests", "ultraqa", "passing"], &[]);
    assert_eq!(code, 1);
    assert_has(
        &err,
        "Start one with '/omc-hooks:ultraqa <task>' in Claude Code, or with 'omc-hooks mode start ultraqa <task>'",
    );
}

#[test]
fn an_omc_state_file_without_a_mode_restores_under_its_own_name() {
    let p = Project::new();
    // As oh-my-claudecode writes it: no `mode`, no `schema_version`.
    p.write_json(
        ".omc/state/sessions/s1/ralph-state.json",
        &json!({
            "active": true, "iteration": 4, "max_iterations": 100, "session_id": "s1",
            "started_at": omc_hooks::time::iso(NOW - 10 * MIN),
            "last_checked_at": omc_hooks::time::iso(NOW - MIN),
            "prompt": "fix the flaky parser tests", "project_path": p.path(),
        }),
    );
    p.write_json(
        ".omc/state/sessions/s1/ultrawork-state.json",
        &json!({
            "active": true, "session_id": "s1", "original_prompt": "ship it",
            "started_at": omc_hooks::time::iso(NOW - MIN),
        }),
    );
    let out = Hook::new("session-start")
        .payload(with(
            payload("SessionStart", "s1", p.path()),
            json!({"source": "resume"}),
        ))
        .cwd(p.path())
        .run();
    let ctx = out.context();
    assert!(
        ctx.starts_with("[RALPH LOOP RESTORED] Iteration 4/100, started "),
        "{ctx}"
    );
    assert_has(&ctx, "[ULTRAWORK MODE RESTORED] Iteration 0/50");
    assert_lacks(&ctx, "[ MODE RESTORED]");
}

#[test]
fn the_session_summary_is_measured_from_session_start() {
    // A fresh project: no `.omc/` when the session starts; the first prompt, a minute later,
    // starts a run; the session ends an hour after it started.
    let p = Project::new();
    Hook::new("session-start")
        .payload(with(
            payload("SessionStart", "s1", p.path()),
            json!({"source": "startup"}),
        ))
        .cwd(p.path())
        .run()
        .expect_noop();
    // The start is kept outside the project: `.omc/` would show in the git status the agent
    // sends the model with the first prompt.
    assert!(!p.omc().exists(), "session-start created .omc/");
    let env = omc_hooks::env::Env::from_lookup(
        |_| None,
        None,
        [(
            "XDG_STATE_HOME".to_string(),
            crate::common::test_state_home(),
        )]
        .into(),
    );
    let sid = omc_hooks::state::session::SessionId::parse("s1").unwrap();
    let kept = omc_hooks::state::pending::peek(&env, p.path(), &sid);
    assert_eq!(
        kept.as_ref().unwrap()["started_at"],
        omc_hooks::time::iso(NOW)
    );
    assert_valid("session", kept.as_ref().unwrap());
    prompt(&p, "s1", "ralph fix the failing tests")
        .now(NOW + MIN)
        .run()
        .expect_valid();
    Hook::new("session-end")
        .payload(with(
            payload("SessionEnd", "s1", p.path()),
            json!({"reason": "other"}),
        ))
        .cwd(p.path())
        .now(NOW + 60 * MIN)
        .run()
        .expect_noop();
    let s = p.read_json(".omc/sessions/s1.json").unwrap();
    assert_valid("session-summary", &s);
    assert_eq!(s["duration_ms"], 60 * MIN, "{s}");
    assert!(
        omc_hooks::state::pending::peek(&env, p.path(), &sid).is_none(),
        "session-end takes the kept start back"
    );
    assert_eq!(s["started_at"], omc_hooks::time::iso(NOW));
}
