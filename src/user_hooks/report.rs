//! What `omc-hooks doctor` and `omc-hooks status` say about user hooks: which files exist,
//! whether the project's is trusted, how many entries run, every mistake with its line, and
//! literal secrets in a project file (which is usually committed and shared).

use crate::config::hooks_toml::{self as config, HookFile, Kind, Origin, Severity};
use crate::env::Env;
use crate::state::Store;
use crate::state::trust::{self, Status};
use serde_json::{Value, json};

/// One file's state.
pub struct FileView {
    pub file: HookFile,
    /// `Trusted` for the user's file.
    pub status: Status,
    /// The trust recorded for a project file (who, when, how), with these bytes or others.
    pub record: Option<trust::Trusted>,
}

pub struct View {
    pub files: Vec<FileView>,
    pub unreadable: Vec<config::Unreadable>,
    /// Where the user's file is looked for (shown when there is none).
    pub user_path: Option<std::path::PathBuf>,
}

pub fn inspect(env: &Env, store: Option<&Store>) -> View {
    let loaded = config::load(env, store);
    let trusted = trust::read(env);
    let files = loaded
        .files
        .into_iter()
        .map(|file| {
            let key = trust::key(&file.path);
            let (status, record) = match file.origin {
                Origin::User => (Status::Trusted, None),
                Origin::Project => (
                    trust::status_in(&trusted, &key, &file.sha256),
                    trust::entry_in(&trusted, &key).cloned(),
                ),
            };
            FileView {
                file,
                status,
                record,
            }
        })
        .collect();
    View {
        files,
        unreadable: loaded.unreadable,
        user_path: crate::env::user_config_dir(env).map(|d| d.join(config::FILE_NAME)),
    }
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Trusted => "trusted",
        Status::Untrusted => "NOT TRUSTED",
        Status::Changed => "CHANGED since trusted",
    }
}

