//! One adapter per coding agent, beside the Claude Code protocol.
//!
//! Every agent's payload is decoded into the neutral [`HookInput`] (whose `hook_event_name` is
//! the neutral, Claude Code, event name of the hook that serves it) and the neutral [`Answer`]
//! is encoded into that agent's own output. Capabilities never see which agent spoke, except
//! through neutral properties ([`Agent::echoes_continuation`], [`Agent::shows_pre_tool_context`],
//! [`stop_limits`]).
//!
//! The agent is *said*, not guessed: installed commands carry `--agent <name>` (default
//! `claude`). The payload's shape is still detected ([`detect_shape`]) and written to the trace;
//! when the declared agent does not know the payload's event but the detected one does, the
//! payload is decoded and answered in the detected agent's format (best effort), and `doctor`
//! reports the mismatch from the trace.
//!
//! Which agent event maps to which hook subcommand is one table, [`table`], that `doctor
//! --agents`, `install --agent` and the README all print from.

pub mod auggie;
pub mod caps;
pub mod claude;
pub mod cline;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod factory;
pub mod gemini;
pub mod kimi;
pub mod opencode;
pub mod outcome;
pub mod pi;
pub mod plugin;
pub mod qwen;
pub mod support;
pub mod table;

pub use caps::{Limit, StopLimits, stop_limits};

/// Whether `agent`'s install gives us a tool's result (a post-tool or failure event), so that a
/// tool call is judged by what it did rather than by the call alone.
pub fn sees_tool_results(agent: Agent) -> bool {
    table::rows(agent.wire()).any(|r| {
        matches!(r.hook, "post-tool-use" | "post-tool-use-failure")
            && r.install != table::Install::No
    })
}

// `Agent` and `Wire` are named in their own module (`protocol::agent`) so that the neutral
// input can say which agent spoke without reaching into the adapters; they are used here
// under their old path too.
pub use crate::protocol::agent::{Agent, Wire};

use crate::env::Env;
use crate::protocol::input::DecodeError;
use crate::protocol::{Answer, HookInput};
use serde_json::{Map, Value};

/// What `doctor --agents` prints: what works in each agent ([`support`]), then which agent
/// event runs which hook subcommand ([`table`]).
pub fn render_tables() -> String {
    format!(
        "What works in each agent\n\n{}\nWhich agent event runs which hook subcommand\n\n{}",
        support::render_markdown(),
        table::render_markdown()
    )
}

/// Decodes a payload sent to an agent declared as `declared`.
///
/// The payload is read in the declared agent's format unless the declared agent does not know
/// its event and the agent its shape points to does: then in that one's (a hook copied between
/// clients, e.g. by `gemini hooks migrate --from-claude`, still works). `shape` records what the
/// payload looked like either way.
pub fn decode(declared: Agent, bytes: &[u8]) -> Result<HookInput, DecodeError> {
    let map = crate::protocol::input::parse_object(bytes)?;
    Ok(decode_map(declared, map))
}

/// [`decode`] on an already parsed object.
pub fn decode_map(declared: Agent, map: Map<String, Value>) -> HookInput {
    let shape = detect_shape(&map);
    let event = event_name(&map);
    let format = match (event, shape) {
        (Some(e), Some(s)) if !table::knows(declared.wire(), e) && table::knows(s.wire(), e) => s,
        _ => declared,
    };
    let mut input = match format.wire() {
        Wire::Claude => claude::decode(map),
        Wire::Codex => codex::decode(map),
        Wire::Gemini => gemini::decode(map),
        Wire::Qwen => qwen::decode(map),
        Wire::Cursor => cursor::decode(map),
        Wire::Kimi => kimi::decode(map),
        Wire::Cline => cline::decode(map),
        Wire::Auggie => auggie::decode(map),
        Wire::OpenCode => opencode::decode(map),
        Wire::Pi => pi::decode(map),
        Wire::Copilot => copilot::decode(map),
    };
    if format.wire() == Wire::Claude {
        claude::for_client(format, &mut input);
    }
    input.agent = declared;
    input.format = format;
    input.shape = shape;
    input
}

