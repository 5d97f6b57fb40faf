//! `omc-hooks import-atomcode`: AtomCode's hook configuration, where AtomCode keeps it
//! (`~/.atomcode/hooks/hooks.toml`, or `~/.atomcode/hooks.toml`; and its JSON form,
//! `$ATOMCODE_HOME/hooks.json`, `~/.atomcode/hooks.json` by default), converted into entries of
//! the user's own `hooks.toml`, saying what was converted and what was not.
//!
//! An import command rather than reading AtomCode's file at every hook: what runs stays in one
//! file the person can read, and `doctor` checks it as it checks everything else. Only the
//! person's own AtomCode file is read — never a project's `.atomcode/`, which arrives with a
//! cloned repository: its commands would run here without the trust a project's
//! `.omc/hooks.toml` needs (contract §17). Without `--write` nothing is written: the converted
//! entries are printed. The converted text is checked with the same parser the hooks use before
//! it is written, and appended (never replacing what the file holds).
//!
//! The shape of AtomCode's file (`[[hooks]]` scripts with `trigger`, `script`, `script_type`,
//! `timeout_secs`; `[[webhooks]]`; `[[async_webhooks]]`) is as AtomCode's sources describe its
//! TOML engine; its trigger names map onto our hook names by [`TRIGGERS`]. The JSON form is the
//! one AtomCode's own hooks documentation (`docs/hooks.md`) says still fires: `{"hooks": {KEY:
//! {"event", "command", "matcher", "timeout_ms", "disabled"}}}`, Claude Code's event names in
//! PascalCase or snake_case ([`JSON_EVENTS`]), `//` and `/* */` comments allowed.

use super::args::{fail, parse, usage_error};
use crate::config::hooks_toml::{self as config, Severity};
use crate::env::Env;
use std::path::{Path, PathBuf};
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

pub(super) const HELP: &str = "\
Usage: omc-hooks import-atomcode [--write] [--from FILE]

Converts AtomCode's hooks.toml (~/.atomcode/hooks/hooks.toml, else ~/.atomcode/hooks.toml)
and its hooks.json ($ATOMCODE_HOME/hooks.json, else ~/.atomcode/hooks.json), each found, into
entries of your own hooks.toml ($XDG_CONFIG_HOME/omc-hooks, else ~/.config/omc-hooks), and
says what it converted and what it could not. Without --write it only prints them.

  --write       append the converted entries to your hooks.toml
  --from FILE   read this AtomCode file instead (a name ending in .json: the JSON form)

Only your own AtomCode files are read: a project's .atomcode/ or .hooks.json comes with the
repository, and its commands would run without the trust a project's .omc/hooks.toml needs.";

/// AtomCode's JSON events (as written there, PascalCase; the snake_case spelling is accepted
/// too) and the hook each becomes.
const JSON_EVENTS: &[(&str, &str)] = &[
    ("PreToolUse", "pre-tool-use"),
    ("PostToolUse", "post-tool-use"),
    ("PostToolUseFailure", "post-tool-use-failure"),
    ("UserPromptSubmit", "user-prompt-submit"),
    ("SessionStart", "session-start"),
    ("SessionEnd", "session-end"),
    ("Stop", "stop"),
    ("StopFailure", "stop-failure"),
];

/// AtomCode's trigger names and the hook each becomes; `None`: no hook of the clients fires
/// there, so the entry (or that trigger of it) is left out.
const TRIGGERS: &[(&str, Option<&str>)] = &[
    ("pre_tool", Some("pre-tool-use")),
    ("pre_tool_execution", Some("pre-tool-use")),
    ("before_tool", Some("pre-tool-use")),
    ("tool_call_start", Some("pre-tool-use")),
    ("post_tool", Some("post-tool-use")),
    ("post_tool_execution", Some("post-tool-use")),
    ("after_tool", Some("post-tool-use")),
    ("post_turn", Some("stop")),
    ("turn_complete", Some("stop")),
    ("after_turn", Some("stop")),
    ("session_start", Some("session-start")),
    ("session_end", Some("session-end")),
    ("error", Some("post-tool-use-failure")),
    ("turn_start", Some("user-prompt-submit")),
    ("system_prompt", None),
    ("model_response", None),
    ("message", None),
];

