//! Whether a tool call failed, read from a post-tool payload.
//!
//! Claude Code reports a failed tool in its own event (PostToolUseFailure), and so does Qwen
//! Code 0.24.4 for a shell command that exited non-zero (tests/e2e/qwen-FINDINGS.md §5). Codex
//! and Gemini CLI report it in the ordinary post-tool event, as text: Gemini ends the tool's
//! `llmContent` with an `Exit Code: N` line (only when N ≠ 0; Qwen writes the line always, so a
//! Qwen PostToolUse with N ≠ 0 counts too), Codex's model-facing output carries `Process exited
//! with code N` (its hook payload does not: codex-FINDINGS.md §5, read from the transcript), and
//! Gemini adds `tool_response.error` when the tool itself failed. GitHub Copilot CLI ends its
//! shell tool's text with `<shellId: N completed with exit code K>` and calls the call a
//! success whatever K is (tests/e2e/copilot-FINDINGS.md §6); CodeBuddy reports
//! `tool_response.exitCode` (codebuddy-FINDINGS.md §6). This module reads those, so the failure
//! capabilities can run for every agent; it never guesses from the output's words.

use crate::terminal::tail;
use serde_json::Value;

/// Characters of the tool's output kept in the failure text (the record clips at 500).
const EXCERPT_CHARS: usize = 400;

/// The failure a post-tool `tool_response` reports, as an error text (`Exit code N` first),
/// or `None` when it reports success or says nothing.
pub fn failure(tool_response: &Value) -> Option<String> {
    match tool_response {
        Value::Object(o) => {
            // CodeBuddy: `exitCode` with the output in `error` (stderr) when it is not zero.
            if let Some(code) = o.get("exitCode").and_then(Value::as_i64) {
                if code == 0 {
                    return None;
                }
                let text = o.get("error").and_then(error_text).unwrap_or_default();
                return Some(format!("Exit code {code}\n{}", tail(&text, EXCERPT_CHARS)));
            }
            if let Some(msg) = o.get("error").and_then(error_text) {
                return Some(msg);
            }
            let text = o.get("llmContent").and_then(text_of)?;
            from_text(&text)
        }
        Value::String(s) => from_text(s),
        _ => None,
    }
}

/// What a shell call printed, from a post-tool `tool_response` as each agent sends it:
/// Claude Code's `stdout` and `stderr`, Codex's string, Gemini CLI's and Qwen Code's
/// `returnDisplay` (the output as shown), else their `llmContent` with its wrapper and its
/// `Output: ` label taken off.
pub fn output_text(tool_response: &Value) -> Option<String> {
    match tool_response {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => {
            let part = |k: &str| o.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
            if o.contains_key("stdout") || o.contains_key("stderr") {
                let joined: Vec<&str> = [part("stdout"), part("stderr")]
                    .into_iter()
                    .flatten()
                    .collect();
                return Some(joined.join("\n"));
            }
            if let Some(shown) = part("returnDisplay") {
                return Some(shown.to_string());
            }
            // Our plugins: OpenCode's `output`, Pi's `content` (opencode.rs, pi.rs).
            if let Some(text) = part("output").or_else(|| part("content")) {
                return Some(text.to_string());
            }
            let text = o.get("llmContent").and_then(text_of)?;
            let body = strip_wrapper(&text);
            let out: Vec<&str> = body
                .lines()
                .map(|l| l.strip_prefix("Output: ").unwrap_or(l))
                .collect();
            Some(out.join("\n"))
        }
        _ => None,
    }
}

/// The exit status a text reports on its own line, and the failure it makes.
pub fn from_text(text: &str) -> Option<String> {
    let code = exit_code(text)?;
    (code != 0).then(|| {
        let body = strip_status_line(strip_wrapper(text));
        format!("Exit code {code}\n{}", tail(body.trim(), EXCERPT_CHARS))
    })
}

