//! Subagent tracking (contract §6, §9): SubagentStart and SubagentStop are recorded in the
//! session's `subagents.json`, so Stop can let the session rest while its own subagents still
//! work ([`running`]), and SessionEnd can summarise them.
//!
//! Two facts from the real client shape this (tests/e2e/FINDINGS.md §5):
//! * compaction fires a SubagentStop (with `agent_type: ""`) that had no SubagentStart — an
//!   unmatched stop is ignored, never "closes the only running agent" as OMC guesses;
//! * background agents may still run when Stop fires; Stop's `background_tasks` lists them, so
//!   [`running`] counts those too.
//!
//! A lost SubagentStop must not hold a session forever: an agent "running" for longer than
//! [`STALE_MS`] is ignored. `agent_id` and `agent_type` are stored as data only, clipped.

use super::Ctx;
use crate::protocol::Answer;
use crate::state::files::SCHEMA_VERSION;
use crate::state::{Change, StateFile};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;

/// `subagents.json` in the session scope.
pub const FILE: &str = "subagents.json";

/// A subagent running longer than this without a stop is presumed lost (30 min).
pub const STALE_MS: i64 = 30 * 60 * 1000;

/// At most this many agents are kept; finished ones are dropped first, oldest first.
const MAX_AGENTS: usize = 100;
const MAX_ID_CHARS: usize = 128;

/// The file's shape.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Subagents {
    #[serde(default)]
    pub schema_version: u32,
    #[serde(default)]
    pub agents: Vec<Agent>,
    #[serde(default)]
    pub total_started: u64,
    #[serde(default)]
    pub total_stopped: u64,
}

/// One subagent.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Agent {
    pub agent_id: String,
    #[serde(default)]
    pub agent_type: String,
    pub started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<String>,
    pub status: Status,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Running,
    Completed,
}

impl Agent {
    /// Running, and started within [`STALE_MS`] of `now_ms`.
    pub fn live(&self, now_ms: i64) -> bool {
        self.status == Status::Running
            && crate::time::parse_iso(&self.started_at).is_some_and(|t| now_ms - t <= STALE_MS)
    }
}

fn file(ctx: &Ctx<'_>) -> Option<StateFile> {
    StateFile::new(&ctx.scope, FILE)
}

fn clip_id(s: &str) -> String {
    s.chars().take(MAX_ID_CHARS).collect()
}

/// SubagentStart: records the agent as running. Says nothing to the model.
pub fn start(ctx: &Ctx<'_>) -> Answer {
    let (Some(store), Some(file)) = (&ctx.store, file(ctx)) else {
        return Answer::default();
    };
    let Some(id) = ctx.input.agent_id.as_deref().filter(|s| !s.is_empty()) else {
        return Answer::default();
    };
    let id = clip_id(id);
    let agent_type = clip_id(ctx.input.agent_type.as_deref().unwrap_or(""));
    let now = crate::time::iso(ctx.now_ms);
    let result = store.update(&file, |cur: Option<Subagents>| {
        let mut s = cur.unwrap_or_default();
        s.schema_version = SCHEMA_VERSION;
        match s.agents.iter_mut().find(|a| a.agent_id == id) {
            Some(a) if a.status == Status::Running => {
                if !agent_type.is_empty() {
                    a.agent_type = agent_type.clone();
                }
            }
            Some(a) => {
                a.status = Status::Running;
                a.started_at = now.clone();
                a.stopped_at = None;
                s.total_started += 1;
            }
            None => {
                s.agents.push(Agent {
                    agent_id: id.clone(),
                    agent_type: agent_type.clone(),
                    started_at: now.clone(),
                    stopped_at: None,
                    status: Status::Running,
                });
                s.total_started += 1;
            }
        }
        trim(&mut s.agents);
        (Change::Write(s), ())
    });
    if let Err(e) = result {
        crate::diag!("subagent-start: {e}");
    }
    Answer::default()
}

/// SubagentStop: marks the agent completed. An unknown id (compaction's stop) changes nothing.
/// Never answers: a context here would be fed to the subagent that is stopping.
pub fn stop(ctx: &Ctx<'_>) -> Answer {
    let (Some(store), Some(file)) = (&ctx.store, file(ctx)) else {
        return Answer::default();
    };
    let Some(id) = ctx.input.agent_id.as_deref().filter(|s| !s.is_empty()) else {
        return Answer::default();
    };
    if !store.path(&file).exists() {
        return Answer::default();
    }
    let id = clip_id(id);
    let now = crate::time::iso(ctx.now_ms);
    let result = store.update(&file, |cur: Option<Subagents>| {
        let Some(mut s) = cur else {
            return (Change::Keep, ());
        };
        match s
            .agents
            .iter_mut()
            .find(|a| a.agent_id == id && a.status == Status::Running)
        {
            Some(a) => {
                a.status = Status::Completed;
                a.stopped_at = Some(now.clone());
                s.total_stopped += 1;
                (Change::Write(s), ())
            }
            None => (Change::Keep, ()),
        }
    });
    if let Err(e) = result {
        crate::diag!("subagent-stop: {e}");
    }
    Answer::default()
}

