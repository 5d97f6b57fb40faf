//! Keyword detection and mode activation through the real binary (`user-prompt-submit`) and
//! the `detect` command: the context, the state files (schema-checked), cancel, configuration
//! and the team-worker switch.

use crate::common::{BIN, Hook, Project, payload};
use crate::common::{assert_has, assert_lacks};
use crate::schema::assert_valid;
use serde_json::{Value, json};
use std::process::Command;

const NOW_ISO: &str = "2026-12-03T13:45:00.000Z";

fn prompt(p: &Project, sid: &str, text: &str) -> Hook {
    let mut v = payload("UserPromptSubmit", sid, p.path());
    v["prompt"] = json!(text);
    Hook::new("user-prompt-submit").payload(v)
}

fn ralph_state(p: &Project) -> Option<Value> {
    p.read_json(".omc/state/sessions/s1/ralph-state.json")
}

#[test]
fn ralph_fix_activates_with_header_instructions_and_a_valid_state() {
    let p = Project::new();
    let out = prompt(&p, "s1", "ralph fix the tests").run();
    out.expect_context("[MAGIC KEYWORD: RALPH]\n\nRALPH mode is on")
        .expect_context("`<omc-complete/>`")
        .expect_context("`cancelomc`")
        .expect_context(
            "User request (as typed; the prompt itself stays authoritative):\nralph fix the tests",
        );
    assert!(out.context().starts_with("[MAGIC KEYWORD: RALPH]\n"));
    assert_eq!(
        out.json()["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    let s = ralph_state(&p).expect("ralph-state.json written");
    assert_valid("mode-state", &s);
    assert_eq!(s["active"], true);
    assert_eq!(s["mode"], "ralph");
    assert_eq!(s["iteration"], 1);
    assert_eq!(s["max_iterations"], 100);
    assert_eq!(s["consecutive_blocks"], 0);
    assert_eq!(s["prompt"], "ralph fix the tests");
    assert_eq!(s["session_id"], "s1");
    assert_eq!(s["started_at"], NOW_ISO);
    assert_eq!(s["project_path"], p.path().display().to_string());
    // no other mode was started
    assert_eq!(
        p.files()
            .iter()
            .filter(|f| f.ends_with("-state.json"))
            .count(),
        1,
        "{:?}",
        p.files()
    );
}

#[test]
fn questions_and_mentions_inject_nothing_and_write_nothing() {
    let p = Project::new();
    for text in [
        "what is ralph?",
        "don't use autopilot",
        "add an autopilot toggle",
        "look at src/ralph/mod.rs",
        "[MAGIC KEYWORD: RALPH]\n\nUser request:\nralph fix parser",
        "hello there",
    ] {
        prompt(&p, "s1", text).run().expect_noop();
    }
    p.assert_no_file(|f| f.ends_with("-state.json"));
}

#[test]
fn several_modes_share_one_header_and_only_persistent_ones_get_state() {
    let p = Project::new();
    let out = prompt(&p, "s1", "ralph fix the parser with tdd").run();
    out.expect_context("[MAGIC KEYWORDS DETECTED: RALPH, TDD]")
        .expect_context("TDD mode: test first.");
    let ctx = out.context();
    assert!(ctx.find("RALPH mode").unwrap() < ctx.find("TDD mode").unwrap());
    assert!(ralph_state(&p).is_some());
    assert!(!p.session_dir("s1").join("tdd-state.json").exists());

    let out = prompt(&p, "s2", "ultrathink about the race condition").run();
    out.expect_context("[MAGIC KEYWORD: ULTRATHINK]");
    assert!(
        !p.session_dir("s2").exists(),
        "context-only modes write nothing"
    );
}

#[test]
fn every_persistent_keyword_mode_starts_a_run() {
    let p = Project::new();
    for (text, mode, max) in [
        ("autopilot build a todo CLI", "autopilot", 30),
        ("ulw refactor the auth module", "ultrawork", 50),
        ("ralplan fix issue #2053", "ralplan", 30),
        ("랄프 켜줘", "ralph", 100),
    ] {
        let sid = format!("s-{mode}");
        prompt(&p, &sid, text)
            .run()
            .expect_context(&format!("[MAGIC KEYWORD: {}]", mode.to_uppercase()));
        let s = p
            .read_json(&format!(".omc/state/sessions/{sid}/{mode}-state.json"))
            .unwrap_or_else(|| panic!("{mode} state"));
        assert_valid("mode-state", &s);
        assert_eq!(s["mode"], mode);
        assert_eq!(s["max_iterations"], max);
        assert_eq!(s["prompt"], text);
    }
}

#[test]
fn reactivating_a_running_mode_restarts_it() {
    let p = Project::new();
    p.write_json(
        ".omc/state/sessions/s1/ralph-state.json",
        &json!({"schema_version":1,"mode":"ralph","active":true,"prompt":"old task",
                "started_at":"2026-12-01T00:00:00.000Z","iteration":7,"max_iterations":100,
                "consecutive_blocks":3}),
    );
    prompt(&p, "s1", "/ralph fix the parser")
        .run()
        .expect_context("[MAGIC KEYWORD: RALPH]");
    let s = ralph_state(&p).unwrap();
    assert_valid("mode-state", &s);
    assert_eq!(s["iteration"], 1);
    assert_eq!(s["prompt"], "/ralph fix the parser");
    assert_eq!(s["started_at"], NOW_ISO);
    assert_eq!(s["consecutive_blocks"], 0);
}

#[test]
fn a_new_prompt_resets_the_block_count_of_active_runs_only() {
    let p = Project::new();
    let base = json!({"schema_version":1,"active":true,"prompt":"t",
        "started_at":"2026-12-01T00:00:00.000Z","iteration":4,"max_iterations":100,
        "consecutive_blocks":5,"custom_field":"kept"});
    let mut ralph = base.clone();
    ralph["mode"] = json!("ralph");
    let mut done = base.clone();
    done["mode"] = json!("autopilot");
    done["active"] = json!(false);
    p.write_json(".omc/state/sessions/s1/ralph-state.json", &ralph);
    p.write_json(".omc/state/sessions/s1/autopilot-state.json", &done);
    prompt(&p, "s1", "how is it going?").run().expect_noop();
    let s = ralph_state(&p).unwrap();
    assert_valid("mode-state", &s);
    assert_eq!(s["consecutive_blocks"], 0);
    assert_eq!(s["iteration"], 4, "only the block count changes");
    assert_eq!(s["custom_field"], "kept");
    let a = p
        .read_json(".omc/state/sessions/s1/autopilot-state.json")
        .unwrap();
    assert_eq!(a["consecutive_blocks"], 5, "an ended run is left alone");
}

#[test]
fn cancel_ends_runs_and_skill_guards_in_the_hook_itself() {
    let p = Project::new();
    prompt(&p, "s1", "ralph fix the tests").run();
    prompt(&p, "s1", "ulw refactor the cache").run();
    p.write_json(
        ".omc/state/sessions/s1/skill-active-state.json",
        &json!({"stack":[{"skill_name":"plan"}]}),
    );
    let out = prompt(&p, "s1", "cancelomc").run();
    out.expect_context("[MAGIC KEYWORD: CANCEL]")
        .expect_context("Ended: ralph, ultrawork.")
        .expect_context("Skill guards released.");
    let s = ralph_state(&p).unwrap();
    assert_valid("mode-state", &s);
    assert_eq!(s["active"], false);
    assert_eq!(s["ended_reason"], "cancelled");
    assert_eq!(s["ended_at"], NOW_ISO);
    let u = p
        .read_json(".omc/state/sessions/s1/ultrawork-state.json")
        .unwrap();
    assert_eq!(u["active"], false);
    assert!(!p.session_dir("s1").join("skill-active-state.json").exists());

    // a second cancel finds nothing, and says so; a stop in the person's own words, with
    // nothing running, starts nothing and says nothing
    prompt(&p, "s1", "cancelomc")
        .run()
        .expect_context("Nothing was running, so nothing changed.");
    prompt(&p, "s1", "stop").run().expect_noop();
}

/// The Stop hook's answer for `sid` after the model said it is still working: the block's
/// reason, or "" when the turn may end.
fn stop_reason(p: &Project, sid: &str) -> String {
    let mut stop = payload("Stop", sid, p.path());
    stop["stop_hook_active"] = json!(false);
    stop["last_assistant_message"] = json!("still working on it");
    let out = Hook::new("stop").payload(stop).run();
    out.expect_valid();
    if out.stdout.trim().is_empty() {
        return String::new();
    }
    match out.json()["decision"].as_str() {
        Some("block") => out.json()["reason"].as_str().unwrap_or("").to_string(),
        _ => String::new(),
    }
}

#[test]
fn a_stop_in_the_persons_own_words_ends_an_active_run_as_cancelomc_does() {
    // issue 26: during a run, a person can say stop in their own words, in every language of
    // the keyword table; the run ends as `cancelomc` ends it, and its Stop no longer blocks
    let p = Project::new();
    for (k, (start, stop)) in [
        ("ralph fix the tests", "turn off ralph"),
        ("ralph fix the tests", "stop the loop, it's burning tokens"),
        ("ulw refactor the cache", "ok stop, that's enough looping"),
        (
            "autopilot build me a cli",
            "please stop now, I'll take it from here",
        ),
        ("ralplan the cache redesign", "kill it"),
        ("ralph fix the tests", "그만해, 토큰 너무 많이 쓴다"),
        ("ralph fix the tests", "ループを止めてください"),
        ("ralph fix the tests", "停下来，别再循环了"),
        // issue 38: German, Spanish, French
        ("ralph fix the tests", "stopp, das reicht"),
        ("ulw refactor the cache", "para ya, quiero revisar"),
        ("ralph fix the tests", "arrête, ça suffit"),
    ]
    .into_iter()
    .enumerate()
    {
        let sid = format!("s{k}");
        prompt(&p, &sid, start).run().expect_valid();
        assert!(!stop_reason(&p, &sid).is_empty(), "{start}: the run blocks");
        let out = prompt(&p, &sid, stop).run();
        out.expect_context("[MAGIC KEYWORD: CANCEL]")
            .expect_context("Ended: ");
        let mode = start.split(' ').next().unwrap().replace("ulw", "ultrawork");
        let s = p
            .read_json(&format!(".omc/state/sessions/{sid}/{mode}-state.json"))
            .unwrap();
        assert_valid("mode-state", &s);
        assert_eq!(s["active"], false, "{stop}");
        assert_eq!(s["ended_reason"], "cancelled", "{stop}");
        assert_eq!(
            stop_reason(&p, &sid),
            "",
            "{stop}: the Stop no longer blocks"
        );
    }
}

#[test]
fn outside_a_run_a_stop_starts_nothing_and_a_limit_on_the_loop_is_not_a_stop() {
    let p = Project::new();
    for text in [
        "stop the loop, it's burning tokens",
        "ok stop, that's enough looping",
        "turn off ralph",
        "그만해",
        "もう止めて",
        "stop ralph from touching the migrations folder",
        "hör auf",
        "basta",
        "mets en pause",
    ] {
        prompt(&p, "s1", text).run().expect_noop();
    }
    p.assert_no_file(|f| f.ends_with("-state.json"));

    // during a run, a limit on the loop neither ends it nor restarts it
    prompt(&p, "s1", "ralph fix the tests").run().expect_valid();
    assert!(!stop_reason(&p, "s1").is_empty());
    let before = ralph_state(&p).unwrap();
    prompt(&p, "s1", "stop ralph from touching the migrations folder")
        .run()
        .expect_noop();
    let after = ralph_state(&p).unwrap();
    assert_eq!(after["active"], true);
    assert_eq!(after["iteration"], before["iteration"]);
    assert_eq!(after["started_at"], before["started_at"]);

    // a skill guard alone is something running: the stop releases it
    let q = Project::new();
    q.write_json(
        ".omc/state/sessions/s1/skill-active-state.json",
        &json!({"stack":[{"skill_name":"plan"}]}),
    );
    prompt(&q, "s1", "ok you can stop now")
        .run()
        .expect_context("Skill guards released.");
    assert!(!q.session_dir("s1").join("skill-active-state.json").exists());
}

#[test]
fn an_invocation_after_hundreds_of_mentions_activates_in_the_hook_and_in_detect() {
    // issue 26: every mention up to the bound is judged, and detect reports exactly those
    let p = Project::new();
    let mut text = "what is ralph? is ralph safe? ".repeat(150);
    text.push_str("\nralph fix the tests");
    prompt(&p, "s1", &text)
        .run()
        .expect_context("[MAGIC KEYWORD: RALPH]");
    assert_eq!(ralph_state(&p).unwrap()["active"], true);
    let (_, out) = detect(&["--json"], &text, p.path());
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["modes"], json!(["ralph"]));
    let c = v["candidates"].as_array().unwrap();
    assert_eq!(c.len(), 301, "every mention judged and reported");
    assert_eq!(c[300]["activated"], true);
    assert_eq!(v["unjudged"], 0);
}

#[test]
fn cancel_is_exclusive_and_leaves_other_sessions_alone() {
    let p = Project::new();
    prompt(&p, "s1", "ralph fix the tests").run();
    prompt(&p, "other", "ralph fix the docs").run();
    let out = prompt(&p, "s1", "cancelomc, then ultrathink about what went wrong").run();
    assert!(!out.context().contains("ULTRATHINK"), "{}", out.context());
    assert_eq!(ralph_state(&p).unwrap()["active"], false);
    let other = p
        .read_json(".omc/state/sessions/other/ralph-state.json")
        .unwrap();
    assert_eq!(other["active"], true);
}

#[test]
fn configuration_disables_names_but_never_cancel() {
    let p = Project::new();
    p.write_json(
        ".omc/config.json",
        &json!({"keywords":{"disabled":["ralph","cancel"]},"autopilot":{"max_iterations":9}}),
    );
    // `cancel` cannot be disabled, and listing it is reported (once), not silently dropped.
    let out = prompt(&p, "s1", "ralph fix the tests").run();
    assert_eq!(out.context(), "");
    let note = out.json()["systemMessage"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert_has(
        &note,
        "`keywords.disabled[1]`: the string \"cancel\" is not an allowed value",
    );
    assert!(ralph_state(&p).is_none());
    let out = prompt(&p, "s1", "autopilot build a todo CLI").run();
    out.expect_context("at most 9 continuations");
    assert!(
        out.json().get("systemMessage").is_none(),
        "told once: {}",
        out.stdout
    );
    let a = p
        .read_json(".omc/state/sessions/s1/autopilot-state.json")
        .unwrap();
    assert_eq!(a["max_iterations"], 9);
    prompt(&p, "s1", "cancelomc")
        .run()
        .expect_context("Ended: autopilot.");
}

#[test]
fn team_workers_activate_nothing_but_can_still_cancel() {
    let p = Project::new();
    prompt(&p, "s1", "ralph fix the tests")
        .env("OMC_TEAM_WORKER", "1")
        .run()
        .expect_noop();
    assert!(ralph_state(&p).is_none());
    prompt(&p, "s1", "ralph fix the tests").run();
    prompt(&p, "s1", "cancelomc")
        .env("OMC_TEAM_WORKER", "worker-2")
        .run()
        .expect_context("Ended: ralph.");
    assert_eq!(ralph_state(&p).unwrap()["active"], false);
}

#[test]
fn pasted_hook_output_is_not_stored_as_the_task() {
    let p = Project::new();
    let text = "[RALPH LOOP - ITERATION 2/100] Work is NOT done.\nTask: previous task\n\nrun ralph on the new parser";
    prompt(&p, "s1", text)
        .run()
        .expect_context("[MAGIC KEYWORD: RALPH]");
    let s = ralph_state(&p).unwrap();
    assert_eq!(s["prompt"], "run ralph on the new parser");
    let long = format!("/ralph do all of this:\n{}", "x".repeat(2_000));
    let out = prompt(&p, "s1", &long).run();
    let s = ralph_state(&p).unwrap();
    assert_eq!(s["prompt"].as_str().unwrap().chars().count(), 500);
    assert!(out.context().chars().count() < 9_000);
}

#[test]
fn a_payload_without_a_session_uses_the_session_less_path() {
    let p = Project::new();
    let mut v = payload("UserPromptSubmit", "s1", p.path());
    v.as_object_mut().unwrap().remove("session_id");
    v["prompt"] = json!("ralph fix the tests");
    Hook::new("user-prompt-submit")
        .payload(v)
        .run()
        .expect_context("[MAGIC KEYWORD: RALPH]");
    let s = p
        .read_json(".omc/state/ralph-state.json")
        .expect("session-less state");
    assert_valid("mode-state", &s);
    assert!(s.get("session_id").is_none());
}

fn detect(args: &[&str], stdin: &str, cwd: &std::path::Path) -> (i32, String) {
    let mut cmd = Command::new(BIN);
    cmd.arg("detect")
        .args(args)
        .current_dir(cwd)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("OMC_STATE_DIR");
    let (code, out, _) = crate::common::code_out_err(&crate::common::output_with_stdin(
        &mut cmd,
        stdin.as_bytes(),
    ));
    (code, out)
}

#[test]
fn detect_explains_the_issue_15_shapes_and_lists_every_rule() {
    let p = Project::new();
    for (prompt, mode, rule) in [
        ("ulw", "ultrawork", "bare-keyword"),
        ("ralplan the schema change", "ralplan", "verb-object"),
        (
            "build me a cli that renames photos",
            "autopilot",
            "creation-request",
        ),
        (
            "clean up the dead code in the importer",
            "ai-slop-cleaner",
            "cleanup-smell",
        ),
        (
            "search the codebase for unwrap calls",
            "deepsearch",
            "codebase-search",
        ),
    ] {
        let (code, out) = detect(&["--json", prompt], "", p.path());
        assert_eq!(code, 0);
        let v: Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(v["modes"], json!([mode]), "{prompt}: {v}");
        let c = &v["candidates"][0];
        assert_eq!(c["rule"], rule, "{prompt}: {v}");
        assert_eq!(c["stage"], "shape");
        assert!(c["why"].as_str().unwrap().len() > 10, "{v}");
    }
    // joined modes: the first decides, the others are reported as joined
    let (_, out) = detect(
        &["--json", "tdd and ralph: add retry to the client"],
        "",
        p.path(),
    );
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["modes"], json!(["ralph", "tdd"]));
    assert_eq!(v["candidates"][0]["rule"], "colon-directive");
    assert_eq!(v["candidates"][1]["rule"], "joined-modes");
    // a phrase asked about activates nothing, and says why
    let (_, out) = detect(&["I want a dashboard? no, just explain it"], "", p.path());
    assert!(out.starts_with("verdict: nothing activated"), "{out}");
    assert_has(&out, "retracted");

    // the table: every rule once, in order, as text and JSON
    let (code, out) = detect(&["--rules"], "", p.path());
    assert_eq!(code, 0);
    for name in [
        "fenced-code",
        "inside-word",
        "negation",
        "verb-object",
        "cleanup-smell",
    ] {
        assert!(out.contains(name), "{name}: {out}");
    }
    let (_, out) = detect(&["--rules", "--json"], "", p.path());
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let rows = v["rules"].as_array().unwrap();
    assert!(rows.len() > 40);
    assert_eq!(rows[0]["stage"], "sanitise");
    assert_eq!(rows.last().unwrap()["name"], "cancel-exclusive");
    // a stop in the person's own words is judged as during a run, or with --no-run outside one
    let (_, out) = detect(
        &["--json", "stop the loop, it's burning tokens"],
        "",
        p.path(),
    );
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["modes"], json!(["cancel"]));
    assert_eq!(v["cancel_needs_run"], true);
    assert_eq!(v["candidates"][0]["rule"], "stop-request");
    let (_, out) = detect(
        &["--no-run", "stop the loop, it's burning tokens"],
        "",
        p.path(),
    );
    assert!(out.starts_with("verdict: nothing activated"), "{out}");
    assert_has(&out, "nothing-running");
    let (code, _) = detect(&["--rules", "ralph fix it"], "", p.path());
    assert_eq!(code, 2);
    assert!(!p.omc().exists(), "detect wrote {:?}", p.files());
}