/// The failure a known exit status makes, with the end of the command's output (OpenCode's
/// `metadata.exit` beside its output).
pub fn from_exit(code: i64, output: &str) -> Option<String> {
    (code != 0).then(|| format!("Exit code {code}\n{}", tail(output.trim(), EXCERPT_CHARS)))
}

/// The last `Exit Code: N` / `Process exited with code N` / `Command exited with code N` /
/// `<shellId: S completed with exit code N>` line of a text (Gemini and Qwen, Codex, Pi 0.73,
/// GitHub Copilot CLI). A client appends its status after the output, so the last such line is
/// the client's, not the program's.
pub fn exit_code(text: &str) -> Option<i64> {
    text.lines().rev().find_map(|line| {
        let line = line.trim();
        let rest = line
            .strip_prefix("Exit Code:")
            .or_else(|| line.strip_prefix("Process exited with code "))
            .or_else(|| line.strip_prefix("Command exited with code "))
            .or_else(|| shell_status(line))?;
        rest.trim().parse::<i64>().ok()
    })
}

/// The exit code of Copilot's `<shellId: S completed with exit code N>` status line.
fn shell_status(line: &str) -> Option<&str> {
    let inner = line.strip_prefix("<shellId:")?.strip_suffix('>')?;
    let (_, code) = inner.split_once(" completed with exit code ")?;
    Some(code)
}

/// The text without a last line that is Copilot's shell status (the failure text says the code
/// already).
fn strip_status_line(text: &str) -> &str {
    let t = text.trim_end();
    match t.rsplit_once('\n') {
        Some((body, last)) if shell_status(last.trim()).is_some() => body,
        None if shell_status(t.trim()).is_some() => "",
        _ => t,
    }
}

/// An `error` field's text: a non-empty string, or an object's `message`.
fn error_text(v: &Value) -> Option<String> {
    let s = match v {
        Value::String(s) => s.as_str(),
        Value::Object(o) => o.get("message")?.as_str()?,
        _ => return None,
    };
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// `llmContent` is a string, or parts with `text`.
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let t: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.as_str().or_else(|| p.get("text")?.as_str()))
                .collect();
            (!t.is_empty()).then(|| t.join("\n"))
        }
        Value::Object(o) => o.get("text")?.as_str().map(str::to_string),
        _ => None,
    }
}

