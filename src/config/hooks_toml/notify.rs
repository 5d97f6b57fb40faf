//! What a `type = "notify"` entry of `hooks.toml` says: the chat service, where it posts, and
//! which lifecycle events post a message. Read here, below export, so that the file's reader
//! (`config.rs`) checks a notification entry exactly as export's sink builder reads it; the
//! sending is export's (`crate::export::notify`).

use super::syntax::{check_url, is_env_name};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The lifecycle events a notification sink may receive (its `on` list), and the only events
/// it receives: hook events never go to a notification sink, lifecycle events never to any
/// other.
///
/// `api-error` (a turn ended on an API error, Claude Code's StopFailure, outside a run: a live
/// run's is its `run-end`, handed back), `waiting` (the client waits for the person: its
/// Notification of a `permission_prompt`, `idle_prompt`, …) and `permission-denied` (auto
/// mode refused a tool call) come from the client's own events, not from the run files.
pub const LIFECYCLE_EVENTS: [&str; 6] = [
    "run-end",
    "needs-input",
    "session-end",
    "api-error",
    "waiting",
    "permission-denied",
];

/// Telegram's Bot API base when the entry gives no `url`.
pub const TELEGRAM_API: &str = "https://api.telegram.org";

/// The chat service a notification goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Service {
    /// An incoming webhook: `{"text": …}`.
    Slack,
    /// A channel webhook: `{"content": …}`.
    Discord,
    /// The Bot API's `sendMessage`: `{"chat_id": …, "text": …}`.
    Telegram,
}

impl Service {
    pub fn name(self) -> &'static str {
        match self {
            Service::Slack => "slack",
            Service::Discord => "discord",
            Service::Telegram => "telegram",
        }
    }

    fn parse(s: &str) -> Option<Service> {
        match s {
            "slack" => Some(Service::Slack),
            "discord" => Some(Service::Discord),
            "telegram" => Some(Service::Telegram),
            _ => None,
        }
    }
}

/// Where one notification sink posts. Holds configuration only, never a secret in clear
/// unless the person wrote one into the file (`doctor` says so for a project file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    pub service: Service,
    /// The webhook URL (Slack, Discord) or the Bot API base (Telegram), as written: `${VAR}`
    /// references are expanded by the flusher when it sends.
    pub url: String,
    /// Telegram: the variable that holds the bot token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_env: Option<String>,
    /// Telegram: the chat to post to (a number, or `@channelname`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
}

/// The keys of a `type = "notify"` entry beyond the common ones.
pub const ENTRY_KEYS: &[&str] = &["service", "url", "on", "token_env", "chat_id"];

/// Reads the notification keys of a `hooks.toml` entry (as JSON): the target and its `on`
/// list (every lifecycle event when absent). The error names the key.
pub fn from_entry(obj: &Map<String, Value>) -> Result<(Target, Vec<String>), String> {
    let text = |k: &str| -> Result<Option<&str>, String> {
        match obj.get(k) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(format!("`{k}` must be a string")),
        }
    };
    let service = match text("service")? {
        None => return Err("`service` is missing (slack, discord or telegram)".into()),
        Some(s) => Service::parse(s)
            .ok_or_else(|| format!("`service` {s:?} is not one of slack, discord, telegram"))?,
    };
    let url = match (text("url")?, service) {
        (Some(u), _) => {
            check_url_as_written(u).map_err(|e| format!("`url`: {e}"))?;
            u.to_string()
        }
        (None, Service::Telegram) => TELEGRAM_API.to_string(),
        (None, _) => {
            return Err(format!(
                "`url` is missing: the {} webhook URL, best as \"${{VARIABLE}}\"",
                service.name()
            ));
        }
    };
    let token_env = match text("token_env")? {
        Some(v) if is_env_name(v) => Some(v.to_string()),
        Some(v) => {
            return Err(format!(
                "`token_env` names the variable that holds the bot token, not {v:?}"
            ));
        }
        None => None,
    };
    let chat_id = match obj.get("chat_id") {
        None => None,
        Some(Value::String(s)) if !s.trim().is_empty() && !s.contains(['\n', '\r']) => {
            Some(s.trim().to_string())
        }
        Some(Value::Number(n)) if n.is_i64() => Some(n.to_string()),
        Some(_) => return Err("`chat_id` must be a chat id (a number or \"@channel\")".into()),
    };
    match service {
        Service::Telegram if token_env.is_none() => {
            return Err("`token_env` is missing: the variable that holds the bot token".into());
        }
        Service::Telegram if chat_id.is_none() => {
            return Err("`chat_id` is missing: the chat to post to".into());
        }
        Service::Slack | Service::Discord if token_env.is_some() || chat_id.is_some() => {
            return Err(format!(
                "`token_env` and `chat_id` are for telegram, not {}",
                service.name()
            ));
        }
        _ => {}
    }
    let on = match obj.get("on") {
        None => LIFECYCLE_EVENTS.iter().map(|s| s.to_string()).collect(),
        Some(Value::Array(items)) if !items.is_empty() => {
            let mut on = Vec::new();
            for item in items {
                match item.as_str() {
                    Some(e) if LIFECYCLE_EVENTS.contains(&e) => on.push(e.to_string()),
                    _ => {
                        return Err(format!(
                            "`on` items are {}, not {item}",
                            LIFECYCLE_EVENTS.join(", ")
                        ));
                    }
                }
            }
            on
        }
        Some(_) => {
            return Err(format!(
                "`on` must be a list of {}",
                LIFECYCLE_EVENTS.join(", ")
            ));
        }
    };
    Ok((
        Target {
            service,
            url,
            token_env,
            chat_id,
        },
        on,
    ))
}

