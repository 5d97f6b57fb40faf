//! The one table of which agent event is served by which hook subcommand.
//!
//! Decoding reads it (an agent's event → the neutral event of the hook that serves it),
//! encoding reads it (which agent event a hook answers when the payload did not say),
//! `install --agent` writes the rows marked installed, and `doctor --agents` and the README
//! print it ([`render_markdown`]; a test keeps the README's copy identical).

use super::{Agent, Wire};

/// Whether and how `install --agent` writes a row into the agent's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Install {
    /// Decoded when it arrives, not installed.
    No,
    /// Installed without a matcher.
    Yes,
    /// Installed with this matcher.
    Matcher(&'static str),
}

/// One agent event and the hook subcommand that serves it.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    pub wire: Wire,
    /// The event name exactly as the agent sends it.
    pub event: &'static str,
    /// The hook subcommand (as in hooks.json) that serves it.
    pub hook: &'static str,
    pub install: Install,
    /// What differs from Claude Code, in a few words.
    pub note: &'static str,
}

const fn row(
    wire: Wire,
    event: &'static str,
    hook: &'static str,
    install: Install,
    note: &'static str,
) -> Row {
    Row {
        wire,
        event,
        hook,
        install,
        note,
    }
}

use Install::{Matcher, No, Yes};
use Wire::{
    Auggie as A, Claude as C, Cline as N, Codex as X, Copilot as H, Cursor as K, Gemini as G,
    Kimi as M, OpenCode as O, Pi as P, Qwen as Q,
};

