//! Kimi CLI (what the pinned kimi-cli 1.51.0 was seen to do, and its `hooks/` and
//! `soul/kimisoul.py`: tests/e2e/kimi-FINDINGS.md).
//!
//! Its payloads are Claude Code's, minimal (`hook_event_name`, `session_id`, `cwd` and a few
//! fields per event, some under their own names: `tool_call_id`, `tool_output`, `agent_name`,
//! SubagentStop `response` — read by `claude.rs`). What differs:
//!
//! * **Answers.** Kimi reads one thing from a hook: a refusal, exit code 2 or
//!   `hookSpecificOutput.permissionDecision: "deny"` with `permissionDecisionReason`, on any
//!   event. Context, `decision: "block"` and `systemMessage` are never read. A refusal on Stop
//!   runs one more turn with the reason as the user's message — once per prompt: the Stop hook
//!   fires once per prompt, before that extra turn and never after it. On UserPromptSubmit it
//!   shows the reason instead of running the turn; on PreToolUse the model gets it as the tool's
//!   error. So only those three answers are encoded.
//! * **The shell** is `Shell` (`{command, timeout, run_in_background}`): `Bash`, as in every agent.
//! * **Failures.** A command that exits non-zero is not an exception in Kimi: PostToolUse fires
//!   (not PostToolUseFailure, which is for a tool that raised) with `tool_output` the Python
//!   `repr` of the tool's return value, cut at 2000 characters: `is_error=True output='…'
//!   message='Command failed with exit code: 3.' display=[…] extras=None`. That is read here.
//! * **Subagents** run their own turns in the session — their own UserPromptSubmit and Stop,
//!   under the session's id — between SubagentStart and SubagentStop, which name only the
//!   subagent's type: the type becomes its id, so the subagent is tracked while it runs and
//!   its Stop is held rather than continued as the session's run.
//! * **The model's last message** is not in the Stop payload, so the completion token and a
//!   question to the user could not be seen there. Kimi writes the session's messages to
//!   `$KIMI_SHARE_DIR/sessions/<md5 of the work dir>/<session id>/context.jsonl` (default
//!   `~/.kimi`) before the Stop hook runs; [`last_message`] reads its tail.

use super::{Wire, mark_failed, neutral_event, neutral_tool};
use crate::env::Env;
use crate::protocol::{Answer, HookInput};
use crate::terminal::tail;
use serde_json::{Map, Value, json};
use std::path::PathBuf;

/// Kimi's tools that do the job of a Claude Code tool with the input fields the capabilities
/// read under the same names.
const TOOLS: &[(&str, &str)] = &[("Shell", "Bash")];

/// Characters of the tool's output kept in the failure text (the record clips at 500).
const EXCERPT_CHARS: usize = 400;

/// Decodes a Kimi CLI payload.
pub fn decode(map: Map<String, Value>) -> HookInput {
    let mut input = super::claude::decode_fields(map);
    neutral_event(&mut input, Wire::Kimi);
    neutral_tool(&mut input, TOOLS);
    // A subagent runs its own turns, Stop hook included, in the session; its start and stop
    // carry only its type. Named by it, the subagent is tracked while it runs, so that its
    // own Stop is held, not continued as the session's run.
    if matches!(
        input.hook_event_name.as_deref(),
        Some("SubagentStart" | "SubagentStop")
    ) && input.agent_id.is_none()
        && let Some(kind) = input.agent_type.as_deref().filter(|k| !k.is_empty())
    {
        input.agent_id = Some(format!("kimi-{kind}"));
    }
    if input.hook_event_name.as_deref() == Some("PostToolUse")
        && let Some(Value::String(out)) = &input.tool_response
        && let Some(error) = failure(out)
    {
        mark_failed(&mut input, error);
    }
    input
}

/// Encodes an answer for a Kimi event: a refusal, or nothing.
pub fn encode(answer: &Answer, event: &str) -> Option<Value> {
    let reason = match event {
        "Stop" => answer.block.as_ref(),
        "PreToolUse" | "UserPromptSubmit" => answer.deny.as_ref(),
        _ => None,
    }?;
    Some(json!({"hookSpecificOutput": {
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    }}))
}

