//! Skill guards (contract §7) through the real binary, with the clock pinned: protection
//! levels, nesting, restarts, every release path, and the stack file against its schema.

use crate::common::assert_has;
use crate::common::{Hook, Project, payload};
use crate::schema::assert_valid;
use serde_json::{Value, json};

const T0: i64 = 1_796_305_500_000;
const MIN: i64 = 60_000;
const SID: &str = "s1";
const STACK: &str = ".omc/state/sessions/s1/skill-active-state.json";

fn skill_call(p: &Project, event: &str, skill: &str, id: &str) -> Value {
    let mut v = payload(event, SID, p.path());
    v["tool_name"] = json!("Skill");
    v["tool_input"] = json!({"skill": skill});
    v["tool_use_id"] = json!(id);
    v
}

/// PreToolUse for `skill` at `now`; returns the answer's context.
#[track_caller]
fn invoke(p: &Project, skill: &str, id: &str, now: i64) -> String {
    let out = Hook::new("pre-tool-use")
        .now(now)
        .payload(skill_call(p, "PreToolUse", skill, id))
        .run();
    out.expect_valid();
    let v = out.json();
    assert!(
        v["hookSpecificOutput"].get("permissionDecision").is_none(),
        "a Skill call is never refused: {v}"
    );
    out.context()
}

#[track_caller]
fn stop(p: &Project, now: i64, last: &str) -> Option<String> {
    let mut v = payload("Stop", SID, p.path());
    v["last_assistant_message"] = json!(last);
    v["stop_hook_active"] = json!(false);
    let out = Hook::new("stop").now(now).payload(v).run();
    out.expect_valid();
    if out.stdout.is_empty() {
        return None;
    }
    let reason = out.json()["reason"].as_str().map(str::to_string);
    out.expect_block("[SKILL ACTIVE: ");
    reason
}

#[track_caller]
fn stack(p: &Project) -> Option<Value> {
    let v = p.read_json(STACK)?;
    assert_valid("skill-active-state", &v);
    Some(v)
}

fn names(p: &Project) -> Vec<String> {
    stack(p).map_or_else(Vec::new, |v| {
        v["stack"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["skill_name"].as_str().unwrap().to_string())
            .collect()
    })
}

#[test]
fn a_plugin_qualified_protected_skill_is_pushed_with_its_level() {
    let p = Project::new();
    let ctx = invoke(&p, "oh-my-claudecode:plan", "toolu_1", T0);
    assert!(ctx.starts_with("[SKILL GUARD: plan (medium)]"), "{ctx}");
    let v = stack(&p).expect("stack written");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["session_id"], SID);
    let g = &v["stack"][0];
    assert_eq!(g["skill_name"], "plan");
    assert_eq!(g["invoked_as"], "oh-my-claudecode:plan");
    assert_eq!(g["level"], "medium");
    assert_eq!(g["max_reinforcements"], 5);
    assert_eq!(g["stale_ttl_ms"], 900_000);
    assert_eq!(g["reinforcement_count"], 0);
    assert_eq!(g["tool_use_id"], "toolu_1");
    assert_eq!(g["started_at"], "2026-12-03T13:45:00.000Z");
    assert_eq!(g["expires_at"], "2026-12-03T14:00:00.000Z");
}

#[test]
fn each_level_blocks_to_its_cap_then_stops_normally() {
    for (skill, max) in [("ask", 3), ("plan", 5), ("deep-interview", 10)] {
        let p = Project::new();
        invoke(&p, skill, "toolu_1", T0);
        for k in 1..=max {
            let r = stop(&p, T0 + k * 1000, "I'll stop here.").expect("blocked");
            assert!(r.starts_with(&format!("[SKILL ACTIVE: {skill}]")), "{r}");
            assert_has(&r, &format!("(reinforcement {k}/{max},"));
            assert_eq!(stack(&p).unwrap()["stack"][0]["reinforcement_count"], k);
        }
        assert_eq!(stop(&p, T0 + 20_000, "I'll stop here."), None, "{skill}");
        assert!(stack(&p).is_none(), "{skill}: released at the cap");
    }
}

#[test]
fn each_level_lapses_at_its_ttl() {
    for (skill, ttl) in [
        ("ask", 5 * MIN),
        ("review", 15 * MIN),
        ("deepinit", 30 * MIN),
    ] {
        let p = Project::new();
        invoke(&p, skill, "toolu_1", T0);
        let r = stop(&p, T0 + ttl - 1000, "stopping").expect("still guarded");
        assert_has(&r, "guard lapses in 1s");
        assert_eq!(stop(&p, T0 + ttl, "stopping"), None, "{skill}");
        assert!(stack(&p).is_none(), "{skill}: expired guard dropped");
    }
}