/// One converted entry or one left out, for the report.
struct Converted {
    doc: DocumentMut,
    said: Vec<String>,
}

pub(super) fn run(args: &[String], env: &Env) -> i32 {
    let parsed = match parse(args, &["write"], &["from"], false) {
        Ok(p) => p,
        Err(e) => return usage_error("import-atomcode", HELP, &e),
    };
    let home = env.var("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let sources: Vec<PathBuf> = match parsed.value("from") {
        Some(f) => vec![PathBuf::from(f)],
        None => {
            let Some(home) = home else {
                return fail("import-atomcode", "HOME is not set: give --from FILE");
            };
            let (tomls, json) = candidates(&home, env);
            let found = existing(&home, env);
            if found.is_empty() {
                println!(
                    "no AtomCode hooks file ({}, {} or {}): nothing to import",
                    tomls[0].display(),
                    tomls[1].display(),
                    json.display()
                );
                return 0;
            }
            found
        }
    };
    let mut all = ArrayOfTables::new();
    for from in &sources {
        let text = match std::fs::read_to_string(from) {
            Ok(t) => t,
            Err(e) => {
                return fail(
                    "import-atomcode",
                    &format!("cannot read {}: {e}", from.display()),
                );
            }
        };
        let is_json = from.extension().is_some_and(|e| e == "json");
        let converted = if is_json {
            convert_json(&text)
        } else {
            convert(&text, from.parent().unwrap_or(Path::new(".")))
        };
        let converted = match converted {
            Ok(c) => c,
            Err(e) => return fail("import-atomcode", &format!("{}: {e}", from.display())),
        };
        println!("from {}:", from.display());
        for line in &converted.said {
            println!("  {line}");
        }
        if let Some(t) = converted
            .doc
            .get("hooks")
            .and_then(Item::as_array_of_tables)
        {
            for e in t.iter() {
                all.push(e.clone());
            }
        }
    }
    let mut doc = DocumentMut::new();
    if !all.is_empty() {
        doc.insert("hooks", Item::ArrayOfTables(all));
    }
    let from = sources
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" and ");
    let out = doc.to_string();
    if out.trim().is_empty() {
        println!("nothing to convert");
        return 0;
    }
    // The text is checked with the hooks' own parser: what is written is what will run.
    let (_, problems) = config::parse_text(&out);
    if let Some(p) = problems.iter().find(|p| p.severity == Severity::Error) {
        return fail(
            "import-atomcode",
            &format!(
                "the converted entries do not load ({}); nothing written",
                p.message
            ),
        );
    }
    if !parsed.flag("write") {
        println!("\n{out}");
        println!("(not written: run again with --write to append these to your hooks.toml)");
        return 0;
    }
    let Some(dir) = crate::env::user_config_dir(env) else {
        return fail("import-atomcode", "neither XDG_CONFIG_HOME nor HOME is set");
    };
    let target = dir.join(config::FILE_NAME);
    let mut current = match std::fs::read_to_string(&target) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return fail(
                "import-atomcode",
                &format!("cannot read {}: {e}", target.display()),
            );
        }
    };
    if !current.is_empty() && !current.ends_with('\n') {
        current.push('\n');
    }
    let joined = format!(
        "{current}{}# imported from {from} by omc-hooks import-atomcode\n{out}",
        if current.is_empty() { "" } else { "\n" },
    );
    let (_, problems) = config::parse_text(&joined);
    if let Some(p) = problems.iter().find(|p| p.severity == Severity::Error) {
        return fail(
            "import-atomcode",
            &format!(
                "{} with the imported entries would not load ({}); nothing written",
                target.display(),
                p.message
            ),
        );
    }
    if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&target, joined)) {
        return fail(
            "import-atomcode",
            &format!("cannot write {}: {e}", target.display()),
        );
    }
    println!("appended to {}", target.display());
    0
}

