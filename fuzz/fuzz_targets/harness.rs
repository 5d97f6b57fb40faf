//! What both fuzz targets share: one throw-away project on a RAM filesystem, the environment a
//! hook sees (project pinned as Claude Code pins it, clock pinned), and the checks on an answer.
//! Any panic — even one the dispatcher would catch and turn into a no-op — aborts the run,
//! because libfuzzer-sys turns panics into crashes: a caught panic is still a bug.

use omc_hooks::dispatch;
use omc_hooks::env::Env;
use omc_hooks::hooks::{HOOKS, Hook};
use omc_hooks::protocol::HookInput;
use omc_hooks::protocol::agents::{self, Agent, Wire};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// The project is emptied every this many runs so state stays small and runs stay fast.
const RESET_EVERY: u64 = 512;

pub struct Harness {
    dir: tempfile::TempDir,
    env: Env,
    runs: u64,
}

impl Harness {
    pub fn new() -> Harness {
        // fuzz/run.sh points this at a directory it removes afterwards.
        let base = match std::env::var_os("OMC_FUZZ_SCRATCH") {
            Some(d) => d.into(),
            None if Path::new("/dev/shm").is_dir() => Path::new("/dev/shm").to_path_buf(),
            None => std::env::temp_dir(),
        };
        let dir = tempfile::Builder::new()
            .prefix("omc-fuzz-")
            .tempdir_in(base)
            .expect("scratch project");
        std::fs::create_dir(dir.path().join(".git")).expect(".git");
        let project = dir.path().to_string_lossy().into_owned();
        let env = Env::from_lookup(
            |k| match k {
                "CLAUDE_PROJECT_DIR" => Some(project.clone()),
                "OMC_NOW_MS" => Some("1796305500000".into()),
                _ => None,
            },
            Some(dir.path().to_path_buf()),
            HashMap::new(),
        );
        Harness { dir, env, runs: 0 }
    }

    #[allow(dead_code)] // used by one of the two targets
    pub fn project(&self) -> &Path {
        self.dir.path()
    }

    /// Decides `input` for `hook` and checks the encoded answer's shape.
    #[allow(dead_code)] // used by the Claude Code targets
    pub fn decide(&mut self, hook: Hook, input: &HookInput) {
        self.runs += 1;
        if self.runs % RESET_EVERY == 0 {
            let _ = std::fs::remove_dir_all(self.dir.path().join(".omc"));
        }
        let answer = dispatch::decide(hook, &self.env, input);
        if let Some(v) = answer.encode(hook.event) {
            check_shape(hook.event, &v);
        }
    }
}

impl Harness {
    /// One payload as `agent` sends it: the first byte picks the hook subcommand, the rest is
    /// stdin. Decoded, routed, decided and encoded as the binary does, and the answer checked
    /// against what that agent accepts.
    #[allow(dead_code)] // used by the per-agent targets
    pub fn agent_case(&mut self, agent: Agent, data: &[u8]) {
        let Some((&pick, payload)) = data.split_first() else {
            return;
        };
        let hook = HOOKS[pick as usize % HOOKS.len()];
        let Ok(map) = omc_hooks::protocol::input::parse_object(payload) else {
            return;
        };
        let mut input = agents::decode_map(agent, map);
        assert_eq!(input.agent, agent);
        let hook = agents::route(hook, &mut input, &self.env);
        self.runs += 1;
        if self.runs % RESET_EVERY == 0 {
            let _ = std::fs::remove_dir_all(self.dir.path().join(".omc"));
        }
        let answer = dispatch::decide(hook, &self.env, &input);
        if let Some(v) = agents::encode(&input, hook, &answer) {
            check_agent_shape(input.format.wire(), &v);
        }
    }
}