/// The event name of a payload, in any of the spellings the agents use (Cline's `hookName`
/// as its hook file is named).
fn event_name(map: &Map<String, Value>) -> Option<&str> {
    ["hook_event_name", "hookEventName"]
        .iter()
        .find_map(|k| map.get(*k)?.as_str())
        .or_else(|| cline::event_of(map))
}

/// The field our TypeScript plugins (`extensions/`) add to every payload: the agent they were
/// installed for (`opencode`, `kilo`, `pi`).
pub const PLUGIN_MARKER: &str = "omc_plugin";

/// What agent a payload looks like it came from, from markers only that agent sends
/// (the recorded fixtures in tests/fixtures/, whose fields tests/e2e/codex-FINDINGS.md §4,
/// gemini-FINDINGS.md §3, qwen-FINDINGS.md §3 and copilot-FINDINGS.md §3 list; Cursor's
/// documented fields; CodeBuddy's `client` and `version`, seen on every payload of CodeBuddy
/// Code 2.117.0, which also sends Cursor's `generation_id` and Codex's `model` with
/// `permission_mode`: codebuddy-FINDINGS.md §3). Kimi CLI's tool events carry `tool_output`,
/// the Python `repr` of the tool's result (kimi-FINDINGS.md); Cline's `hookName` and `taskId`
/// (cline-FINDINGS.md). `None` when nothing tells (a bare Claude-format payload: Claude Code's
/// SessionStart, Codex's SessionEnd and Kimi's other payloads look alike).
pub fn detect_shape(map: &Map<String, Value>) -> Option<Agent> {
    let has = |k: &str| map.get(k).is_some_and(|v| !v.is_null());
    let event = event_name(map);
    // Our own plugins name the agent they were installed for.
    if let Some(a) = map
        .get(PLUGIN_MARKER)
        .and_then(Value::as_str)
        .and_then(Agent::parse)
        .filter(|a| table::via_plugin(a.wire()))
    {
        return Some(a);
    }
    // Auggie sends Cursor's `conversation_id` with its own PascalCase event names.
    if auggie::looks_like(map) {
        return Some(Agent::Auggie);
    }
    if has("conversation_id") || has("cursor_version") {
        return Some(Agent::Cursor);
    }
    if ["client", "version"]
        .iter()
        .all(|k| map.get(*k).is_some_and(Value::is_string))
    {
        return Some(Agent::CodeBuddy);
    }
    if has("generation_id") {
        return Some(Agent::Cursor);
    }
    if map.get("tool_output").is_some_and(kimi::is_tool_repr) {
        return Some(Agent::Kimi);
    }
    // Cline stamps its payloads too: before the timestamp's guess.
    if cline::looks_like(map) {
        return Some(Agent::Cline);
    }
    if let Some(e) = event {
        if table::only(Wire::Gemini, e) {
            return Some(Agent::Gemini);
        }
        if table::only(Wire::Cursor, e) {
            return Some(Agent::Cursor);
        }
    }
    if has("timestamp") {
        // Gemini CLI, Qwen Code and GitHub Copilot CLI stamp payloads. Qwen's carry Claude
        // Code's fields (`permission_mode` on every one); Copilot's carry Claude Code's event
        // names without them, its own fields, and no `transcript_path` outside Stop and
        // PreCompact, which Gemini sends on every event.
        if [
            "permission_mode",
            "prompt_id",
            "tool_call_id",
            "submitted_prompt",
        ]
        .iter()
        .any(|k| has(k))
        {
            return Some(Agent::Qwen);
        }
        let claude_only =
            event.is_some_and(|e| table::knows(Wire::Copilot, e) && !table::knows(Wire::Gemini, e));
        let copilot = claude_only
            || [
                "tool_result",
                "initial_prompt",
                "stop_reason",
                "parent_agent_id",
            ]
            .iter()
            .any(|k| has(k))
            || (event.is_some_and(|e| table::knows(Wire::Copilot, e)) && !has("transcript_path"));
        return Some(if copilot {
            Agent::Copilot
        } else {
            Agent::Gemini
        });
    }
    if has("turn_id") {
        return Some(Agent::Codex);
    }
    // Claude Code (2.1.3xx) stamps nearly every payload with `prompt_id`; Codex never does.
    if has("prompt_id") {
        return Some(Agent::Claude);
    }
    // Factory Droid 0.225's own fields: the final message's id (prompt, Stop, SessionEnd), the
    // turn's counts, SessionStart's env file, SessionEnd's duration (its tool events carry
    // none: tests/fixtures/factory/).
    if [
        "message_id",
        "tool_execution_count",
        "CLAUDE_ENV_FILE",
        "session_duration_ms",
    ]
    .iter()
    .any(|k| has(k))
    {
        return Some(Agent::Factory);
    }
    // Codex's SessionStart: `model` and `permission_mode` (Claude Code's has `model` only).
    if map.get("model").is_some_and(Value::is_string) && has("permission_mode") {
        return Some(Agent::Codex);
    }
    None
}

