//! The session's skill stack, `skill-active-state.json`: its shape and the pure operations the
//! hooks apply to it under the file's lock. Nothing here reads a clock or touches a file; every
//! operation takes `now_ms` so tests pin time exactly.
//!
//! The last entry of `stack` is the skill running now; a skill invoked while another runs goes
//! on top of it. A guard is *live* while it is neither expired (its TTL counts from its latest
//! start) nor out of reinforcements; entries that are not live are dropped the next time Stop
//! looks at the stack, so a dead guard never blocks.

use super::level::{Level, SkillName};
use crate::time::{iso, parse_iso};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = 1;
/// Deeper nesting than this drops the oldest (bottom) guard: the file stays small whatever the
/// model does.
pub const MAX_DEPTH: usize = 16;
/// The skill's arguments are kept for people reading the file, cut to this length.
pub const MAX_ARGS_CHARS: usize = 200;

/// `skill-active-state.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SkillStack {
    #[serde(default)]
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Bottom first: the last entry is the running skill. Required, so an oh-my-claudecode
    /// scalar file (which has no stack) is treated as corrupt and moved aside, not obeyed.
    pub stack: Vec<Guard>,
    /// Fields this build does not know, kept as found.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One protected skill that was invoked and is not yet released.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Guard {
    /// The bare name (after the last `:`, lowercased).
    pub skill_name: String,
    /// The name as the call spelled it, when that differs (`oh-my-claudecode:plan`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invoked_as: Option<String>,
    pub level: Level,
    pub started_at: String,
    pub expires_at: String,
    pub stale_ttl_ms: i64,
    /// Stop blocks sent so far for this guard.
    pub reinforcement_count: u32,
    pub max_reinforcements: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_checked_at: Option<String>,
    /// The `Skill` call that started (or last restarted) it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<String>,
    /// When PostToolUse reported the skill's instructions delivered (inline skills).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loaded_at: Option<String>,
}

impl Guard {
    /// A fresh guard for `name` at `level`, started now.
    pub fn start(
        name: &SkillName,
        level: Level,
        now_ms: i64,
        tool_use_id: Option<&str>,
        args: Option<&str>,
    ) -> Guard {
        Guard {
            skill_name: name.bare.clone(),
            invoked_as: (name.invoked != name.bare).then(|| name.invoked.clone()),
            level,
            started_at: iso(now_ms),
            expires_at: iso(now_ms.saturating_add(level.ttl_ms())),
            stale_ttl_ms: level.ttl_ms(),
            reinforcement_count: 0,
            max_reinforcements: level.max_reinforcements(),
            last_checked_at: Some(iso(now_ms)),
            tool_use_id: tool_use_id.map(str::to_string),
            args: args
                .map(|a| a.chars().take(MAX_ARGS_CHARS).collect::<String>())
                .filter(|a| !a.trim().is_empty()),
            loaded_at: None,
        }
    }

    /// Milliseconds until the guard lapses (0 or less: it has). An unreadable expiry counts as
    /// lapsed — a guard we cannot reason about must not block.
    pub fn time_left_ms(&self, now_ms: i64) -> i64 {
        parse_iso(&self.expires_at).map_or(0, |t| t - now_ms)
    }

    pub fn is_expired(&self, now_ms: i64) -> bool {
        self.time_left_ms(now_ms) <= 0
    }

    pub fn is_capped(&self) -> bool {
        self.reinforcement_count >= self.max_reinforcements
    }

    pub fn is_live(&self, now_ms: i64) -> bool {
        !self.is_expired(now_ms) && !self.is_capped()
    }
}

/// What one Stop block reports about the guard that caused it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reinforced {
    pub skill_name: String,
    pub level: Level,
    /// The reinforcement this block is (1-based).
    pub count: u32,
    pub max: u32,
    pub time_left_ms: i64,
}

impl SkillStack {
    pub fn new(session_id: Option<&str>) -> SkillStack {
        SkillStack {
            schema_version: SCHEMA_VERSION,
            session_id: session_id.map(str::to_string),
            stack: Vec::new(),
            extra: Map::new(),
        }
    }

