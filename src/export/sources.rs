//! Where the sinks come from: the `OMC_EXPORT_*` environment switches, and sink entries of the
//! configuration files (`hooks.toml`, loaded by the user hooks module).
//!
//! The environment switches exist for export that should follow a person or a machine rather
//! than a project: put them in the agent's environment (for Claude Code, the `env` object of
//! `~/.claude/settings.json` or of managed settings) and every project exports. They are
//! `OMC_`-prefixed on purpose: an `OTEL_*` variable set for the agent's own telemetry must not
//! switch our export on, and Claude Code removes `OTEL_*` from a hook's environment anyway.

use super::spec::{self, Method, SinkKind, SinkSpec};
use crate::config::hooks_toml::Loaded;
use crate::env::Env;
use crate::state::Store;

// The variables' names live with the rest of the environment (`crate::env`), which copies
// them into a hook's table without having to know about export.
pub use crate::env::export_vars::{
    BATCH_SIZE, FLUSH_INTERVAL_MS, LINGER_MS, OTLP, OTLP_HEADERS, REDACT, VARS, WEBHOOK_HEADERS,
    WEBHOOK_SECRET, WEBHOOK_URL,
};

/// Every sink configured for this project: the environment's, then the configuration files'.
/// Problems are reported on stderr, once each, and the sink concerned is left out.
pub fn all(store: &Store, env: &Env) -> Vec<SinkSpec> {
    all_in(&crate::config::hooks_toml::load(env, Some(store)), env)
}

/// [`all`] with the configuration files already loaded (a hook reads them once).
pub fn all_in(loaded: &Loaded, env: &Env) -> Vec<SinkSpec> {
    let (mut sinks, errors) = from_env(|k| env.var(k).map(str::to_string));
    for e in errors {
        crate::diag!("export: {e}; that sink is off");
    }
    sinks.extend(configured_in(loaded, env));
    sinks
}

/// Sinks from configuration files (`type = "async_webhook"` / `"otlp"` entries of trusted
/// `hooks.toml` files, mapped with [`SinkSpec::from_entry`]). The loader belongs to the user
/// hooks module, which applies trust: an untrusted project file configures no sink.
pub fn configured(store: &Store, env: &Env) -> Vec<SinkSpec> {
    configured_in(&crate::config::hooks_toml::load(env, Some(store)), env)
}

/// [`configured`] from the configuration files already loaded (a hook reads them once).
pub fn configured_in(loaded: &Loaded, env: &Env) -> Vec<SinkSpec> {
    crate::config::hooks_toml::export_entries(loaded, env)
        .iter()
        .filter_map(|e| {
            SinkSpec::from_entry(e)
                .map_err(|m| crate::diag!("hooks.toml sink: {m}; that sink is off"))
                .ok()
        })
        .collect()
}