/// Every mapping, agent by agent, in lifecycle order.
pub const ROWS: &[Row] = &[
    row(C, "SessionStart", "session-start", Yes, ""),
    row(C, "UserPromptSubmit", "user-prompt-submit", Yes, ""),
    row(
        C,
        "PreToolUse",
        "pre-tool-use",
        Matcher("*"),
        "skill guards; user hooks on any tool",
    ),
    row(
        C,
        "PermissionRequest",
        "permission-request",
        Matcher("*"),
        "answered only by `hooks.toml` entries for `permission-request`",
    ),
    row(
        C,
        "PermissionDenied",
        "permission-denied",
        Matcher("*"),
        "auto mode's refusal: counted as a failure of the tool, notified; never asks a retry (installed for Claude Code only)",
    ),
    row(C, "PostToolUse", "post-tool-use", Matcher("*"), ""),
    row(
        C,
        "PostToolUseFailure",
        "post-tool-use-failure",
        Matcher("*"),
        "",
    ),
    row(
        C,
        "Notification",
        "notification",
        Yes,
        "the client waiting for the person (`permission_prompt`, `idle_prompt`, …): notified, and recorded in a live run (installed for Claude Code only)",
    ),
    row(C, "SubagentStart", "subagent-start", Matcher("*"), ""),
    row(C, "SubagentStop", "subagent-stop", Matcher("*"), ""),
    row(C, "PreCompact", "pre-compact", Matcher("*"), ""),
    row(
        C,
        "Stop",
        "stop",
        Yes,
        "continues with `decision: block`; client cap 8 continuations without a tool call",
    ),
    row(
        C,
        "StopFailure",
        "stop-failure",
        Yes,
        "instead of Stop when an API error ended the turn (output ignored): a live run is handed back with the error, the person notified (installed for Claude Code only)",
    ),
    row(C, "SessionEnd", "session-end", Yes, ""),
    //
    row(X, "SessionStart", "session-start", Yes, ""),
    row(X, "UserPromptSubmit", "user-prompt-submit", Yes, ""),
    row(
        X,
        "PreToolUse",
        "pre-tool-use",
        Matcher("*"),
        "user hooks on any tool (no Skill tool in Codex)",
    ),
    row(
        X,
        "PermissionRequest",
        "permission-request",
        Matcher("*"),
        "allow or deny with a message only (Codex fails closed on `updatedInput`, `interrupt`); not sent by `codex exec`",
    ),
    row(
        X,
        "PostToolUse",
        "post-tool-use",
        Matcher("*"),
        "no failure event: a failed command (exit status from the rollout transcript) runs post-tool-use-failure",
    ),
    row(X, "SubagentStart", "subagent-start", Matcher("*"), ""),
    row(X, "SubagentStop", "subagent-stop", Matcher("*"), ""),
    row(X, "PreCompact", "pre-compact", Matcher("*"), ""),
    row(
        X,
        "Stop",
        "stop",
        Yes,
        "continues with `decision: block`; no client cap, ours holds",
    ),
    row(
        X,
        "SessionEnd",
        "session-end",
        Yes,
        "timeout clamped to 3 s by Codex",
    ),
    //
    row(G, "SessionStart", "session-start", Yes, ""),
    row(
        G,
        "BeforeAgent",
        "user-prompt-submit",
        Yes,
        "also fires with our continuation as the prompt: recognised and left alone",
    ),
    row(
        G,
        "BeforeTool",
        "pre-tool-use",
        Matcher("*"),
        "skill guards (`activate_skill`); user hooks on any tool",
    ),
    row(
        G,
        "AfterTool",
        "post-tool-use",
        Matcher("*"),
        "no failure event: `tool_response.error` or `Exit Code: N` runs post-tool-use-failure",
    ),
    row(
        G,
        "PreCompress",
        "pre-compact",
        Yes,
        "fires before every model turn: one pending checkpoint kept current, no notepad entry, no message",
    ),
    row(
        G,
        "AfterAgent",
        "stop",
        Yes,
        "continues with `decision: deny`; no client cap, ours holds",
    ),
    row(G, "SessionEnd", "session-end", Yes, ""),
    //
    row(Q, "SessionStart", "session-start", Yes, ""),
    row(
        Q,
        "UserPromptSubmit",
        "user-prompt-submit",
        Yes,
        "also fires with an empty prompt before tool-result sends and with our continuation: both left alone",
    ),
    row(
        Q,
        "PreToolUse",
        "pre-tool-use",
        Matcher("*"),
        "skill guards (`skill`); user hooks on any tool",
    ),
    row(
        Q,
        "PermissionRequest",
        "permission-request",
        No,
        "in Qwen Code's event list; not installed: its answer is not checked, and headless runs never ask",
    ),
    row(
        Q,
        "PostToolUse",
        "post-tool-use",
        Matcher("*"),
        "a non-zero `Exit Code: N` runs post-tool-use-failure",
    ),
    row(
        Q,
        "PostToolUseFailure",
        "post-tool-use-failure",
        Matcher("*"),
        "",
    ),
    row(Q, "SubagentStart", "subagent-start", Matcher("*"), ""),
    row(Q, "SubagentStop", "subagent-stop", Matcher("*"), ""),
    row(Q, "PreCompact", "pre-compact", Matcher("*"), ""),
    row(
        Q,
        "Stop",
        "stop",
        Yes,
        "continues with `decision: block`; client cap on every continuation of a prompt, 100 as install sets it",
    ),
    row(
        Q,
        "SessionEnd",
        "session-end",
        Yes,
        "not fired by headless `-p` runs",
    ),
    //
    row(
        K,
        "sessionStart",
        "session-start",
        Yes,
        "context as `additional_context`",
    ),
    row(
        K,
        "beforeSubmitPrompt",
        "user-prompt-submit",
        Yes,
        "cannot add context: the mode starts in state, the stop follow-up carries its instructions",
    ),
    row(
        K,
        "preToolUse",
        "pre-tool-use",
        Matcher("*"),
        "user hooks on any tool",
    ),
    row(
        K,
        "beforeShellExecution",
        "pre-tool-use",
        No,
        "decoded as Bash, not installed",
    ),
    row(
        K,
        "beforeMCPExecution",
        "pre-tool-use",
        No,
        "decoded, not installed",
    ),
    row(
        K,
        "beforeReadFile",
        "pre-tool-use",
        No,
        "decoded as Read, not installed",
    ),
    row(K, "postToolUse", "post-tool-use", Yes, "cannot add context"),
    row(
        K,
        "postToolUseFailure",
        "post-tool-use-failure",
        Yes,
        "cannot add context",
    ),
    row(
        K,
        "afterShellExecution",
        "post-tool-use",
        No,
        "decoded as Bash, not installed",
    ),
    row(
        K,
        "afterMCPExecution",
        "post-tool-use",
        No,
        "decoded, not installed",
    ),
    row(
        K,
        "afterFileEdit",
        "post-tool-use",
        No,
        "decoded as MultiEdit, not installed",
    ),
    row(K, "subagentStart", "subagent-start", Yes, ""),
    row(K, "subagentStop", "subagent-stop", Yes, ""),
    row(
        K,
        "preCompact",
        "pre-compact",
        Yes,
        "note as `user_message`",
    ),
    row(
        K,
        "stop",
        "stop",
        Yes,
        "continues with `followup_message`; `loop_count` for `stop_hook_active`; `loop_limit` none as install writes it (default 5)",
    ),
    row(K, "sessionEnd", "session-end", Yes, ""),
    //
    row(
        M,
        "SessionStart",
        "session-start",
        Yes,
        "the answer is not read: nothing is shown at start",
    ),
    row(
        M,
        "UserPromptSubmit",
        "user-prompt-submit",
        Yes,
        "reads no context: a keyword starts the run in state, the Stop continuation carries the task",
    ),
    row(
        M,
        "PreToolUse",
        "pre-tool-use",
        Matcher("*"),
        "refusals only (`permissionDecision: deny`): no context, no rewrite",
    ),
    row(
        M,
        "PostToolUse",
        "post-tool-use",
        Matcher("*"),
        "not awaited; `is_error=True` in `tool_output` runs post-tool-use-failure",
    ),
    row(
        M,
        "PostToolUseFailure",
        "post-tool-use-failure",
        Matcher("*"),
        "only for a tool that raised; not awaited",
    ),
    row(M, "SubagentStart", "subagent-start", Matcher("*"), ""),
    row(
        M,
        "SubagentStop",
        "subagent-stop",
        Matcher("*"),
        "not awaited",
    ),
    row(M, "PreCompact", "pre-compact", Matcher("*"), ""),
    row(
        M,
        "Stop",
        "stop",
        Yes,
        "continues with `permissionDecision: deny`, once per prompt; `stop_hook_active` always false",
    ),
    row(M, "SessionEnd", "session-end", Yes, "awaited at most 5 s"),
    //
    row(
        N,
        "TaskStart",
        "session-start",
        Yes,
        "not awaited: nothing is shown at start",
    ),
    row(
        N,
        "TaskResume",
        "session-start",
        No,
        "decoded (`source: resume`), not installed",
    ),
    row(
        N,
        "UserPromptSubmit",
        "user-prompt-submit",
        No,
        "not awaited and not fired for a headless prompt; nothing could continue a run it starts: not installed",
    ),
    row(
        N,
        "PreToolUse",
        "pre-tool-use",
        Yes,
        "context as `contextModification`; a refusal (`cancel`) ends the whole task; a rewrite is `overrideInput`",
    ),
    row(
        N,
        "PostToolUse",
        "post-tool-use",
        Yes,
        "context as `contextModification`; a failed command (`success: false`) runs post-tool-use-failure",
    ),
    row(
        N,
        "TaskComplete",
        "stop",
        No,
        "not awaited, its answer not read: no continuation; not installed",
    ),
    row(
        N,
        "SessionShutdown",
        "session-end",
        Yes,
        "not awaited; not fired by a headless run",
    ),
    //
    row(
        A,
        "SessionStart",
        "session-start",
        Yes,
        "not awaited: nothing is shown at start",
    ),
    row(
        A,
        "PromptSubmit",
        "user-prompt-submit",
        No,
        "not awaited, no context: a keyword would start a run nothing continues; not installed",
    ),
    row(
        A,
        "PreToolUse",
        "pre-tool-use",
        Matcher(".*"),
        "refusals and rewrites (user hooks); no context; the matcher is a regular expression",
    ),
    row(
        A,
        "PostToolUse",
        "post-tool-use",
        Matcher(".*"),
        "context appended to the tool's result; a `tool_error` runs post-tool-use-failure",
    ),
    row(
        A,
        "Stop",
        "stop",
        No,
        "its answer (`hookSpecificOutput.decision: block`) is not read by the 0.36 loop: no continuation; not installed",
    ),
    row(A, "SessionEnd", "session-end", Yes, ""),
    // OpenCode and Kilo Code: the events our plugin (extensions/opencode/) passes on; "yes"
    // means the plugin sends it. opencode-FINDINGS.md says what each was seen to carry.
    row(
        O,
        "session.created",
        "session-start",
        Yes,
        "a main session (a subagent's has a parent and is not sent); context joins the next prompt",
    ),
    row(
        O,
        "chat.message",
        "user-prompt-submit",
        Yes,
        "context as a synthetic text part; also fires with our continuation as the prompt: recognised and left alone",
    ),
    row(
        O,
        "tool.execute.before",
        "pre-tool-use",
        Yes,
        "refuses a call by throwing; adds no context",
    ),
    row(
        O,
        "tool.execute.after",
        "post-tool-use",
        Yes,
        "context appended to the tool's output; a non-zero `metadata.exit` runs post-tool-use-failure",
    ),
    row(
        O,
        "message.part.updated",
        "post-tool-use-failure",
        Yes,
        "only a tool part that ended in `error` (a tool that threw) is sent",
    ),
    row(O, "experimental.session.compacting", "pre-compact", Yes, ""),
    row(
        O,
        "session.compacted",
        "session-start",
        Yes,
        "as source `compact`; context joins the next prompt",
    ),
    row(
        O,
        "session.idle",
        "stop",
        Yes,
        "the plugin continues with `session.promptAsync`; no client cap, ours holds",
    ),
    row(O, "session.deleted", "session-end", Yes, ""),
    //
    // Pi: the events our extension (extensions/pi/) passes on (pi-FINDINGS.md).
    row(
        P,
        "session_start",
        "session-start",
        Yes,
        "context joins the next prompt",
    ),
    row(
        P,
        "input",
        "user-prompt-submit",
        Yes,
        "context sent on `before_agent_start`; also fires (source `extension`) with our continuation: recognised and left alone",
    ),
    row(
        P,
        "tool_call",
        "pre-tool-use",
        Yes,
        "refuses with `block`; adds no context",
    ),
    row(
        P,
        "tool_result",
        "post-tool-use",
        Yes,
        "context appended to the result; `isError` runs post-tool-use-failure",
    ),
    row(P, "session_before_compact", "pre-compact", Yes, ""),
    row(
        P,
        "session_compact",
        "session-start",
        Yes,
        "as source `compact`",
    ),
    row(
        P,
        "agent_end",
        "stop",
        Yes,
        "the extension continues with a new user message (interactive and RPC modes: `pi -p` exits first); no client cap, ours holds",
    ),
    row(P, "session_shutdown", "session-end", Yes, ""),
    //
    // GitHub Copilot CLI (copilot-FINDINGS.md).
    row(
        H,
        "SessionStart",
        "session-start",
        Yes,
        "context at the top level",
    ),
    row(
        H,
        "UserPromptSubmit",
        "user-prompt-submit",
        Yes,
        "context at the top level; also fires with our continuation (recognised and left alone) and for a subagent's own prompt (left alone)",
    ),
    row(
        H,
        "PreToolUse",
        "pre-tool-use",
        Yes,
        "skill guards (`skill`); user hooks on any tool",
    ),
    row(
        H,
        "PostToolUse",
        "post-tool-use",
        Yes,
        "`tool_result` for `tool_response`; a shell's `exit code K` ≠ 0 runs post-tool-use-failure",
    ),
    row(
        H,
        "PostToolUseFailure",
        "post-tool-use-failure",
        Yes,
        "tools that fail outright (not a shell's exit code)",
    ),
    row(
        H,
        "SubagentStart",
        "subagent-start",
        Yes,
        "sends its camelCase payload",
    ),
    row(H, "SubagentStop", "subagent-stop", Yes, ""),
    row(H, "PreCompact", "pre-compact", Yes, ""),
    row(
        H,
        "Stop",
        "stop",
        Yes,
        "continues with `decision: block`; client cap 8 continuations per prompt, tool calls or not",
    ),
    row(H, "SessionEnd", "session-end", Yes, ""),
];