    /// Puts `guard` on top. A skill already on the stack is restarted rather than duplicated:
    /// its old entry goes and the fresh one (new TTL, count 0) becomes the top, since it is the
    /// skill running now. Returns whether it was a restart.
    pub fn push(&mut self, guard: Guard) -> bool {
        let before = self.stack.len();
        self.stack.retain(|g| g.skill_name != guard.skill_name);
        let restarted = self.stack.len() != before;
        self.stack.push(guard);
        if self.stack.len() > MAX_DEPTH {
            let excess = self.stack.len() - MAX_DEPTH;
            self.stack.drain(..excess);
        }
        restarted
    }

    /// Drops every guard whose TTL has passed, wherever it sits.
    pub fn prune_expired(&mut self, now_ms: i64) {
        self.stack.retain(|g| !g.is_expired(now_ms));
    }

    /// Stop's question: expired guards are dropped, out-of-reinforcement guards on top are
    /// released, and the live guard left on top (if any) spends one reinforcement.
    pub fn reinforce(&mut self, now_ms: i64) -> Option<Reinforced> {
        self.prune_expired(now_ms);
        while self.stack.last().is_some_and(Guard::is_capped) {
            self.stack.pop();
        }
        let top = self.stack.last_mut()?;
        top.reinforcement_count += 1;
        top.last_checked_at = Some(iso(now_ms));
        Some(Reinforced {
            skill_name: top.skill_name.clone(),
            level: top.level,
            count: top.reinforcement_count,
            max: top.max_reinforcements,
            time_left_ms: top.time_left_ms(now_ms),
        })
    }

    /// The model declared the running skill complete: expired guards are dropped and the top
    /// one is released. Returns it.
    pub fn complete_top(&mut self, now_ms: i64) -> Option<Guard> {
        self.prune_expired(now_ms);
        self.stack.pop()
    }

    /// The entry a PostToolUse / PostToolUseFailure of a `Skill` call refers to: by the call's
    /// `tool_use_id` when the payload has one, else the topmost entry of that skill.
    pub fn find_call(&self, tool_use_id: Option<&str>, name: &SkillName) -> Option<usize> {
        match tool_use_id {
            Some(id) => self
                .stack
                .iter()
                .rposition(|g| g.tool_use_id.as_deref() == Some(id)),
            None => self.stack.iter().rposition(|g| g.skill_name == name.bare),
        }
    }

