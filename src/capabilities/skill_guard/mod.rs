//! Skill guards (contract §7): a protected skill, once invoked, is not abandoned half-way —
//! and a guard never holds a session hostage.
//!
//! * **PreToolUse `Skill`** looks the skill's protection level up ([`level`]) and pushes a guard
//!   on the session's stack ([`stack`], `skill-active-state.json`). The call itself is never
//!   refused. Skill calls made inside a subagent (`agent_id` set) are not guarded: the main
//!   session's Stop is not theirs to hold.
//! * **Stop** ([`stop_block`]): the top live guard sends the model back with
//!   `[SKILL ACTIVE: <name>] … (k/max)`, spending one reinforcement.
//! * **Release** — every path is bounded:
//!   * TTL: a guard lapses `ttl` after its latest start, whatever happens;
//!   * cap: once its reinforcements are spent, the next Stop drops it and goes through;
//!   * completion: [`COMPLETION_TOKEN`] in Stop's `last_assistant_message` releases the top
//!     guard — one token, one skill. The guard below it (a parent skill that is presumably
//!     still mid-workflow) then decides the same Stop, so a nested parent is never left behind
//!     to ambush a later, unrelated turn: the model either resumes it or declares it complete
//!     too;
//!   * a `context: fork` skill's PostToolUse (see below); a failed Skill call;
//!   * `cancel` ([`crate::capabilities::cancel::cancel_scope`] removes the whole file) and
//!     SessionEnd ([`release_all`]).
//!
//! **When PostToolUse fires for `Skill`** — measured with the real client (Claude Code
//! 2.1.328, `tests/e2e/FINDINGS.md` §5): for an *inline* skill it fires right after the
//! instructions are loaded (`tool_response: {commandName, success}`), before any of the
//! skill's work, which then happens in later ordinary tool calls. So that PostToolUse only
//! marks the guard `loaded_at` and never releases it (on an agent whose pre-tool context does
//! not reach the model, [`crate::protocol::agents::Agent::shows_pre_tool_context`], it also
//! carries the guard's announcement). For a `context: fork` skill the skill
//! runs as a synchronous subagent and PostToolUse fires after it finished, with
//! `tool_response.status: "forked"` and its final message in `result`: the skill's work is
//! done, and that PostToolUse releases the guard. A `success: false` response or a
//! PostToolUseFailure means the skill never ran, which releases it too.

pub mod level;
pub mod stack;

use super::Ctx;
use super::cancel::SKILL_STACK_FILE;
use crate::protocol::Answer;
use crate::state::{Change, Scope, StateFile, Store};
use crate::time::{iso, short_duration};
use level::{Level, SkillName, level_for};
use serde_json::Value;
use stack::{Guard, SkillStack};

/// What the model writes in its final message when the running skill's workflow is done.
pub use crate::modes::COMPLETION_TOKEN;

const STOP_TEMPLATE: &str = include_str!("../../../templates/skill-guard/stop.md");
const STARTED_TEMPLATE: &str = include_str!("../../../templates/skill-guard/started.md");

fn stack_file(scope: &Scope) -> Option<StateFile> {
    StateFile::new(scope, SKILL_STACK_FILE)
}

/// The skill a `Skill` tool event is about, if this event is one.
fn skill_call(ctx: &Ctx<'_>) -> Option<SkillName> {
    if ctx.input.tool_name.as_deref() != Some("Skill") {
        return None;
    }
    let name = SkillName::from_tool_input(ctx.input.tool_input.as_ref());
    if name.is_none() {
        crate::diag!("Skill call without a usable skill name; not guarded");
    }
    name
}

