//! `hooks.toml`: where the two files are, how each is read (once, as bytes — the bytes that are
//! hashed for trust are the bytes that are parsed), and how every `[[hooks]]` entry is checked.
//!
//! A broken file never breaks the plugin: an entry with a mistake is disabled and reported with
//! the line it starts on, the others stay; a syntax error disables only the entry it falls in
//! (the file is then parsed entry by entry). The rules here and `state-schema/hooks-toml.schema.json`
//! describe the same file; a test feeds both the same corpus.

pub mod matcher;
pub mod notify;
pub mod syntax;

use crate::env::{Env, user_config_dir};
use crate::state::{Store, trust};
use crate::terminal::clip;
use matcher::Matcher;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::Duration;
pub use syntax::{check_url, is_env_name};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// The file's name, in the project's `.omc/` and in the user's `omc-hooks` config directory.
pub const FILE_NAME: &str = "hooks.toml";

/// A hooks file larger than this is not read (it is configuration, not data).
pub const MAX_FILE_BYTES: usize = 256 * 1024;

/// Used when an entry gives no `timeout_ms`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(1_000);
/// The largest `timeout_ms` accepted; the hook's own budget cuts it further at run time.
pub const MAX_TIMEOUT_MS: u64 = 60_000;
/// Attempts after the first, for a webhook without `retries`.
pub const DEFAULT_RETRIES: u32 = 2;
pub const MAX_RETRIES: u32 = 10;

/// Where a file comes from. Project files run only once trusted; the user's file is theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    User,
    Project,
}

impl Origin {
    pub fn label(self) -> &'static str {
        match self {
            Origin::User => "user",
            Origin::Project => "project",
        }
    }
}

/// One `hooks.toml` as read: its bytes' hash, its usable entries and what is wrong with it.
#[derive(Debug, Clone)]
pub struct HookFile {
    pub origin: Origin,
    pub path: PathBuf,
    /// Lowercase hex SHA-256 of the exact bytes parsed.
    pub sha256: String,
    /// The valid entries, in file order (disabled ones included, with `enabled: false`).
    pub entries: Vec<Entry>,
    /// Mistakes (each disables an entry, or the whole file) and warnings, in file order.
    pub problems: Vec<Problem>,
}

/// A file that exists but could not be read at all (a symlink, too large, unreadable).
#[derive(Debug, Clone)]
pub struct Unreadable {
    pub origin: Origin,
    pub path: PathBuf,
    pub error: String,
}

/// Both files, user first.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub files: Vec<HookFile>,
    pub unreadable: Vec<Unreadable>,
}

impl Loaded {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.unreadable.is_empty()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The entry (or, with no entry, the file) is disabled.
    Error,
    /// Kept running; `doctor` shows it.
    Warning,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub severity: Severity,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based position of the `[[hooks]]` entry it concerns, if any.
    pub entry: Option<usize>,
    pub message: String,
}

impl Problem {
    /// `line 9: entry 2: …`
    pub fn describe(&self) -> String {
        let mut s = String::new();
        if let Some(l) = self.line {
            s.push_str(&format!("line {l}: "));
        }
        if let Some(e) = self.entry {
            s.push_str(&format!("entry {e}: "));
        }
        s.push_str(&self.message);
        s
    }
}

/// One valid `[[hooks]]` entry.
#[derive(Debug, Clone)]
pub struct Entry {
    /// 1-based position among the file's `[[hooks]]` tables.
    pub index: usize,
    /// The line of its `[[hooks]]` header.
    pub line: usize,
    pub name: Option<String>,
    /// Event patterns: neutral hook names, `*`, or `subagent-*`.
    pub events: Vec<String>,
    pub matcher: Matcher,
    pub kind: Kind,
    pub timeout: Duration,
    pub enabled: bool,
    /// permission-request: a `block` also stops the agent's turn (Claude Code's `interrupt`).
    pub interrupt: bool,
    /// A template of text for the model (`{{tool_name}}`, `{{tool_args}}`, …), expanded and
    /// added beside the entry's own answer.
    pub additional_context: Option<String>,
    /// The entry as JSON, every key as written (export reads its sink keys from here).
    pub raw: Value,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// `/bin/sh -c <command>` from the project root.
    Script { command: String },
    /// A synchronous HTTP call whose answer is read like a script's stdout.
    Webhook {
        url: String,
        method: Method,
        /// Values as written: `${VAR}` is expanded only when the request is made.
        headers: Vec<(String, String)>,
        retries: u32,
    },
    /// `async_webhook` or `otlp`: handed to export, never run in the hook.
    Export { sink_type: String },
    /// Only `additional_context`: its text, expanded, with no command to run.
    Context,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Post,
    Put,
}

