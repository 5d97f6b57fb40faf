//! Our own continuation, recognised when it comes back as a prompt.
//!
//! Some agents hand an end-of-turn continuation back through their prompt event: Gemini CLI's
//! BeforeAgent and Qwen Code's UserPromptSubmit fire again with the Stop reason we sent as the
//! prompt (tests/e2e/gemini-FINDINGS.md §5, qwen-FINDINGS.md §4 and §6), and Cursor submits
//! `followup_message` as the next user
//! message. Qwen also fires UserPromptSubmit with an empty prompt before every model call that
//! carries a tool result. Read as the user speaking, either would reset the run's count of
//! consecutive blocks (so our cap never holds), restart turns, and run keyword detection on
//! our own text. So the prompt handlers run only for a prompt the user typed: [`admit`] turns
//! away empty prompts and the continuation this session last sent, which [`after`] remembers
//! as a fingerprint (never the text: it may quote the task) when the end-of-turn hook blocks.
//!
//! The fingerprint lives in `agent.json` in the session's state directory, beside the agent
//! that sent it. (Which agent a session runs in is recorded at each SessionStart in
//! `session.json`; `status` shows it.)

use super::Ctx;
use crate::protocol::Answer;
use crate::state::files::SCHEMA_VERSION;
use crate::state::{Change, Scope, StateFile};
use serde::{Deserialize, Serialize};

/// The file's name in the session scope.
pub const FILE: &str = "agent.json";

/// `agent.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SessionAgent {
    #[serde(default)]
    pub schema_version: u32,
    #[serde(default)]
    pub session_id: String,
    /// The agent the session's hooks were installed for (`--agent`).
    pub agent: String,
    pub updated_at: String,
    /// The fingerprint of the last continuation sent ([`fingerprint`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation_at: Option<String>,
}

/// What a prompt event carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prompt {
    /// Something the user typed.
    User,
    /// No text (Qwen's tool-result sends).
    Empty,
    /// The continuation this session last sent, back as a prompt.
    Continuation,
}

/// Classifies the prompt of a UserPromptSubmit payload.
pub fn classify(ctx: &Ctx<'_>) -> Prompt {
    let Some(prompt) = ctx.input.prompt.as_deref().filter(|p| !p.trim().is_empty()) else {
        return Prompt::Empty;
    };
    let sent = record_file(&ctx.scope)
        .zip(ctx.store.as_ref())
        .and_then(|(f, store)| store.read::<SessionAgent>(&f))
        .and_then(|r| r.continuation);
    match sent {
        Some(fp) if fp == fingerprint(prompt) => Prompt::Continuation,
        _ => Prompt::User,
    }
}

/// Whether the capabilities of this hook should run at all: every hook but the prompt hook
/// always; the prompt hook only for a prompt the user typed.
///
/// A subagent's own prompt or end of turn (`subagent_turn`: GitHub Copilot CLI fires both for a
/// subagent's turns, with the subagent as the session, copilot-FINDINGS.md §7) is not the
/// user's session: no keyword starts a run there and no run is continued there.
pub fn admit(ctx: &Ctx<'_>) -> bool {
    if matches!(ctx.hook.event, "UserPromptSubmit" | "Stop") && ctx.input.subagent_turn {
        if ctx.env.debug {
            crate::diag!("{}: a subagent's own turn; left alone", ctx.hook.name);
        }
        return false;
    }
    if ctx.hook.event != "UserPromptSubmit" {
        return true;
    }
    match classify(ctx) {
        Prompt::User => true,
        other => {
            if ctx.env.debug {
                crate::diag!("user-prompt-submit: {other:?} prompt; left alone");
            }
            false
        }
    }
}