/// PreToolUse: push a guard for a protected skill. Never denies.
pub fn on_pre_tool_use(ctx: &Ctx<'_>) -> Answer {
    let Some(name) = skill_call(ctx) else {
        return Answer::default();
    };
    if ctx.input.agent_id.is_some() {
        return Answer::default();
    }
    let level = level_for(&name, &ctx.config);
    if level == Level::None {
        return Answer::default();
    }
    let (Some(store), Some(file)) = (ctx.store.as_ref(), stack_file(&ctx.scope)) else {
        return Answer::default();
    };
    let args = ctx.input.tool_input_str("args");
    let guard = Guard::start(
        &name,
        level,
        ctx.now_ms,
        ctx.input.tool_use_id.as_deref(),
        args,
    );
    let sid = ctx.scope.session_id().map(|s| s.as_str().to_string());
    let pushed = store.update(&file, |s: Option<SkillStack>| {
        let mut s = s.unwrap_or_else(|| SkillStack::new(sid.as_deref()));
        s.schema_version = stack::SCHEMA_VERSION;
        s.prune_expired(ctx.now_ms);
        s.push(guard);
        (Change::Write(s), ())
    });
    if let Err(e) = pushed {
        crate::diag!("skill guard for {}: {e}", name.bare);
        return Answer::default();
    }
    Answer::context(render_started(&name.bare, level))
}

/// PostToolUse `Skill`: an inline skill's instructions are loaded (mark, keep guarding); a
/// forked skill has finished, or the call did not succeed (release).
pub fn on_post_tool_use(ctx: &Ctx<'_>) -> Answer {
    let Some(name) = skill_call(ctx) else {
        return Answer::default();
    };
    let response = ctx.input.tool_response.as_ref();
    let failed = response.and_then(|r| r.get("success")) == Some(&Value::Bool(false));
    let forked_done = response
        .and_then(|r| r.get("status"))
        .and_then(Value::as_str)
        == Some("forked");
    let now = iso(ctx.now_ms);
    let mut loaded = None;
    edit_call(ctx, &name, |s, i| {
        if failed || forked_done {
            s.stack.remove(i);
        } else if s.stack[i].loaded_at.is_none() {
            s.stack[i].loaded_at = Some(now);
            loaded = Some(s.stack[i].level);
        }
    });
    // Where the announcement on PreToolUse never reached the model, it comes with the
    // skill's instructions instead — once, when they are first reported loaded.
    match loaded {
        Some(level) if !ctx.input.format.shows_pre_tool_context() => {
            Answer::context(render_started(&name.bare, level))
        }
        _ => Answer::default(),
    }
}

/// PostToolUseFailure `Skill`: the skill never ran, so its guard goes.
pub fn on_post_tool_use_failure(ctx: &Ctx<'_>) -> Answer {
    if let Some(name) = skill_call(ctx) {
        edit_call(ctx, &name, |s, i| {
            s.stack.remove(i);
        });
    }
    Answer::default()
}

/// Applies `f` to the stack entry of this event's Skill call, if there is one.
fn edit_call(ctx: &Ctx<'_>, name: &SkillName, f: impl FnOnce(&mut SkillStack, usize)) {
    let (Some(store), Some(file)) = (ctx.store.as_ref(), stack_file(&ctx.scope)) else {
        return;
    };
    // Most tool events meet no stack at all: do not create the session directory for them.
    if !store.path(&file).exists() {
        return;
    }
    let id = ctx.input.tool_use_id.as_deref();
    let r = store.update(&file, |s: Option<SkillStack>| {
        let Some(mut s) = s else {
            return (Change::Keep, ());
        };
        let Some(i) = s.find_call(id, name) else {
            return (Change::Keep, ());
        };
        f(&mut s, i);
        (written(s), ())
    });
    if let Err(e) = r {
        crate::diag!("skill guard for {}: {e}", name.bare);
    }
}

/// An empty stack is removed rather than written.
fn written(s: SkillStack) -> Change<SkillStack> {
    if s.stack.is_empty() {
        Change::Remove
    } else {
        Change::Write(s)
    }
}

