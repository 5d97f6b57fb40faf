//! What one export destination is: a [`SinkSpec`], built from a `hooks.toml` entry
//! ([`SinkSpec::from_entry`]) or from the environment (`super::sources`).
//!
//! A spec holds configuration only, never a secret: header values keep their `${VAR}`
//! references and the signing key is named by the variable that holds it (`secret_env`). Both
//! are resolved by the flusher at delivery time, so nothing secret is stored under `.omc/`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Events per request when the entry does not say.
pub const DEFAULT_BATCH_SIZE: u32 = 50;
/// The largest batch a sink may ask for.
pub const MAX_BATCH_SIZE: u32 = 1000;
/// How long an event may wait for its batch to fill before it is sent anyway.
pub const DEFAULT_FLUSH_INTERVAL_MS: u64 = 1000;
/// One HTTP request's whole budget (connect, send, answer).
pub const DEFAULT_TIMEOUT_MS: u64 = 5000;
/// The bound on a sink's spool file; events beyond it are dropped and counted.
pub const DEFAULT_MAX_SPOOL_BYTES: u64 = 16 * 1024 * 1024;

/// One export destination and what it receives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SinkSpec {
    /// Names the sink's spool, `.omc/export/<name>/`, and its line in `status`: the entry's
    /// `name` (`[A-Za-z0-9_-]{1,64}`), else `webhook-<hash of the URL>` /
    /// `otlp-<hash of the endpoint>`. Specs with the same name share one spool and receive an
    /// event once even when several of them accept it.
    pub name: String,
    pub kind: SinkKind,
    /// The neutral hook names it receives (`post-tool-use`, `stop`, …); empty means every event.
    pub events: Vec<String>,
    /// For tool events (`pre-tool-use`, `post-tool-use`, `post-tool-use-failure`): the tool
    /// names it receives, exact, `|`-separated. `None` (or `"*"` in the entry) means every tool.
    /// Events without a tool are not filtered by it.
    pub matcher: Option<String>,
    /// Events per request (1..=1000). A full batch is sent at once.
    pub batch_size: u32,
    /// An event waits at most this long (ms) for its batch to fill.
    pub flush_interval_ms: u64,
    /// The budget of one delivery request (ms).
    pub timeout_ms: u64,
    /// The spool file's bound in bytes; while it is full, new events are dropped and counted.
    pub max_spool_bytes: u64,
    /// Redact secret-shaped strings in the payload before it is spooled (default true).
    pub redact: bool,
    /// `async_webhook`'s `retries` (0..=10): attempts after the first before a batch that could
    /// not be delivered (a network error, a 5xx, a 408/429) is given up on, its events dropped
    /// and counted. `None`: such a batch is retried until delivered (or the flusher gives up
    /// for the time being).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
}

/// Where and how a sink delivers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SinkKind {
    /// `{"events":[…]}` to `url`, signed when `secret_env` names a variable holding the key.
    BatchWebhook {
        url: String,
        method: Method,
        /// Extra request headers. Values may hold `${VAR}` references, expanded by the flusher
        /// from its environment at delivery time and never stored expanded.
        headers: Vec<(String, String)>,
        /// The environment variable that holds the HMAC-SHA256 key for `X-Omc-Signature`.
        secret_env: Option<String>,
    },
    /// OTLP/HTTP logs, JSON encoding. `endpoint` is a base URL (`/v1/logs` is appended unless
    /// it already ends so); `None` takes `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`, then
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`, then `http://localhost:4318`. Headers are added to those of
    /// `OTEL_EXPORTER_OTLP_HEADERS` / `OTEL_EXPORTER_OTLP_LOGS_HEADERS` (same `${VAR}` rule).
    Otlp {
        endpoint: Option<String>,
        headers: Vec<(String, String)>,
    },
    /// A chat notification (Slack, Discord, Telegram) per lifecycle event, one message per
    /// request (`super::notify` sends it).
    Notify(crate::config::hooks_toml::notify::Target),
}

/// The batch webhook's request method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Method {
    Post,
    Put,
}

/// The `type` values of a `hooks.toml` entry that describe an export sink.
pub const ENTRY_TYPES: [&str; 3] = ["async_webhook", "otlp", "notify"];