fn counts(f: &HookFile) -> String {
    let mut by: Vec<(String, usize)> = Vec::new();
    for e in &f.entries {
        let t = match &e.kind {
            Kind::Script { .. } => "script".to_string(),
            Kind::Webhook { .. } => "webhook".to_string(),
            Kind::Export { sink_type } => sink_type.clone(),
            Kind::Context => "context".to_string(),
        };
        match by.iter_mut().find(|(k, _)| *k == t) {
            Some((_, n)) => *n += 1,
            None => by.push((t, 1)),
        }
    }
    let off = f.entries.iter().filter(|e| !e.enabled).count();
    let errors = f
        .problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count();
    let mut s = format!(
        "{} entr{}",
        f.entries.len(),
        if f.entries.len() == 1 { "y" } else { "ies" }
    );
    if !by.is_empty() {
        s.push_str(&format!(
            " ({})",
            by.iter()
                .map(|(k, n)| format!("{n} {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if off > 0 {
        s.push_str(&format!(", {off} switched off"));
    }
    if errors > 0 {
        s.push_str(&format!(", {errors} disabled by mistakes"));
    }
    s
}

/// One line per file, for `status` (empty when there are no hooks files).
pub fn status_lines(view: &View) -> Vec<String> {
    let mut out = Vec::new();
    for v in &view.files {
        let trust = match v.file.origin {
            Origin::User => String::new(),
            Origin::Project => format!(", {}", status_word(v.status)),
        };
        out.push(format!(
            "{} hooks: {}{trust} — {}",
            v.file.origin.label(),
            v.file.path.display(),
            counts(&v.file)
        ));
    }
    for u in &view.unreadable {
        out.push(format!(
            "{} hooks: {} cannot be read ({}); not run",
            u.origin.label(),
            u.path.display(),
            u.error
        ));
    }
    out
}

/// The same, as JSON for `status --json`.
pub fn status_json(view: &View) -> Value {
    let mut files: Vec<Value> = view
        .files
        .iter()
        .map(|v| {
            json!({
                "origin": v.file.origin.label(),
                "path": v.file.path,
                "sha256": v.file.sha256,
                "trusted": v.status == Status::Trusted,
                "changed_since_trusted": v.status == Status::Changed,
                "entries": v.file.entries.len(),
                "enabled": v.file.entries.iter().filter(|e| e.enabled).count(),
                "errors": v.file.problems.iter().filter(|p| p.severity == Severity::Error).count(),
            })
        })
        .collect();
    files.extend(
        view.unreadable
            .iter()
            .map(|u| json!({"origin": u.origin.label(), "path": u.path, "unreadable": u.error})),
    );
    Value::Array(files)
}

/// What `doctor` prints: `(key, text)` lines, `(what, fix)` problems, notes.
#[derive(Default)]
pub struct Findings {
    pub lines: Vec<(String, String)>,
    pub problems: Vec<(String, String)>,
    pub notes: Vec<String>,
}

pub fn doctor(env: &Env, store: Option<&Store>) -> Findings {
    let view = inspect(env, store);
    let mut r = Findings::default();
    if !view.files.iter().any(|f| f.file.origin == Origin::User)
        && !view.unreadable.iter().any(|u| u.origin == Origin::User)
    {
        r.lines.push((
            "hooks".into(),
            match &view.user_path {
                Some(p) => format!("user: none ({})", p.display()),
                None => "user: none (no HOME or XDG_CONFIG_HOME)".into(),
            },
        ));
    }
    for line in status_lines(&view) {
        r.lines.push(("hooks".into(), line));
    }
    // Who trusted the project's file, and when: trust is a person's word, so it says whose.
    for v in &view.files {
        if let Some(t) = &v.record {
            r.lines.push((
                "hooks".into(),
                format!(
                    "{} was trusted {}{}",
                    v.file.path.display(),
                    t.who_and_when(),
                    if v.status == Status::Changed {
                        " (it has changed since)"
                    } else {
                        ""
                    }
                ),
            ));
        }
    }
    for u in &view.unreadable {
        r.problems.push((
            format!("{} cannot be read: {}; none of its hooks run", u.path.display(), u.error),
            match u.origin {
                Origin::Project => "make .omc/hooks.toml a regular file in the project (a symlink is refused, so that a \
                 repository cannot point it elsewhere), at most 256 KiB"
                    .into(),
                Origin::User => "make it a readable file of at most 256 KiB".into(),
            },
        ));
    }
    for v in &view.files {
        let f = &v.file;
        let path = f.path.display();
        if v.status != Status::Trusted && !f.entries.is_empty() {
            r.problems.push((
                format!(
                    "{path} is {}: its {} hook entr{} do not run",
                    if v.status == Status::Changed {
                        "changed since you trusted it"
                    } else {
                        "not trusted"
                    },
                    f.entries.len(),
                    if f.entries.len() == 1 { "y" } else { "ies" }
                ),
                "read it and the scripts it calls, then run 'omc-hooks trust' in the project"
                    .into(),
            ));
        }
        for p in &f.problems {
            match p.severity {
                Severity::Error => r.problems.push((
                    format!("{path}: {}", p.describe()),
                    "correct it (README, \"User hooks\", lists every key); the other entries run"
                        .into(),
                )),
                Severity::Warning => r.notes.push(format!("{path}: {}", p.describe())),
            }
        }
        for e in &f.entries {
            for ev in crate::hooks::HOOKS.iter().filter(|h| e.serves(h.name)) {
                let budget = super::budget(*ev);
                if e.timeout > budget && !matches!(e.kind, Kind::Export { .. }) {
                    r.notes.push(format!(
                        "{path}: {}: timeout_ms {} is more than the {} ms user hooks get on {}; \
                         it will be cut",
                        e.label(),
                        e.timeout.as_millis(),
                        budget.as_millis(),
                        ev.name
                    ));
                    break;
                }
            }
            // A shell the entry names that this machine lacks: the entry never runs here (a
            // guard written for Windows' pwsh, say), which must not go unsaid.
            if let Kind::Script { .. } = e.kind
                && let Some(program) =
                    super::script::shell_program(e.raw.get("shell").and_then(|v| v.as_str()))
                && !super::script::on_path(program, env.var("PATH").unwrap_or_default())
            {
                r.problems.push((
                    format!(
                        "{path}: {}: its shell `{program}` is not installed here (not found on \
                         PATH), so it never runs on this machine",
                        e.label()
                    ),
                    "install that shell, or give the entry a shell this system has (sh, bash), \
                     or set enabled = false for it here"
                        .into(),
                ));
            }
            if f.origin == Origin::Project {
                for what in literal_secrets(e) {
                    r.problems.push((
                        format!(
                            "{path}: {}: {what} — a literal secret in a project file ends up in \
                             the repository",
                            e.label()
                        ),
                        "reference an environment variable instead, e.g. Authorization = \
                         \"Bearer ${OMC_WEBHOOK_TOKEN}\", and rotate the exposed secret"
                            .into(),
                    ));
                }
            }
        }
    }
    r
}

/// Header names whose value is a credential.
fn sensitive_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "authorization"
        || n == "proxy-authorization"
        || n == "cookie"
        || ["token", "secret", "key", "auth", "password", "signature"]
            .iter()
            .any(|w| n.contains(w))
}

/// Well-known shapes of API keys and tokens.
fn looks_like_token(s: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "sk-",
        "sk_live_",
        "ghp_",
        "gho_",
        "ghs_",
        "github_pat_",
        "glpat-",
        "xoxb-",
        "xoxp-",
        "AKIA",
        "AIza",
        "-----BEGIN",
    ];
    s.split(|c: char| c.is_whitespace() || c == '\'' || c == '"' || c == '=')
        .any(|w| {
            PREFIXES
                .iter()
                .any(|p| w.starts_with(p) && w.len() >= p.len() + 8)
        })
}

/// What in an entry looks like a secret written in clear.
pub fn literal_secrets(e: &config::Entry) -> Vec<String> {
    let mut found = Vec::new();
    let (url, headers): (Option<&str>, Vec<(String, String)>) = match &e.kind {
        Kind::Webhook { url, headers, .. } => (Some(url), headers.clone()),
        Kind::Script { command } => {
            if looks_like_token(command) {
                found.push("`command` holds what looks like an API key".to_string());
            }
            (None, Vec::new())
        }
        Kind::Context => (None, Vec::new()),
        Kind::Export { sink_type } => {
            let url = e.raw.get("url").or_else(|| e.raw.get("endpoint"));
            // A Slack or Discord webhook URL is itself the credential.
            let target = e
                .raw
                .as_object()
                .and_then(|o| crate::config::hooks_toml::notify::from_entry(o).ok());
            if sink_type == "notify"
                && target.is_some_and(|(t, _)| crate::config::hooks_toml::notify::literal_url(&t))
            {
                found.push(
                    "`url` is a webhook URL written in clear (it is the credential): use \"${VARIABLE}\""
                        .to_string(),
                );
            }
            let headers = e
                .raw
                .get("headers")
                .and_then(Value::as_object)
                .map(|h| {
                    h.iter()
                        .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                        .collect()
                })
                .unwrap_or_default();
            (url.and_then(Value::as_str), headers)
        }
    };
    for (name, value) in headers {
        let literal = !value.contains("${");
        let plain = value
            .trim()
            .trim_start_matches("Bearer ")
            .trim_start_matches("Basic ")
            .trim_start_matches("token ");
        if (sensitive_header(&name) && literal && !plain.trim().is_empty())
            || looks_like_token(&value)
        {
            found.push(format!("header {name} holds a literal value"));
        }
    }
    if let Some(url) = url {
        let after_scheme = url.split_once("://").map_or(url, |(_, r)| r);
        let authority = after_scheme.split(['/', '?', '#']).next().unwrap_or("");
        if authority.contains('@') && !authority.contains("${") {
            found.push("`url` holds a user name or password".into());
        }
        if let Some((_, query)) = url.split_once('?') {
            for pair in query.split('&') {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                if sensitive_header(k) && !v.is_empty() && !v.contains("${") {
                    found.push(format!("`url` holds a literal {k}"));
                }
            }
        }
        if looks_like_token(url) {
            found.push("`url` holds what looks like an API key".into());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(toml: &str) -> config::Entry {
        let (mut e, p) = config::parse_text(toml);
        assert!(p.iter().all(|p| p.severity != Severity::Error), "{p:?}");
        e.remove(0)
    }

    #[test]
    fn literal_secrets_are_found_and_references_are_not() {
        let e = entry(
            "[[hooks]]\nevent = \"stop\"\ntype = \"webhook\"\nurl = \"https://x.example/h?token=abc\"\n\
             [hooks.headers]\nAuthorization = \"Bearer abcdef0123456789\"\nX-Trace = \"1\"\n",
        );
        let found = literal_secrets(&e);
        assert_eq!(found.len(), 2, "{found:?}");
        let ok = entry(
            "[[hooks]]\nevent = \"stop\"\ntype = \"webhook\"\nurl = \"https://x.example/h?token=${T}\"\n\
             [hooks.headers]\nAuthorization = \"Bearer ${OMC_WEBHOOK_TOKEN}\"\n",
        );
        assert!(literal_secrets(&ok).is_empty());
        let script = entry(
            "[[hooks]]\nevent = \"stop\"\ntype = \"script\"\ncommand = \"curl -H 'x: ghp_0123456789abcdef' u\"\n",
        );
        assert_eq!(literal_secrets(&script).len(), 1);
        let sink = entry(
            "[[hooks]]\nevent = \"stop\"\ntype = \"async_webhook\"\nurl = \"https://u:p@x.example/\"\n",
        );
        assert_eq!(literal_secrets(&sink).len(), 1);
    }
}