/// Whether a hook installed for Claude Code leaves this payload alone: GitHub Copilot CLI runs
/// the hooks of a project's `.claude/settings.json` too, with its own payloads
/// (tests/e2e/copilot-FINDINGS.md §8). Answered in Claude Code's shape they would lose their
/// context, and beside `install --agent copilot`'s own hooks every event would be served
/// twice (a keyword started twice, a run advanced twice per turn); so Copilot is served by its
/// own install only.
pub fn stands_down(input: &HookInput) -> bool {
    input.agent == Agent::Claude && input.shape == Some(Agent::Copilot)
}

/// The hook subcommand that actually serves a decoded payload: the one installed, unless the
/// tool call failed on an agent that has no failure event of its own (then the failure hook
/// runs, and the answer still goes out in the post-tool event's shape). For Codex, whose
/// payload may not carry the exit status, this is where the transcript is consulted; for
/// GitHub Copilot CLI and Factory Droid, whose Stop does not carry the model's final message,
/// their session logs; for Kimi CLI, whose Stop payload lacks it too, its session file.
pub fn route(hook: crate::hooks::Hook, input: &mut HookInput, env: &Env) -> crate::hooks::Hook {
    if hook.event == "Stop" && input.hook_event_name.as_deref() == Some("Stop") {
        match input.format {
            Agent::Copilot => copilot::read_last_message(input),
            Agent::Factory => factory::read_last_message(input),
            Agent::Kimi if input.last_assistant_message.is_none() => {
                if let Some(sid) = input.session_id.as_deref() {
                    input.last_assistant_message = kimi::last_message(sid, env);
                }
            }
            _ => {}
        }
    }
    if hook.event != "PostToolUse" {
        return hook;
    }
    if input.format.wire() == Wire::Codex && input.hook_event_name.as_deref() == Some("PostToolUse")
    {
        match codex::status_from_transcript(input) {
            codex::Status::Failed(error) => mark_failed(input, error),
            codex::Status::Unknown | codex::Status::Pending => input.outcome_unknown = true,
            codex::Status::Succeeded | codex::Status::NotApplicable => {}
        }
    }
    if input.hook_event_name.as_deref() == Some("PostToolUseFailure")
        && let Some(h) = crate::hooks::find("post-tool-use-failure")
    {
        return h;
    }
    hook
}

/// Whether the payload's own event is one a hook serves: always for Claude Code's format
/// (whose unknown names `hooks::serves` judges), and for another agent's only when the table
/// maps it (Gemini's BeforeModel or Codex's PreModelRequest, sent to a hook by a wrong
/// install, are left alone).
pub fn served(input: &HookInput) -> bool {
    let Some(event) = input.agent_event.as_deref() else {
        return true;
    };
    let wire = match (input.format.wire(), input.shape) {
        (Wire::Claude, Some(s)) if s.wire() != Wire::Claude => s.wire(),
        (w, _) => w,
    };
    wire == Wire::Claude || table::knows(wire, event)
}

