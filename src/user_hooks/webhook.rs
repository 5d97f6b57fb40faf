//! Calls one synchronous webhook: POST (or PUT) the event JSON, read a JSON answer with the
//! same action schema as a script's stdout. Blocking `ureq`, no async runtime.
//!
//! The whole exchange — every attempt and the pauses between them — fits in the entry's
//! timeout (already cut to what is left of the hook's budget). A transport error, a 5xx or a
//! 429 is retried with a doubling pause while time remains; any other non-2xx, or no answer, is
//! `allow`. Redirects are not followed: a header carrying a token must not be replayed to a
//! host the file did not name.
//!
//! Secrets: header values (and the URL) may hold `${VAR}`, expanded here, in memory, for the
//! request only. Diagnostics name the variable and show the URL as written, never a value.

use crate::env::Env;
use std::io::Read;
use std::time::{Duration, Instant};

use crate::config::hooks_toml::Method;

/// The first pause between attempts; it doubles each time.
const FIRST_BACKOFF: Duration = Duration::from_millis(50);
/// An attempt is not started with less time than this left.
const MIN_ATTEMPT: Duration = Duration::from_millis(20);

pub struct Call<'a> {
    /// As written in the file (may hold `${VAR}`).
    pub url: &'a str,
    pub method: Method,
    /// As written in the file.
    pub headers: &'a [(String, String)],
    pub retries: u32,
    pub event: &'a str,
    pub body: &'a [u8],
    pub timeout: Duration,
}

/// What came back: `Ok(Some(body))` for a 2xx with a body, `Ok(None)` for no usable answer
/// (non-2xx, empty), `Err` for a failure worth a diagnostic.
pub fn call(c: &Call<'_>, env: &Env) -> Result<Option<Vec<u8>>, String> {
    let started = Instant::now();
    let url = expand(c.url, env)
        .map_err(|missing| format!("{} not set, so {} cannot be called", list(&missing), c.url))?;
    let mut headers = Vec::new();
    for (name, template) in c.headers {
        match expand(template, env) {
            Ok(v) => headers.push((name.as_str(), v)),
            Err(missing) => crate::diag!(
                "user hook webhook {}: header {name} left out: {} not set",
                c.url,
                list(&missing)
            ),
        }
    }
    let mut backoff = FIRST_BACKOFF;
    let mut attempt = 0;
    loop {
        let left = c.timeout.saturating_sub(started.elapsed());
        if left < MIN_ATTEMPT {
            return Err(format!("no time left after {attempt} attempt(s)"));
        }
        attempt += 1;
        match once(c, &url, &headers, left) {
            Outcome::Answer(body) => return Ok(body),
            // Not retried: the server answered and meant it.
            Outcome::NoAnswer(status) => return Err(format!("answered HTTP {status}")),
            Outcome::Retry(why) => {
                let left = c.timeout.saturating_sub(started.elapsed());
                if attempt > c.retries || left < backoff + MIN_ATTEMPT {
                    return Err(format!("{why} (after {attempt} attempt(s))"));
                }
                std::thread::sleep(backoff);
                backoff *= 2;
            }
            Outcome::Stop(why) => return Err(why),
        }
    }
}

enum Outcome {
    Answer(Option<Vec<u8>>),
    NoAnswer(u16),
    Retry(String),
    Stop(String),
}

fn once(c: &Call<'_>, url: &str, headers: &[(&str, String)], left: Duration) -> Outcome {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(left))
        .http_status_as_error(false)
        .max_redirects(0)
        .user_agent(concat!("omc-hooks/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut req = match c.method {
        Method::Post => agent.post(url),
        Method::Put => agent.put(url),
    }
    .header("content-type", "application/json")
    .header("x-omc-event", c.event);
    for (name, value) in headers {
        req = req.header(*name, value.as_str());
    }
    let mut resp = match req.send(c.body) {
        Ok(r) => r,
        Err(ureq::Error::Timeout(_)) => {
            return Outcome::Stop(format!("no answer within {} ms", c.timeout.as_millis()));
        }
        // The error text names the URL ureq was given, which may hold an expanded `${VAR}`:
        // say only what kind of failure it was.
        Err(e) => return Outcome::Retry(kind_of(&e)),
    };
    let status = resp.status().as_u16();
    if status == 429 || status >= 500 {
        return Outcome::Retry(format!("answered HTTP {status}"));
    }
    if !(200..300).contains(&status) {
        return Outcome::NoAnswer(status);
    }
    let mut body = Vec::new();
    let limit = super::action::MAX_ANSWER_BYTES as u64 + 1;
    match resp
        .body_mut()
        .as_reader()
        .take(limit)
        .read_to_end(&mut body)
    {
        Ok(_) if body.iter().all(u8::is_ascii_whitespace) => Outcome::Answer(None),
        Ok(_) => Outcome::Answer(Some(body)),
        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
            Outcome::Stop(format!("no answer within {} ms", c.timeout.as_millis()))
        }
        Err(_) => Outcome::Stop("the answer's body could not be read".into()),
    }
}

fn kind_of(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Io(io) => format!("connection failed ({:?})", io.kind()),
        ureq::Error::HostNotFound => "host not found".into(),
        ureq::Error::ConnectionFailed => "connection failed".into(),
        ureq::Error::Tls(_) => "TLS failed".into(),
        ureq::Error::BadUri(_) => "not a usable URL once expanded".into(),
        _ => "request failed".into(),
    }
}

fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Expands every `${NAME}` from `env`; `Err` lists the names that are not set. `$` not followed
/// by `{` is kept as is.
pub fn expand(template: &str, env: &Env) -> Result<String, Vec<String>> {
    let mut out = String::with_capacity(template.len());
    let mut missing = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) if crate::config::hooks_toml::is_env_name(&after[..j]) => {
                let name = &after[..j];
                match env.lookup(name) {
                    Some(v) => out.push_str(&v),
                    None => missing.push(name.to_string()),
                }
                rest = &after[j + 1..];
            }
            _ => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(missing)
    }
}

/// The variable names a template references.
pub fn references(template: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) if crate::config::hooks_toml::is_env_name(&after[..j]) => {
                names.push(after[..j].to_string());
                rest = &after[j + 1..];
            }
            _ => rest = after,
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> Env {
        let extra: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Env::from_lookup(|_| None, None, extra)
    }

    #[test]
    fn expansion() {
        let e = env(&[("TOKEN", "s3cr3t")]);
        assert_eq!(expand("Bearer ${TOKEN}", &e).unwrap(), "Bearer s3cr3t");
        assert_eq!(expand("a $b ${ c", &e).unwrap(), "a $b ${ c");
        assert_eq!(
            expand("${TOKEN}-${NOPE}", &e).unwrap_err(),
            vec!["NOPE".to_string()]
        );
        assert_eq!(references("x ${A} ${b_2} ${}"), vec!["A", "b_2"]);
    }
}