/// Tool events: the ones a `matcher` filters.
const TOOL_EVENTS: [&str; 5] = [
    "pre-tool-use",
    "permission-request",
    "permission-denied",
    "post-tool-use",
    "post-tool-use-failure",
];

impl SinkSpec {
    /// Builds a spec from one `hooks.toml` entry (as JSON) whose `type` is `"async_webhook"`
    /// or `"otlp"`. Keys read:
    ///
    /// | key | types | default |
    /// |---|---|---|
    /// | `type` | `async_webhook` \| `otlp` | required |
    /// | `url` | `http(s)://…` | required for `async_webhook` |
    /// | `endpoint` | `http(s)://…` base URL | `otlp`: from `OTEL_EXPORTER_OTLP_*` |
    /// | `event` | a hook name, `"*"`, `"subagent-*"`, or a list of them | every event |
    /// | `matcher` | `"Bash"`, `"Edit\|Write"`, `"*"` | every tool |
    /// | `method` | `POST` \| `PUT` | `POST` |
    /// | `headers` | table of strings (`${VAR}` allowed) | none |
    /// | `secret_env` | name of the variable holding the signing key | unsigned |
    /// | `batch_size` | 1..=1000 | 50 |
    /// | `flush_interval_ms` | 10..=3 600 000 | 1000 |
    /// | `timeout_ms` | 100..=60 000 | 5000 |
    /// | `max_spool_bytes` | 65 536..=1 GiB | 16 MiB |
    /// | `redact` | bool | true |
    /// | `retries` | 0..=10 (`async_webhook`) | retry until delivered |
    /// | `name` | `[A-Za-z0-9_-]{1,64}` | derived from the URL |
    ///
    /// Other keys (`enabled`, `command`, …) are left to the caller. The error names the key.
    pub fn from_entry(entry: &Value) -> Result<SinkSpec, String> {
        let obj = entry.as_object().ok_or("an entry must be a table")?;
        let kind_name = obj
            .get("type")
            .and_then(Value::as_str)
            .ok_or("`type` is missing")?;
        if kind_name == "notify" {
            return notify_spec(obj);
        }
        let headers = headers(obj.get("headers"))?;
        let kind = match kind_name {
            "async_webhook" => SinkKind::BatchWebhook {
                url: url(obj.get("url"), "url")?.ok_or("`url` is required for async_webhook")?,
                method: match opt_str(obj.get("method"), "method")? {
                    None => Method::Post,
                    Some(m) if m.eq_ignore_ascii_case("post") => Method::Post,
                    Some(m) if m.eq_ignore_ascii_case("put") => Method::Put,
                    Some(m) => return Err(format!("`method` must be POST or PUT, not {m:?}")),
                },
                headers,
                secret_env: match opt_str(obj.get("secret_env"), "secret_env")? {
                    Some(v) if is_env_name(v) => Some(v.to_string()),
                    Some(v) => {
                        return Err(format!(
                            "`secret_env` must name an environment variable, not {v:?}"
                        ));
                    }
                    None => None,
                },
            },
            "otlp" => SinkKind::Otlp {
                endpoint: url(obj.get("endpoint"), "endpoint")?,
                headers,
            },
            other => {
                return Err(format!(
                    "`type` {other:?} is not an export sink (async_webhook or otlp)"
                ));
            }
        };
        let name = sink_name(obj, &kind)?;
        let matcher = match opt_str(obj.get("matcher"), "matcher")? {
            None => None,
            Some(m) if m.trim().is_empty() || m.trim() == "*" => None,
            Some(m) => Some(m.to_string()),
        };
        Ok(SinkSpec {
            name,
            kind,
            events: events(obj.get("event"))?,
            matcher,
            batch_size: number(obj.get("batch_size"), "batch_size", 1, 1000)?
                .map_or(DEFAULT_BATCH_SIZE, |n| n as u32),
            flush_interval_ms: number(
                obj.get("flush_interval_ms"),
                "flush_interval_ms",
                10,
                3_600_000,
            )?
            .unwrap_or(DEFAULT_FLUSH_INTERVAL_MS),
            timeout_ms: number(obj.get("timeout_ms"), "timeout_ms", 100, 60_000)?
                .unwrap_or(DEFAULT_TIMEOUT_MS),
            max_spool_bytes: number(
                obj.get("max_spool_bytes"),
                "max_spool_bytes",
                65_536,
                1 << 30,
            )?
            .unwrap_or(DEFAULT_MAX_SPOOL_BYTES),
            redact: match obj.get("redact") {
                None => true,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err("`redact` must be true or false".into()),
            },
            retries: number(
                obj.get("retries"),
                "retries",
                0,
                crate::config::hooks_toml::MAX_SINK_RETRIES,
            )?
            .map(|n| n as u32),
        })
    }