/// The text of the model's last message in the session, from Kimi's `context.jsonl` (its
/// last [`TAIL_BYTES`](crate::state::transcript::TAIL_BYTES)): the newest `assistant` record
/// with text, its `content` a string or text parts. `None` when the session's file is not
/// found or holds none.
pub fn last_message(session_id: &str, env: &Env) -> Option<String> {
    let safe = !session_id.is_empty()
        && session_id.len() <= 128
        && session_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !safe {
        return None;
    }
    let share = env
        .var("KIMI_SHARE_DIR")
        .filter(|v| !v.trim().is_empty())
        .map(PathBuf::from)
        .or_else(|| env.var("HOME").map(|h| PathBuf::from(h).join(".kimi")))
        .filter(|p| p.is_absolute())?;
    // The work dir's folder is named by the md5 of its path; the session id alone finds it.
    let file = std::fs::read_dir(share.join("sessions"))
        .ok()?
        .flatten()
        .map(|d| d.path().join(session_id).join("context.jsonl"))
        .find(|p| p.is_file())?;
    let tail =
        crate::state::transcript::tail(file.to_str()?, crate::state::transcript::TAIL_BYTES)?;
    String::from_utf8_lossy(&tail)
        .lines()
        .rev()
        .find_map(|line| {
            let v: Value = serde_json::from_str(line).ok()?;
            if v.get("role")?.as_str()? != "assistant" {
                return None;
            }
            let text = match v.get("content")? {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|p| p.get("text")?.as_str())
                    .collect::<Vec<_>>()
                    .join(""),
                _ => return None,
            };
            (!text.trim().is_empty()).then_some(text)
        })
}

/// Whether a payload's `tool_output` is Kimi's: the `repr` of a tool's return value.
pub fn is_tool_repr(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|s| s.starts_with("is_error=True ") || s.starts_with("is_error=False "))
}

/// The failure a `tool_output` reports (`is_error=True`), as an error text: `Exit code N` first
/// when the message names one, then the message and the end of the output.
pub fn failure(tool_output: &str) -> Option<String> {
    let rest = tool_output.strip_prefix("is_error=True ")?;
    let message = field(rest, "message").unwrap_or_default();
    let output = field(rest, "output").unwrap_or_default();
    let code = message
        .to_ascii_lowercase()
        .split_once("exit code:")
        .and_then(|(_, after)| {
            let digits: String = after
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect();
            digits.parse::<i64>().ok()
        });
    let mut text = match code {
        Some(c) => format!("Exit code {c}\n"),
        None => String::new(),
    };
    let message = message.trim();
    if code.is_none() && !message.is_empty() {
        text.push_str(message);
        text.push('\n');
    }
    text.push_str(&tail(output.trim(), EXCERPT_CHARS));
    let text = text.trim().to_string();
    Some(if text.is_empty() {
        "the tool reported an error".to_string()
    } else {
        text
    })
}

/// The value of ` name='…'` (or `"…"`) in a Python `repr`, unescaped; up to the end of the text
/// when Kimi's cut at 2000 characters fell inside it. `None` when the field is not a string.
fn field(repr: &str, name: &str) -> Option<String> {
    let at = [format!(" {name}="), format!("{name}=")]
        .iter()
        .find_map(|k| {
            if k.starts_with(' ') {
                repr.find(k.as_str()).map(|i| i + k.len())
            } else {
                repr.starts_with(k.as_str()).then_some(k.len())
            }
        })?;
    let mut chars = repr[at..].chars();
    let quote = chars.next().filter(|q| *q == '\'' || *q == '"')?;
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            c if c == quote => return Some(out),
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('x') => push_code(&mut out, &mut chars, 2),
                Some('u') => push_code(&mut out, &mut chars, 4),
                Some('U') => push_code(&mut out, &mut chars, 8),
                Some(other) => out.push(other),
                None => break,
            },
            c => out.push(c),
        }
    }
    Some(out)
}

