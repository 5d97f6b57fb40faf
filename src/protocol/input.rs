//! Tolerant decoding of a hook payload.
//!
//! The payload is parsed as a generic JSON value first and each field is then picked out by
//! name, with the camelCase aliases OMC accepts. A field of the wrong type is treated as absent
//! rather than failing the whole payload: one odd field must not turn a hook into a no-op for
//! everything else, and unknown fields and events are simply ignored.

use crate::protocol::agent::Agent;
use serde_json::{Map, Value};

/// The fields of a hook payload that omc-hooks reads. Everything is optional.
#[derive(Debug, Clone, Default)]
pub struct HookInput {
    pub hook_event_name: Option<String>,
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub permission_mode: Option<String>,
    pub prompt: Option<String>,
    pub tool_name: Option<String>,
    pub tool_input: Option<Value>,
    pub tool_response: Option<Value>,
    pub tool_use_id: Option<String>,
    pub error: Option<String>,
    pub is_interrupt: bool,
    pub stop_hook_active: bool,
    /// On Stop, the client's own count of the end-of-turn continuations it already made, when
    /// it sends one (Cursor's `loop_count`); the limit it holds them to is
    /// [`crate::protocol::agents::StopLimits::per_prompt`].
    pub client_continuations: Option<u32>,
    pub last_assistant_message: Option<String>,
    /// The first of the stop-reason spellings that is present (`stop_reason`, `stopReason`, …).
    pub stop_reason: Option<String>,
    /// `user_requested` / `userRequested` on Stop.
    pub user_requested: bool,
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
    pub agent_transcript_path: Option<String>,
    /// SessionStart `source`.
    pub source: Option<String>,
    /// PreCompact `trigger`.
    pub trigger: Option<String>,
    pub custom_instructions: Option<String>,
    /// SessionEnd `reason`.
    pub reason: Option<String>,
    pub background_tasks: Vec<Value>,
    pub model: Option<String>,
    /// The rest of the decoded object: every field not picked out above (those are moved out,
    /// not copied, so a 1 MB prompt is held once), for capabilities that need something else.
    pub raw: Map<String, Value>,
    /// The agent the hook was installed for (`--agent`, default Claude Code). Capabilities and
    /// exports may record it; only the adapters act on it.
    pub agent: Agent,
    /// The agent whose format the payload was read (and is answered) in: `agent`, unless the
    /// payload's event is one only another agent sends (see [`crate::protocol::agents`]).
    pub format: Agent,
    /// The agent the payload's shape points to, when anything tells.
    pub shape: Option<Agent>,
    /// The event name as the agent sent it (`AfterAgent`, `stop`, …); `hook_event_name` holds
    /// the neutral (Claude Code) name of the event the hook serves.
    pub agent_event: Option<String>,
    /// The tool's name as the agent calls it, when the decoder gave `tool_name` Claude Code's
    /// name for it (Gemini's `run_shell_command` is `Bash`): what the model is told about.
    pub agent_tool: Option<String>,
    /// The event may not be followed by a compaction at all (Gemini's PreCompress fires before
    /// every model turn): a checkpoint is only worth writing when something changed.
    pub compaction_uncertain: bool,
    /// A post-tool event whose tool may have failed, but whether it did could not be read
    /// (Codex: the call's status not yet in the transcript): not a failure, and not a success
    /// either, so nothing that a success would clear is cleared.
    pub outcome_unknown: bool,
    /// The prompt or end of turn is a subagent's own, not the session's (GitHub Copilot CLI
    /// fires both for a subagent's turns, with the subagent as the session): no keyword starts
    /// a run there and no run is continued there.
    pub subagent_turn: bool,
}

/// Why a payload could not be decoded. Every variant leads to a no-op.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    Empty,
    NotJson(String),
    NotAnObject,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Empty => write!(f, "empty payload"),
            DecodeError::NotJson(e) => write!(f, "payload is not JSON: {e}"),
            DecodeError::NotAnObject => write!(f, "payload is not a JSON object"),
        }
    }
}

impl HookInput {
    /// Decodes a Claude Code payload. Leading and trailing whitespace (and a UTF-8 BOM) are
    /// fine. Other agents' payloads go through [`crate::protocol::agents::decode`].
    pub fn decode(bytes: &[u8]) -> Result<HookInput, DecodeError> {
        parse_object(bytes).map(HookInput::from_map)
    }