impl Entry {
    /// Whether this entry serves hook `event`.
    /// A permission request is answered only by an entry that names it: a catch-all entry
    /// written for other events must not approve tool calls by accident.
    pub fn serves(&self, event: &str) -> bool {
        if event == PERMISSION_REQUEST {
            return self.events.iter().any(|p| p == event);
        }
        self.events.iter().any(|p| event_matches(p, event))
    }

    /// `entry 2 (line 9, script "sh ci/guard.sh")`, for diagnostics. Never shows a header.
    pub fn label(&self) -> String {
        let what = match &self.kind {
            Kind::Script { command } => format!("script {:?}", clip(command, 60)),
            Kind::Webhook { url, .. } => format!("webhook {url}"),
            Kind::Export { sink_type } => sink_type.clone(),
            Kind::Context => "additional_context".to_string(),
        };
        match &self.name {
            Some(n) => format!("{n:?} (entry {}, line {}, {what})", self.index, self.line),
            None => format!("entry {} (line {}, {what})", self.index, self.line),
        }
    }
}

/// The hook that answers the client's permission dialog.
pub const PERMISSION_REQUEST: &str = "permission-request";

/// `*` (every event), a hook name, or a prefix pattern such as `subagent-*`.
pub fn event_matches(pattern: &str, event: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => event.starts_with(prefix),
        None => pattern == event,
    }
}

