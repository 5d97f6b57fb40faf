//! Cline CLI (what the pinned `cline` 3.0.65 was seen to do, and its `@cline/core` hook runner:
//! tests/e2e/cline-FINDINGS.md).
//!
//! Cline runs one executable per event, named after it (`PreToolUse`, `PostToolUse`,
//! `TaskStart`, … with an optional `.sh`/`.js`/`.py`… extension) from the project's
//! `.clinerules/hooks/` and the user's `~/.cline/hooks/`, and pipes it a camelCase payload of its
//! own: `hookName` (its internal name: `tool_call`, `tool_result`, `agent_start`, `agent_end`,
//! …), `taskId`, `sessionContext.rootSessionId` (the session, as `--id` resumes it),
//! `workspaceRoots`, and per event `tool_call {id, name, input}`, `tool_result {…, output,
//! error}`, `userPromptSubmit.prompt`, `turn {outputText, status}`. The event name here is the
//! file's (Claude Code's spellings where they exist), decoded from `hookName`.
//!
//! Only the tool hooks are awaited and read: `{"contextModification": …}` is added to what the
//! model sees next (inside `<hook_context source="PostToolUse" …>`), `{"cancel": true,
//! "errorMessage": …}` on PreToolUse stops the whole task with that error (there is no refusal
//! of one call), `{"overrideInput": …}` replaces the call's input. Every other hook — the task's
//! start and end, the prompt — is started and not waited for: no continuation, no context at
//! start.
//!
//! The shell is `run_commands {commands: [..]}`: `Bash`, with the commands joined into the
//! `command` the capabilities read. A failed command reports `success: false` and `error:
//! "Command exited with code N"` in its `tool_result.output` item (the payload's
//! `postToolUse.success` stays true): that is read as the failure.

use super::{Wire, mark_failed, neutral_event, rename};
use crate::protocol::{Answer, HookInput};
use crate::terminal::tail;
use serde_json::{Map, Value, json};

/// Cline's `hookName` for each event its hook files are named after.
const EVENTS: &[(&str, &str)] = &[
    ("agent_start", "TaskStart"),
    ("agent_resume", "TaskResume"),
    ("agent_abort", "TaskCancel"),
    ("agent_end", "TaskComplete"),
    ("agent_error", "TaskError"),
    ("tool_call", "PreToolUse"),
    ("tool_result", "PostToolUse"),
    ("prompt_submit", "UserPromptSubmit"),
    ("session_shutdown", "SessionShutdown"),
];

/// Characters of a failed command's output kept in the failure text.
const EXCERPT_CHARS: usize = 400;

/// The event a Cline payload is for, as its hook file is named: from `hookName`, or a
/// `hook_event_name` already given.
pub fn event_of(map: &Map<String, Value>) -> Option<&'static str> {
    let name = map.get("hookName").and_then(Value::as_str)?;
    EVENTS.iter().find(|(h, _)| *h == name).map(|(_, e)| *e)
}

/// Whether a payload looks like Cline's: its `hookName` with a `taskId`, or `clineVersion`.
pub fn looks_like(map: &Map<String, Value>) -> bool {
    map.contains_key("clineVersion")
        || (map.get("hookName").is_some_and(Value::is_string)
            && map.get("taskId").is_some_and(Value::is_string))
}