/// Encodes `answer` as the agent the payload was read as (`input.format`) expects it for the
/// event that fired. `None`: print nothing.
pub fn encode(input: &HookInput, hook: crate::hooks::Hook, answer: &Answer) -> Option<Value> {
    let wire = input.format.wire();
    let fallback = table::agent_event(wire, hook.name);
    let event = input
        .agent_event
        .as_deref()
        .filter(|e| table::knows(wire, e))
        .or(fallback)
        .unwrap_or(hook.event);
    match wire {
        Wire::Claude | Wire::Qwen => answer.encode(event),
        Wire::Codex => codex::encode(answer, event),
        Wire::Gemini => gemini::encode(answer, event),
        Wire::Cursor => cursor::encode(answer, event),
        Wire::Kimi => kimi::encode(answer, event),
        Wire::Cline => cline::encode(input, answer, event),
        Wire::Auggie => auggie::encode(answer, event),
        Wire::OpenCode => opencode::encode(answer, event),
        Wire::Pi => pi::encode(answer, event),
        Wire::Copilot => copilot::encode(answer, event),
    }
}

/// Without a `cwd`, the first of the payload's `workspace_roots` stands for it (Cursor, Auggie).
pub(crate) fn cwd_from_workspace_roots(map: &mut Map<String, Value>) {
    if !map.get("cwd").is_some_and(Value::is_string)
        && let Some(root) = map
            .get("workspace_roots")
            .and_then(Value::as_array)
            .and_then(|r| r.first())
            .and_then(Value::as_str)
            .map(str::to_string)
    {
        map.insert("cwd".into(), Value::String(root));
    }
}

/// Moves `from` to `to` in a payload object when `to` is absent (an agent's spelling of a
/// field the neutral decoder reads under another name).
pub(crate) fn rename(map: &mut Map<String, Value>, from: &str, to: &str) {
    if map.get(to).is_some_and(|v| !v.is_null()) {
        return;
    }
    if let Some(v) = map.remove(from) {
        map.insert(to.to_string(), v);
    }
}

/// Renames a tool to the neutral (Claude Code) vocabulary the capabilities read, where the
/// agent's tool does the same job with the same input fields.
pub(crate) fn neutral_tool(input: &mut HookInput, aliases: &[(&str, &str)]) {
    let Some(name) = input.tool_name.as_deref() else {
        return;
    };
    if let Some((_, neutral)) = aliases.iter().find(|(a, _)| *a == name) {
        input.agent_tool = input.tool_name.replace((*neutral).to_string());
    }
}

/// Turns a post-tool payload into the failure it reports (the failure hook then serves it).
pub(crate) fn mark_failed(input: &mut HookInput, error: String) {
    input.hook_event_name = Some("PostToolUseFailure".to_string());
    input.error = Some(error);
}

/// Sets the neutral event name from the agent's own; keeps the agent's in `agent_event`.
pub(crate) fn neutral_event(input: &mut HookInput, wire: Wire) {
    let Some(event) = input.hook_event_name.take() else {
        return;
    };
    input.hook_event_name = Some(
        table::neutral(wire, &event)
            .map(str::to_string)
            .unwrap_or_else(|| event.clone()),
    );
    input.agent_event = Some(event);
}

/// The answers of a user hook every adapter's tests encode: a refusal and a rewrite of the
/// tool input.
#[cfg(test)]
pub(crate) mod user_hook_answers {
    use crate::protocol::Answer;
    use serde_json::json;

    /// A user hook refusing with the reason "not on main".
    pub(crate) fn refuse() -> Answer {
        Answer {
            deny: Some("not on main".into()),
            ..Answer::default()
        }
    }