/// Keeps the list bounded: drops finished agents first, then the oldest running ones.
fn trim(agents: &mut Vec<Agent>) {
    while agents.len() > MAX_AGENTS {
        let victim = agents
            .iter()
            .position(|a| a.status != Status::Running)
            .unwrap_or(0);
        agents.remove(victim);
    }
}

/// The session's tracked subagents (empty when none or unreadable).
pub fn tracked(ctx: &Ctx<'_>) -> Subagents {
    match (&ctx.store, file(ctx)) {
        (Some(store), Some(f)) => store.read(&f).unwrap_or_default(),
        _ => Subagents::default(),
    }
}

/// The number of this session's subagents started and not yet stopped: tracked agents that
/// are running and not stale, plus the running subagents Stop's `background_tasks` lists,
/// each agent counted once.
pub fn running(ctx: &Ctx<'_>) -> usize {
    let mut ids: BTreeSet<String> = tracked(ctx)
        .agents
        .into_iter()
        .filter(|a| a.live(ctx.now_ms))
        .map(|a| a.agent_id)
        .collect();
    ids.extend(background_subagents(&ctx.input.background_tasks));
    ids.len()
}

/// Ids of running subagents in a Stop payload's `background_tasks`.
fn background_subagents(tasks: &[Value]) -> impl Iterator<Item = String> + '_ {
    tasks.iter().filter_map(|t| {
        let kind = t.get("type").and_then(Value::as_str).unwrap_or("subagent");
        let status = t.get("status").and_then(Value::as_str).unwrap_or("");
        let id = t.get("id").and_then(Value::as_str)?;
        (kind == "subagent" && status == "running").then(|| clip_id(id))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn agent(id: &str, status: Status) -> Agent {
        Agent {
            agent_id: id.into(),
            agent_type: String::new(),
            started_at: crate::time::iso(0),
            stopped_at: None,
            status,
        }
    }

    #[test]
    fn staleness_bound() {
        let a = agent("a", Status::Running);
        assert!(a.live(STALE_MS));
        assert!(!a.live(STALE_MS + 1));
        assert!(!agent("b", Status::Completed).live(0));
    }

    #[test]
    fn trim_drops_finished_first() {
        let mut v: Vec<Agent> = (0..MAX_AGENTS)
            .map(|i| agent(&format!("r{i}"), Status::Running))
            .collect();
        v.insert(50, agent("done", Status::Completed));
        trim(&mut v);
        assert_eq!(v.len(), MAX_AGENTS);
        assert!(v.iter().all(|a| a.status == Status::Running));
    }

    /// `running` as Stop sees it: tracked live agents plus the payload's background tasks,
    /// each once, with a stale agent (no stop for > 30 min) ignored.
    #[test]
    fn running_ignores_stale_agents_and_counts_background_tasks_once() {
        use crate::state::{Root, Scope, Store};
        let t = tempfile::tempdir().unwrap();
        let now = 1_796_305_500_000;
        let store = Store::new(
            Root {
                project: t.path().into(),
                omc: t.path().join(".omc"),
            },
            now,
        );
        let scope = Scope::for_session(Some("s1"));
        let mut fresh = agent("fresh", Status::Running);
        fresh.started_at = crate::time::iso(now - 60_000);
        let mut stale = agent("stale", Status::Running);
        stale.started_at = crate::time::iso(now - STALE_MS - 1);
        let done = agent("done", Status::Completed);
        let file = StateFile::new(&scope, FILE).unwrap();
        store
            .write(
                &file,
                &Subagents {
                    schema_version: 1,
                    agents: vec![fresh, stale, done],
                    total_started: 3,
                    total_stopped: 1,
                },
            )
            .unwrap();
        let input = crate::protocol::HookInput {
            background_tasks: vec![
                json!({"id":"fresh","type":"subagent","status":"running"}),
                json!({"id":"bg","type":"subagent","status":"running"}),
            ],
            ..Default::default()
        };
        let env = crate::env::Env::default();
        let ctx = Ctx {
            hook: crate::hooks::find("stop").unwrap(),
            input: &input,
            env: &env,
            now_ms: now,
            scope,
            store: Some(store),
            config: crate::config::Config::default(),
            hook_files: Default::default(),
        };
        assert_eq!(running(&ctx), 2, "fresh and bg; stale and done ignored");
        let later = Ctx {
            now_ms: now + STALE_MS,
            input: &crate::protocol::HookInput::default(),
            ..ctx
        };
        assert_eq!(
            running(&later),
            0,
            "a lost SubagentStop cannot hold the session"
        );
    }

    #[test]
    fn background_tasks_count_only_running_subagents() {
        let tasks = vec![
            json!({"id":"a","type":"subagent","status":"running"}),
            json!({"id":"b","type":"subagent","status":"completed"}),
            json!({"id":"c","type":"shell","status":"running"}),
            json!({"type":"subagent","status":"running"}),
        ];
        assert_eq!(background_subagents(&tasks).collect::<Vec<_>>(), vec!["a"]);
    }
}
