//! OpenTelemetry logs over OTLP/HTTP with the JSON encoding (`application/json`), which the
//! Collector's `otlp` receiver accepts on `/v1/logs` beside protobuf. One log record per
//! event:
//!
//! * resource: `service.name=omc-hooks`, `service.version`, `host.name`, `omc.project` (the
//!   project directory's name);
//! * record: `timeUnixNano` (the hook's time), `observedTimeUnixNano`, severity `INFO`
//!   (`WARN` for `post-tool-use-failure`), `eventName` `omc.hook.<event>`, the redacted payload
//!   as a JSON string body;
//! * attributes: `session.id`, `omc.event.id` (the idempotency key), `omc.event`,
//!   `omc.agent`, and when known `omc.tool`, `omc.mode`, `omc.iteration`,
//!   `omc.failure_count`.
//!
//! Field names are the lowerCamelCase of the proto, 64-bit integers are decimal strings and
//! enums are numbers, as the OTLP/JSON specification asks.

use super::ExportEvent;
use serde_json::{Value, json};

/// The standard variables, most specific first.
const LOGS_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT";
const ENDPOINT: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
const HEADERS: &str = "OTEL_EXPORTER_OTLP_HEADERS";
const LOGS_HEADERS: &str = "OTEL_EXPORTER_OTLP_LOGS_HEADERS";
const PROTOCOL: &str = "OTEL_EXPORTER_OTLP_PROTOCOL";
const LOGS_PROTOCOL: &str = "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL";
/// The specification's default for OTLP/HTTP.
const DEFAULT_ENDPOINT: &str = "http://localhost:4318";

/// Where to send and with which headers (configured ones last, so they win), from the spec's
/// own values and the standard variables; plus a note when the variables ask for a protocol
/// other than http/json.
pub struct Target {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub note: Option<String>,
}