    /// A spec with every default, for `kind` (used by the environment switches and tests).
    pub fn with_defaults(kind: SinkKind) -> SinkSpec {
        SinkSpec {
            name: derived_name(&kind),
            kind,
            events: Vec::new(),
            matcher: None,
            batch_size: DEFAULT_BATCH_SIZE,
            flush_interval_ms: DEFAULT_FLUSH_INTERVAL_MS,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            max_spool_bytes: DEFAULT_MAX_SPOOL_BYTES,
            redact: true,
            retries: None,
        }
    }

    /// Whether this sink receives `event` about `tool`: a neutral hook name, or for a
    /// notification sink a lifecycle event of its `on` list. Which kind of event goes to which
    /// kind of sink is the callers' choice (the export capability hands hook events to the
    /// other sinks, `capabilities::run_events` lifecycle events to notification sinks): the
    /// names overlap (`session-end` is both).
    pub fn accepts(&self, event: &str, tool: Option<&str>) -> bool {
        let event_ok =
            self.events.is_empty() || self.events.iter().any(|e| event_matches(e, event));
        let tool_ok = match (&self.matcher, TOOL_EVENTS.contains(&event)) {
            // The same matcher as the user hooks' (alternatives, `*` globs), so one entry reads
            // the same whatever its type.
            (Some(m), true) => tool.is_some_and(|t| {
                crate::config::hooks_toml::matcher::Matcher::parse(m)
                    .is_ok_and(|m| m.accepts(Some(t)))
            }),
            _ => true,
        };
        event_ok && tool_ok
    }
}

fn event_matches(pattern: &str, event: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => event.starts_with(prefix),
        None => pattern == event,
    }
}

/// `kind-<16 hex>` from the destination, so that the same URL keeps the same spool.
/// The entry's `name`, checked, or the one derived from its kind.
fn sink_name(obj: &Map<String, Value>, kind: &SinkKind) -> Result<String, String> {
    match opt_str(obj.get("name"), "name")? {
        Some(n) if is_sink_name(n) => Ok(n.to_string()),
        Some(n) => Err(format!(
            "`name` must match [A-Za-z0-9_-]{{1,64}}, not {n:?}"
        )),
        None => Ok(derived_name(kind)),
    }
}

fn derived_name(kind: &SinkKind) -> String {
    match kind {
        SinkKind::BatchWebhook { url, .. } => format!("webhook-{:016x}", fnv1a(url.as_bytes())),
        SinkKind::Otlp { endpoint, .. } => format!(
            "otlp-{:016x}",
            fnv1a(endpoint.as_deref().unwrap_or("").as_bytes())
        ),
        SinkKind::Notify(t) => format!(
            "notify-{}-{:016x}",
            t.service.name(),
            fnv1a(format!("{}\n{}", t.url, t.chat_id.as_deref().unwrap_or("")).as_bytes())
        ),
    }
}

/// The most lifecycle records folded into one chat message (`20 runs ended: …`).
pub const NOTIFY_FOLD: u32 = 20;