#[cfg(test)]
thread_local! {
    /// How many times [`load`] ran on this thread: a hook reads the files once
    /// (`dispatch`'s tests).
    pub static LOADS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Loads the user's file and the project's (in that order). With neither present this costs
/// one `lstat` each and allocates nothing else.
pub fn load(env: &Env, store: Option<&Store>) -> Loaded {
    #[cfg(test)]
    LOADS.with(|n| n.set(n.get() + 1));
    let mut loaded = Loaded::default();
    if let Some(dir) = user_config_dir(env) {
        let path = dir.join(FILE_NAME);
        // The user's own file may be a symlink (dotfile managers): it is theirs either way.
        match read_capped(&path) {
            Ok(bytes) => push(&mut loaded, Origin::User, path, Ok(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => push(&mut loaded, Origin::User, path, Err(e.to_string())),
        }
    }
    if let Some(store) = store {
        let path = store.omc_dir().join(FILE_NAME);
        // Through the state module: a symlinked `.omc` or `hooks.toml` is refused, not followed.
        match store.read_person_file(FILE_NAME) {
            Ok(None) => {}
            Ok(Some(bytes)) => push(&mut loaded, Origin::Project, path, Ok(bytes)),
            Err(e) => push(&mut loaded, Origin::Project, path, Err(e.to_string())),
        }
    }
    loaded
}

/// The `async_webhook` and `otlp` entries of the files `loaded` ([`load`]) that may deliver:
/// enabled, valid, from the user's file or a trusted project file; each as its JSON table, in
/// file order (user first). Export builds its sink specs from these.
pub fn export_entries(loaded: &Loaded, env: &Env) -> Vec<Value> {
    if loaded.is_empty() {
        return Vec::new();
    }
    let trusted = trust::read(env);
    loaded
        .files
        .iter()
        .filter(|f| {
            f.origin == Origin::User
                || trust::status_in(&trusted, &trust::key(&f.path), &f.sha256)
                    == trust::Status::Trusted
        })
        .flat_map(|f| f.entries.iter())
        .filter(|e| e.enabled && matches!(e.kind, Kind::Export { .. }))
        .map(|e| e.raw.clone())
        .collect()
}

/// Opens and reads at most one byte more than [`MAX_FILE_BYTES`] (a missing file costs the
/// one failed `open`).
fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut buf)?;
    Ok(buf)
}

fn push(loaded: &mut Loaded, origin: Origin, path: PathBuf, bytes: Result<Vec<u8>, String>) {
    let bytes = match bytes {
        Ok(b) if b.len() > MAX_FILE_BYTES => Err(format!(
            "larger than {} KiB; not read",
            MAX_FILE_BYTES / 1024
        )),
        other => other,
    };
    match bytes {
        Ok(bytes) => loaded.files.push(parse_file(origin, path, &bytes)),
        Err(error) => loaded.unreadable.push(Unreadable {
            origin,
            path,
            error,
        }),
    }
}

/// Lowercase hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Hashes `bytes` and parses exactly those bytes.
pub fn parse_file(origin: Origin, path: PathBuf, bytes: &[u8]) -> HookFile {
    let sha256 = sha256_hex(bytes);
    let (entries, problems) = match std::str::from_utf8(bytes) {
        Ok(text) => parse_text(text),
        Err(e) => (
            Vec::new(),
            vec![Problem {
                severity: Severity::Error,
                line: Some(line_of(bytes, e.valid_up_to())),
                entry: None,
                message: "not valid UTF-8; the whole file is disabled".into(),
            }],
        ),
    };
    HookFile {
        origin,
        path,
        sha256,
        entries,
        problems,
    }
}

/// 1-based line of byte `offset`.
fn line_of(bytes: &[u8], offset: usize) -> usize {
    bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// Parses the whole text; on a syntax error, parses it again entry by entry so that only the
/// broken entry is lost.
pub fn parse_text(text: &str) -> (Vec<Entry>, Vec<Problem>) {
    match DeTable::parse(text) {
        Ok(table) => check_document(text, table.get_ref(), 0, 0),
        Err(_) => parse_in_chunks(text),
    }
}

/// Splits the text before each `[[hooks]]` header line and parses each piece on its own.
fn parse_in_chunks(text: &str) -> (Vec<Entry>, Vec<Problem>) {
    let mut starts = vec![0usize];
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        if offset > 0 && (compact == "[[hooks]]" || compact.starts_with("[[hooks]]#")) {
            starts.push(offset);
        }
        offset += line.len();
    }
    // The first piece holds the first header too unless the file starts with one; count the
    // headers before each piece so that entry numbers stay those of the whole file.
    let first_has_header = text[..starts.get(1).copied().unwrap_or(text.len())]
        .lines()
        .any(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<String>() == "[[hooks]]");
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for (i, start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let piece = &text[*start..end];
        let line_base = line_of(text.as_bytes(), *start) - 1;
        let entry_base = if i == 0 {
            0
        } else {
            i - usize::from(!first_has_header)
        };
        match DeTable::parse(piece) {
            Ok(table) => {
                let (e, p) = check_document(piece, table.get_ref(), line_base, entry_base);
                entries.extend(e);
                problems.extend(p);
            }
            Err(err) => {
                let line = err
                    .span()
                    .map(|s| line_of(piece.as_bytes(), s.start) + line_base);
                let has_entry = i > 0 || first_has_header;
                problems.push(Problem {
                    severity: Severity::Error,
                    line,
                    entry: has_entry.then_some(entry_base + 1),
                    message: format!(
                        "TOML syntax: {}; {} disabled",
                        err.message(),
                        if has_entry {
                            "this entry is"
                        } else {
                            "the lines before the first [[hooks]] are"
                        }
                    ),
                });
            }
        }
    }
    (entries, problems)
}

/// Checks a parsed document (or piece): only `[[hooks]]` at the top level.
fn check_document(
    text: &str,
    table: &DeTable<'_>,
    line_base: usize,
    entry_base: usize,
) -> (Vec<Entry>, Vec<Problem>) {
    let line = |span: std::ops::Range<usize>| line_of(text.as_bytes(), span.start) + line_base;
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for (key, value) in table.iter() {
        if key.get_ref() != "hooks" {
            problems.push(Problem {
                severity: Severity::Warning,
                line: Some(line(key.span())),
                entry: None,
                message: format!(
                    "unknown top-level key `{}` ignored (entries are [[hooks]] tables)",
                    key.get_ref()
                ),
            });
            continue;
        }
        let Some(items) = value.get_ref().as_array() else {
            problems.push(Problem {
                severity: Severity::Error,
                line: Some(line(value.span())),
                entry: None,
                message: "`hooks` must be an array of tables, written [[hooks]]".into(),
            });
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let index = entry_base + i + 1;
            let at = line(item.span());
            let Some(t) = item.get_ref().as_table() else {
                problems.push(Problem {
                    severity: Severity::Error,
                    line: Some(at),
                    entry: Some(index),
                    message: "an entry must be a table".into(),
                });
                continue;
            };
            match check_entry(t, index, at, &line) {
                Ok((entry, warnings)) => {
                    problems.extend(warnings);
                    entries.push(entry);
                }
                Err(p) => problems.push(p),
            }
        }
    }
    (entries, problems)
}

/// Every key an entry may have, by type.
const COMMON_KEYS: &[&str] = &["event", "matcher", "type", "enabled", "timeout_ms", "name"];
const SCRIPT_KEYS: &[&str] = &["command", "shell", "interrupt", "additional_context"];

/// The shells a script entry may name (`shell = "bash"`), and how each runs a command line:
/// the program and the arguments before the command. Without `shell`, `/bin/sh -c` on Unix
/// and `cmd.exe /D /S /C` on Windows (`crate::platform::script_command`).
pub const SHELLS: &[(&str, &str, &[&str])] = &[
    ("sh", "sh", &["-c"]),
    ("bash", "bash", &["-c"]),
    ("zsh", "zsh", &["-c"]),
    (
        "pwsh",
        "pwsh",
        &["-NoProfile", "-NonInteractive", "-Command"],
    ),
    (
        "powershell",
        "powershell",
        &["-NoProfile", "-NonInteractive", "-Command"],
    ),
    ("cmd", "cmd.exe", &[]),
];
const WEBHOOK_KEYS: &[&str] = &[
    "url",
    "method",
    "headers",
    "retries",
    "interrupt",
    "additional_context",
];
const CONTEXT_KEYS: &[&str] = &["additional_context"];
/// The most `retries` an `async_webhook` may ask for (export's flusher honours them).
pub const MAX_SINK_RETRIES: u64 = 10;
const ASYNC_KEYS: &[&str] = &[
    "url",
    "method",
    "headers",
    "retries",
    "secret_env",
    "batch_size",
    "flush_interval_ms",
    "max_spool_bytes",
    "redact",
];
const OTLP_KEYS: &[&str] = &[
    "endpoint",
    "headers",
    "batch_size",
    "flush_interval_ms",
    "max_spool_bytes",
    "redact",
];

/// The entry types.
pub const TYPES: [&str; 6] = [
    "script",
    "webhook",
    "async_webhook",
    "otlp",
    "notify",
    "context",
];

type Lines<'a> = dyn Fn(std::ops::Range<usize>) -> usize + 'a;

/// One entry: every mistake disables it; the first one found is reported.
fn check_entry(
    t: &DeTable<'_>,
    index: usize,
    at: usize,
    line: &Lines<'_>,
) -> Result<(Entry, Vec<Problem>), Problem> {
    let err = |l: usize, message: String| Problem {
        severity: Severity::Error,
        line: Some(l),
        entry: Some(index),
        message: format!("{message}; entry disabled"),
    };
    let get = |k: &str| t.iter().find(|(key, _)| key.get_ref() == k).map(|(_, v)| v);
    let string = |k: &str| -> Result<Option<(String, usize)>, Problem> {
        match get(k) {
            None => Ok(None),
            Some(v) => match v.get_ref().as_str() {
                Some(s) => Ok(Some((s.to_string(), line(v.span())))),
                None => Err(err(line(v.span()), format!("`{k}` must be a string"))),
            },
        }
    };
    let integer = |k: &str, min: u64, max: u64| -> Result<Option<u64>, Problem> {
        match get(k) {
            None => Ok(None),
            Some(v) => match int_value(v.get_ref()) {
                Some(n) if n >= min as i64 && n <= max as i64 => Ok(Some(n as u64)),
                _ => Err(err(
                    line(v.span()),
                    format!("`{k}` must be a whole number from {min} to {max}"),
                )),
            },
        }
    };

    // An entry of only `additional_context` (AtomCode's context template) needs no `type`.
    let (kind_name, kind_line) = match string("type")? {
        Some(t) => t,
        None if get("additional_context").is_some() && get("command").is_none() => {
            ("context".to_string(), at)
        }
        None => {
            return Err(err(
                at,
                "`type` is missing (script, webhook, async_webhook, otlp, notify or context)"
                    .into(),
            ));
        }
    };
    if !TYPES.contains(&kind_name.as_str()) {
        return Err(err(
            kind_line,
            format!(
                "`type` {kind_name:?} is not one of script, webhook, async_webhook, otlp, \
                 notify, context"
            ),
        ));
    }
    let allowed: &[&str] = match kind_name.as_str() {
        "script" => SCRIPT_KEYS,
        "webhook" => WEBHOOK_KEYS,
        "context" => CONTEXT_KEYS,
        "async_webhook" => ASYNC_KEYS,
        "notify" => notify::ENTRY_KEYS,
        _ => OTLP_KEYS,
    };
    for (key, _) in t.iter() {
        let k = key.get_ref().as_ref();
        if !COMMON_KEYS.contains(&k) && !allowed.contains(&k) {
            let hint = if SCRIPT_KEYS.contains(&k)
                || WEBHOOK_KEYS.contains(&k)
                || ASYNC_KEYS.contains(&k)
                || OTLP_KEYS.contains(&k)
                || notify::ENTRY_KEYS.contains(&k)
            {
                format!("`{k}` does not apply to type {kind_name:?}")
            } else {
                format!("unknown key `{k}`")
            };
            return Err(err(line(key.span()), hint));
        }
    }

    let events = match get("event") {
        // A notification follows runs and sessions, not hook events: `event` may be left out.
        None if kind_name == "notify" => vec!["*".to_string()],
        None => {
            return Err(err(
                at,
                "`event` is missing (a hook name such as \"pre-tool-use\", a list, or \"*\")"
                    .into(),
            ));
        }
        Some(v) => events(v.get_ref()).map_err(|m| err(line(v.span()), m))?,
    };
    let export = matches!(kind_name.as_str(), "async_webhook" | "otlp" | "notify");
    let mut warnings = Vec::new();
    let matcher = match string("matcher")? {
        None => Matcher::any(),
        Some((m, l)) => {
            let parsed = Matcher::parse(&m).map_err(|e| err(l, format!("`matcher`: {e}")))?;
            if !parsed.is_any() && !export {
                let without: Vec<&String> = events
                    .iter()
                    .filter(|e| matcher::subject_of(e).is_none())
                    .collect();
                if !without.is_empty() {
                    warnings.push(Problem {
                        severity: Severity::Warning,
                        line: Some(l),
                        entry: Some(index),
                        message: format!(
                            "`matcher` is ignored on {} (nothing to match there)",
                            without
                                .iter()
                                .map(|s| s.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    });
                }
            }
            parsed
        }
    };
    let enabled = match get("enabled") {
        None => true,
        Some(v) => v
            .get_ref()
            .as_bool()
            .ok_or_else(|| err(line(v.span()), "`enabled` must be true or false".into()))?,
    };
    if let Some((name, l)) = string("shell")?
        && !SHELLS.iter().any(|(n, _, _)| *n == name)
    {
        let names: Vec<&str> = SHELLS.iter().map(|(n, _, _)| *n).collect();
        return Err(err(
            l,
            format!("`shell` is {name:?}; use one of {}", names.join(", ")),
        ));
    }
    let interrupt = match get("interrupt") {
        None => false,
        Some(v) => v
            .get_ref()
            .as_bool()
            .ok_or_else(|| err(line(v.span()), "`interrupt` must be true or false".into()))?,
    };
    let additional_context = match string("additional_context")? {
        Some((t, l)) if t.trim().is_empty() => {
            return Err(err(l, "`additional_context` is empty".into()));
        }
        other => other.map(|(t, _)| t),
    };
    // A sink's timeout is one delivery request's (export's own range); a hook's, its run time.
    let min_timeout = if export { 100 } else { 1 };
    let timeout = match integer("timeout_ms", min_timeout, MAX_TIMEOUT_MS)? {
        Some(ms) => Duration::from_millis(ms),
        None => DEFAULT_TIMEOUT,
    };
    let name = match string("name")? {
        Some((n, l)) if !is_name(&n) => {
            return Err(err(
                l,
                format!("`name` must match [A-Za-z0-9_-]{{1,64}}, not {n:?}"),
            ));
        }
        other => other.map(|(n, _)| n),
    };
    let headers = match get("headers") {
        None => Vec::new(),
        Some(v) => headers(v, line).map_err(|(l, m)| err(l, m))?,
    };
    let method = match string("method")? {
        None => Method::Post,
        Some((m, _)) if m.eq_ignore_ascii_case("post") => Method::Post,
        Some((m, _)) if m.eq_ignore_ascii_case("put") => Method::Put,
        Some((m, l)) => return Err(err(l, format!("`method` must be POST or PUT, not {m:?}"))),
    };
    let url = |key: &str| -> Result<Option<String>, Problem> {
        match string(key)? {
            None => Ok(None),
            Some((u, l)) => check_url(&u)
                .map(|()| Some(u))
                .map_err(|m| err(l, format!("`{key}`: {m}"))),
        }
    };
    let raw = Value::Object(
        t.iter()
            .map(|(k, v)| (k.get_ref().to_string(), to_json(v.get_ref())))
            .collect::<Map<_, _>>(),
    );
    let kind = match kind_name.as_str() {
        // The same reader export builds the sink with, so the file and the flusher agree.
        "notify" => {
            let obj = raw.as_object().cloned().unwrap_or_default();
            notify::from_entry(&obj).map_err(|m| err(at, m))?;
            Kind::Export {
                sink_type: kind_name.clone(),
            }
        }
        "context" => {
            if additional_context.is_none() {
                return Err(err(
                    at,
                    "`additional_context` is missing for a context entry".into(),
                ));
            }
            Kind::Context
        }
        // A script of only `additional_context`: the text, with nothing to run.
        "script" if get("command").is_none() && additional_context.is_some() => Kind::Context,
        "script" => {
            let (command, l) = string("command")?
                .ok_or_else(|| err(at, "`command` is missing for a script".into()))?;
            if command.trim().is_empty() {
                return Err(err(l, "`command` is empty".into()));
            }
            if command.contains('\0') {
                return Err(err(l, "`command` holds a NUL byte".into()));
            }
            Kind::Script { command }
        }
        "webhook" => Kind::Webhook {
            url: url("url")?.ok_or_else(|| err(at, "`url` is missing for a webhook".into()))?,
            method,
            headers,
            retries: integer("retries", 0, MAX_RETRIES as u64)?
                .map_or(DEFAULT_RETRIES, |n| n as u32),
        },
        "async_webhook" => {
            url("url")?.ok_or_else(|| err(at, "`url` is missing for an async_webhook".into()))?;
            if let Some((v, l)) = string("secret_env")?
                && !is_env_name(&v)
            {
                return Err(err(
                    l,
                    format!("`secret_env` names the variable that holds the key, not {v:?}"),
                ));
            }
            integer("batch_size", 1, 1000)?;
            integer("flush_interval_ms", 10, 3_600_000)?;
            integer("max_spool_bytes", 65_536, 1 << 30)?;
            // Attempts after the first before an undeliverable batch is dropped and counted.
            integer("retries", 0, MAX_SINK_RETRIES)?;
            redact_flag(get("redact"), line).map_err(|(l, m)| err(l, m))?;
            Kind::Export {
                sink_type: kind_name.clone(),
            }
        }
        _ => {
            url("endpoint")?;
            integer("batch_size", 1, 1000)?;
            integer("flush_interval_ms", 10, 3_600_000)?;
            integer("max_spool_bytes", 65_536, 1 << 30)?;
            redact_flag(get("redact"), line).map_err(|(l, m)| err(l, m))?;
            Kind::Export {
                sink_type: kind_name.clone(),
            }
        }
    };
    Ok((
        Entry {
            index,
            line: at,
            name,
            events,
            matcher,
            kind,
            timeout,
            enabled,
            interrupt,
            additional_context,
            raw,
        },
        warnings,
    ))
}

fn redact_flag(v: Option<&Spanned<DeValue<'_>>>, line: &Lines<'_>) -> Result<(), (usize, String)> {
    match v {
        Some(v) if v.get_ref().as_bool().is_none() => {
            Err((line(v.span()), "`redact` must be true or false".into()))
        }
        _ => Ok(()),
    }
}

fn int_value(v: &DeValue<'_>) -> Option<i64> {
    let i = v.as_integer()?;
    let digits: String = i.as_str().chars().filter(|c| *c != '_').collect();
    let digits = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0o"))
        .or_else(|| digits.strip_prefix("0b"))
        .unwrap_or(&digits);
    i64::from_str_radix(digits, i.radix()).ok()
}

/// What `event` may say: a neutral hook name (a hook subcommand's), `*`, or `subagent-*`.
fn known_event(pattern: &str) -> bool {
    pattern == "*"
        || pattern == "subagent-*"
        || crate::hooks::HOOKS.iter().any(|h| h.name == pattern)
}

fn events(v: &DeValue<'_>) -> Result<Vec<String>, String> {
    let list: Vec<String> = if let Some(s) = v.as_str() {
        vec![s.trim().to_string()]
    } else if let Some(a) = v.as_array() {
        a.iter()
            .map(|e| {
                e.get_ref()
                    .as_str()
                    .map(|s| s.trim().to_string())
                    .ok_or_else(|| "`event` list items must be strings".to_string())
            })
            .collect::<Result<_, _>>()?
    } else {
        return Err("`event` must be a hook name or a list of them".into());
    };
    if list.is_empty() {
        return Err("`event` is an empty list".into());
    }
    for e in &list {
        if !known_event(e) {
            return Err(format!(
                "`event` {e:?} names no hook (session-start, user-prompt-submit, pre-tool-use, \
                 permission-request, post-tool-use, post-tool-use-failure, stop, pre-compact, \
                 session-end, subagent-start, subagent-stop, subagent-*, or *)"
            ));
        }
    }
    Ok(list)
}

fn headers(
    v: &Spanned<DeValue<'_>>,
    line: &Lines<'_>,
) -> Result<Vec<(String, String)>, (usize, String)> {
    let t = v.get_ref().as_table().ok_or((
        line(v.span()),
        "`headers` must be a table of strings".to_string(),
    ))?;
    let mut out = Vec::new();
    for (k, val) in t.iter() {
        let name = k.get_ref().to_string();
        let value = val
            .get_ref()
            .as_str()
            .ok_or((line(val.span()), format!("header {name} must be a string")))?;
        check_header(&name, value).map_err(|m| (line(k.span()), m))?;
        out.push((name, value.to_string()));
    }
    Ok(out)
}

/// Header names are HTTP tokens; values are one line.
pub fn check_header(name: &str, value: &str) -> Result<(), String> {
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

fn is_name(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A TOML value as JSON (datetimes as their text).
fn to_json(v: &DeValue<'_>) -> Value {
    if let Some(s) = v.as_str() {
        return Value::String(s.to_string());
    }
    if let Some(b) = v.as_bool() {
        return Value::Bool(b);
    }
    if v.is_integer() {
        return int_value(v).map_or(Value::Null, Value::from);
    }
    if let Some(f) = v.as_float() {
        return f
            .as_str()
            .replace('_', "")
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number);
    }
    if let Some(d) = v.as_datetime() {
        return Value::String(d.to_string());
    }
    if let Some(a) = v.as_array() {
        return Value::Array(a.iter().map(|e| to_json(e.get_ref())).collect());
    }
    if let Some(t) = v.as_table() {
        return Value::Object(
            t.iter()
                .map(|(k, v)| (k.get_ref().to_string(), to_json(v.get_ref())))
                .collect(),
        );
    }
    Value::Null
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Vec<Entry>, Vec<Problem>) {
        parse_text(text)
    }

    #[test]
    fn the_issue_example_parses() {
        let (entries, problems) = parse(
            r#"
[[hooks]]
event = "pre-tool-use"     # comment
matcher = "Bash"
type = "script"
command = "sh ci/guard.sh"
timeout_ms = 2000
enabled = true

[[hooks]]
event = "post-tool-use"
type = "async_webhook"
url = "http://127.0.0.1:9000/batch"
batch_size = 50
flush_interval_ms = 1000
retries = 3
"#,
        );
        // `retries` on an async webhook is honoured by the flusher (issue 46), not a mistake.
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].line, 2);
        assert_eq!(
            entries[0].kind,
            Kind::Script {
                command: "sh ci/guard.sh".into()
            }
        );
        assert_eq!(entries[0].timeout, Duration::from_millis(2000));
        assert!(entries[0].serves("pre-tool-use"));
        assert!(!entries[0].serves("post-tool-use"));
        assert_eq!(entries[1].line, 10);
        assert_eq!(entries[1].raw["batch_size"], 50);
        assert!(matches!(entries[1].kind, Kind::Export { .. }));
        let (entries, problems) = parse(
            "[[hooks]]\nevent = \"stop\"\ntype = \"async_webhook\"\nurl = \"http://x/\"\nretries = 11\n",
        );
        assert!(entries.is_empty() && problems.len() == 1, "{problems:?}");
    }

    #[test]
    fn a_bad_entry_is_disabled_with_its_line_and_the_others_stay() {
        let (entries, problems) = parse(
            "[[hooks]]\nevent = \"stop\"\ntype = \"script\"\ncomand = \"x\"\n\n\
             [[hooks]]\nevent = \"stop\"\ntype = \"script\"\ncommand = \"true\"\n\n\
             [[hooks]]\nevent = \"nope\"\ntype = \"script\"\ncommand = \"true\"\n",
        );
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].index, 2);
        assert_eq!(problems.len(), 2);
        assert_eq!(problems[0].line, Some(4));
        assert_eq!(problems[0].entry, Some(1));
        assert!(problems[0].message.contains("unknown key `comand`"));
        assert_eq!(problems[1].line, Some(12));
        assert_eq!(problems[1].entry, Some(3));
    }

    #[test]
    fn a_syntax_error_loses_only_its_entry() {
        let text = "[[hooks]]\nevent = \"stop\"\ntype = \"script\"\ncommand = \"ok\"\n\n\
                    [[hooks]]\nevent = \"stop\"\ntype = \"script\"\ncommand = \"unterminated\n\n\
                    [[hooks]]\nevent = \"session-start\"\ntype = \"script\"\ncommand = \"ok too\"\n";
        let (entries, problems) = parse(text);
        assert_eq!(
            entries
                .iter()
                .map(|e| (e.index, e.line))
                .collect::<Vec<_>>(),
            vec![(1, 1), (3, 11)]
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].line, Some(9));
        assert_eq!(problems[0].entry, Some(2));
        assert!(problems[0].message.starts_with("TOML syntax"));
    }

    #[test]
    fn a_syntax_error_before_the_first_entry_keeps_the_entries() {
        let (entries, problems) =
            parse("oops = \n[[hooks]]\nevent = \"stop\"\ntype = \"script\"\ncommand = \"ok\"\n");
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].index, 1);
        assert_eq!(problems[0].line, Some(1));
        assert_eq!(problems[0].entry, None);
    }

    #[test]
    fn wrong_types_and_ranges_name_the_value_line() {
        for (body, needle) in [
            ("timeout_ms = 0", "timeout_ms"),
            ("timeout_ms = \"1\"", "timeout_ms"),
            ("enabled = \"yes\"", "enabled"),
            ("matcher = 3", "matcher"),
            ("name = \"a b\"", "name"),
            ("url = \"x\"", "does not apply"),
        ] {
            let text = format!(
                "[[hooks]]\nevent = \"stop\"\ntype = \"script\"\ncommand = \"c\"\n{body}\n"
            );
            let (entries, problems) = parse(&text);
            assert!(entries.is_empty(), "{body}");
            assert_eq!(problems[0].line, Some(5), "{body}: {problems:?}");
            assert!(problems[0].message.contains(needle), "{body}: {problems:?}");
        }
    }

    #[test]
    fn webhooks_keep_header_templates_and_check_urls() {
        let (entries, problems) = parse(
            "[[hooks]]\nevent = [\"pre-tool-use\", \"stop\"]\ntype = \"webhook\"\n\
             url = \"https://ci.example/hook\"\nmethod = \"put\"\nretries = 1\n\
             [hooks.headers]\nAuthorization = \"Bearer ${OMC_WEBHOOK_TOKEN}\"\n",
        );
        assert!(problems.is_empty(), "{problems:?}");
        let Kind::Webhook {
            url,
            method,
            headers,
            retries,
        } = &entries[0].kind
        else {
            panic!()
        };
        assert_eq!(url, "https://ci.example/hook");
        assert_eq!(*method, Method::Put);
        assert_eq!(*retries, 1);
        assert_eq!(headers[0].1, "Bearer ${OMC_WEBHOOK_TOKEN}");
        let (_, problems) =
            parse("[[hooks]]\nevent = \"stop\"\ntype = \"webhook\"\nurl = \"ftp://x\"\n");
        assert_eq!(problems[0].line, Some(4));
    }

    #[test]
    fn a_matcher_on_an_event_without_a_subject_is_a_warning() {
        let (entries, problems) = parse(
            "[[hooks]]\nevent = \"stop\"\nmatcher = \"Bash\"\ntype = \"script\"\ncommand = \"c\"\n",
        );
        assert_eq!(entries.len(), 1);
        assert_eq!(problems[0].severity, Severity::Warning);
        assert_eq!(problems[0].line, Some(3));
    }

    #[test]
    fn invalid_utf8_disables_the_file() {
        let f = parse_file(Origin::User, PathBuf::from("/x"), b"[[hooks]]\n\xff\n");
        assert!(f.entries.is_empty());
        assert_eq!(f.problems[0].line, Some(2));
        assert_eq!(f.sha256.len(), 64);
    }

    #[test]
    fn sha256_is_the_standard_one() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