    /// Moves the known fields out of a decoded object; what is left stays in `raw`.
    pub fn from_map(mut raw: Map<String, Value>) -> HookInput {
        let mut s = |keys: &[&str]| take_str(&mut raw, keys);
        let hook_event_name = s(&["hook_event_name", "hookEventName"]);
        let session_id = s(&["session_id", "sessionId", "sessionid"]);
        let transcript_path = s(&["transcript_path", "transcriptPath"]);
        let cwd = s(&["cwd", "directory"]);
        let permission_mode = s(&["permission_mode", "permissionMode"]);
        let prompt = s(&["prompt"]);
        let tool_name = s(&["tool_name", "toolName"]);
        let tool_use_id = s(&["tool_use_id", "toolUseId"]);
        let error = s(&["error"]);
        let last_assistant_message = s(&["last_assistant_message", "lastAssistantMessage"]);
        let stop_reason = s(&[
            "stop_reason",
            "stopReason",
            "end_turn_reason",
            "endTurnReason",
        ]);
        let agent_id = s(&["agent_id", "agentId"]);
        let agent_type = s(&["agent_type", "agentType"]);
        let agent_transcript_path = s(&["agent_transcript_path", "agentTranscriptPath"]);
        let source = s(&["source"]);
        let trigger = s(&["trigger"]);
        let custom_instructions = s(&["custom_instructions", "customInstructions"]);
        let reason = s(&["reason"]);
        let model = s(&["model"]);
        let prompt = prompt.or_else(|| prompt_fallback(&raw));
        let tool_input = take_value(&mut raw, &["tool_input", "toolInput"]);
        let tool_response = take_value(&mut raw, &["tool_response", "toolResponse", "toolOutput"]);
        let background_tasks = match raw.remove("background_tasks") {
            Some(Value::Array(a)) => a,
            Some(other) => {
                raw.insert("background_tasks".into(), other);
                Vec::new()
            }
            None => Vec::new(),
        };
        let b = |keys: &[&str]| bool_field(&raw, keys);
        HookInput {
            is_interrupt: b(&["is_interrupt", "isInterrupt"]),
            stop_hook_active: b(&["stop_hook_active", "stopHookActive"]),
            client_continuations: None,
            user_requested: b(&["user_requested", "userRequested"]),
            hook_event_name,
            session_id,
            transcript_path,
            cwd,
            permission_mode,
            prompt,
            tool_name,
            tool_input,
            tool_response,
            tool_use_id,
            error,
            last_assistant_message,
            stop_reason,
            agent_id,
            agent_type,
            agent_transcript_path,
            source,
            trigger,
            custom_instructions,
            reason,
            background_tasks,
            model,
            raw,
            agent: Agent::Claude,
            format: Agent::Claude,
            shape: None,
            agent_event: None,
            agent_tool: None,
            compaction_uncertain: false,
            outcome_unknown: false,
            subagent_turn: false,
        }
    }

    /// The tool as the model knows it: the agent's own name for it ([`Self::agent_tool`]),
    /// else `tool_name`.
    pub fn tool_as_named(&self) -> Option<&str> {
        self.agent_tool.as_deref().or(self.tool_name.as_deref())
    }

    /// The payload as one JSON object again, appended to `m`: the fields the decoder picked
    /// out, under their snake_case names, then everything it left in `raw` (keys already in `m`
    /// win). What user hooks receive and what export sends are built from this.
    pub fn payload_into(&self, m: &mut Map<String, Value>) {
        let fields = [
            ("hook_event_name", &self.hook_event_name),
            ("session_id", &self.session_id),
            ("transcript_path", &self.transcript_path),
            ("cwd", &self.cwd),
            ("permission_mode", &self.permission_mode),
            ("prompt", &self.prompt),
            ("tool_name", &self.tool_name),
            ("tool_use_id", &self.tool_use_id),
            ("error", &self.error),
            ("last_assistant_message", &self.last_assistant_message),
            ("stop_reason", &self.stop_reason),
            ("agent_id", &self.agent_id),
            ("agent_type", &self.agent_type),
            ("agent_transcript_path", &self.agent_transcript_path),
            ("source", &self.source),
            ("trigger", &self.trigger),
            ("custom_instructions", &self.custom_instructions),
            ("reason", &self.reason),
            ("model", &self.model),
        ];
        for (k, v) in fields {
            if let Some(v) = v {
                m.insert(k.to_string(), Value::String(v.clone()));
            }
        }
        if let Some(v) = &self.tool_input {
            m.insert("tool_input".into(), v.clone());
        }
        if let Some(v) = &self.tool_response {
            m.insert("tool_response".into(), v.clone());
        }
        if !self.background_tasks.is_empty() {
            m.insert(
                "background_tasks".into(),
                Value::Array(self.background_tasks.clone()),
            );
        }
        for (k, v) in &self.raw {
            m.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }

    /// A string field of `tool_input`, if present.
    pub fn tool_input_str(&self, key: &str) -> Option<&str> {
        self.tool_input.as_ref()?.get(key)?.as_str()
    }
}

/// Parses a payload into a JSON object. Leading and trailing whitespace (and a UTF-8 BOM) are
/// fine; anything but an object is an error.
pub fn parse_object(bytes: &[u8]) -> Result<Map<String, Value>, DecodeError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(DecodeError::Empty);
    }
    // Huge strings (a shell call's megabytes of output) are shortened first, so nothing
    // after this walks them whole (`shorten`; the hook's own stdin already was, as it was read:
    // `stdin::read_capped`, and this finds nothing more to cut); a payload that does not parse
    // is reported as it came here, with the parser's own position in it.
    let short = super::shorten::shorten(bytes);
    let parsed = match (serde_json::from_slice::<Value>(&short), &short) {
        // Not parsed once shortened: the payload as it came decides (and names the error).
        (Err(_), std::borrow::Cow::Owned(_)) => serde_json::from_slice(bytes),
        (parsed, _) => parsed,
    };
    let value = parsed.map_err(|e| DecodeError::NotJson(e.to_string()))?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(DecodeError::NotAnObject),
    }
}