/// The sinks the `OMC_EXPORT_*` variables switch on, and the reasons any was refused.
pub fn from_env(get: impl Fn(&str) -> Option<String>) -> (Vec<SinkSpec>, Vec<String>) {
    let mut sinks = Vec::new();
    let mut errors = Vec::new();
    let set = |k: &str| {
        get(k)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let tune = |mut s: SinkSpec, errors: &mut Vec<String>| {
        if let Some(v) = set(BATCH_SIZE) {
            match v.parse::<u32>() {
                Ok(n) if (1..=spec::MAX_BATCH_SIZE).contains(&n) => s.batch_size = n,
                _ => errors.push(format!("{BATCH_SIZE}={v:?} is not 1..=1000; using 50")),
            }
        }
        if let Some(v) = set(FLUSH_INTERVAL_MS) {
            match v.parse::<u64>() {
                Ok(n) if (10..=3_600_000).contains(&n) => s.flush_interval_ms = n,
                _ => errors.push(format!(
                    "{FLUSH_INTERVAL_MS}={v:?} is not 10..=3600000; using 1000"
                )),
            }
        }
        if set(REDACT)
            .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "0" | "false" | "off"))
        {
            s.redact = false;
        }
        s
    };
    if let Some(v) = set(OTLP) {
        let endpoint = match v.to_ascii_lowercase().as_str() {
            "0" | "false" | "off" | "no" => None,
            "1" | "true" | "on" | "yes" => Some(None),
            _ => match spec::check_url(&v) {
                Ok(()) => Some(Some(v.clone())),
                Err(e) => {
                    errors.push(format!("{OTLP}: {e}"));
                    None
                }
            },
        };
        if let Some(endpoint) = endpoint {
            match header_list(set(OTLP_HEADERS).as_deref()) {
                Ok(headers) => {
                    let s = SinkSpec::with_defaults(SinkKind::Otlp { endpoint, headers });
                    sinks.push(tune(s, &mut errors));
                }
                Err(e) => errors.push(format!("{OTLP_HEADERS}: {e}")),
            }
        }
    }
    if let Some(url) = set(WEBHOOK_URL) {
        let headers = header_list(set(WEBHOOK_HEADERS).as_deref());
        match (spec::check_url(&url), headers) {
            (Ok(()), Ok(headers)) => {
                let s = SinkSpec::with_defaults(SinkKind::BatchWebhook {
                    url,
                    method: Method::Post,
                    headers,
                    secret_env: set(WEBHOOK_SECRET).map(|_| WEBHOOK_SECRET.to_string()),
                });
                sinks.push(tune(s, &mut errors));
            }
            (Err(e), _) => errors.push(format!("{WEBHOOK_URL}: {e}")),
            (_, Err(e)) => errors.push(format!("{WEBHOOK_HEADERS}: {e}")),
        }
    }
    (sinks, errors)
}

/// `name=value,name2=value2` as in `OTEL_EXPORTER_OTLP_HEADERS`: names trimmed, values
/// percent-decoded (the OpenTelemetry convention for commas and spaces in values).
pub fn header_list(v: Option<&str>) -> Result<Vec<(String, String)>, String> {
    let Some(v) = v else {
        return Ok(Vec::new());
    };
    v.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|pair| {
            let (k, val) = pair
                .split_once('=')
                .ok_or_else(|| format!("{pair:?} is not name=value"))?;
            let (k, val) = (k.trim(), percent_decode(val.trim()));
            spec::check_header(k, &val)?;
            Ok((k.to_string(), val))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> (Vec<SinkSpec>, Vec<String>) {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        from_env(|k| m.get(k).cloned())
    }

    #[test]
    fn nothing_is_on_without_an_omc_switch() {
        let (s, e) = env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "a=b"),
            (OTLP, "0"),
        ]);
        assert!(s.is_empty() && e.is_empty());
    }

    #[test]
    fn otlp_switch_takes_a_flag_or_an_endpoint() {
        let (s, _) = env(&[(OTLP, "1")]);
        assert_eq!(
            s[0].kind,
            SinkKind::Otlp {
                endpoint: None,
                headers: vec![]
            }
        );
        let (s, _) = env(&[
            (OTLP, "http://c:4318"),
            (OTLP_HEADERS, "x-key=${K}, a=b%2Cc"),
        ]);
        assert_eq!(
            s[0].kind,
            SinkKind::Otlp {
                endpoint: Some("http://c:4318".into()),
                headers: vec![("x-key".into(), "${K}".into()), ("a".into(), "b,c".into())]
            }
        );
        let (s, e) = env(&[(OTLP, "c:4318")]);
        assert!(s.is_empty());
        assert!(e[0].contains(OTLP));
    }

    #[test]
    fn webhook_switch_names_its_secret_variable_not_the_secret() {
        let (s, e) = env(&[
            (WEBHOOK_URL, "http://127.0.0.1:9/b"),
            (WEBHOOK_SECRET, "k3y"),
            (BATCH_SIZE, "7"),
            (FLUSH_INTERVAL_MS, "250"),
            (REDACT, "off"),
        ]);
        assert!(e.is_empty(), "{e:?}");
        let SinkKind::BatchWebhook { secret_env, .. } = &s[0].kind else {
            panic!()
        };
        assert_eq!(secret_env.as_deref(), Some(WEBHOOK_SECRET));
        assert!(!serde_json::to_string(&s[0]).unwrap().contains("k3y"));
        assert_eq!(
            (s[0].batch_size, s[0].flush_interval_ms, s[0].redact),
            (7, 250, false)
        );
    }
}