/// Rows of Claude Code's format that `install --agent` writes for Claude Code alone, not for
/// the clients that share its format (Factory Droid, CodeBuddy, Qoder): events added in issue
/// 46 from Claude Code 2.1.332's bundle, which no clone was seen to send (Droid's settings know
/// Notification, tests/e2e/factory-FINDINGS.md §3, but not the two others).
pub const CLAUDE_CODE_ONLY: [&str; 3] = ["PermissionDenied", "Notification", "StopFailure"];

/// Whether `wire`'s events come from the plugin this repository ships (`extensions/`): there
/// several events may reach one hook, since the plugin, not a configuration file, calls it.
pub fn via_plugin(wire: Wire) -> bool {
    matches!(wire, Wire::OpenCode | Wire::Pi)
}

/// The rows of one wire format.
pub fn rows(wire: Wire) -> impl Iterator<Item = &'static Row> {
    ROWS.iter().filter(move |r| r.wire == wire)
}

/// Whether `wire` has an event named `event`.
pub fn knows(wire: Wire, event: &str) -> bool {
    rows(wire).any(|r| r.event == event)
}

/// Whether `event` is known to `wire` and to no other wire format (a tell of the payload's
/// origin).
pub fn only(wire: Wire, event: &str) -> bool {
    knows(wire, event) && ROWS.iter().all(|r| r.wire == wire || r.event != event)
}