/// A `type = "notify"` entry: its target and `on` list; one message per batch of up to
/// [`NOTIFY_FOLD`] records (a burst is one message listing them, acknowledged as a whole);
/// always redacted; `event` and `matcher`, if written, change nothing (the lifecycle events
/// are not hook events).
fn notify_spec(obj: &serde_json::Map<String, Value>) -> Result<SinkSpec, String> {
    for key in obj.keys() {
        let common = ["type", "event", "matcher", "enabled", "timeout_ms", "name"];
        if !common.contains(&key.as_str())
            && !crate::config::hooks_toml::notify::ENTRY_KEYS.contains(&key.as_str())
        {
            return Err(format!("`{key}` does not apply to type \"notify\""));
        }
    }
    let (target, on) = crate::config::hooks_toml::notify::from_entry(obj)?;
    let kind = SinkKind::Notify(target);
    let name = sink_name(obj, &kind)?;
    Ok(SinkSpec {
        name,
        kind,
        events: on,
        matcher: None,
        batch_size: NOTIFY_FOLD,
        flush_interval_ms: DEFAULT_FLUSH_INTERVAL_MS,
        timeout_ms: number(obj.get("timeout_ms"), "timeout_ms", 100, 60_000)?
            .unwrap_or(DEFAULT_TIMEOUT_MS),
        max_spool_bytes: DEFAULT_MAX_SPOOL_BYTES,
        redact: true,
        retries: None,
    })
}

/// FNV-1a, 64 bits: a stable, dependency-free name hash (not a security boundary).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

pub(crate) fn is_sink_name(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && s.as_bytes()[0].is_ascii_alphanumeric()
}

pub(crate) fn is_env_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

fn opt_str<'a>(v: Option<&'a Value>, key: &str) -> Result<Option<&'a str>, String> {
    match v {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("`{key}` must be a string")),
    }
}

/// An `http://` or `https://` URL with a host: the check `hooks.toml` applies.
pub(crate) use crate::config::hooks_toml::check_url;

fn url(v: Option<&Value>, key: &str) -> Result<Option<String>, String> {
    match opt_str(v, key)? {
        None => Ok(None),
        Some(s) => check_url(s)
            .map(|()| Some(s.to_string()))
            .map_err(|e| format!("`{key}`: {e}")),
    }
}

fn number(v: Option<&Value>, key: &str, min: u64, max: u64) -> Result<Option<u64>, String> {
    match v {
        None => Ok(None),
        Some(n) => match n.as_u64() {
            Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(format!(
                "`{key}` must be a whole number from {min} to {max}"
            )),
        },
    }
}

fn events(v: Option<&Value>) -> Result<Vec<String>, String> {
    let list: Vec<&str> = match v {
        None => return Ok(Vec::new()),
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a
            .iter()
            .map(|e| e.as_str().ok_or("`event` list items must be strings"))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`event` must be a hook name or a list of them".into()),
    };
    if list.iter().any(|e| e.trim() == "*") {
        return Ok(Vec::new());
    }
    list.iter()
        .map(|e| {
            let e = e.trim();
            let known = crate::hooks::HOOKS.iter().any(|h| event_matches(e, h.name));
            if known {
                Ok(e.to_string())
            } else {
                Err(format!("`event` {e:?} names no hook event"))
            }
        })
        .collect()
}

/// Header names are HTTP tokens; values are one line. `${VAR}` stays as written.
pub(crate) fn check_header(name: &str, value: &str) -> Result<(), String> {
    let token = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    if !token {
        return Err(format!("header name {name:?} is not valid"));
    }
    if value.chars().any(|c| c == '\r' || c == '\n' || c == '\0') {
        return Err(format!("header {name} has a line break in its value"));
    }
    Ok(())
}

