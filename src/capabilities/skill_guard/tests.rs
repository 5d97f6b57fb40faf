//! Unit tests of the skill-guard entry points against a real [`Store`] in a temporary
//! directory, with the clock pinned.

use super::*;
use crate::capabilities::cancel::cancel_scope;
use crate::config::Config;
use crate::env::Env;
use crate::protocol::HookInput;
use crate::state::Root;
use serde_json::json;

const T0: i64 = 1_796_305_500_000;
const MIN: i64 = 60_000;

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
    env: Env,
    config: Config,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture::with_config(json!({}))
    }

    fn with_config(config: Value) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(
            Root {
                project: dir.path().into(),
                omc: dir.path().join(".omc"),
            },
            T0,
        );
        Fixture {
            _dir: dir,
            store,
            env: Env::default(),
            config: Config::from_value(config),
        }
    }

    /// Runs `f` for `payload` as Claude Code sends it (the format `HookInput::from_map` gives).
    fn run(&self, hook: &str, now_ms: i64, payload: Value, f: fn(&Ctx<'_>) -> Answer) -> Answer {
        let claude = crate::protocol::agents::Agent::Claude;
        self.run_as(claude, hook, now_ms, payload, f)
    }

    /// [`Fixture::run`] for a payload decoded as `agent`'s.
    fn run_as(
        &self,
        agent: crate::protocol::agents::Agent,
        hook: &str,
        now_ms: i64,
        payload: Value,
        f: fn(&Ctx<'_>) -> Answer,
    ) -> Answer {
        let mut map = payload.as_object().cloned().unwrap_or_default();
        map.entry("session_id").or_insert(json!("s1"));
        let mut input = HookInput::from_map(map);
        input.format = agent;
        let ctx = Ctx {
            hook: crate::hooks::find(hook).unwrap(),
            input: &input,
            env: &self.env,
            now_ms,
            scope: Scope::for_session(input.session_id.as_deref()),
            store: Some(self.store.clone()),
            config: self.config.clone(),
            hook_files: Default::default(),
        };
        f(&ctx)
    }

    fn invoke(&self, skill: &str, id: &str, now_ms: i64) -> Answer {
        self.run(
            "pre-tool-use",
            now_ms,
            json!({"tool_name":"Skill","tool_input":{"skill":skill},"tool_use_id":id}),
            on_pre_tool_use,
        )
    }

    fn stop(&self, now_ms: i64, last: &str) -> Option<String> {
        self.run(
            "stop",
            now_ms,
            json!({"last_assistant_message": last}),
            |ctx| stop_block(ctx).map(Answer::block).unwrap_or_default(),
        )
        .block
    }

    fn stack(&self) -> Option<SkillStack> {
        self.store.read(&self.file())
    }

    fn names(&self) -> Vec<String> {
        self.stack()
            .map(|s| s.stack.into_iter().map(|g| g.skill_name).collect())
            .unwrap_or_default()
    }

    fn file(&self) -> StateFile {
        stack_file(&Scope::for_session(Some("s1"))).unwrap()
    }
}

#[test]
fn the_stop_reason_is_pinned() {
    let f = Fixture::new();
    f.invoke("oh-my-claudecode:plan", "toolu_1", T0);
    let reason = f.stop(T0 + 2 * MIN, "I think I am done.").unwrap();
    assert_eq!(
        reason,
        "[SKILL ACTIVE: plan] The `plan` skill is still running and its workflow is not finished (reinforcement 1/5, guard lapses in 13m 00s).\n\
         \n\
         Go back to the `plan` skill's instructions and carry out its remaining steps now, instead of ending your turn. If a step needs the user's answer, end your message with the question to them (or put `<omc-needs-input/>` in it): the guard then waits for their answer instead of sending you back.\n\
         \n\
         - When every step of the skill is done, put `<omc-complete/>` alone on the last line of your final message: that releases this guard.\n\
         - If the workflow truly cannot go on, say why and put `<omc-complete/>` alone on the last line of your message.\n\
         - The user can release all guards by typing `cancelomc` or running `omc-hooks cancel`."
    );
}

#[test]
fn the_started_context_is_pinned_and_the_call_is_never_denied() {
    let f = Fixture::new();
    let a = f.invoke("deep-interview", "toolu_1", T0);
    assert_eq!(a.deny, None);
    assert_eq!(
        a.context.as_deref(),
        Some(
            "[SKILL GUARD: deep-interview (heavy)] Follow the `deep-interview` skill's workflow through to its last step before you end your turn. When it is complete, put `<omc-complete/>` alone on the last line of your final message. Until then an early stop sends you back to the skill (at most 10 times, for 30m 00s). If you need the user's answer, end your message with your question to them: the guard then waits for it."
        )
    );
}

#[test]
fn unknown_and_unprotected_skills_are_not_guarded() {
    let f = Fixture::with_config(json!({"skills":{"protection":{"plan":"none"}}}));
    assert!(f.invoke("demo", "toolu_1", T0).is_noop());
    assert!(f.invoke("plan", "toolu_2", T0).is_noop());
    assert!(f.invoke("oh-my-claudecode:ralph", "toolu_3", T0).is_noop());
    assert!(f.stack().is_none());
    assert!(!f.store.dir(&Scope::for_session(Some("s1"))).exists());
    assert_eq!(f.stop(T0, "done"), None);
}

#[test]
fn other_tools_and_subagent_skill_calls_are_ignored() {
    let f = Fixture::new();
    let a = f.run(
        "pre-tool-use",
        T0,
        json!({"tool_name":"Bash","tool_input":{"skill":"plan"}}),
        on_pre_tool_use,
    );
    assert!(a.is_noop());
    let a = f.run(
        "pre-tool-use",
        T0,
        json!({"tool_name":"Skill","tool_input":{"skill":"plan"},"agent_id":"a1"}),
        on_pre_tool_use,
    );
    assert!(a.is_noop());
    assert!(f.stack().is_none());
}

#[test]
fn completion_releases_the_top_and_the_parent_decides_the_same_stop() {
    let f = Fixture::new();
    f.invoke("plan", "toolu_1", T0);
    f.invoke("ask", "toolu_2", T0 + 1);
    let r = f.stop(T0 + 2, "asked.\n<omc-complete/>").unwrap();
    assert!(r.starts_with("[SKILL ACTIVE: plan]"), "{r}");
    assert!(r.contains("1/5"), "{r}");
    assert_eq!(f.names(), ["plan"]);
    assert_eq!(f.stop(T0 + 3, "plan written\n<omc-complete/>"), None);
    assert!(!f.store.path(&f.file()).exists(), "empty stack is removed");
}

#[test]
fn the_cap_and_the_ttl_let_the_stop_through() {
    let f = Fixture::new();
    f.invoke("ask", "toolu_1", T0);
    for k in 1..=3 {
        let r = f.stop(T0 + k, "stopping").unwrap();
        assert!(r.contains(&format!("(reinforcement {k}/3,")), "{r}");
    }
    assert_eq!(f.stop(T0 + 4, "stopping"), None);
    assert!(f.stack().is_none());

    f.invoke("ask", "toolu_2", T0);
    assert_eq!(f.stop(T0 + 5 * MIN, "stopping"), None);
    assert!(f.stack().is_none());
}

#[test]
fn inline_post_tool_use_marks_loaded_but_keeps_guarding() {
    let f = Fixture::new();
    f.invoke("plan", "toolu_1", T0);
    f.run(
        "post-tool-use",
        T0 + 10,
        json!({"tool_name":"Skill","tool_input":{"skill":"plan"},"tool_use_id":"toolu_1",
               "tool_response":{"commandName":"plan","success":true}}),
        on_post_tool_use,
    );
    let s = f.stack().unwrap();
    assert_eq!(s.stack[0].loaded_at.as_deref(), Some(iso(T0 + 10).as_str()));
    assert!(f.stop(T0 + 20, "done").is_some());
}

#[test]
fn where_pre_tool_context_is_dropped_the_loaded_skill_carries_the_announcement() {
    use crate::protocol::agents::Agent;
    for (agent, shown_before) in [
        (Agent::Claude, true),
        (Agent::Codex, true),
        (Agent::Gemini, false),
        (Agent::Qwen, false),
    ] {
        let f = Fixture::new();
        let pre = f.run_as(
            agent,
            "pre-tool-use",
            T0,
            json!({"tool_name":"Skill","tool_input":{"skill":"plan"},"tool_use_id":"t1"}),
            on_pre_tool_use,
        );
        let announced = pre.context.expect("PreToolUse still answers");
        assert!(
            announced.starts_with("[SKILL GUARD: plan (medium)]"),
            "{announced}"
        );
        let post = || {
            f.run_as(
                agent,
                "post-tool-use",
                T0 + 10,
                json!({"tool_name":"Skill","tool_input":{"skill":"plan"},"tool_use_id":"t1",
                       "tool_response":{"llmContent":"<activated_skill>…</activated_skill>"}}),
                on_post_tool_use,
            )
        };
        let first = post();
        if shown_before {
            assert_eq!(first.context, None, "{agent:?}: said once, before the call");
        } else {
            assert_eq!(
                first.context.as_deref(),
                Some(announced.as_str()),
                "{agent:?}"
            );
        }
        assert_eq!(post().context, None, "{agent:?}: only when first loaded");
        assert!(f.stack().unwrap().stack[0].loaded_at.is_some());
    }
}

#[test]
fn a_forked_skill_is_released_when_its_agent_finished() {
    let f = Fixture::new();
    f.invoke("plan", "toolu_1", T0);
    f.invoke("review", "toolu_2", T0);
    f.run(
        "post-tool-use",
        T0 + 10,
        json!({"tool_name":"Skill","tool_input":{"skill":"review","args":"x"},"tool_use_id":"toolu_2",
               "tool_response":{"agentId":"a","commandName":"review","result":"ok","status":"forked","success":true}}),
        on_post_tool_use,
    );
    assert_eq!(f.names(), ["plan"]);
}

#[test]
fn a_failed_skill_call_is_released() {
    let f = Fixture::new();
    f.invoke("plan", "toolu_1", T0);
    f.run(
        "post-tool-use-failure",
        T0 + 10,
        json!({"tool_name":"Skill","tool_input":{"skill":"plan"},"tool_use_id":"toolu_1","error":"Unknown skill"}),
        on_post_tool_use_failure,
    );
    assert!(f.stack().is_none());
    f.invoke("plan", "toolu_2", T0);
    f.run(
        "post-tool-use",
        T0 + 10,
        json!({"tool_name":"Skill","tool_input":{"skill":"plan"},"tool_use_id":"toolu_2",
               "tool_response":{"success":false}}),
        on_post_tool_use,
    );
    assert!(f.stack().is_none());
}

#[test]
fn post_tool_use_of_another_call_changes_nothing() {
    let f = Fixture::new();
    f.invoke("plan", "toolu_1", T0);
    let before = f.stack();
    f.run(
        "post-tool-use",
        T0 + 10,
        json!({"tool_name":"Skill","tool_input":{"skill":"plan"},"tool_use_id":"toolu_9",
               "tool_response":{"status":"forked","success":true}}),
        on_post_tool_use,
    );
    assert_eq!(f.stack(), before);
}

#[test]
fn cancel_and_session_end_release_everything() {
    let f = Fixture::new();
    f.invoke("plan", "toolu_1", T0);
    f.invoke("ask", "toolu_2", T0);
    let c = cancel_scope(&f.store, &Scope::for_session(Some("s1")), &iso(T0));
    assert!(c.skill_guards);
    assert_eq!(f.stop(T0, "x"), None);

    f.invoke("plan", "toolu_3", T0);
    assert!(
        f.run("session-end", T0, json!({"reason":"other"}), on_session_end)
            .is_noop()
    );
    assert!(f.stack().is_none());
    assert_eq!(f.stop(T0, "x"), None);
    assert!(!release_all(&f.store, &Scope::for_session(Some("s1"))));
}

#[test]
fn guards_view_lists_live_guards_running_first() {
    let f = Fixture::new();
    f.invoke("deep-interview", "toolu_1", T0);
    f.invoke("oh-my-claudecode:plan", "toolu_2", T0 + MIN);
    f.stop(T0 + 2 * MIN, "x");
    let v = guards(&f.store, &Scope::for_session(Some("s1")), T0 + 3 * MIN);
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].skill_name, "plan");
    assert_eq!(v[0].invoked_as.as_deref(), Some("oh-my-claudecode:plan"));
    assert_eq!(v[0].time_left_ms, 13 * MIN);
    assert_eq!((v[0].reinforcements_used, v[0].reinforcements_left), (1, 4));
    assert_eq!(v[1].skill_name, "deep-interview");
    assert_eq!(v[1].level, Level::Heavy);
    // Past plan's TTL only the heavy guard is left; the view never writes.
    let later = guards(&f.store, &Scope::for_session(Some("s1")), T0 + 17 * MIN);
    assert_eq!(later.len(), 1);
    assert_eq!(f.names(), ["deep-interview", "plan"]);
    assert!(guards(&f.store, &Scope::for_session(Some("other")), T0).is_empty());
}

#[test]
fn placeholders_inside_values_are_not_expanded() {
    assert_eq!(
        render(
            "a {{name}} b {{count}} {{nope}}",
            &[("name", "{{count}}"), ("count", "1")]
        ),
        "a {{count}} b 1 {{nope}}"
    );
}

#[test]
fn a_session_less_payload_uses_the_session_less_stack() {
    let f = Fixture::new();
    let a = f.run(
        "pre-tool-use",
        T0,
        json!({"session_id":"../x","tool_name":"Skill","tool_input":{"skill":"plan"}}),
        on_pre_tool_use,
    );
    assert!(a.context.is_some());
    assert!(
        f.store
            .omc_dir()
            .join("state/skill-active-state.json")
            .is_file()
    );
}