/// AtomCode's file → our entries, with one line per entry said.
fn convert(text: &str, hooks_dir: &Path) -> Result<Converted, String> {
    let src: DocumentMut = text.parse().map_err(|e| format!("not TOML: {e}"))?;
    let mut out = ArrayOfTables::new();
    let mut said = Vec::new();
    for (section, kind) in [
        ("hooks", "script"),
        ("webhooks", "webhook"),
        ("async_webhooks", "async_webhook"),
    ] {
        let Some(tables) = src.get(section).and_then(Item::as_array_of_tables) else {
            continue;
        };
        for (i, t) in tables.iter().enumerate() {
            let label = format!(
                "[[{section}]] {}",
                t.get("name")
                    .and_then(Item::as_str)
                    .map_or_else(|| format!("#{}", i + 1), |n| format!("{n:?}"))
            );
            let got = entry(t, kind, hooks_dir).map(|(e, notes)| {
                let events = e
                    .get("event")
                    .and_then(Item::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default();
                (e, format!("a {kind} entry on {events}"), notes)
            });
            take(&mut out, &mut said, &label, got);
        }
    }
    Ok(Converted::of(out, said))
}

/// One entry converted (the entry, what it became, notes on what changed) or not (why), with
/// the line said for it.
fn take(
    out: &mut ArrayOfTables,
    said: &mut Vec<String>,
    label: &str,
    got: Result<(Table, String, Vec<String>), String>,
) {
    match got {
        Ok((e, what, notes)) => {
            let mut line = format!("{label}: converted to {what}");
            for n in notes {
                line.push_str("; ");
                line.push_str(&n);
            }
            said.push(line);
            out.push(e);
        }
        Err(why) => said.push(format!("{label}: not converted: {why}")),
    }
}

impl Converted {
    fn of(entries: ArrayOfTables, said: Vec<String>) -> Converted {
        let mut doc = DocumentMut::new();
        if !entries.is_empty() {
            doc.insert("hooks", Item::ArrayOfTables(entries));
        }
        Converted { doc, said }
    }
}

/// Where AtomCode keeps the person's hooks: the TOML file (the first of two places) and the
/// JSON one.
fn candidates(home: &Path, env: &Env) -> ([PathBuf; 2], PathBuf) {
    let atomcode_home = env
        .lookup("ATOMCODE_HOME")
        .filter(|h| !h.is_empty())
        .map_or_else(|| home.join(".atomcode"), PathBuf::from);
    (
        [
            home.join(".atomcode/hooks/hooks.toml"),
            home.join(".atomcode/hooks.toml"),
        ],
        atomcode_home.join("hooks.json"),
    )
}

/// The person's AtomCode hook files that exist: the TOML one found first, and the JSON one.
fn existing(home: &Path, env: &Env) -> Vec<PathBuf> {
    let (tomls, json) = candidates(home, env);
    tomls
        .iter()
        .find(|p| p.is_file())
        .into_iter()
        .chain(Some(&json).filter(|p| p.is_file()))
        .cloned()
        .collect()
}

/// For `doctor`: each AtomCode hook file of the person's, and whether the user's `hooks.toml`
/// holds its import (the comment `--write` leaves).
pub(super) fn for_doctor(env: &Env) -> Vec<(PathBuf, bool)> {
    let Some(home) = env.var("HOME").filter(|h| !h.is_empty()).map(PathBuf::from) else {
        return Vec::new();
    };
    let ours = crate::env::user_config_dir(env)
        .and_then(|d| std::fs::read_to_string(d.join(config::FILE_NAME)).ok())
        .unwrap_or_default();
    existing(&home, env)
        .into_iter()
        .map(|p| {
            let imported = ours
                .lines()
                .any(|l| l.starts_with("# imported from ") && l.contains(&p.display().to_string()));
            (p, imported)
        })
        .collect()
}

/// AtomCode's JSON form → our entries, with one line per entry said. Every entry is a script:
/// AtomCode runs `command` with `sh -c` in the project directory, as a script entry here does.
fn convert_json(text: &str) -> Result<Converted, String> {
    let src: serde_json::Value =
        serde_json::from_str(&strip_json_comments(text)).map_err(|e| format!("not JSON: {e}"))?;
    let hooks = src
        .get("hooks")
        .and_then(serde_json::Value::as_object)
        .ok_or("no `hooks` object")?;
    let mut out = ArrayOfTables::new();
    let mut said = Vec::new();
    for (key, h) in hooks {
        let label = format!("hooks.{key:?}");
        let got = json_entry(key, h)
            .map(|(e, event, notes)| (e, format!("a script entry on {event}"), notes));
        take(&mut out, &mut said, &label, got);
    }
    Ok(Converted::of(out, said))
}

/// One entry of AtomCode's JSON form as ours: the entry, its hook, notes on what changed.
fn json_entry(
    key: &str,
    h: &serde_json::Value,
) -> Result<(Table, &'static str, Vec<String>), String> {
    let mut notes = Vec::new();
    let event = h
        .get("event")
        .and_then(serde_json::Value::as_str)
        .ok_or("no `event`")?;
    let flat = |s: &str| s.replace('_', "").to_ascii_lowercase();
    let hook = JSON_EVENTS
        .iter()
        .find(|(name, _)| flat(name) == flat(event))
        .map(|(_, hook)| *hook)
        .ok_or_else(|| format!("unknown event {event:?}"))?;
    let command = h
        .get("command")
        .and_then(serde_json::Value::as_str)
        .filter(|c| !c.trim().is_empty())
        .ok_or("no `command`")?;
    let mut e = Table::new();
    e.insert("name", value(key));
    e.insert("event", value(hook));
    e.insert("type", value("script"));
    e.insert("command", value(command));
    if let Some(m) = h.get("matcher").and_then(serde_json::Value::as_str) {
        if matches!(
            hook,
            "pre-tool-use" | "post-tool-use" | "post-tool-use-failure"
        ) {
            e.insert("matcher", value(m));
            if m != "*" && !m.chars().any(|c| c.is_ascii_uppercase()) {
                notes.push(format!(
                    "matcher {m:?} kept as written: AtomCode's tool names (bash, edit_file) are not the clients' (Bash, Edit)"
                ));
            }
        } else {
            notes.push(format!(
                "matcher {m:?} left out (AtomCode matches tools only)"
            ));
        }
    }
    if let Some(ms) = h.get("timeout_ms").and_then(serde_json::Value::as_i64) {
        let cut = ms.clamp(1, 60_000);
        if cut != ms {
            notes.push(format!("timeout {ms} ms cut to {cut} ms"));
        }
        e.insert("timeout_ms", value(cut));
    }
    if h.get("disabled").and_then(serde_json::Value::as_bool) == Some(true) {
        e.insert("enabled", value(false));
    }
    Ok((e, hook, notes))
}

/// `text` with `//` and `/* */` comments blanked out, strings left alone (AtomCode's JSON
/// files may carry them, as its `.mcp.json` may).
fn strip_json_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    if n == '\n' {
                        out.push('\n');
                    }
                    prev = n;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// One AtomCode entry as ours, with notes on what changed.
fn entry(t: &Table, kind: &str, hooks_dir: &Path) -> Result<(Table, Vec<String>), String> {
    let mut notes = Vec::new();
    let trigger = t
        .get("trigger")
        .and_then(Item::as_str)
        .ok_or("no `trigger`")?;
    let mut events: Vec<&str> = Vec::new();
    for tr in trigger.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match TRIGGERS.iter().find(|(n, _)| *n == tr) {
            Some((_, Some(ev))) => {
                if !events.contains(ev) {
                    events.push(ev);
                }
            }
            Some((_, None)) => notes.push(format!("trigger {tr} left out (no client fires it)")),
            None => notes.push(format!("unknown trigger {tr} left out")),
        }
    }
    if events.is_empty() {
        return Err(format!("no trigger a client fires ({trigger})"));
    }
    let mut e = Table::new();
    if let Some(name) = t.get("name").and_then(Item::as_str) {
        e.insert("name", value(name));
    }
    let mut list = toml_edit::Array::new();
    for ev in &events {
        list.push(*ev);
    }
    e.insert("event", value(list));
    e.insert("type", value(kind));
    match kind {
        "script" => {
            let script = t
                .get("script")
                .and_then(Item::as_str)
                .ok_or("no `script`")?;
            let path = hooks_dir.join(script);
            let program = match t.get("script_type").and_then(Item::as_str) {
                None | Some("shell") => "sh",
                Some("python") => "python3",
                Some(other) => return Err(format!("script_type {other:?} is not shell or python")),
            };
            e.insert(
                "command",
                value(format!(
                    "{program} {}",
                    shell_quote(&path.to_string_lossy())
                )),
            );
        }
        _ => {
            let url = t.get("url").and_then(Item::as_str).ok_or("no `url`")?;
            e.insert("url", value(url));
            if let Some(m) = t.get("method").and_then(Item::as_str) {
                e.insert("method", value(m));
            }
            if let Some(h) = t.get("headers").and_then(Item::as_table_like) {
                let mut headers = toml_edit::InlineTable::new();
                for (k, v) in h.iter() {
                    if let Some(s) = v.as_str() {
                        headers.insert(k, s.into());
                    }
                }
                e.insert("headers", value(headers));
            }
            if let Some(r) = t.get("retries").and_then(Item::as_integer) {
                e.insert("retries", value(r.clamp(0, 10)));
            }
            if kind == "async_webhook" {
                for k in ["batch_size", "flush_interval_ms"] {
                    if let Some(n) = t.get(k).and_then(Item::as_integer) {
                        e.insert(k, value(n));
                    }
                }
            }
        }
    }
    if kind != "async_webhook"
        && let Some(s) = t.get("timeout_secs").and_then(Item::as_integer)
    {
        let ms = (s.max(1) * 1000).min(60_000);
        if ms != s * 1000 {
            notes.push(format!("timeout {s} s cut to {ms} ms"));
        }
        e.insert("timeout_ms", value(ms));
    }
    if let Some(b) = t.get("enabled").and_then(Item::as_bool) {
        e.insert("enabled", value(b));
    }
    Ok((e, notes))
}

