//! One HTTP delivery: the request, its outcome classified for the retry policy, the
//! `${VAR}` expansion of header values and the batch signature. Used by the flusher only.
//!
//! Retry policy (at-least-once): network errors, timeouts, 5xx, 408 and 429 are retried
//! with backoff, without limit; so is a redirect (3xx), which is not followed — the signed
//! batch is not re-sent to a place the sink's configuration does not name — but is not a
//! refusal either: the receiver moved, the batch is kept, and the error names the new
//! location so the person can point the sink at it. Any other status outside 2xx is a
//! refusal, retried three times and then given up on (counted as rejected), so that one batch
//! a receiver will never take cannot hold every later event back.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use std::time::Duration;

/// How a delivery ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Outcome {
    /// 2xx. `note`: something the receiver said that a person should see (an OTLP partial
    /// success).
    Delivered { note: Option<String> },
    /// Worth trying again later.
    Retry(String),
    /// Worth trying again, but not before this long from now: the receiver said so
    /// (`Retry-After`, in seconds or as an HTTP date).
    RetryAfter(String, Duration),
    /// The receiver refused this request.
    Reject(String),
}

/// The request method.
#[derive(Debug, Clone, Copy)]
pub(super) enum Verb {
    Post,
    Put,
}

/// A connection-reusing client for one sink.
pub(super) struct Client {
    agent: ureq::Agent,
}

/// The longest response body read (for error messages and OTLP partial success).
const MAX_RESPONSE_BYTES: u64 = 64 * 1024;

impl Client {
    pub(super) fn new(timeout_ms: u64) -> Client {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_millis(timeout_ms)))
            .http_status_as_error(false)
            .max_redirects(0)
            .build();
        Client {
            agent: ureq::Agent::new_with_config(config),
        }
    }

    /// Sends `body` and classifies the answer. `headers` are sent as given (already expanded).
    /// Returns the outcome and, for a 2xx, the response body.
    pub(super) fn send(
        &self,
        verb: Verb,
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
    ) -> (Outcome, Option<String>) {
        let mut req = match verb {
            Verb::Post => self.agent.post(url),
            Verb::Put => self.agent.put(url),
        };
        for (k, v) in headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let mut resp = match req.send(body) {
            Ok(r) => r,
            Err(e) => return (Outcome::Retry(format!("{url}: {e}")), None),
        };
        let status = resp.status().as_u16();
        let wait = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| retry_after(v, now_ms()));
        let location = resp
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .map(|l| crate::redact::text(l).map_or_else(|| l.to_string(), |(t, _)| t));
        let text = resp
            .body_mut()
            .with_config()
            .limit(MAX_RESPONSE_BYTES)
            .read_to_string()
            .unwrap_or_default();
        let said = || {
            let t: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let t: String = t.chars().take(200).collect();
            if t.is_empty() {
                String::new()
            } else {
                format!(": {t}")
            }
        };
        match status {
            200..=299 => (Outcome::Delivered { note: None }, Some(text)),
            408 | 429 | 500..=599 => match wait {
                Some(w) => (
                    Outcome::RetryAfter(
                        format!(
                            "{url}: HTTP {status}{}; the receiver asks to wait {} s",
                            said(),
                            w.as_secs()
                        ),
                        w,
                    ),
                    None,
                ),
                None => (
                    Outcome::Retry(format!("{url}: HTTP {status}{}", said())),
                    None,
                ),
            },
            300..=399 => (
                Outcome::Retry(format!(
                    "{url}: HTTP {status}, a redirect{}; not followed, the events are kept \
                     and retried: point the sink at the new address",
                    location.map_or_else(String::new, |l| format!(" to {l}"))
                )),
                None,
            ),
            _ => (
                Outcome::Reject(format!("{url}: HTTP {status}{}", said())),
                None,
            ),
        }
    }
}

/// The longest wait a `Retry-After` is taken for: a day (a larger one is a mistake, and the
/// events must go out some day).
pub(super) const MAX_RETRY_AFTER: Duration = Duration::from_secs(24 * 3600);

/// The wait a `Retry-After` value asks for, at `now_ms`: delta seconds (`3600`) or an HTTP
/// date (`Wed, 21 Oct 2026 07:28:00 GMT`); a date past is no wait; capped at
/// [`MAX_RETRY_AFTER`]. `None` when it is neither.
pub(super) fn retry_after(value: &str, now_ms: i64) -> Option<Duration> {
    let v = value.trim();
    let wait = match v.parse::<u64>() {
        Ok(secs) => Duration::from_secs(secs),
        Err(_) => {
            let at = chrono::DateTime::parse_from_rfc2822(v)
                .ok()?
                .timestamp_millis();
            Duration::from_millis(u64::try_from(at - now_ms).unwrap_or(0))
        }
    };
    Some(wait.min(MAX_RETRY_AFTER))
}

pub(super) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Expands `${NAME}` references from `get`. A reference to an unset variable is an error (a
/// request with `Bearer ` and no token helps nobody); `$` not followed by `{` stays as is.
pub(super) fn expand(value: &str, get: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| "an unclosed ${ in a header value".to_string())?;
        let name = &after[..end];
        if !crate::config::hooks_toml::is_env_name(name) {
            return Err(format!("${{{name}}} is not a variable reference"));
        }
        let v = get(name).ok_or_else(|| format!("${{{name}}} is not set"))?;
        out.push_str(&v);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `sha256=<lower-case hex HMAC-SHA256 of body under key>`.
pub(super) fn signature(key: &[u8], body: &[u8]) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes any key");
    mac.update(body);
    let tag = mac.finalize().into_bytes();
    let mut s = String::with_capacity(7 + 64);
    s.push_str("sha256=");
    for b in tag {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
        assert_eq!(
            signature(b"Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let now = 1_792_567_680_000; // 2026-10-21T07:28:00Z
        assert_eq!(retry_after("3600", now), Some(Duration::from_secs(3600)));
        assert_eq!(
            retry_after("Wed, 21 Oct 2026 07:29:30 GMT", now),
            Some(Duration::from_secs(90))
        );
        assert_eq!(
            retry_after("Wed, 21 Oct 2026 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("999999999", now), Some(MAX_RETRY_AFTER));
        assert_eq!(retry_after("soon", now), None);
    }

    #[test]
    fn expansion_resolves_references_and_refuses_unset_ones() {
        let get = |k: &str| (k == "TOKEN").then(|| "t0k".to_string());
        assert_eq!(expand("Bearer ${TOKEN}", get).unwrap(), "Bearer t0k");
        assert_eq!(expand("a $b ${TOKEN}${TOKEN}", get).unwrap(), "a $b t0kt0k");
        assert!(
            expand("Bearer ${MISSING}", get)
                .unwrap_err()
                .contains("MISSING")
        );
        assert!(expand("x ${TOKEN", get).is_err());
        assert!(expand("${A B}", get).is_err());
    }
}