/// Resolves the target of an OTLP sink. `get` reads the flusher's environment.
pub fn target(
    endpoint: Option<&str>,
    headers: &[(String, String)],
    get: impl Fn(&str) -> Option<String>,
) -> Result<Target, String> {
    let set = |k: &str| {
        get(k)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let url = match (endpoint, set(LOGS_ENDPOINT), set(ENDPOINT)) {
        (Some(base), _, _) => logs_url(base),
        (None, Some(full), _) => full,
        (None, None, Some(base)) => logs_url(&base),
        (None, None, None) => logs_url(DEFAULT_ENDPOINT),
    };
    super::spec::check_url(&url)?;
    let mut all: Vec<(String, String)> = Vec::new();
    for var in [HEADERS, LOGS_HEADERS] {
        let list =
            super::sources::header_list(set(var).as_deref()).map_err(|e| format!("{var}: {e}"))?;
        merge(&mut all, list);
    }
    merge(&mut all, headers.to_vec());
    let note = set(LOGS_PROTOCOL)
        .or_else(|| set(PROTOCOL))
        .filter(|p| p != "http/json")
        .map(|p| format!("OTLP protocol {p:?} is not supported; sending http/json"));
    Ok(Target {
        url,
        headers: all,
        note,
    })
}

/// `base` + `/v1/logs`, unless it already names the logs path.
fn logs_url(base: &str) -> String {
    let b = base.trim_end_matches('/');
    if b.ends_with("/v1/logs") {
        b.to_string()
    } else {
        format!("{b}/v1/logs")
    }
}

/// Adds `more` to `all`, a later header replacing an earlier one of the same name.
fn merge(all: &mut Vec<(String, String)>, more: Vec<(String, String)>) {
    for (k, v) in more {
        all.retain(|(n, _)| !n.eq_ignore_ascii_case(&k));
        all.push((k, v));
    }
}

/// The `ExportLogsServiceRequest` for `events`, as JSON.
pub fn body(events: &[ExportEvent], project: &str, host: &str, observed_ms: i64) -> Vec<u8> {
    let version = env!("CARGO_PKG_VERSION");
    let records: Vec<Value> = events.iter().map(|e| record(e, observed_ms)).collect();
    let req = json!({
        "resourceLogs": [{
            "resource": {"attributes": [
                str_attr("service.name", "omc-hooks"),
                str_attr("service.version", version),
                str_attr("host.name", host),
                str_attr("omc.project", project),
            ]},
            "scopeLogs": [{
                "scope": {"name": "omc-hooks", "version": version},
                "logRecords": records,
            }],
        }]
    });
    serde_json::to_vec(&req).unwrap_or_default()
}

fn record(e: &ExportEvent, observed_ms: i64) -> Value {
    let nanos = |ms: i64| (i128::from(ms.max(0)) * 1_000_000).to_string();
    let mut attrs = vec![
        str_attr("omc.event.id", &e.id),
        str_attr("omc.event", &e.event),
        str_attr("omc.agent", &e.agent),
    ];
    if let Some(s) = &e.session_id {
        attrs.push(str_attr("session.id", s));
    }
    if let Some(t) = &e.tool {
        attrs.push(str_attr("omc.tool", t));
    }
    if let Some(m) = &e.mode {
        attrs.push(str_attr("omc.mode", m));
    }
    if let Some(i) = e.iteration {
        attrs.push(int_attr("omc.iteration", i64::from(i)));
    }
    if let Some(f) = e.failure_count {
        attrs.push(int_attr("omc.failure_count", i64::from(f)));
    }
    let (number, text) = if e.event == "post-tool-use-failure" {
        (13, "WARN")
    } else {
        (9, "INFO")
    };
    json!({
        "timeUnixNano": nanos(e.timestamp_ms),
        "observedTimeUnixNano": nanos(observed_ms),
        "severityNumber": number,
        "severityText": text,
        "eventName": format!("omc.hook.{}", e.event),
        "body": {"stringValue": e.payload.to_string()},
        "attributes": attrs,
    })
}

fn str_attr(key: &str, v: &str) -> Value {
    json!({"key": key, "value": {"stringValue": v}})
}

fn int_attr(key: &str, v: i64) -> Value {
    json!({"key": key, "value": {"intValue": v.to_string()}})
}

/// Reads an OTLP `ExportLogsServiceResponse`: a note when it reports rejected records
/// (partial success is final: the specification forbids retrying it).
pub fn partial_success(response: &str) -> Option<String> {
    let v: Value = serde_json::from_str(response).ok()?;
    let p = v.get("partialSuccess")?;
    let rejected = match p.get("rejectedLogRecords")? {
        Value::String(s) => s.parse::<u64>().ok()?,
        n => n.as_u64()?,
    };
    (rejected > 0).then(|| {
        let msg = p.get("errorMessage").and_then(Value::as_str).unwrap_or("");
        format!("the collector rejected {rejected} log record(s): {msg}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn endpoint_precedence_follows_the_specification() {
        let t = target(None, &[], env(&[])).unwrap();
        assert_eq!(t.url, "http://localhost:4318/v1/logs");
        let t = target(None, &[], env(&[(ENDPOINT, "http://c:4318/")])).unwrap();
        assert_eq!(t.url, "http://c:4318/v1/logs");
        let t = target(
            None,
            &[],
            env(&[
                (ENDPOINT, "http://c:4318"),
                (LOGS_ENDPOINT, "http://l:1/custom"),
            ]),
        )
        .unwrap();
        assert_eq!(t.url, "http://l:1/custom");
        let t = target(
            Some("http://mine:4318/v1/logs"),
            &[],
            env(&[(LOGS_ENDPOINT, "http://l:1/x")]),
        )
        .unwrap();
        assert_eq!(t.url, "http://mine:4318/v1/logs");
    }

    #[test]
    fn headers_merge_with_configured_ones_last() {
        let t = target(
            None,
            &[("x-b".into(), "mine".into())],
            env(&[
                (HEADERS, "x-a=1,x-b=2"),
                (LOGS_HEADERS, "x-a=3"),
                (PROTOCOL, "grpc"),
            ]),
        )
        .unwrap();
        assert_eq!(
            t.headers,
            vec![("x-a".into(), "3".into()), ("x-b".into(), "mine".into())]
        );
        assert!(t.note.unwrap().contains("grpc"));
        assert!(
            target(None, &[], env(&[(PROTOCOL, "http/json")]))
                .unwrap()
                .note
                .is_none()
        );
    }

    #[test]
    fn partial_success_is_reported() {
        assert!(
            partial_success(
                r#"{"partialSuccess":{"rejectedLogRecords":"2","errorMessage":"bad"}}"#
            )
            .unwrap()
            .contains('2')
        );
        assert_eq!(partial_success("{}"), None);
        assert_eq!(partial_success(r#"{"partialSuccess":{}}"#), None);
    }
}
