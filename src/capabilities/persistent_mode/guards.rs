//! When Stop must be allowed without ending the run (contract §6): the turn ended for a reason
//! a continuation cannot fix (a full context, the user stopping it, an API that refuses), or the
//! session still has background work of its own. Blocking then would deadlock (a full context
//! cannot compact while blocked) or loop against an error (a rate limit), which is exactly what
//! users complained about in OMC.

use crate::capabilities::{Ctx, subagents};
use crate::protocol::HookInput;
use crate::state::transcript;
use serde_json::Value;

/// Stop is held open for the person, not the model: the run pauses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hold {
    ContextLimit,
    UserInterrupt,
    Authentication,
    RateLimit,
    Overloaded,
    /// The context window is at least [`CONTEXT_FULL_PERCENT`] full.
    ContextFull(u64),
    Subagents(usize),
}

impl Hold {
    /// Why, for the person's `systemMessage`.
    pub fn why(&self) -> String {
        match self {
            Hold::ContextLimit => {
                "the context limit was reached; compact or start a new session".into()
            }
            Hold::UserInterrupt => "you interrupted it".into(),
            Hold::Authentication => "the API refused authentication; log in again".into(),
            Hold::RateLimit => "the API is rate limiting requests".into(),
            Hold::Overloaded => "the API is overloaded".into(),
            Hold::ContextFull(p) => format!("the context window is {p}% full; run /compact"),
            Hold::Subagents(n) => format!("{n} subagent(s) still running"),
        }
    }

    /// Whether the person should be told (background subagents finish on their own).
    pub fn tell(&self) -> bool {
        !matches!(self, Hold::Subagents(_))
    }
}

/// At or above this estimated context use, Stop is never blocked.
pub const CONTEXT_FULL_PERCENT: u64 = 95;

/// The context window assumed when nothing says otherwise, and the large one.
pub const DEFAULT_WINDOW: u64 = 200_000;
pub const LARGE_WINDOW: u64 = 1_000_000;

/// The first hold that applies, cheapest checks first.
pub fn hold(ctx: &Ctx<'_>) -> Option<Hold> {
    if let Some(h) = reason_hold(ctx.input) {
        return Some(h);
    }
    match subagents::running(ctx) {
        0 => {}
        n => return Some(Hold::Subagents(n)),
    }
    context_percent(ctx.input)
        .filter(|p| *p >= CONTEXT_FULL_PERCENT)
        .map(Hold::ContextFull)
}

/// Holds read from the payload's stop reason fields, `user_requested`, and an API error left
/// as the last message.
pub fn reason_hold(input: &HookInput) -> Option<Hold> {
    if input.user_requested {
        return Some(Hold::UserInterrupt);
    }
    let api_error = input
        .last_assistant_message
        .as_deref()
        .filter(|m| m.trim_start().to_ascii_lowercase().starts_with("api error"));
    let error = input.error.as_deref();
    [
        input.stop_reason.as_deref(),
        input.reason.as_deref(),
        error,
        api_error,
    ]
    .into_iter()
    .flatten()
    .find_map(classify)
}

/// Lowercase, with runs of spaces and dashes turned into `_`.
fn normalize(reason: &str) -> String {
    let mut out = String::with_capacity(reason.len());
    let mut gap = false;
    for c in reason.trim().chars() {
        if c.is_whitespace() || c == '-' {
            gap = true;
        } else {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.extend(c.to_lowercase());
        }
    }
    out
}

const CONTEXT: &[&str] = &[
    "context_limit",
    "context_window",
    "context_exceeded",
    "context_full",
    "context_length",
    "max_context",
    "token_limit",
    "max_tokens",
    "conversation_too_long",
    "input_too_long",
    "prompt_too_long",
    "prompt_is_too_long",
];
const INTERRUPT_EXACT: &[&str] = &[
    "abort",
    "aborted",
    "cancel",
    "cancelled",
    "canceled",
    "interrupt",
    "interrupted",
];
const INTERRUPT: &[&str] = &[
    "user_cancel",
    "user_interrupt",
    "user_abort",
    "interrupted_by_user",
    "request_interrupted",
    "ctrl_c",
    "ctrl+c",
    "manual_stop",
];
const AUTH: &[&str] = &[
    "authentication",
    "auth_error",
    "unauthorized",
    "unauthorised",
    "401",
    "403",
    "forbidden",
    "invalid_token",
    "token_invalid",
    "token_expired",
    "expired_token",
    "oauth",
    "invalid_grant",
    "insufficient_scope",
    "invalid_api_key",
    "invalid_x_api_key",
    "billing_error",
    "org_not_allowed",
];
const RATE: &[&str] = &[
    "rate_limit",
    "ratelimit",
    "rate_limited",
    "too_many_requests",
    "429",
    "quota",
    "request_limit",
    "api_limit",
    "usage_limit",
];
const OVERLOAD: &[&str] = &[
    "overload",
    "529",
    "capacity",
    "server_busy",
    "service_unavailable",
    "temporarily_unavailable",
    "503",
];