/// Issue 38: `detect --explain` says, for each of its five kinds, why a prompt did or did not
/// fire: a stop in another language (and a stop verb set aside, with `not-a-stop`), a CJK form,
/// our own output and a bug report (the sanitiser's rule), a CJK noun phrase.
#[test]
fn detect_explain_names_the_rule_for_issue_38s_kinds() {
    let p = Project::new();
    let rule = |prompt: &str| -> (Value, Value) {
        let (code, out) = detect(&["--json", "--explain", prompt], "", p.path());
        assert_eq!(code, 0);
        let v: Value = serde_json::from_str(out.trim()).unwrap();
        (v["modes"].clone(), v["candidates"][0]["rule"].clone())
    };
    assert_eq!(
        rule("stopp, das reicht"),
        (json!(["cancel"]), json!("stop-request"))
    );
    assert_eq!(
        rule("arrête-toi là"),
        (json!(["cancel"]), json!("stop-request"))
    );
    assert_eq!(
        rule("对登录接口做安全审查"),
        (json!(["security-review"]), json!("cjk-directive"))
    );
    assert_eq!(
        rule(
            "ralph: run started in session s1 (iteration 1/100); the next Stop in that session continues it. Task: fix it"
        ),
        (json!([]), json!("omc-output"))
    );
    assert_eq!(
        rule(
            "Bug: Autopilot disengages on ramps\nSteps to reproduce:\n1. Enable Autopilot\nExpected: stays on\nActual: turns off"
        ),
        (json!([]), json!("bug-report"))
    );
    assert_eq!(
        rule("랄프 페이지 버튼 색 바꿔줘"),
        (json!([]), json!("cjk-modifier"))
    );
    // a stop verb that did not ask to stop is set aside, and said so only with --explain
    let (_, out) = detect(&["--explain", "para los tests usa jest"], "", p.path());
    assert!(
        out.contains("\"para\"") && out.contains("not-a-stop"),
        "{out}"
    );
    let (_, out) = detect(&["para los tests usa jest"], "", p.path());
    assert_lacks(&out, "not-a-stop");
    assert!(!p.omc().exists(), "detect wrote {:?}", p.files());
}