/// `\xNN`, `\uNNNN`, `\UNNNNNNNN`: the character, or nothing when it is not one.
fn push_code(out: &mut String, chars: &mut std::str::Chars<'_>, digits: usize) {
    let hex: String = chars.by_ref().take(digits).collect();
    if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(v: Value) -> HookInput {
        decode(v.as_object().unwrap().clone())
    }

    /// Kimi 1.51.0's PostToolUse of `echo oops >&2; exit 3`, as recorded.
    const FAILED: &str = "is_error=True output='oops\\n' message='Command failed with exit code: 3.' display=[BriefDisplayBlock(type='brief', text='Failed with exit code: 3\\noops')] extras=None";

    #[test]
    fn a_failed_shell_command_is_a_failure_of_bash() {
        let i = dec(
            json!({"hook_event_name":"PostToolUse","session_id":"s","cwd":"/p",
            "tool_name":"Shell","tool_input":{"command":"echo oops >&2; exit 3"},
            "tool_output": FAILED, "tool_call_id":"call_1"}),
        );
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUseFailure"));
        assert_eq!(i.agent_event.as_deref(), Some("PostToolUse"));
        assert_eq!(i.tool_name.as_deref(), Some("Bash"));
        assert_eq!(i.tool_as_named(), Some("Shell"));
        assert_eq!(i.tool_use_id.as_deref(), Some("call_1"));
        assert_eq!(i.error.as_deref(), Some("Exit code 3\noops"));
    }

    #[test]
    fn a_subagent_is_named_by_its_type() {
        let i = dec(
            json!({"hook_event_name":"SubagentStart","session_id":"s","cwd":"/p",
            "agent_name":"coder","prompt":"List the files."}),
        );
        assert_eq!(i.agent_id.as_deref(), Some("kimi-coder"));
        assert_eq!(i.agent_type.as_deref(), Some("coder"));
        let i = dec(
            json!({"hook_event_name":"SubagentStop","session_id":"s","cwd":"/p",
            "agent_name":"coder","response":"done"}),
        );
        assert_eq!(i.agent_id.as_deref(), Some("kimi-coder"));
        assert_eq!(i.last_assistant_message.as_deref(), Some("done"));
    }

    #[test]
    fn a_success_stays_a_success() {
        let i = dec(json!({"hook_event_name":"PostToolUse","session_id":"s",
            "tool_name":"Shell","tool_input":{"command":"echo hi"},
            "tool_output":"is_error=False output='hi\\n' message='' display=[] extras=None"}));
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUse"));
        assert_eq!(i.error, None);
    }

    #[test]
    fn repr_strings_unescape_and_survive_the_cut() {
        assert_eq!(
            field(
                "is_error=True output=\"it's\\tx\\u00e9\" message=''",
                "output"
            )
            .as_deref(),
            Some("it's\tx\u{e9}")
        );
        // Cut inside the output at 2000 characters: the rest is kept.
        assert_eq!(
            field("is_error=True output='a long outp", "output").as_deref(),
            Some("a long outp")
        );
        assert_eq!(field("is_error=True output=[TextPart()]", "output"), None);
        let f = failure("is_error=True output='' message='File not found: a.txt' display=[]");
        assert_eq!(f.as_deref(), Some("File not found: a.txt"));
        assert_eq!(failure("is_error=False output='x'"), None);
        assert_eq!(failure("plain text"), None);
        assert!(is_tool_repr(&json!(FAILED)));
        assert!(!is_tool_repr(&json!("ok")));
    }

    #[test]
    fn the_last_message_comes_from_the_sessions_context_file() {
        let share = tempfile::tempdir().unwrap();
        let dir = share.path().join("sessions/0123abcd/s-1");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("context.jsonl"),
            concat!(
                "{\"role\":\"user\",\"content\":\"ralph go\"}\n",
                "{\"role\":\"assistant\",\"content\":\"first\"}\n",
                "{\"role\":\"assistant\",\"content\":[{\"type\":\"think\",\"think\":\"hm\"},",
                "{\"type\":\"text\",\"text\":\"done <omc-complete/>\"}]}\n",
                "{\"role\":\"assistant\",\"content\":[],\"tool_calls\":[]}\n",
                "{\"role\": \"_usage\", \"token_count\": 15}\n",
            ),
        )
        .unwrap();
        let env = |k: &str, v: &str| {
            Env::from_lookup(
                |_| None,
                None,
                [(k.to_string(), v.to_string())].into_iter().collect(),
            )
        };
        let shared = env("KIMI_SHARE_DIR", &share.path().to_string_lossy());
        assert_eq!(
            last_message("s-1", &shared).as_deref(),
            Some("done <omc-complete/>")
        );
        assert_eq!(last_message("s-2", &shared), None);
        assert_eq!(last_message("../s-1", &shared), None, "not a path");
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".kimi/sessions/x/s-1")).unwrap();
        std::fs::copy(
            dir.join("context.jsonl"),
            home.path().join(".kimi/sessions/x/s-1/context.jsonl"),
        )
        .unwrap();
        let by_home = env("HOME", &home.path().to_string_lossy());
        assert!(last_message("s-1", &by_home).is_some());
    }

    #[test]
    fn only_refusals_are_answered() {
        let deny = |r: &str| json!({"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":r}});
        assert_eq!(
            encode(&Answer::block("[RALPH LOOP]"), "Stop"),
            Some(deny("[RALPH LOOP]"))
        );
        let refuse = Answer {
            deny: Some("not here".into()),
            ..Answer::default()
        };
        assert_eq!(encode(&refuse, "PreToolUse"), Some(deny("not here")));
        assert_eq!(encode(&refuse, "UserPromptSubmit"), Some(deny("not here")));
        for event in ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"] {
            let said = Answer::context("x").with_system_message("note");
            assert_eq!(encode(&said, event), None, "{event}: Kimi reads neither");
        }
        let rewrite = Answer {
            updated_input: Some(json!({"command":"ls"})),
            ..Answer::default()
        };
        assert_eq!(encode(&rewrite, "PreToolUse"), None);
        assert_eq!(encode(&Answer::block("x"), "SubagentStop"), None);
    }
}