fn headers(v: Option<&Value>) -> Result<Vec<(String, String)>, String> {
    let Some(v) = v else {
        return Ok(Vec::new());
    };
    let obj = v
        .as_object()
        .ok_or("`headers` must be a table of strings")?;
    obj.iter()
        .map(|(k, v)| {
            let v = v
                .as_str()
                .ok_or_else(|| format!("header {k} must be a string"))?;
            check_header(k, v).map_err(|e| format!("`headers`: {e}"))?;
            Ok((k.clone(), v.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_issue_example_entry_builds_a_webhook_sink() {
        let s = SinkSpec::from_entry(&json!({
            "event": "post-tool-use", "type": "async_webhook",
            "url": "http://127.0.0.1:9000/batch", "batch_size": 50, "flush_interval_ms": 1000,
            "enabled": true
        }))
        .unwrap();
        assert_eq!(s.events, vec!["post-tool-use"]);
        assert_eq!(s.batch_size, 50);
        assert!(s.redact);
        assert!(s.name.starts_with("webhook-"));
        assert!(matches!(
            s.kind,
            SinkKind::BatchWebhook {
                method: Method::Post,
                ..
            }
        ));
        assert!(s.accepts("post-tool-use", Some("Bash")));
        assert!(!s.accepts("stop", None));
    }

    #[test]
    fn headers_keep_their_variable_references() {
        let s = SinkSpec::from_entry(&json!({
            "type": "async_webhook", "url": "https://x.example/b", "method": "put",
            "headers": {"Authorization": "Bearer ${OMC_WEBHOOK_TOKEN}"}, "secret_env": "OMC_KEY"
        }))
        .unwrap();
        let SinkKind::BatchWebhook {
            headers,
            secret_env,
            method,
            ..
        } = &s.kind
        else {
            panic!("{s:?}")
        };
        assert_eq!(headers[0].1, "Bearer ${OMC_WEBHOOK_TOKEN}");
        assert_eq!(secret_env.as_deref(), Some("OMC_KEY"));
        assert_eq!(*method, Method::Put);
    }

    #[test]
    fn matcher_filters_tool_events_only() {
        let s = SinkSpec::from_entry(&json!({
            "type": "otlp", "event": ["post-tool-use", "stop", "subagent-*"], "matcher": "Bash|Edit"
        }))
        .unwrap();
        assert!(s.accepts("post-tool-use", Some("Edit")));
        assert!(!s.accepts("post-tool-use", Some("Read")));
        assert!(!s.accepts("post-tool-use", None));
        assert!(s.accepts("stop", None));
        assert!(s.accepts("subagent-stop", None));
        assert!(!s.accepts("session-start", None));
        let all =
            SinkSpec::from_entry(&json!({"type": "otlp", "event": "*", "matcher": "*"})).unwrap();
        assert!(all.events.is_empty() && all.matcher.is_none());
        assert!(all.accepts("pre-compact", None));
    }

    #[test]
    fn a_hook_named_like_a_lifecycle_event_still_reaches_an_export_sink() {
        // `session-end` is a hook and a notification event; the export sinks want the hook.
        let otlp = SinkSpec::from_entry(&json!({"type": "otlp"})).unwrap();
        assert!(otlp.accepts("session-end", None));
        let notify = SinkSpec::from_entry(&json!({"type": "notify", "service": "slack",
            "url": "${U}", "on": ["run-end"]}))
        .unwrap();
        assert!(notify.accepts("run-end", None));
        assert!(!notify.accepts("session-end", None));
    }

    #[test]
    fn bad_entries_name_the_key() {
        for (entry, key) in [
            (json!({"type": "async_webhook"}), "url"),
            (json!({"type": "async_webhook", "url": "ftp://x"}), "url"),
            (json!({"type": "otlp", "batch_size": 0}), "batch_size"),
            (json!({"type": "otlp", "batch_size": 5000}), "batch_size"),
            (json!({"type": "otlp", "event": "post-tool"}), "event"),
            (json!({"type": "otlp", "redact": "no"}), "redact"),
            (json!({"type": "otlp", "name": "../x"}), "name"),
            (json!({"type": "otlp", "headers": {"X": "a\nb"}}), "headers"),
            (
                json!({"type": "async_webhook", "url": "http://h/", "secret_env": "A B"}),
                "secret_env",
            ),
            (json!({"type": "script"}), "type"),
        ] {
            let e = SinkSpec::from_entry(&entry).unwrap_err();
            assert!(e.contains(key), "{entry}: {e}");
        }
    }

    #[test]
    fn the_same_url_gives_the_same_name() {
        let a = SinkSpec::with_defaults(SinkKind::Otlp {
            endpoint: Some("http://c:4318".into()),
            headers: vec![],
        });
        let b =
            SinkSpec::from_entry(&json!({"type": "otlp", "endpoint": "http://c:4318"})).unwrap();
        assert_eq!(a.name, b.name);
        assert!(is_sink_name(&a.name));
    }
}