/// The neutral (Claude Code) event name of the hook that serves `event` on `wire`.
pub fn neutral(wire: Wire, event: &str) -> Option<&'static str> {
    let row = rows(wire).find(|r| r.event == event)?;
    crate::hooks::find(row.hook).map(|h| h.event)
}

/// The agent event a hook subcommand answers on `wire` (the installed row first).
pub fn agent_event(wire: Wire, hook: &str) -> Option<&'static str> {
    let mut candidates = rows(wire).filter(|r| r.hook == hook);
    let first = candidates.next()?;
    if first.install != Install::No {
        return Some(first.event);
    }
    Some(
        candidates
            .find(|r| r.install != Install::No)
            .unwrap_or(first)
            .event,
    )
}

/// The table as Markdown: one section per wire format. `doctor --agents` prints it and the
/// README holds a copy (kept identical by a test).
pub fn render_markdown() -> String {
    let mut s = String::new();
    for wire in Wire::ALL {
        let agent = wire.agent();
        let also: Vec<&str> = Agent::ALL
            .iter()
            .filter(|a| a.wire() == wire && **a != agent)
            .map(|a| a.name())
            .collect();
        s.push_str(&format!(
            "**{}** (`--agent {}`",
            agent.client(),
            agent.name()
        ));
        if !also.is_empty() {
            s.push_str(&format!("; same format: `{}`", also.join("`, `")));
        }
        s.push_str(
            ")\n\n| agent event | hook subcommand | installed | notes |\n|---|---|---|---|\n",
        );
        for r in rows(wire) {
            let installed = match r.install {
                Install::No => "no".to_string(),
                Install::Yes => "yes".to_string(),
                Install::Matcher(m) => format!("yes, matcher `{m}`"),
            };
            s.push_str(&format!(
                "| `{}` | `{}` | {installed} | {} |\n",
                r.event, r.hook, r.note
            ));
        }
        s.push('\n');
    }
    s.trim_end().to_string() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_names_a_real_hook_and_no_event_twice() {
        for (i, r) in ROWS.iter().enumerate() {
            assert!(
                crate::hooks::find(r.hook).is_some(),
                "{}: {}",
                r.event,
                r.hook
            );
            assert!(
                ROWS[i + 1..]
                    .iter()
                    .all(|o| o.wire != r.wire || o.event != r.event),
                "{:?} {} twice",
                r.wire,
                r.event
            );
        }
    }

    #[test]
    fn every_hook_is_installed_where_the_agent_has_its_event() {
        for wire in Wire::ALL.into_iter().filter(|w| !via_plugin(*w)) {
            for hook in crate::hooks::HOOKS {
                let mapped: Vec<&Row> = rows(wire).filter(|r| r.hook == hook.name).collect();
                let installed = mapped.iter().filter(|r| r.install != Install::No).count();
                assert!(installed <= 1, "{wire:?} installs {} twice", hook.name);
            }
        }
    }

    #[test]
    fn the_claude_rows_are_the_shipped_manifest() {
        let manifest: serde_json::Value = serde_json::from_str(crate::hooks::MANIFEST).unwrap();
        let events = manifest["hooks"].as_object().unwrap();
        assert_eq!(events.len(), rows(Wire::Claude).count());
        for r in rows(Wire::Claude) {
            let group = &events[r.event][0];
            let cmd = group["hooks"][0]["command"].as_str().unwrap();
            assert!(cmd.ends_with(&format!(" {}", r.hook)), "{}", r.event);
            let matcher = group.get("matcher").and_then(|m| m.as_str());
            match r.install {
                Install::Matcher(m) => assert_eq!(matcher, Some(m), "{}", r.event),
                _ => assert_eq!(matcher, None, "{}", r.event),
            }
        }
    }

    #[test]
    fn neutral_names_and_answers() {
        assert_eq!(neutral(Wire::Gemini, "AfterAgent"), Some("Stop"));
        assert_eq!(
            neutral(Wire::Gemini, "BeforeAgent"),
            Some("UserPromptSubmit")
        );
        assert_eq!(
            neutral(Wire::Cursor, "beforeShellExecution"),
            Some("PreToolUse")
        );
        assert_eq!(neutral(Wire::Cursor, "stop"), Some("Stop"));
        assert_eq!(neutral(Wire::Codex, "PostCompact"), None);
        assert_eq!(agent_event(Wire::Gemini, "stop"), Some("AfterAgent"));
        assert_eq!(
            agent_event(Wire::Cursor, "post-tool-use"),
            Some("postToolUse")
        );
        assert_eq!(
            agent_event(Wire::Cursor, "pre-tool-use"),
            Some("preToolUse")
        );
        assert_eq!(agent_event(Wire::Gemini, "subagent-start"), None);
        assert!(only(Wire::Gemini, "AfterAgent"));
        assert!(!only(Wire::Qwen, "Stop"));
    }
}