/// After the capabilities answered: remember an end-of-turn continuation that will come back
/// as a prompt (only on agents that echo it; one more durable write on those Stops).
pub fn after(ctx: &Ctx<'_>, answer: &Answer) {
    if ctx.hook.event != "Stop" || !ctx.input.agent.echoes_continuation() {
        return;
    }
    let Some(reason) = answer.block.as_deref() else {
        return;
    };
    let (Some(store), Some(file), Some(sid)) = (
        ctx.store.as_ref(),
        record_file(&ctx.scope),
        ctx.scope.session_id(),
    ) else {
        return;
    };
    let fp = fingerprint(reason);
    let now = crate::time::iso(ctx.now_ms);
    let result = store.update(&file, |cur: Option<SessionAgent>| {
        let mut rec = cur.unwrap_or_default();
        rec.schema_version = SCHEMA_VERSION;
        rec.session_id = sid.to_string();
        rec.agent = ctx.input.agent.name().to_string();
        rec.updated_at = now.clone();
        rec.continuation = Some(fp);
        rec.continuation_at = Some(now.clone());
        (Change::Write(rec), ())
    });
    if let Err(e) = result {
        crate::diag!(
            "{}: cannot record the continuation sent: {e}",
            ctx.hook.name
        );
    }
}

fn record_file(scope: &Scope) -> Option<StateFile> {
    scope.session_id().and_then(|_| StateFile::new(scope, FILE))
}

/// A fingerprint of a continuation text: FNV-1a (64 bit) and the length of the text with
/// surrounding whitespace, a Codex `<hook_prompt …>` wrapper, a `Stop hook: ` label and every
/// line break removed (CodeBuddy hands the reason back to its prompt hook as `Stop hook:
/// REASON` with the line breaks taken out, tests/e2e/codebuddy-FINDINGS.md §4). Not a secret
/// and not an authenticator — it only has to tell our text from what a person types.
pub fn fingerprint(text: &str) -> String {
    let t = text.trim();
    let t = t.strip_prefix("Stop hook: ").unwrap_or(t);
    let t: String = unwrap_hook_prompt(t)
        .trim()
        .chars()
        .filter(|c| !matches!(c, '\n' | '\r'))
        .collect();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in t.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("fnv1a64:{h:016x}:{}", t.len())
}

/// Codex wraps a Stop continuation as `<hook_prompt hook_run_id="…">REASON</hook_prompt>`.
fn unwrap_hook_prompt(t: &str) -> &str {
    let Some(rest) = t.strip_prefix("<hook_prompt") else {
        return t;
    };
    match (rest.find('>'), rest.strip_suffix("</hook_prompt>")) {
        (Some(open), Some(_)) if open < rest.len() - "</hook_prompt>".len() => {
            &rest[open + 1..rest.len() - "</hook_prompt>".len()]
        }
        _ => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_ignore_whitespace_and_the_codex_wrapper() {
        let a = fingerprint("[RALPH LOOP 2/100] keep going");
        assert_eq!(a, fingerprint("  [RALPH LOOP 2/100] keep going\n"));
        assert_eq!(
            a,
            fingerprint(
                "<hook_prompt hook_run_id=\"stop:10:/h/hooks.json\">[RALPH LOOP 2/100] keep going</hook_prompt>"
            )
        );
        assert_ne!(a, fingerprint("[RALPH LOOP 3/100] keep going"));
        assert_ne!(a, fingerprint("keep going"));
        assert_eq!(a, fingerprint("Stop hook: [RALPH LOOP 2/100] keep going"));
        let para = fingerprint("[RALPH LOOP 2/100]\n\nTask: x\nkeep going");
        assert_eq!(
            para,
            fingerprint("Stop hook: [RALPH LOOP 2/100]Task: xkeep going")
        );
        assert_ne!(para, fingerprint("[RALPH LOOP 2/100] Task: x keep going"));
        assert!(a.starts_with("fnv1a64:"));
    }

    #[test]
    fn a_malformed_wrapper_is_text() {
        assert_eq!(unwrap_hook_prompt("<hook_prompt"), "<hook_prompt");
        assert_eq!(unwrap_hook_prompt("<hook_prompt></hook_prompt>"), "");
        assert_eq!(unwrap_hook_prompt("<hook_prompt>x"), "<hook_prompt>x");
        assert_eq!(unwrap_hook_prompt("<hook_prompt a>x</hook_prompt>"), "x");
    }
}