/// The Stop decision of the skill guards, for the combined Stop hook to call once no
/// persistent mode has blocked (and after its allowed-stop gates — context limit, interrupts,
/// running subagents — which this function does not repeat). Applies completion, drops dead
/// guards, spends one reinforcement of the live top guard under the file's lock, and returns
/// the `[SKILL ACTIVE: <name>] …` reason — or `None` to let the stop through.
pub fn stop_block(ctx: &Ctx<'_>) -> Option<String> {
    let store = ctx.store.as_ref()?;
    let file = stack_file(&ctx.scope)?;
    if !store.path(&file).exists() {
        return None;
    }
    let completed = ctx
        .input
        .last_assistant_message
        .as_deref()
        .is_some_and(crate::modes::declares_completion);
    let now = ctx.now_ms;
    let r = store.update(&file, |s: Option<SkillStack>| {
        let Some(mut s) = s else {
            return (Change::Keep, None);
        };
        if completed {
            s.complete_top(now);
        }
        let blocked = s.reinforce(now);
        (written(s), blocked)
    });
    match r {
        Ok(blocked) => blocked.map(|b| render_stop(&b)),
        Err(e) => {
            crate::diag!("skill guard on Stop: {e}; not blocking");
            None
        }
    }
}

/// SessionEnd: the session's guards end with it.
pub fn on_session_end(ctx: &Ctx<'_>) -> Answer {
    if let Some(store) = ctx.store.as_ref() {
        release_all(store, &ctx.scope);
    }
    Answer::default()
}

/// Releases every guard of `scope` (removes the stack file). Returns whether there was one.
pub fn release_all(store: &Store, scope: &Scope) -> bool {
    let Some(file) = stack_file(scope) else {
        return false;
    };
    if !store.path(&file).exists() {
        return false;
    }
    match store.remove(&file) {
        Ok(()) => true,
        Err(e) => {
            crate::diag!("releasing skill guards: {e}");
            false
        }
    }
}

/// A running guard, as `omc-hooks status` and checkpoints show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardView {
    pub skill_name: String,
    /// The name as invoked, when it differs (`oh-my-claudecode:plan`).
    pub invoked_as: Option<String>,
    pub level: Level,
    pub started_at: String,
    pub expires_at: String,
    pub time_left_ms: i64,
    pub reinforcements_used: u32,
    pub max_reinforcements: u32,
    pub reinforcements_left: u32,
    /// Whether the skill's instructions were reported loaded.
    pub loaded: bool,
}

/// The live guards of `scope` at `now_ms`, the running one first. Reads only.
pub fn guards(store: &Store, scope: &Scope, now_ms: i64) -> Vec<GuardView> {
    let Some(file) = stack_file(scope) else {
        return Vec::new();
    };
    let Some(s) = store.read::<SkillStack>(&file) else {
        return Vec::new();
    };
    s.live(now_ms)
        .map(|g| GuardView {
            skill_name: g.skill_name.clone(),
            invoked_as: g.invoked_as.clone(),
            level: g.level,
            started_at: g.started_at.clone(),
            expires_at: g.expires_at.clone(),
            time_left_ms: g.time_left_ms(now_ms),
            reinforcements_used: g.reinforcement_count,
            max_reinforcements: g.max_reinforcements,
            reinforcements_left: g.max_reinforcements.saturating_sub(g.reinforcement_count),
            loaded: g.loaded_at.is_some(),
        })
        .collect()
}

/// Fills `{{key}}` placeholders in one pass, so a value (a skill name is user text) is never
/// itself expanded.
fn render(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template.trim_end();
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let value = after
            .find("}}")
            .and_then(|close| Some((vars.iter().find(|(k, _)| *k == &after[..close])?, close)));
        match value {
            Some(((_, v), close)) => {
                out.push_str(v);
                rest = &after[close + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn render_stop(b: &stack::Reinforced) -> String {
    render(
        STOP_TEMPLATE,
        &[
            ("name", &b.skill_name),
            ("count", &b.count.to_string()),
            ("max", &b.max.to_string()),
            ("left", &short_duration(b.time_left_ms)),
        ],
    )
}

fn render_started(name: &str, level: Level) -> String {
    render(
        STARTED_TEMPLATE,
        &[
            ("name", name),
            ("level", level.as_str()),
            ("max", &level.max_reinforcements().to_string()),
            ("ttl", &short_duration(level.ttl_ms())),
        ],
    )
}

#[cfg(test)]
mod tests;