/// Gemini wraps tool output in `<untrusted_context>…</untrusted_context>`.
fn strip_wrapper(text: &str) -> &str {
    let t = text.trim();
    t.strip_prefix("<untrusted_context>")
        .and_then(|r| r.strip_suffix("</untrusted_context>"))
        .unwrap_or(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn qwen_exit_codes() {
        let ok = json!({"llmContent":"Command: echo hi\nDirectory: (root)\nOutput: hi\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)","returnDisplay":"hi"});
        assert_eq!(failure(&ok), None);
        let bad = json!({"llmContent":"Command: false\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1\nSignal: (none)\nProcess Group PGID: 12","returnDisplay":"Command exited with code: 1"});
        let f = failure(&bad).unwrap();
        assert!(f.starts_with("Exit code 1\n"), "{f}");
        assert!(f.contains("Command: false"));
        let none = json!({"llmContent":"Command: x\nExit Code: (none)\nSignal: SIGTERM"});
        assert_eq!(failure(&none), None);
    }

    #[test]
    fn gemini_exit_codes_and_errors() {
        let ok = json!({"llmContent":"<untrusted_context>\nOutput: hi\nProcess Group PGID: 6403\n</untrusted_context>","returnDisplay":"hi"});
        assert_eq!(failure(&ok), None);
        let bad = json!({"llmContent":"<untrusted_context>\nOutput: npm ERR! missing script: test\nExit Code: 1\nProcess Group PGID: 6403\n</untrusted_context>","returnDisplay":"npm ERR!"});
        let f = failure(&bad).unwrap();
        assert!(f.starts_with("Exit code 1\nOutput: npm ERR!"), "{f}");
        let err = json!({"llmContent":"x","returnDisplay":"x","error":{"message":"spawn ENOENT","type":"shell_execute_error"}});
        assert_eq!(failure(&err).as_deref(), Some("spawn ENOENT"));
        let parts = json!({"llmContent":[{"text":"Output: boom"},{"text":"Exit Code: 2"}]});
        assert!(failure(&parts).unwrap().starts_with("Exit code 2"));
    }

    #[test]
    fn codex_strings() {
        assert_eq!(failure(&json!("hi\n")), None);
        let f = failure(&json!(
            "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 127\nOutput:\nsh: nope: not found\n"
        ))
        .unwrap();
        assert!(f.starts_with("Exit code 127\n"), "{f}");
        assert_eq!(
            failure(&json!("Process exited with code 0\nOutput:\nok")),
            None
        );
    }

    #[test]
    fn codebuddy_exit_codes() {
        let ok = json!({"exitCode":0,"signal":null,"interrupted":false,"tool_error_code":"0"});
        assert_eq!(failure(&ok), None);
        let bad = json!({"exitCode":2,"signal":null,"interrupted":false,"tool_error_code":"8002",
            "is_error":true,"error":"ls: cannot access '/x': No such file or directory\n"});
        assert_eq!(
            failure(&bad).as_deref(),
            Some("Exit code 2\nls: cannot access '/x': No such file or directory")
        );
    }

    #[test]
    fn the_plugins_outputs_are_read() {
        let oc = json!({"output": "test result: FAILED. 1 passed; 2 failed\n", "title": "cargo test", "exit": 0});
        assert_eq!(
            output_text(&oc).as_deref(),
            Some("test result: FAILED. 1 passed; 2 failed\n")
        );
        assert_eq!(
            failure(&oc),
            None,
            "OpenCode's exit code is the decoder's business"
        );
        let pi = json!({"content": "ok", "is_error": false});
        assert_eq!(output_text(&pi).as_deref(), Some("ok"));
    }

    #[test]
    fn pi_and_opencode_statuses() {
        let f = from_text("boom\n\n\nCommand exited with code 3").unwrap();
        assert!(f.starts_with("Exit code 3\nboom"), "{f}");
        assert_eq!(from_exit(0, "ok"), None);
        assert_eq!(
            from_exit(2, " nope \n").as_deref(),
            Some("Exit code 2\nnope")
        );
    }

    #[test]
    fn copilot_shell_status_lines() {
        assert_eq!(
            from_text("hi\n<shellId: 0 completed with exit code 0>"),
            None
        );
        let f = from_text("boom\n<shellId: 3 completed with exit code 127>").unwrap();
        assert_eq!(f, "Exit code 127\nboom");
        assert_eq!(
            from_text("<shellId: 3 completed with exit code 1>").unwrap(),
            "Exit code 1\n"
        );
        // not the client's line: no closing bracket, or words around it
        assert_eq!(exit_code("<shellId: 3 completed with exit code 1"), None);
        assert_eq!(exit_code("x <shellId: 3 completed with exit code 1>"), None);
        assert_eq!(exit_code("<shellId: 3 completed with exit code one>"), None);
    }

    #[test]
    fn a_program_printing_the_words_earlier_does_not_fool_it() {
        let t = json!({"llmContent":"Output: Exit Code: 3 (from the log)\nExit Code: 0"});
        assert_eq!(failure(&t), None);
    }

    #[test]
    fn claude_shapes_and_odd_values_are_no_failure() {
        for v in [
            json!({"stdout":"x","stderr":"","interrupted":false}),
            json!({"error": null}),
            json!({"error": ""}),
            json!(42),
            Value::Null,
        ] {
            assert_eq!(failure(&v), None, "{v}");
        }
    }

    #[test]
    fn long_output_keeps_its_end() {
        let long = format!("Output: {}END\nExit Code: 1", "x".repeat(5_000));
        let f = failure(&json!({ "llmContent": long })).unwrap();
        assert!(f.chars().count() < 450);
        assert!(f.contains("END"));
    }
}