#[test]
fn nesting_stacks_and_completion_releases_the_top_first() {
    let p = Project::new();
    invoke(&p, "plan", "toolu_1", T0);
    invoke(&p, "oh-my-claudecode:ask", "toolu_2", T0 + MIN);
    assert_eq!(names(&p), ["plan", "ask"]);
    let r = stop(&p, T0 + 2 * MIN, "Asked.").unwrap();
    assert!(r.starts_with("[SKILL ACTIVE: ask]"), "{r}");
    // The child completes; the parent is still mid-workflow and decides the same Stop.
    let r = stop(&p, T0 + 3 * MIN, "Answer recorded.\n<omc-complete/>").unwrap();
    assert!(r.starts_with("[SKILL ACTIVE: plan]"), "{r}");
    assert_has(&r, "1/5");
    assert_eq!(names(&p), ["plan"]);
    assert_eq!(
        stop(&p, T0 + 4 * MIN, "Plan written.\n\n<omc-complete/>"),
        None
    );
    assert!(stack(&p).is_none());
}

#[test]
fn repeating_a_skill_restarts_its_guard() {
    let p = Project::new();
    invoke(&p, "plan", "toolu_1", T0);
    invoke(&p, "ask", "toolu_2", T0);
    stop(&p, T0 + MIN, "x").unwrap(); // ask 1/3
    invoke(&p, "plan", "toolu_3", T0 + 4 * MIN);
    let v = stack(&p).unwrap();
    assert_eq!(
        names(&p),
        ["ask", "plan"],
        "no duplicate; the restarted skill is on top"
    );
    let g = &v["stack"][1];
    assert_eq!(g["tool_use_id"], "toolu_3");
    assert_eq!(g["reinforcement_count"], 0);
    assert_eq!(g["expires_at"], "2026-12-03T14:04:00.000Z");
    // Past the first start's TTL (and ask's), the restarted plan still guards.
    let r = stop(&p, T0 + 17 * MIN, "x").unwrap();
    assert!(
        r.starts_with("[SKILL ACTIVE: plan]") && r.contains("1/5"),
        "{r}"
    );
    assert_eq!(names(&p), ["plan"]);
}

/// Issue 46: the seed's level table guards `tdd` and `analyze` (light) and `code-review`
/// (medium): a `tdd` skill in progress holds the Stop to its light cap.
#[test]
fn tdd_analyze_and_code_review_are_guarded_at_the_seeds_levels() {
    for (skill, level, max) in [
        ("oh-my-claudecode:tdd", "light", 3),
        ("analyze", "light", 3),
        ("code-review", "medium", 5),
    ] {
        let p = Project::new();
        let ctx = invoke(&p, skill, "toolu_1", T0);
        let bare = skill.rsplit(':').next().unwrap();
        assert!(
            ctx.starts_with(&format!("[SKILL GUARD: {bare} ({level})]")),
            "{ctx}"
        );
        let r = stop(&p, T0 + 1000, "I'll stop here.").expect("guarded");
        assert!(r.starts_with(&format!("[SKILL ACTIVE: {bare}]")), "{r}");
        assert_has(&r, &format!("(reinforcement 1/{max},"));
    }
}

#[test]
fn unknown_skills_are_not_guarded() {
    let p = Project::new();
    assert_eq!(invoke(&p, "demo", "toolu_1", T0), "");
    assert_eq!(invoke(&p, "oh-my-claudecode:ralph", "toolu_2", T0), "");
    assert!(stack(&p).is_none());
    assert!(
        !p.omc().exists(),
        "no state directory for an unguarded skill"
    );
    assert_eq!(stop(&p, T0, "done"), None);
}

#[test]
fn configuration_protects_custom_skills_and_unprotects_defaults() {
    let p = Project::new();
    p.write_json(
        ".omc/config.json",
        &json!({"skills":{"protection":{"demo":"light","plan":"none","../../x":"heavy"}}}),
    );
    assert!(invoke(&p, "demo", "toolu_1", T0).starts_with("[SKILL GUARD: demo (light)]"));
    assert_eq!(invoke(&p, "oh-my-claudecode:plan", "toolu_2", T0), "");
    assert_eq!(names(&p), ["demo"]);
    // A hostile name is only ever a lookup key: it is guarded, and no path comes of it.
    invoke(&p, "../../x", "toolu_3", T0);
    assert_eq!(names(&p), ["demo", "../../x"]);
    let r = stop(&p, T0 + 1, "x").unwrap();
    assert!(r.starts_with("[SKILL ACTIVE: ../../x]"), "{r}");
    assert!(!p.path().join("x").exists());
}

#[test]
fn the_instructions_loaded_post_tool_use_does_not_release() {
    let p = Project::new();
    invoke(&p, "plan", "toolu_1", T0);
    // As recorded from the real client for an inline skill.
    let mut v = skill_call(&p, "PostToolUse", "plan", "toolu_1");
    v["tool_response"] = json!({"commandName": "plan", "success": true});
    v["duration_ms"] = json!(13);
    Hook::new("post-tool-use")
        .now(T0 + 1000)
        .payload(v)
        .run()
        .expect_noop();
    assert_eq!(
        stack(&p).unwrap()["stack"][0]["loaded_at"],
        "2026-12-03T13:45:01.000Z"
    );
    assert!(stop(&p, T0 + 2000, "Loaded the plan skill.").is_some());
}