    /// A user hook rewriting the tool input to `{"command": "ls -l"}`.
    pub(crate) fn rewrite() -> Answer {
        Answer {
            updated_input: Some(json!({"command": "ls -l"})),
            ..Answer::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn names_round_trip_and_aliases_parse() {
        for a in Agent::ALL {
            assert_eq!(Agent::parse(a.name()), Some(a));
            assert_eq!(Agent::parse(&a.name().to_uppercase()), Some(a));
        }
        assert_eq!(Agent::parse("gemini-cli"), Some(Agent::Gemini));
        assert_eq!(Agent::parse("droid"), Some(Agent::Factory));
        assert_eq!(Agent::parse("github-copilot"), Some(Agent::Copilot));
        assert_eq!(Agent::parse("copilot-cli"), Some(Agent::Copilot));
        assert_eq!(Agent::parse("vim"), None);
    }

    #[test]
    fn shapes_from_the_markers_each_client_sends() {
        let cases = [
            (
                json!({"conversation_id":"c","generation_id":"g","hook_event_name":"stop"}),
                Some(Agent::Cursor),
            ),
            (
                json!({"hook_event_name":"AfterAgent","timestamp":"t"}),
                Some(Agent::Gemini),
            ),
            // CodeBuddy 2.117.0's Stop and SessionStart (tests/fixtures/codebuddy/).
            (
                json!({"hook_event_name":"Stop","generation_id":"g","client":"CLI",
                       "version":"2.117.0","model":"m","permission_mode":"bypassPermissions"}),
                Some(Agent::CodeBuddy),
            ),
            (
                json!({"hook_event_name":"SessionStart","source":"startup","client":"CLI",
                       "version":"2.117.0","model":"m","permission_mode":"bypassPermissions"}),
                Some(Agent::CodeBuddy),
            ),
            // Gemini CLI 0.61 sends `transcript_path` on every event (tests/fixtures/gemini/).
            (
                json!({"hook_event_name":"SessionStart","timestamp":"t","source":"startup",
                       "transcript_path":"/t"}),
                Some(Agent::Gemini),
            ),
            (
                json!({"hook_event_name":"Stop","timestamp":"t","prompt_id":"p"}),
                Some(Agent::Qwen),
            ),
            // GitHub Copilot CLI 1.0.102 (tests/fixtures/copilot/).
            (
                json!({"hook_event_name":"UserPromptSubmit","session_id":"s","timestamp":"t",
                       "cwd":"/p","prompt":"hi"}),
                Some(Agent::Copilot),
            ),
            (
                json!({"hook_event_name":"SessionStart","session_id":"s","timestamp":"t",
                       "cwd":"/p","source":"new","initial_prompt":"hi"}),
                Some(Agent::Copilot),
            ),
            (
                json!({"hook_event_name":"SessionEnd","session_id":"s","timestamp":"t",
                       "cwd":"/p","reason":"complete"}),
                Some(Agent::Copilot),
            ),
            (
                json!({"hook_event_name":"Stop","session_id":"s","timestamp":"t","cwd":"/p",
                       "transcript_path":"/h/events.jsonl","stop_reason":"end_turn",
                       "stop_hook_active":false}),
                Some(Agent::Copilot),
            ),
            (
                json!({"sessionId":"s","timestamp":1,"transcriptPath":"/t","agent_id":"a",
                       "parent_agent_id":"s"}),
                Some(Agent::Copilot),
            ),
            (
                json!({"hook_event_name":"SessionEnd","session_id":"s","timestamp":"t",
                       "cwd":"/p","reason":"exit","transcript_path":"/t"}),
                Some(Agent::Gemini),
            ),
            (
                json!({"hook_event_name":"SessionStart","timestamp":"t","permission_mode":"yolo"}),
                Some(Agent::Qwen),
            ),
            (
                json!({"hook_event_name":"PreToolUse","timestamp":"t","permission_mode":"yolo",
                       "transcript_path":"/t","tool_name":"run_shell_command"}),
                Some(Agent::Qwen),
            ),
            (
                json!({"hook_event_name":"Stop","turn_id":"t","model":"m"}),
                Some(Agent::Codex),
            ),
            (
                json!({"hook_event_name":"SessionStart","model":"gpt","permission_mode":"bypassPermissions","source":"startup"}),
                Some(Agent::Codex),
            ),
            (
                json!({"hook_event_name":"SessionStart","model":"claude-opus","source":"compact","prompt_id":"p"}),
                Some(Agent::Claude),
            ),
            (
                json!({"hook_event_name":"SessionStart","model":"claude-opus","source":"startup"}),
                None,
            ),
            (
                json!({"hook_event_name":"Stop","permission_mode":"default","prompt_id":"p"}),
                Some(Agent::Claude),
            ),
            (
                json!({"hook_event_name":"Stop","permission_mode":"default"}),
                None,
            ),
            // Factory Droid 0.225.2 (tests/fixtures/factory/).
            (
                json!({"session_id":"s","transcript_path":"/t","cwd":"/p","permission_mode":"auto-high",
                       "hook_event_name":"Stop","message_id":"m","stop_hook_active":false,
                       "tool_execution_count":0,"elapsed_time":289}),
                Some(Agent::Factory),
            ),
            (
                json!({"session_id":"s","transcript_path":"/t","cwd":"/p","permission_mode":"off",
                       "hook_event_name":"SessionStart","source":"startup","CLAUDE_ENV_FILE":"/e"}),
                Some(Agent::Factory),
            ),
            // Kimi CLI 1.51.0's PostToolUse; its Stop says nothing of where it came from.
            (
                json!({"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Shell",
                       "tool_output":"is_error=False output='hi' message='' display=[] extras=None"}),
                Some(Agent::Kimi),
            ),
            (
                json!({"hook_event_name":"Stop","session_id":"s","cwd":"/p","stop_hook_active":false}),
                None,
            ),
            (
                json!({"clineVersion":"","timestamp":"2026-12-04T05:46:39.192Z","taskId":"conv_1",
                       "hookName":"tool_call"}),
                Some(Agent::Cline),
            ),
            // Auggie 0.36.0's payload as its bundle builds it.
            (
                json!({"hook_event_name":"Stop","conversation_id":"c","workspace_roots":["/p"],
                       "agent_stop_cause":"end_turn"}),
                Some(Agent::Auggie),
            ),
            (
                json!({"hook_event_name":"session.idle","omc_plugin":"kilo","session_id":"ses_1"}),
                Some(Agent::Kilo),
            ),
            (
                json!({"hook_event_name":"agent_end","omc_plugin":"pi","timestamp":"t"}),
                Some(Agent::Pi),
            ),
            // only our plugins' agents: a foreign payload naming another is read by its shape
            (
                json!({"hook_event_name":"Stop","omc_plugin":"codex","turn_id":"t"}),
                Some(Agent::Codex),
            ),
            (json!({"hook_event_name":"SomethingNew"}), None),
            (json!({}), None),
        ];
        for (v, want) in cases {
            assert_eq!(detect_shape(&map(v.clone())), want, "{v}");
        }
    }

    #[test]
    fn a_payload_the_declared_agent_cannot_read_is_read_as_its_shape() {
        let i = decode_map(
            Agent::Claude,
            map(
                json!({"hook_event_name":"AfterAgent","timestamp":"t","session_id":"s","stop_hook_active":true}),
            ),
        );
        assert_eq!(i.agent, Agent::Claude);
        assert_eq!(i.format, Agent::Gemini);
        assert_eq!(i.shape, Some(Agent::Gemini));
        assert_eq!(i.hook_event_name.as_deref(), Some("Stop"));
        assert_eq!(i.agent_event.as_deref(), Some("AfterAgent"));
        assert!(i.stop_hook_active);
    }

    #[test]
    fn a_known_event_keeps_the_declared_format_even_with_a_foreign_shape() {
        let i = decode_map(
            Agent::Codex,
            map(json!({"hook_event_name":"Stop","timestamp":"t","prompt_id":"p"})),
        );
        assert_eq!(i.format, Agent::Codex);
        assert_eq!(i.shape, Some(Agent::Qwen));
    }
}