    /// The live guards, running one first.
    pub fn live(&self, now_ms: i64) -> impl Iterator<Item = &Guard> {
        self.stack.iter().rev().filter(move |g| g.is_live(now_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_796_305_500_000;
    const MIN: i64 = 60_000;

    fn guard(name: &str, level: Level, at: i64) -> Guard {
        Guard::start(
            &SkillName::parse(name).unwrap(),
            level,
            at,
            Some(&format!("toolu_{name}")),
            None,
        )
    }

    fn names(s: &SkillStack) -> Vec<&str> {
        s.stack.iter().map(|g| g.skill_name.as_str()).collect()
    }

    #[test]
    fn each_level_blocks_up_to_its_cap_then_lets_go() {
        for level in [Level::Light, Level::Medium, Level::Heavy] {
            let mut s = SkillStack::new(Some("s1"));
            s.push(guard("x", level, T0));
            let max = level.max_reinforcements();
            for k in 1..=max {
                let r = s.reinforce(T0 + i64::from(k)).expect("blocks");
                assert_eq!((r.count, r.max), (k, max), "{level:?}");
            }
            assert_eq!(s.reinforce(T0 + 100), None, "{level:?}");
            assert!(s.stack.is_empty());
        }
    }

    #[test]
    fn each_level_lapses_at_its_ttl() {
        for (level, ttl) in [
            (Level::Light, 5 * MIN),
            (Level::Medium, 15 * MIN),
            (Level::Heavy, 30 * MIN),
        ] {
            let mut s = SkillStack::new(None);
            s.push(guard("x", level, T0));
            let r = s.reinforce(T0 + ttl - 1).expect("still live a ms before");
            assert_eq!(r.time_left_ms, 1);
            assert_eq!(s.reinforce(T0 + ttl), None, "{level:?}");
            assert!(s.stack.is_empty());
        }
    }

    #[test]
    fn nesting_puts_the_new_skill_on_top_and_the_parent_resumes() {
        let mut s = SkillStack::new(None);
        s.push(guard("plan", Level::Medium, T0));
        s.push(guard("ask", Level::Light, T0 + 1));
        assert_eq!(names(&s), ["plan", "ask"]);
        assert_eq!(s.reinforce(T0 + 2).unwrap().skill_name, "ask");
        assert_eq!(s.complete_top(T0 + 3).unwrap().skill_name, "ask");
        let r = s.reinforce(T0 + 4).unwrap();
        assert_eq!((r.skill_name.as_str(), r.count), ("plan", 1));
    }

    #[test]
    fn a_capped_child_hands_over_to_its_live_parent() {
        let mut s = SkillStack::new(None);
        s.push(guard("plan", Level::Medium, T0));
        s.push(guard("ask", Level::Light, T0));
        for _ in 0..3 {
            assert_eq!(s.reinforce(T0).unwrap().skill_name, "ask");
        }
        assert_eq!(s.reinforce(T0).unwrap().skill_name, "plan");
        assert_eq!(names(&s), ["plan"]);
    }

    #[test]
    fn an_expired_parent_goes_even_below_a_live_child() {
        let mut s = SkillStack::new(None);
        s.push(guard("ask", Level::Light, T0));
        s.push(guard("plan", Level::Medium, T0 + 4 * MIN));
        s.reinforce(T0 + 6 * MIN).unwrap();
        assert_eq!(names(&s), ["plan"]);
    }

    #[test]
    fn repetition_restarts_instead_of_stacking() {
        let mut s = SkillStack::new(None);
        s.push(guard("plan", Level::Medium, T0));
        s.push(guard("ask", Level::Light, T0));
        s.reinforce(T0 + MIN).unwrap();
        s.complete_top(T0 + MIN); // ask done
        s.reinforce(T0 + 2 * MIN).unwrap();
        s.reinforce(T0 + 3 * MIN).unwrap();
        s.push(guard("ask", Level::Light, T0 + 4 * MIN));
        assert!(s.push(guard("plan", Level::Medium, T0 + 10 * MIN)));
        assert_eq!(names(&s), ["ask", "plan"]);
        let plan = s.stack.last().unwrap();
        assert_eq!(plan.reinforcement_count, 0);
        assert_eq!(plan.started_at, iso(T0 + 10 * MIN));
        assert_eq!(plan.expires_at, iso(T0 + 25 * MIN));
        // The old start would have lapsed at T0 + 15 min; the restart's does not.
        assert!(s.reinforce(T0 + 20 * MIN).is_some());
    }

    #[test]
    fn depth_is_bounded() {
        let mut s = SkillStack::new(None);
        for i in 0..(MAX_DEPTH + 3) {
            s.push(guard(&format!("s{i}"), Level::Light, T0));
        }
        assert_eq!(s.stack.len(), MAX_DEPTH);
        assert_eq!(s.stack[0].skill_name, "s3");
    }

    #[test]
    fn an_unreadable_expiry_never_blocks() {
        let mut s = SkillStack::new(None);
        let mut g = guard("plan", Level::Medium, T0);
        g.expires_at = "whenever".into();
        s.push(g);
        assert_eq!(s.reinforce(T0), None);
    }

    #[test]
    fn calls_are_found_by_tool_use_id_else_by_name() {
        let mut s = SkillStack::new(None);
        s.push(guard("plan", Level::Medium, T0));
        s.push(guard("ask", Level::Light, T0));
        let plan = SkillName::parse("plan").unwrap();
        assert_eq!(s.find_call(Some("toolu_plan"), &plan), Some(0));
        assert_eq!(s.find_call(Some("toolu_other"), &plan), None);
        assert_eq!(s.find_call(None, &plan), Some(0));
    }

    #[test]
    fn args_are_kept_short() {
        let g = Guard::start(
            &SkillName::parse("oh-my-claudecode:plan").unwrap(),
            Level::Medium,
            T0,
            None,
            Some(&"x".repeat(500)),
        );
        assert_eq!(g.args.unwrap().chars().count(), MAX_ARGS_CHARS);
        assert_eq!(g.invoked_as.as_deref(), Some("oh-my-claudecode:plan"));
    }
}