/// What a stop reason says, if it is one of the reasons to pause.
fn classify(reason: &str) -> Option<Hold> {
    let r = normalize(reason);
    if r.is_empty() {
        return None;
    }
    let any = |list: &[&str]| list.iter().any(|p| r.contains(p));
    if any(CONTEXT) {
        Some(Hold::ContextLimit)
    } else if INTERRUPT_EXACT.contains(&r.as_str()) || any(INTERRUPT) {
        Some(Hold::UserInterrupt)
    } else if any(AUTH) {
        Some(Hold::Authentication)
    } else if any(RATE) {
        Some(Hold::RateLimit)
    } else if any(OVERLOAD) {
        Some(Hold::Overloaded)
    } else {
        None
    }
}

/// The estimated context use in percent: from a `context_window` object in the payload when
/// the client sends one, else from the transcript's tail.
pub fn context_percent(input: &HookInput) -> Option<u64> {
    if let Some(p) = input
        .raw
        .get("context_window")
        .and_then(|w| w.get("used_percentage"))
        .and_then(Value::as_f64)
        .filter(|p| p.is_finite() && *p >= 0.0)
    {
        return Some(p as u64);
    }
    let tail = transcript::tail(input.transcript_path.as_deref()?, transcript::TAIL_BYTES)?;
    let usage = transcript::last_usage(&tail)?;
    let says_large = |m: Option<&str>| m.is_some_and(|m| m.to_ascii_lowercase().contains("[1m]"));
    let window = usage.window.filter(|w| *w > 0).unwrap_or(
        if says_large(input.model.as_deref())
            || says_large(usage.model.as_deref())
            || usage.tokens > DEFAULT_WINDOW
        {
            LARGE_WINDOW
        } else {
            DEFAULT_WINDOW
        },
    );
    Some(usage.tokens.saturating_mul(100) / window)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(v: Value) -> HookInput {
        HookInput::decode(v.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn stop_reasons_are_matched_generously() {
        let cases = [
            ("context_limit", Some(Hold::ContextLimit)),
            ("Context Window Exceeded", Some(Hold::ContextLimit)),
            ("max-tokens", Some(Hold::ContextLimit)),
            ("prompt is too long", Some(Hold::ContextLimit)),
            ("aborted", Some(Hold::UserInterrupt)),
            ("user_cancel", Some(Hold::UserInterrupt)),
            ("Ctrl-C", Some(Hold::UserInterrupt)),
            ("oauth_expired", Some(Hold::Authentication)),
            ("authentication_failed", Some(Hold::Authentication)),
            ("HTTP 401", Some(Hold::Authentication)),
            ("rate_limit", Some(Hold::RateLimit)),
            ("Too Many Requests", Some(Hold::RateLimit)),
            ("quota_exceeded", Some(Hold::RateLimit)),
            ("overloaded_error", Some(Hold::Overloaded)),
            ("529", Some(Hold::Overloaded)),
            ("end_turn", None),
            ("tool_use", None),
            ("stop_sequence", None),
            ("", None),
        ];
        for (reason, want) in cases {
            assert_eq!(classify(reason), want, "{reason}");
        }
    }

    #[test]
    fn every_spelling_of_the_reason_and_the_user_flag_are_read() {
        for key in [
            "stop_reason",
            "stopReason",
            "end_turn_reason",
            "endTurnReason",
        ] {
            let i = input(json!({ key: "rate_limit" }));
            assert_eq!(reason_hold(&i), Some(Hold::RateLimit), "{key}");
        }
        assert_eq!(
            reason_hold(&input(json!({"userRequested": true}))),
            Some(Hold::UserInterrupt)
        );
        assert_eq!(
            reason_hold(&input(
                json!({"last_assistant_message": "API Error: 529 Overloaded"})
            )),
            Some(Hold::Overloaded)
        );
        // An ordinary last message that mentions a rate limit is not an API error.
        assert_eq!(
            reason_hold(&input(
                json!({"last_assistant_message": "I added rate_limit handling"})
            )),
            None
        );
    }

    #[test]
    fn context_percent_from_the_payload_object() {
        let i = input(json!({"context_window": {"used_percentage": 96.4}}));
        assert_eq!(context_percent(&i), Some(96));
    }
}