#[test]
fn a_forked_skill_is_released_by_its_post_tool_use() {
    let p = Project::new();
    invoke(&p, "review", "toolu_1", T0);
    let mut v = skill_call(&p, "PostToolUse", "review", "toolu_1");
    v["tool_input"]["args"] = json!("some args");
    v["tool_response"] = json!({"agentId":"a20e92c2e2386ecbc","commandName":"review",
        "result":"forked-skill-done","status":"forked","success":true});
    Hook::new("post-tool-use")
        .now(T0 + 1000)
        .payload(v)
        .run()
        .expect_noop();
    assert!(stack(&p).is_none());
    assert_eq!(stop(&p, T0 + 2000, "done"), None);
}

#[test]
fn a_failed_skill_call_releases_its_guard() {
    let p = Project::new();
    invoke(&p, "plan", "toolu_1", T0);
    let mut v = skill_call(&p, "PostToolUseFailure", "plan", "toolu_1");
    v["error"] = json!("Unknown skill: plan");
    // The guard says nothing; tool-failure escalation records the failure as for any tool.
    Hook::new("post-tool-use-failure")
        .now(T0 + 1000)
        .payload(v)
        .run()
        .expect_context("[TOOL ERROR - RETRY 1] Tool \"Skill\" failed.");
    assert!(stack(&p).is_none());
}

#[test]
fn session_end_releases_every_guard() {
    let p = Project::new();
    invoke(&p, "plan", "toolu_1", T0);
    invoke(&p, "deep-interview", "toolu_2", T0);
    let mut v = payload("SessionEnd", SID, p.path());
    v["reason"] = json!("other");
    Hook::new("session-end")
        .now(T0 + 1000)
        .payload(v)
        .run()
        .expect_noop();
    assert!(!p.path().join(STACK).exists());
    assert_eq!(stop(&p, T0 + 2000, "bye"), None);
}

#[test]
fn guards_of_other_sessions_do_not_block() {
    let p = Project::new();
    invoke(&p, "plan", "toolu_1", T0);
    let mut v = payload("Stop", "s2", p.path());
    v["last_assistant_message"] = json!("done");
    Hook::new("stop").now(T0).payload(v).run().expect_noop();
    assert_eq!(stack(&p).unwrap()["stack"][0]["reinforcement_count"], 0);
}

#[test]
fn a_corrupt_or_foreign_stack_never_blocks() {
    let p = Project::new();
    // oh-my-claudecode's own scalar shape: not ours to obey.
    p.write_json(
        STACK,
        &json!({"active":true,"skill_name":"plan","reinforcement_count":0,"max_reinforcements":5}),
    );
    assert_eq!(stop(&p, T0, "done"), None);
    let moved = p
        .files()
        .into_iter()
        .any(|f| f.contains("skill-active-state.json.corrupt-"));
    assert!(moved, "{:?}", p.files());
    // And a new guard starts cleanly afterwards.
    invoke(&p, "plan", "toolu_1", T0);
    assert_eq!(names(&p), ["plan"]);
}

#[test]
fn the_recorded_client_payloads_drive_the_guard() {
    let p = Project::new();
    p.write_json(
        ".omc/config.json",
        &json!({"skills":{"protection":{"demo":"medium","forky":"light"}}}),
    );
    let fixture = |name: &str| {
        let (_, mut v) = crate::common::fixtures()
            .into_iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("fixture {name}"));
        v["cwd"] = json!(p.path());
        v
    };
    let sid = fixture("PreToolUse-Skill.json")["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let rel = format!(".omc/state/sessions/{sid}/skill-active-state.json");
    let run = |sub: &str, name: &str| Hook::new(sub).payload(fixture(name)).run();

    run("pre-tool-use", "PreToolUse-Skill.json").expect_context("[SKILL GUARD: demo (medium)]");
    run("post-tool-use", "PostToolUse-Skill.json").expect_noop();
    let v = p
        .read_json(&rel)
        .expect("guard kept after the inline PostToolUse");
    assert_valid("skill-active-state", &v);
    assert_eq!(v["stack"][0]["tool_use_id"], "toolu_e2e_0009");
    assert!(v["stack"][0]["loaded_at"].is_string());
    run("stop", "Stop.json").expect_block("[SKILL ACTIVE: demo]");

    // The forked skill's recorded PostToolUse (its agent finished) releases its own guard only.
    let mut pre = fixture("PreToolUse-Skill.json");
    pre["tool_input"] = json!({"skill": "forky", "args": "some args"});
    pre["tool_use_id"] = json!("toolu_e2e_0013");
    Hook::new("pre-tool-use").payload(pre).run().expect_valid();
    let v = p.read_json(&rel).unwrap();
    assert_eq!(v["stack"][1]["args"], "some args");
    run("post-tool-use", "PostToolUse-Skill-fork.json").expect_noop();
    let v = p.read_json(&rel).unwrap();
    assert_valid("skill-active-state", &v);
    assert_eq!(v["stack"].as_array().unwrap().len(), 1);
    assert_eq!(v["stack"][0]["skill_name"], "demo");

    run("session-end", "SessionEnd.json").expect_noop();
    assert!(p.read_json(&rel).is_none());
}