/// Only keys the agent accepts; the continuation in its own spelling; never `continue`.
#[allow(dead_code)] // used by the per-agent targets
fn check_agent_shape(wire: Wire, v: &Value) {
    let obj = v.as_object().expect("answer is an object");
    assert!(!obj.is_empty(), "empty answer object");
    if matches!(wire, Wire::OpenCode | Wire::Pi) {
        check_plugin_shape(obj);
        return;
    }
    let allowed: &[&str] = match wire {
        Wire::Claude | Wire::Qwen | Wire::Codex | Wire::Gemini => {
            &["decision", "reason", "hookSpecificOutput", "systemMessage"]
        }
        // Copilot reads context at the top level only.
        Wire::Copilot => &[
            "decision",
            "reason",
            "hookSpecificOutput",
            "systemMessage",
            "additionalContext",
        ],
        Wire::Cursor => &[
            "additional_context",
            "followup_message",
            "decision",
            "reason",
            "permission",
            "user_message",
            "agent_message",
        ],
        // Kimi CLI reads a refusal only, and none of its keys but these two.
        Wire::Kimi => {
            let s = obj
                .get("hookSpecificOutput")
                .and_then(Value::as_object)
                .expect("Kimi: a refusal");
            assert_eq!(obj.len(), 1, "Kimi: {v}");
            assert_eq!(s.len(), 2, "Kimi: {v}");
            assert_eq!(s["permissionDecision"], "deny");
            assert!(s["permissionDecisionReason"].is_string());
            return;
        }
        Wire::Cline => {
            if obj.contains_key("cancel") {
                assert_eq!(obj["cancel"], true, "Cline: {v}");
                assert!(obj["errorMessage"].is_string(), "Cline: {v}");
            }
            &["contextModification", "cancel", "errorMessage", "overrideInput"]
        }
        // Auggie's block is inside hookSpecificOutput; a top-level decision would void it.
        Wire::Auggie => &["hookSpecificOutput", "systemMessage"],
        Wire::OpenCode | Wire::Pi => unreachable!(),
    };
    for k in obj.keys() {
        assert!(
            allowed.contains(&k.as_str()),
            "{wire:?}: unexpected key {k}"
        );
    }
    if let Some(d) = obj.get("decision") {
        let want = match wire {
            Wire::Gemini | Wire::Cursor => "deny",
            _ => "block",
        };
        assert_eq!(d, want, "{wire:?}");
        assert!(obj["reason"].is_string());
    }
    if wire == Wire::Copilot {
        assert!(
            obj.get("hookSpecificOutput")
                .is_none_or(|s| s.get("additionalContext").is_none()),
            "Copilot: context only at the top level"
        );
    }
    if let Some(s) = obj.get("hookSpecificOutput") {
        assert!(s["hookEventName"].is_string(), "{wire:?}: hookEventName");
        if wire == Wire::Codex {
            let keys: Vec<&String> = s.as_object().unwrap().keys().collect();
            for k in keys {
                assert!(
                    [
                        "hookEventName",
                        "additionalContext",
                        "permissionDecision",
                        "permissionDecisionReason",
                        // PermissionRequest's answer (allow/deny + message only)
                        "decision"
                    ]
                    .contains(&k.as_str()),
                    "Codex: unexpected hookSpecificOutput key {k}"
                );
            }
            assert!(
                !matches!(s["hookEventName"].as_str(), Some("Stop" | "SubagentStop")),
                "Codex refuses hookSpecificOutput on Stop"
            );
        }
    }
    assert!(!serde_json::to_string(v).unwrap().contains('\n'));
}

/// The answer our plugins apply (`protocol::agents::plugin`): its five parts only, each of the
/// type the plugin takes (it drops anything else, but the binary must not send it), one line.
#[allow(dead_code)] // used by agents_more
fn check_plugin_shape(obj: &serde_json::Map<String, Value>) {
    for (k, v) in obj {
        match k.as_str() {
            "context" | "continue" | "deny" | "message" => {
                assert!(v.as_str().is_some_and(|s| !s.is_empty()), "{k}: {v}")
            }
            "tool_input" => assert!(v.is_object(), "tool_input: {v}"),
            other => panic!("plugin answer: unexpected key {other}"),
        }
    }
    assert!(
        !(obj.contains_key("deny") && obj.contains_key("tool_input")),
        "a refusal and a rewrite at once"
    );
    assert!(!serde_json::to_string(obj).unwrap().contains('\n'));
}

/// Only the keys Claude Code reads; a block only on Stop/SubagentStop; never `continue`.
#[allow(dead_code)] // used by the Claude Code targets
fn check_shape(event: &str, v: &Value) {
    let obj = v.as_object().expect("answer is an object");
    assert!(!obj.is_empty(), "empty answer object");
    for k in obj.keys() {
        assert!(
            ["decision", "reason", "hookSpecificOutput", "systemMessage"].contains(&k.as_str()),
            "unexpected key {k}"
        );
    }
    if obj.contains_key("decision") {
        assert!(matches!(event, "Stop" | "SubagentStop"), "block on {event}");
        assert_eq!(obj["decision"], "block");
        assert!(obj["reason"].is_string());
    }
    if let Some(s) = obj.get("hookSpecificOutput") {
        assert_eq!(s["hookEventName"], event);
    }
    // One line on the wire.
    assert!(!serde_json::to_string(v).unwrap().contains('\n'));
}