/// Moves out the first of `keys` holding a string. A field of another type stays in `raw`.
fn take_str(raw: &mut Map<String, Value>, keys: &[&str]) -> Option<String> {
    let key = keys
        .iter()
        .find(|k| raw.get(**k).is_some_and(Value::is_string))?;
    match raw.remove(*key) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

/// Moves out the first of `keys` holding a non-null value.
fn take_value(raw: &mut Map<String, Value>, keys: &[&str]) -> Option<Value> {
    let key = keys
        .iter()
        .find(|k| raw.get(**k).is_some_and(|v| !v.is_null()))?;
    raw.remove(*key)
}

fn bool_field(raw: &Map<String, Value>, keys: &[&str]) -> bool {
    keys.iter().any(|k| match raw.get(*k) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
        _ => false,
    })
}

/// OMC's fallbacks for the prompt text: `message.content`, then the text of `parts[]`.
fn prompt_fallback(raw: &Map<String, Value>) -> Option<String> {
    if let Some(content) = raw.get("message").and_then(|m| m.get("content")) {
        match content {
            Value::String(s) => return Some(s.clone()),
            Value::Array(items) => {
                let text = join_text_parts(items);
                if !text.is_empty() {
                    return Some(text);
                }
            }
            _ => {}
        }
    }
    let parts = raw.get("parts")?.as_array()?;
    let text = join_text_parts(parts);
    (!text.is_empty()).then_some(text)
}

fn join_text_parts(items: &[Value]) -> String {
    items
        .iter()
        .filter_map(|p| match p {
            Value::String(s) => Some(s.as_str()),
            other => other.get("text").and_then(Value::as_str),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_and_events_are_ignored_on_purpose() {
        let input = HookInput::decode(
            br#"{"hook_event_name":"SomethingNew","session_id":"s1","brand_new":{"x":1}}"#,
        )
        .unwrap();
        assert_eq!(input.hook_event_name.as_deref(), Some("SomethingNew"));
        assert_eq!(input.session_id.as_deref(), Some("s1"));
    }

    #[test]
    fn camel_case_aliases_are_read() {
        let input = HookInput::decode(
            br#"{"sessionId":"a","toolName":"Bash","toolInput":{"command":"ls"},"toolResponse":{"ok":true},"transcriptPath":"/t","directory":"/p"}"#,
        )
        .unwrap();
        assert_eq!(input.session_id.as_deref(), Some("a"));
        assert_eq!(input.tool_name.as_deref(), Some("Bash"));
        assert_eq!(input.tool_input_str("command"), Some("ls"));
        assert!(input.tool_response.is_some());
        assert_eq!(input.transcript_path.as_deref(), Some("/t"));
        assert_eq!(input.cwd.as_deref(), Some("/p"));
    }

    #[test]
    fn a_field_of_the_wrong_type_is_absent_not_fatal() {
        let input =
            HookInput::decode(br#"{"session_id":42,"prompt":"hi","stop_hook_active":"yes"}"#)
                .unwrap();
        assert_eq!(input.session_id, None);
        assert_eq!(input.prompt.as_deref(), Some("hi"));
        assert!(!input.stop_hook_active);
    }

    #[test]
    fn prompt_falls_back_to_message_content_and_parts() {
        let a = HookInput::decode(br#"{"message":{"content":"from message"}}"#).unwrap();
        assert_eq!(a.prompt.as_deref(), Some("from message"));
        let b = HookInput::decode(br#"{"parts":[{"type":"text","text":"one"},"two"]}"#).unwrap();
        assert_eq!(b.prompt.as_deref(), Some("one two"));
    }

    #[test]
    fn bad_payloads_are_errors() {
        assert_eq!(HookInput::decode(b"  \n").unwrap_err(), DecodeError::Empty);
        assert_eq!(
            HookInput::decode(b"[1]").unwrap_err(),
            DecodeError::NotAnObject
        );
        assert!(matches!(
            HookInput::decode(b"{\"a\":").unwrap_err(),
            DecodeError::NotJson(_)
        ));
    }
}
