//! The event a user hook receives: a script on stdin (and in `OMC_HOOK_CONTEXT`), a webhook as
//! its request body — the same JSON for both.
//!
//! It is the agent's own payload, put back together from the decoded input (so a script written
//! for Claude Code's hooks reads `.tool_input.command` as it always did), plus `event`, the
//! neutral hook name, and `project_dir`. Under `tool_input` a later entry sees what an earlier
//! entry's `modify` made of it.
//!
//! Beside the payload, [`session_fields`] adds what a script cannot easily find out itself:
//! `turn_number`, `tokens_used`, `edited_files`, `truncated`, `timestamp`, `model_name` and
//! `provider_name` (contract §9) — AtomCode's `HookContext` fields.

use crate::protocol::HookInput;
use crate::state::{Scope, StateFile, Store};
use serde_json::{Map, Value, json};
use std::path::Path;

/// `edits.json`, the session's edited files as the memory capability records them (read here
/// as generic JSON: the file is another layer's).
const EDITS_FILE: &str = "edits.json";

/// The session's context a script receives beside the payload, every key always present:
///
/// * `turn_number`: the prompts the person typed this session, as the client's transcript
///   records them (the one being submitted counted on user-prompt-submit); null without a
///   readable transcript.
/// * `tokens_used`: [`crate::state::usage::tokens_used`]; null where unknown.
/// * `edited_files`: the paths this session edited (Edit, Write, …), least recent first.
/// * `truncated`: whether the context was compacted this session (a pre-compact checkpoint
///   exists for it).
/// * `timestamp`: now, RFC 3339 in UTC.
/// * `model_name`: the payload's `model` (Claude Code's SessionStart, Codex's events), else the
///   model of the transcript's latest assistant message; null where neither says.
/// * `provider_name`: who serves that model, by its name ([`PROVIDERS`]); null when the name
///   is not one the table knows.
pub fn session_fields(
    event: &str,
    input: &HookInput,
    store: Option<&Store>,
    scope: &Scope,
    now_ms: i64,
) -> Map<String, Value> {
    let transcript = input
        .transcript_path
        .as_deref()
        .and_then(crate::state::usage::read_whole);
    let turn_number = transcript.as_deref().map(|t| {
        let (mut n, last) = crate::state::usage::prompts_in(t);
        if event == "user-prompt-submit"
            && let Some(p) = input.prompt.as_deref()
            && last.as_deref().map(str::trim) != Some(p.trim())
        {
            n += 1;
        }
        n
    });
    let tokens_used = transcript
        .as_deref()
        .and_then(crate::state::usage::tokens_used_in);
    let session = scope.session_id().is_some();
    let edited_files: Vec<Value> = store
        .filter(|_| session)
        .and_then(|s| s.read::<Value>(&StateFile::new(scope, EDITS_FILE)?))
        .and_then(|v| v.get("files").and_then(Value::as_array).cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|f| f.get("path").and_then(Value::as_str).map(|p| json!(p)))
        .collect();
    let truncated = session
        && store.is_some_and(|s| {
            s.list(scope, Some("checkpoints"))
                .iter()
                .any(|n| n.ends_with(".json"))
        });
    let model_name = input
        .model
        .clone()
        .or_else(|| transcript.as_deref().and_then(last_model));
    let provider_name = model_name.as_deref().and_then(provider);
    let mut m = Map::new();
    m.insert("turn_number".into(), json!(turn_number));
    m.insert("tokens_used".into(), json!(tokens_used));
    m.insert("edited_files".into(), Value::Array(edited_files));
    m.insert("truncated".into(), json!(truncated));
    m.insert("timestamp".into(), json!(crate::time::iso(now_ms)));
    m.insert("model_name".into(), json!(model_name));
    m.insert("provider_name".into(), json!(provider_name));
    m
}

/// Model name prefixes and who serves them, for `provider_name`: a reader can scan and extend
/// it. The name is compared lower-cased, after any `provider/` prefix is taken as the answer.
const PROVIDERS: &[(&str, &str)] = &[
    ("claude", "anthropic"),
    ("gpt", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("codex", "openai"),
    ("gemini", "google"),
    ("qwen", "alibaba"),
    ("kimi", "moonshot"),
    ("grok", "xai"),
    ("deepseek", "deepseek"),
    ("glm", "zhipu"),
    ("mistral", "mistral"),
    ("codestral", "mistral"),
];

/// Who serves `model`: a `provider/model` name says so itself, else [`PROVIDERS`].
fn provider(model: &str) -> Option<String> {
    let m = model.trim().to_ascii_lowercase();
    if let Some((p, _)) = m.split_once('/')
        && !p.is_empty()
    {
        return Some(p.to_string());
    }
    PROVIDERS
        .iter()
        .find(|(prefix, _)| m.starts_with(prefix))
        .map(|(_, p)| (*p).to_string())
}

/// The model of the transcript's latest assistant message (Claude Code's `message.model`; the
/// client's `<synthetic>` messages are not a model).
fn last_model(transcript: &[u8]) -> Option<String> {
    String::from_utf8_lossy(transcript)
        .lines()
        .rev()
        .filter(|l| l.contains("\"model\""))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| {
            let m = v.get("message")?.get("model")?.as_str()?;
            (!m.is_empty() && m != "<synthetic>").then(|| m.to_string())
        })
}

pub fn build(event: &str, input: &HookInput, project: Option<&Path>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("event".into(), json!(event));
    input.payload_into(&mut m);
    // the flags as the decoder read them, under their snake_case names, whatever the spelling
    for (k, on) in [
        ("is_interrupt", input.is_interrupt),
        ("stop_hook_active", input.stop_hook_active),
        ("user_requested", input.user_requested),
    ] {
        if on {
            m.insert(k.into(), json!(true));
        }
    }
    if let Some(p) = project {
        m.insert("project_dir".into(), json!(p.to_string_lossy()));
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_and_its_provider() {
        assert_eq!(provider("claude-sonnet-4-5").as_deref(), Some("anthropic"));
        assert_eq!(provider("gpt-5-codex").as_deref(), Some("openai"));
        assert_eq!(provider("openrouter/qwen3").as_deref(), Some("openrouter"));
        assert_eq!(provider("my-local-model"), None);
        let t = "{\"type\":\"assistant\",\"message\":{\"model\":\"claude-x\"}}\n\
                 {\"type\":\"assistant\",\"message\":{\"model\":\"<synthetic>\"}}\n";
        assert_eq!(last_model(t.as_bytes()).as_deref(), Some("claude-x"));
        assert_eq!(last_model(b"{}"), None);
    }

    #[test]
    fn the_payload_comes_back_with_the_neutral_event_name() {
        let input = HookInput::decode(
            br#"{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash",
                 "tool_input":{"command":"ls"},"effort":{"level":"high"},"stop_hook_active":false}"#,
        )
        .unwrap();
        let body = Value::Object(build("pre-tool-use", &input, Some(Path::new("/p"))));
        assert_eq!(
            body,
            json!({"event":"pre-tool-use","hook_event_name":"PreToolUse","session_id":"s1",
                   "tool_name":"Bash","tool_input":{"command":"ls"},"effort":{"level":"high"},
                   "stop_hook_active":false,"project_dir":"/p"})
        );
    }
}