/// A URL as written: an `http(s)://` URL, which may hold `${VAR}` references, or one that is a
/// reference from the start (`${SLACK_WEBHOOK_URL}`), checked once expanded.
pub(crate) fn check_url_as_written(s: &str) -> Result<(), String> {
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("{s:?} has an unclosed ${{"))?;
        if !is_env_name(&after[..end]) {
            return Err(format!(
                "${{{}}} is not a variable reference",
                &after[..end]
            ));
        }
        rest = &after[end + 1..];
    }
    if s.starts_with("${") {
        return Ok(());
    }
    check_url(s)
}

/// Whether `s` holds a credential in clear: a URL with no `${VAR}` in it (a Slack or Discord
/// webhook URL is itself the secret).
pub fn literal_url(target: &Target) -> bool {
    target.service != Service::Telegram && !target.url.contains("${")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(v: Value) -> Result<(Target, Vec<String>), String> {
        from_entry(v.as_object().unwrap())
    }

    #[test]
    fn the_issue_example_reads_and_keeps_the_reference() {
        let (t, on) = entry(json!({"service": "slack", "url": "${SLACK_WEBHOOK_URL}",
            "on": ["run-end", "needs-input", "session-end"]}))
        .unwrap();
        assert_eq!(t.service, Service::Slack);
        assert_eq!(t.url, "${SLACK_WEBHOOK_URL}");
        assert_eq!(on, ["run-end", "needs-input", "session-end"]);
        // Without `on`, every lifecycle event, the client's own ones included.
        let (_, all) = entry(json!({"service": "slack", "url": "${SLACK_WEBHOOK_URL}"})).unwrap();
        assert_eq!(all, LIFECYCLE_EVENTS);
        assert!(!literal_url(&t));
        let (t, on) = entry(json!({"service": "telegram", "token_env": "TG_TOKEN",
            "chat_id": -1001234, "on": ["run-end"]}))
        .unwrap();
        assert_eq!(t.url, TELEGRAM_API);
        assert_eq!(t.chat_id.as_deref(), Some("-1001234"));
        assert_eq!(on, vec!["run-end"]);
    }

    #[test]
    fn mistakes_name_the_key() {
        for (v, key) in [
            (json!({}), "service"),
            (json!({"service": "teams", "url": "https://x"}), "service"),
            (json!({"service": "slack"}), "url"),
            (
                json!({"service": "slack", "url": "hooks.slack.com/x"}),
                "url",
            ),
            (json!({"service": "slack", "url": "${NOT A VAR}"}), "url"),
            (
                json!({"service": "slack", "url": "https://h/", "on": ["stop"]}),
                "on",
            ),
            (
                json!({"service": "slack", "url": "https://h/", "on": []}),
                "on",
            ),
            (json!({"service": "telegram", "chat_id": "1"}), "token_env"),
            (json!({"service": "telegram", "token_env": "T"}), "chat_id"),
            (
                json!({"service": "telegram", "token_env": "T", "chat_id": 1.5}),
                "chat_id",
            ),
            (
                json!({"service": "discord", "url": "https://h/", "chat_id": "1"}),
                "telegram",
            ),
        ] {
            let e = entry(v.clone()).unwrap_err();
            assert!(e.contains(key), "{v}: {e}");
        }
    }
}