/// `s` as one word for `/bin/sh`.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomcodes_three_kinds_convert_and_load() {
        let src = r#"
[[hooks]]
name = "pre-check"
trigger = "pre_tool"
script = "check.sh"
timeout_secs = 2

[[hooks]]
name = "prompt"
trigger = "system_prompt"
script = "p.sh"

[[webhooks]]
name = "notify"
trigger = "pre_tool,post_tool,model_response"
url = "https://example.com/hook"
retries = 2
[webhooks.headers]
Authorization = "Bearer ${TOKEN}"

[[async_webhooks]]
name = "audit-log"
trigger = "post_tool"
url = "https://log.example.com/batch"
batch_size = 10
retries = 3
"#;
        let c = convert(src, Path::new("/h/.atomcode/hooks")).unwrap();
        let out = c.doc.to_string();
        let (entries, problems) = config::parse_text(&out);
        assert!(problems.is_empty(), "{problems:?}\n{out}");
        assert_eq!(entries.len(), 3, "{out}");
        // The script beside the file, joined as the platform joins paths.
        let script = Path::new("/h/.atomcode/hooks").join("check.sh");
        assert!(out.contains(&format!("sh '{}'", script.display())), "{out}");
        assert!(out.contains("timeout_ms = 2000"), "{out}");
        assert!(out.contains("retries = 3"), "{out}");
        let said = c.said.join("\n");
        assert!(
            said.contains("[[hooks]] \"prompt\": not converted: no trigger a client fires"),
            "{said}"
        );
        assert!(said.contains("trigger model_response left out"), "{said}");
        assert!(
            said.contains("[[webhooks]] \"notify\": converted to a webhook entry on pre-tool-use, post-tool-use"),
            "{said}"
        );
    }

    #[test]
    fn comments_go_strings_stay() {
        let text = "{\"a\": \"http://x//y /* z */\", // gone\n \"b\": /* gone\n too */ 1}";
        let v: serde_json::Value = serde_json::from_str(&strip_json_comments(text)).unwrap();
        assert_eq!(v["a"], "http://x//y /* z */");
        assert_eq!(v["b"], 1);
    }
}