/// Decodes a Cline payload.
pub fn decode(mut map: Map<String, Value>) -> HookInput {
    if let Some(event) = event_of(&map) {
        map.insert("hook_event_name".into(), json!(event));
    }
    let event = map
        .get("hook_event_name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    // The session is the root session (what `--id` resumes); a task id only when it is absent.
    if let Some(root) = map
        .get("sessionContext")
        .and_then(|c| c.get("rootSessionId"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
    {
        map.insert("session_id".into(), json!(root));
    }
    rename(&mut map, "taskId", "session_id");
    if !map.get("cwd").is_some_and(Value::is_string) {
        let root = map
            .get("workspaceRoots")
            .and_then(Value::as_array)
            .and_then(|r| r.first())
            .or_else(|| map.get("workspaceInfo").and_then(|w| w.get("rootPath")))
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(root) = root {
            map.insert("cwd".into(), json!(root));
        }
    }
    let call = map
        .get("tool_call")
        .or_else(|| map.get("tool_result"))
        .cloned();
    if let Some(call) = call.as_ref().and_then(Value::as_object) {
        for (from, to) in [("id", "tool_use_id"), ("name", "tool_name")] {
            if let Some(v) = call.get(from).filter(|v| v.is_string()) {
                map.insert(to.into(), v.clone());
            }
        }
        if let Some(v) = call.get("input") {
            map.insert("tool_input".into(), v.clone());
        }
        if let Some(v) = call.get("output") {
            map.insert("tool_response".into(), v.clone());
        }
    }
    match event.as_str() {
        "UserPromptSubmit" => {
            if let Some(p) = map
                .get("userPromptSubmit")
                .and_then(|u| u.get("prompt"))
                .cloned()
            {
                map.insert("prompt".into(), p);
            }
        }
        "TaskStart" => {
            map.insert("source".into(), json!("startup"));
        }
        "TaskResume" => {
            map.insert("source".into(), json!("resume"));
        }
        "TaskComplete" => {
            if let Some(t) = map.get("turn").and_then(|t| t.get("outputText")).cloned() {
                map.insert("last_assistant_message".into(), t);
            }
        }
        _ => {}
    }
    let failure = (event == "PostToolUse")
        .then(|| call.as_ref().and_then(failure))
        .flatten();
    let mut input = HookInput::from_map(map);
    neutral_event(&mut input, Wire::Cline);
    if input.tool_name.as_deref() == Some("run_commands") {
        input.agent_tool = input.tool_name.replace("Bash".to_string());
        if let Some(Value::Object(args)) = input.tool_input.as_mut()
            && let Some(joined) = joined_commands(args.get("commands"))
        {
            args.entry("command").or_insert(json!(joined));
        }
    }
    if let Some(error) = failure {
        mark_failed(&mut input, error);
    }
    input
}

/// `run_commands`' commands as one command line, one per line.
fn joined_commands(commands: Option<&Value>) -> Option<String> {
    match commands? {
        Value::Array(list) => {
            let parts: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
            (!parts.is_empty()).then(|| parts.join("\n"))
        }
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// The failure a `tool_result` reports: a command item with `success: false` (its `error`,
/// `Command exited with code N`, as `Exit code N`, then the end of its output), or the result's
/// own `error`.
fn failure(result: &Value) -> Option<String> {
    let items = result.get("output").and_then(Value::as_array);
    if let Some(bad) = items
        .into_iter()
        .flatten()
        .find(|i| i.get("success") == Some(&Value::Bool(false)))
    {
        let error = bad.get("error").and_then(Value::as_str).unwrap_or("");
        let output = bad.get("result").and_then(Value::as_str).unwrap_or("");
        let code = error
            .rsplit_once("code ")
            .and_then(|(_, n)| n.trim().parse::<i64>().ok());
        let head = match code {
            Some(c) => format!("Exit code {c}"),
            None if !error.trim().is_empty() => error.trim().to_string(),
            None => "the command failed".to_string(),
        };
        let body = output
            .trim()
            .trim_start_matches(&format!("[{error}]"))
            .trim();
        return Some(if body.is_empty() {
            head
        } else {
            format!("{head}\n{}", tail(body, EXCERPT_CHARS))
        });
    }
    result
        .get("error")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|e| tail(e, EXCERPT_CHARS))
}

/// Encodes an answer for a Cline event: only the tool hooks' answers are read.
pub fn encode(input: &HookInput, answer: &Answer, event: &str) -> Option<Value> {
    let mut out = Map::new();
    match event {
        "PreToolUse" => {
            if let Some(reason) = &answer.deny {
                out.insert("cancel".into(), json!(true));
                out.insert("errorMessage".into(), json!(reason));
            } else if let Some(new) = &answer.updated_input {
                out.insert("overrideInput".into(), agent_input(input, new));
            }
            if out.is_empty()
                && let Some(text) = &answer.context
            {
                out.insert("contextModification".into(), json!(text));
            }
        }
        "PostToolUse" => {
            if let Some(text) = &answer.context {
                out.insert("contextModification".into(), json!(text));
            }
        }
        _ => {}
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// A rewritten tool input in the tool's own shape: for `run_commands`, a changed `command` (the
/// joined commands the capabilities and user hooks see) becomes the one command to run, and the
/// `command` key, which the tool does not take, goes.
fn agent_input(input: &HookInput, new: &Value) -> Value {
    if input.agent_tool.as_deref() != Some("run_commands") {
        return new.clone();
    }
    let Value::Object(obj) = new else {
        return new.clone();
    };
    let mut obj = obj.clone();
    let before = input
        .tool_input
        .as_ref()
        .and_then(|i| i.get("command"))
        .and_then(Value::as_str);
    if let Some(Value::String(cmd)) = obj.remove("command")
        && Some(cmd.as_str()) != before
    {
        obj.insert("commands".into(), json!([cmd]));
    }
    Value::Object(obj)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(v: Value) -> HookInput {
        decode(v.as_object().unwrap().clone())
    }

    /// The fields every Cline 3.0.65 hook payload carries (tests/fixtures/cline/).
    fn common(hook: &str) -> Value {
        json!({"clineVersion":"","timestamp":"2026-12-04T05:46:39.192Z",
            "taskId":"conv_1796363198781_4vgb4eh","sessionContext":{"rootSessionId":"1796363198464_7e3a0"},
            "workspaceRoots":["/p"],"workspaceInfo":{"rootPath":"/p","hint":"p"},"userId":"unknown",
            "agent_id":"agent_1","parent_agent_id":null,"hookName":hook})
    }

    #[test]
    fn events_sessions_and_project() {
        let i = dec(common("agent_start"));
        assert_eq!(i.hook_event_name.as_deref(), Some("SessionStart"));
        assert_eq!(i.agent_event.as_deref(), Some("TaskStart"));
        assert_eq!(i.session_id.as_deref(), Some("1796363198464_7e3a0"));
        assert_eq!(i.cwd.as_deref(), Some("/p"));
        assert_eq!(i.source.as_deref(), Some("startup"));
        let mut end = common("agent_end");
        end["turn"] = json!({"outputText":"done <omc-complete/>","status":"completed"});
        let i = dec(end);
        assert_eq!(i.hook_event_name.as_deref(), Some("Stop"));
        assert_eq!(
            i.last_assistant_message.as_deref(),
            Some("done <omc-complete/>")
        );
        let mut p = common("prompt_submit");
        p["userPromptSubmit"] = json!({"prompt":"ralph go","attachments":[]});
        assert_eq!(dec(p).prompt.as_deref(), Some("ralph go"));
        let mut no_root = common("agent_start");
        no_root.as_object_mut().unwrap().remove("sessionContext");
        assert_eq!(
            dec(no_root).session_id.as_deref(),
            Some("conv_1796363198781_4vgb4eh")
        );
        assert!(looks_like(common("tool_call").as_object().unwrap()));
        assert_eq!(event_of(common("nope").as_object().unwrap()), None);
    }

    #[test]
    fn run_commands_is_bash_and_a_failed_command_a_failure() {
        let mut v = common("tool_call");
        v["tool_call"] =
            json!({"id":"call_1","name":"run_commands","input":{"commands":["ls","make"]}});
        let i = dec(v);
        assert_eq!(i.hook_event_name.as_deref(), Some("PreToolUse"));
        assert_eq!(i.tool_name.as_deref(), Some("Bash"));
        assert_eq!(i.tool_as_named(), Some("run_commands"));
        assert_eq!(i.tool_input_str("command"), Some("ls\nmake"));
        assert_eq!(i.tool_use_id.as_deref(), Some("call_1"));
        let mut v = common("tool_result");
        v["tool_result"] = json!({"id":"call_1","name":"run_commands","input":{"commands":["ls /nope"]},
            "output":[{"query":"ls /nope","result":"[Command exited with code 2]\n\n[stderr]\nls: cannot access '/nope'\n",
                       "error":"Command exited with code 2","success":false}],"durationMs":28});
        v["postToolUse"] = json!({"toolName":"run_commands","success":true});
        let i = dec(v);
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUseFailure"));
        assert_eq!(i.agent_event.as_deref(), Some("PostToolUse"));
        assert_eq!(
            i.error.as_deref(),
            Some("Exit code 2\n[stderr]\nls: cannot access '/nope'")
        );
        let mut ok = common("tool_result");
        ok["tool_result"] = json!({"id":"c","name":"run_commands","input":{"commands":["echo hi"]},
            "output":[{"query":"echo hi","result":"hi\n","success":true}]});
        assert_eq!(dec(ok).hook_event_name.as_deref(), Some("PostToolUse"));
        let mut err = common("tool_result");
        err["tool_result"] =
            json!({"id":"c","name":"read_files","input":{},"output":"x","error":"ENOENT: a.txt"});
        assert_eq!(dec(err).error.as_deref(), Some("ENOENT: a.txt"));
    }

    #[test]
    fn only_the_tool_hooks_are_answered() {
        let pre = dec(json!({"hookName":"tool_call","taskId":"t",
            "tool_call":{"id":"c","name":"run_commands","input":{"commands":["rm -rf /"]}}}));
        let deny = Answer {
            deny: Some("no".into()),
            context: Some("x".into()),
            ..Answer::default()
        };
        assert_eq!(
            encode(&pre, &deny, "PreToolUse"),
            Some(json!({"cancel":true,"errorMessage":"no"}))
        );
        let rewrite = Answer {
            updated_input: Some(json!({"commands":["rm -rf /"],"command":"ls"})),
            ..Answer::default()
        };
        assert_eq!(
            encode(&pre, &rewrite, "PreToolUse"),
            Some(json!({"overrideInput":{"commands":["ls"]}}))
        );
        let same = Answer {
            updated_input: Some(json!({"commands":["echo a"],"command":"rm -rf /"})),
            ..Answer::default()
        };
        assert_eq!(
            encode(&pre, &same, "PreToolUse"),
            Some(json!({"overrideInput":{"commands":["echo a"]}})),
            "an unchanged command keeps the commands given"
        );
        assert_eq!(
            encode(&pre, &Answer::context("guard"), "PreToolUse"),
            Some(json!({"contextModification":"guard"}))
        );
        assert_eq!(
            encode(&pre, &Answer::context("retry"), "PostToolUse"),
            Some(json!({"contextModification":"retry"}))
        );
        for event in [
            "TaskStart",
            "TaskComplete",
            "UserPromptSubmit",
            "SessionShutdown",
        ] {
            let said = Answer::context("x").with_system_message("y");
            assert_eq!(encode(&pre, &said, event), None, "{event}");
            assert_eq!(
                encode(&pre, &Answer::block("go on"), event),
                None,
                "{event}"
            );
        }
    }
}