/// Issue 45: `detect --explain` names the rule for each of its kinds: a pasted document or
/// configuration, a plan or a choice, a dash-headed question about the mode, a person praised;
/// and decorated, dictated, mixed-language and middle-dotted requests are read through to the
/// shape that takes them (`detect --rules` lists `decoration`).
#[test]
fn detect_explain_names_the_rule_for_issue_45s_kinds() {
    let p = Project::new();
    let rule = |prompt: &str| -> (Value, Value) {
        let (code, out) = detect(&["--json", "--explain", prompt], "", p.path());
        assert_eq!(code, 0);
        let v: Value = serde_json::from_str(out.trim()).unwrap();
        let last = v["candidates"].as_array().unwrap().last().cloned().unwrap();
        (v["modes"].clone(), last["rule"].clone())
    };
    for (prompt, modes, decided) in [
        (
            "convert this TOML to JSON:\n[ralph]\nmax_iterations = 100\n\n[ultrawork]\nmax_minutes = 90",
            json!([]),
            "pasted-document",
        ),
        (
            "fix the grammar in this README section:\n## Magic keywords\n- ulw — runs parallel agents",
            json!([]),
            "pasted-document",
        ),
        (
            "Options for this afternoon:\n- ralph the flaky tests\n- ulw the lint errors",
            json!([]),
            "planned",
        ),
        (
            "remind me to ralph the flaky tests after the release",
            json!([]),
            "planned",
        ),
        (
            "deep interview — is it worth it for a weekend project?",
            json!([]),
            "informational",
        ),
        (
            "Ralph — great catch on the race condition",
            json!([]),
            "vocative",
        ),
        (
            "um okay so ralph fix the flaky checkout test",
            json!(["ralph"]),
            "leading-imperative",
        ),
        (
            "@codex ulw the lint errors",
            json!(["ultrawork"]),
            "verb-object",
        ),
        (
            "_ultrathink_: can the cache evict a pinned entry?",
            json!(["ultrathink"]),
            "colon-directive",
        ),
        (
            "ralph comma fix the login redirect period",
            json!(["ralph"]),
            "leading-imperative",
        ),
        (
            "checkout wala bug fix kar do, ralph",
            json!(["ralph"]),
            "trailing-tag",
        ),
        (
            "コード・レビューをお願いします",
            json!(["code-review"]),
            "cjk-directive",
        ),
    ] {
        assert_eq!(rule(prompt), (modes, json!(decided)), "{prompt}");
    }
    let (_, out) = detect(&["--rules"], "", p.path());
    assert!(
        out.contains("decoration") && out.contains("planned"),
        "{out}"
    );
    assert!(!p.omc().exists(), "detect wrote {:?}", p.files());
}

#[test]
fn detect_reports_the_verdict_and_the_deciding_rules_without_touching_state() {
    let p = Project::new();
    let (code, out) = detect(
        &["--json", "ralph fix the tests. what is autopilot?"],
        "",
        p.path(),
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["modes"], json!(["ralph"]));
    assert_eq!(v["cancel"], false);
    let c = v["candidates"].as_array().unwrap();
    assert_eq!(c[0]["name"], "ralph");
    assert_eq!(c[0]["matched"], "ralph");
    assert_eq!(c[0]["offset"], 0);
    assert_eq!(c[0]["activated"], true);
    assert_eq!(c[0]["rule"], "leading-imperative");
    assert_eq!(c[1]["name"], "autopilot");
    assert_eq!(c[1]["activated"], false);
    assert_eq!(c[1]["rule"], "informational");
    assert!(!c[1]["why"].as_str().unwrap().is_empty());

    // stdin when no prompt argument; the human table
    let (code, out) = detect(&[], "look at `ralph`\n/ultrawork fix it", p.path());
    assert_eq!(code, 0);
    assert_has(&out, "verdict: [MAGIC KEYWORD: ULTRAWORK]");
    assert_has(&out, "inline-code");
    assert_has(&out, "explicit-prefix");
    assert!(!p.omc().exists(), "detect wrote {:?}", p.files());

    // disabled names are reported as such
    p.write_json(
        ".omc/config.json",
        &json!({"keywords":{"disabled":["tdd"]}}),
    );
    let (_, out) = detect(&["--json", "tdd: fix the parser"], "", p.path());
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["modes"], json!([]));
    assert_eq!(v["candidates"][0]["rule"], "disabled-by-config");
    assert_eq!(p.files(), vec![".omc/config.json".to_string()]);
}

#[test]
fn a_pasted_stop_reason_from_our_own_stop_hook_activates_nothing() {
    let p = Project::new();
    for (sid, text) in [
        ("a", "ralph fix the parser"),
        ("b", "autopilot build the CLI"),
        ("c", "ulw refactor the auth module"),
        ("d", "ralplan design the cache"),
    ] {
        prompt(&p, sid, text).run().expect_valid();
        let mut stop = payload("Stop", sid, p.path());
        stop["stop_hook_active"] = json!(false);
        stop["last_assistant_message"] = json!("still working");
        let out = Hook::new("stop").payload(stop).run();
        let reason = out.json()["reason"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(!reason.is_empty(), "{text}: the Stop side blocks");
        for pasted in [
            reason.clone(),
            format!("Stop hook feedback:\n{reason}\n\nwhy?"),
        ] {
            prompt(&p, sid, &pasted).run().expect_noop();
        }
    }
}
