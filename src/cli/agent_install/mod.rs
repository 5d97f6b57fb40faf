//! `omc-hooks install --agent NAME` / `uninstall --agent NAME`: our hooks in another agent's
//! own configuration (Codex CLI, Gemini CLI, Qwen Code, Cursor), from the rows of the agents'
//! event table marked installed, each as `'<this binary>' --agent NAME <subcommand>`.
//!
//! What is written is merged into what is there (everything else kept, in its order and
//! indentation), installing twice changes nothing, and uninstall removes exactly what install
//! added: our entries are recognised by their command, and whatever else install had to add
//! (the file itself, Gemini's `hooksConfig.enabled`, Cursor's `version`, Codex's feature
//! switch) is listed in a small record beside the file (`omc-hooks-install.json`), so uninstall
//! gives back the bytes that were there before. Claude Code (`--agent claude`, the default)
//! goes through the Claude settings path of `install.rs`.

pub(super) mod check;
mod codex_features;
mod layout;
// Generates (and a test pins) the shipped Codex plugin and Gemini extension files.
#[cfg(test)]
mod packaging;

use super::args::fail;
use super::settings::{self, SettingsFile};
use crate::env::Env;
use crate::protocol::Agent;
use layout::Layout;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The record of what install added besides our hook entries, beside the configuration file.
pub(super) const RECORD: &str = "omc-hooks-install.json";

/// How the arguments of `install`/`uninstall` split on `--agent`.
pub(super) enum Split {
    /// No `--agent`, or `--agent claude`: the Claude settings path, with these arguments.
    Claude(Vec<String>),
    /// Another agent, with the remaining arguments.
    Agent(Agent, Vec<String>),
    /// A usage error, already reported; the exit code.
    Err(i32),
}

/// Takes `--agent NAME` / `--agent=NAME` out of `args`.
pub(super) fn split(command: &str, help: &str, args: &[String]) -> Split {
    let mut rest = Vec::new();
    let mut agent = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = match a.strip_prefix("--agent=") {
            Some(v) => Some(v.to_string()),
            None if a == "--agent" => match it.next() {
                Some(v) => Some(v.clone()),
                None => {
                    return Split::Err(super::args::usage_error(
                        command,
                        help,
                        "--agent needs a value",
                    ));
                }
            },
            None => {
                rest.push(a.clone());
                continue;
            }
        };
        if agent.is_some() {
            return Split::Err(super::args::usage_error(
                command,
                help,
                "--agent given twice",
            ));
        }
        let v = value.unwrap_or_default();
        match Agent::parse(&v).filter(|a| Agent::INSTALLABLE.contains(a)) {
            Some(a) => agent = Some(a),
            None => {
                return Split::Err(super::args::usage_error(
                    command,
                    help,
                    &format!(
                        "unknown agent '{v}'; install knows {}",
                        Agent::INSTALLABLE.map(Agent::name).join(", ")
                    ),
                ));
            }
        }
    }
    match agent {
        None | Some(Agent::Claude) => Split::Claude(rest),
        Some(a) => Split::Agent(a, rest),
    }
}

/// `install --agent NAME [--project DIR | --user]`.
pub(super) fn install(agent: Agent, args: &[String], env: &Env, help: &str) -> i32 {
    let layout = Layout::of(agent);
    let path = match layout.target("install", help, args, env) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let exe = match std::env::current_exe().and_then(|p| p.canonicalize()) {
        Ok(p) => p,
        Err(e) => return fail("install", &format!("cannot locate this binary: {e}")),
    };
    let mut file = match load("install", &path) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let existed = file.text.is_some();
    let dir_existed = path.parent().is_some_and(Path::exists);
    let record_path = record_path(&path);
    let mut record = read_record(&record_path).unwrap_or_default();
    let before = file.value.clone();
    let merged = match merge(&layout, &mut file.value, &exe, &mut record) {
        Ok(m) => m,
        Err(e) => {
            return fail(
                "install",
                &format!(
                    "{}: {e}; nothing was changed. Fix the file and try again.",
                    path.display()
                ),
            );
        }
    };
    if !existed {
        record.created_file = true;
        record.created_dir |= !dir_existed;
    }
    let changed = before != file.value || !existed;
    if changed && let Err(code) = write("install", &file, env) {
        return code;
    }
    let feature = if agent == Agent::Codex {
        match codex_features::ensure(&path, env, &mut record) {
            Ok(note) => note,
            Err(e) => return fail("install", &e),
        }
    } else {
        None
    };
    if let Err(e) = write_record(&record_path, &record) {
        return fail(
            "install",
            &format!("cannot write {}: {e}", record_path.display()),
        );
    }
    if changed {
        println!(
            "Installed omc-hooks for {} in {}: {} hooks added, {} updated, {} removed; they run \
             '{} --agent {}'.",
            agent.client(),
            path.display(),
            merged.added,
            merged.updated,
            merged.removed,
            exe.display(),
            agent.name()
        );
    } else {
        println!(
            "omc-hooks is already installed for {} in {} (running {}); nothing changed.",
            agent.client(),
            path.display(),
            exe.display()
        );
    }
    if let Some(n) = feature {
        println!("{n}");
    }
    for w in layout.warnings(&file.value) {
        println!("Warning: {w}");
    }
    println!("{}", layout.trust_note(&path));
    0
}

/// `uninstall --agent NAME [--project DIR | --user]`.
pub(super) fn uninstall(agent: Agent, args: &[String], env: &Env, help: &str) -> i32 {
    let layout = Layout::of(agent);
    let path = match layout.target("uninstall", help, args, env) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let record_path = record_path(&path);
    let record = read_record(&record_path);
    let mut feature_note = None;
    if agent == Agent::Codex
        && let Some(r) = &record
    {
        match codex_features::restore(&path, r) {
            Ok(n) => feature_note = n,
            Err(e) => return fail("uninstall", &e),
        }
    }
    if !path.exists() {
        let _ = std::fs::remove_file(&record_path);
        println!(
            "omc-hooks is not installed for {} in {} (no such file); nothing changed.",
            agent.client(),
            path.display()
        );
        return 0;
    }
    let mut file = match load("uninstall", &path) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let removed = match remove(&layout, &mut file.value) {
        Ok(n) => n,
        Err(e) => {
            return fail(
                "uninstall",
                &format!(
                    "{}: {e}; nothing was changed. Fix the file and try again.",
                    path.display()
                ),
            );
        }
    };
    let record = record.unwrap_or_default();
    for pointer in &record.added {
        remove_pointer(&mut file.value, pointer);
    }
    let empty = file.value.as_object().is_some_and(Map::is_empty);
    if removed == 0 && record.added.is_empty() && !(record.created_file && empty) {
        let _ = std::fs::remove_file(&record_path);
        println!(
            "omc-hooks is not installed for {} in {}; nothing changed.",
            agent.client(),
            path.display()
        );
        return 0;
    }
    if record.created_file && empty {
        if let Err(e) = std::fs::remove_file(&path) {
            return fail(
                "uninstall",
                &format!("cannot remove {}: {e}", path.display()),
            );
        }
        if record.created_dir
            && let Some(dir) = path.parent()
        {
            let _ = std::fs::remove_file(&record_path);
            let _ = std::fs::remove_dir(dir); // only if empty
        }
        println!(
            "Removed {removed} omc-hooks hooks for {}: {} was created by install and is gone again.",
            agent.client(),
            path.display()
        );
    } else {
        if let Err(code) = write("uninstall", &file, env) {
            return code;
        }
        println!(
            "Removed {removed} omc-hooks hooks for {} from {}.",
            agent.client(),
            path.display()
        );
    }
    let _ = std::fs::remove_file(&record_path);
    if let Some(n) = feature_note {
        println!("{n}");
    }
    0
}

/// What install added besides our hook entries.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct Record {
    #[serde(default)]
    pub(super) schema_version: u32,
    /// The configuration file did not exist before install.
    #[serde(default)]
    pub(super) created_file: bool,
    /// Nor its directory.
    #[serde(default)]
    pub(super) created_dir: bool,
    /// JSON pointers install set that were absent before (`/hooksConfig/enabled`, `/version`).
    #[serde(default)]
    pub(super) added: Vec<String>,
    /// Codex: the `config.toml` install changed, and whether install created it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) codex_config: Option<codex_features::Change>,
}

fn record_path(config: &Path) -> PathBuf {
    config.with_file_name(RECORD)
}

fn read_record(path: &Path) -> Option<Record> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

fn write_record(path: &Path, r: &Record) -> std::io::Result<()> {
    let nothing =
        !r.created_file && !r.created_dir && r.added.is_empty() && r.codex_config.is_none();
    if nothing {
        return match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    }
    let mut r = r.clone();
    r.schema_version = crate::state::files::SCHEMA_VERSION;
    let mut text = serde_json::to_string_pretty(&r).map_err(std::io::Error::other)?;
    text.push('\n');
    std::fs::write(path, text)
}

fn load(command: &str, path: &Path) -> Result<SettingsFile, i32> {
    settings::load(path).map_err(|e| {
        fail(
            command,
            &format!(
                "{} is {e}; nothing was changed. Fix the file (or move it away) and run \
                 'omc-hooks {command}' again.",
                path.display()
            ),
        )
    })
}

fn write(command: &str, file: &SettingsFile, env: &Env) -> Result<(), i32> {
    let text = settings::render(&file.value, file.text.as_deref());
    match settings::save(file, &text, &crate::time::stamp(env.now_ms())) {
        Ok(Some(backup)) => {
            println!("Backup of the previous file: {}", backup.display());
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(e) => Err(fail(
            command,
            &format!("cannot write {}: {e}", file.path.display()),
        )),
    }
}

/// What a merge did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Merged {
    pub(super) added: usize,
    pub(super) updated: usize,
    pub(super) removed: usize,
}

/// One handler install wants, under the agent's `event`.
struct Wanted {
    event: &'static str,
    matcher: Option<&'static str>,
    sub: &'static str,
    handler: Value,
    placed: bool,
}

/// Merges our entries into a configuration value; records scaffolding it adds.
fn merge(
    layout: &Layout,
    value: &mut Value,
    exe: &Path,
    record: &mut Record,
) -> Result<Merged, String> {
    let obj = value
        .as_object_mut()
        .ok_or("the file is not a JSON object")?;
    for (pointer, v) in layout.scaffold() {
        let key = pointer.trim_start_matches('/');
        let (parent, leaf) = match key.split_once('/') {
            Some((p, l)) => (Some(p), l),
            None => (None, key),
        };
        let target = match parent {
            None => &mut *obj,
            Some(p) => {
                let entry = obj
                    .entry(p.to_string())
                    .or_insert_with(|| Value::Object(Map::new()));
                match entry.as_object_mut() {
                    Some(m) => m,
                    None => return Err(format!("its \"{p}\" entry is not an object")),
                }
            }
        };
        if !target.contains_key(leaf) {
            target.insert(leaf.to_string(), v);
            if !record.added.iter().any(|a| a == pointer) {
                record.added.push(pointer.to_string());
            }
        }
    }
    let hooks = obj
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or("its \"hooks\" entry is not an object")?;
    let mut wanted: Vec<Wanted> = layout
        .rows()
        .map(|(event, matcher, sub)| Wanted {
            event,
            matcher,
            sub,
            handler: layout.handler(exe, sub),
            placed: false,
        })
        .collect();
    for w in &wanted {
        if hooks.get(w.event).is_some_and(|g| !g.is_array()) {
            return Err(format!(
                "its \"hooks\".\"{}\" entry is not an array",
                w.event
            ));
        }
    }
    let mut m = Merged::default();
    sweep(layout, hooks, |event, matcher, handler, sub| {
        match wanted
            .iter_mut()
            .find(|w| !w.placed && w.event == event && w.sub == sub && w.matcher == matcher)
        {
            Some(w) => {
                w.placed = true;
                if *handler != w.handler {
                    *handler = w.handler.clone();
                    m.updated += 1;
                }
                true
            }
            None => {
                m.removed += 1;
                false
            }
        }
    });
    for w in wanted.into_iter().filter(|w| !w.placed) {
        let entry = if layout.flat {
            let mut h = w.handler;
            if let (Some(mt), Some(o)) = (w.matcher, h.as_object_mut()) {
                o.insert("matcher".into(), json!(mt));
            }
            h
        } else {
            let mut group = Map::new();
            if let Some(mt) = w.matcher {
                group.insert("matcher".into(), json!(mt));
            }
            group.insert("hooks".into(), Value::Array(vec![w.handler]));
            Value::Object(group)
        };
        hooks
            .entry(w.event.to_string())
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .expect("checked above")
            .push(entry);
        m.added += 1;
    }
    Ok(m)
}

/// Removes our entries (and the groups, event arrays and `hooks` object left empty by that).
fn remove(layout: &Layout, value: &mut Value) -> Result<usize, String> {
    let obj = value
        .as_object_mut()
        .ok_or("the file is not a JSON object")?;
    let Some(hooks) = obj.get_mut("hooks") else {
        return Ok(0);
    };
    let hooks_map = hooks
        .as_object_mut()
        .ok_or("its \"hooks\" entry is not an object")?;
    let was_empty = hooks_map.is_empty();
    let mut n = 0;
    sweep(layout, hooks_map, |_, _, _, _| {
        n += 1;
        false
    });
    if n > 0 && !was_empty && hooks_map.is_empty() {
        obj.shift_remove("hooks");
    }
    Ok(n)
}

/// Visits every handler of ours (for this agent) in `hooks`; `keep` decides whether it stays
/// and may rewrite it. Groups and event arrays emptied by a removal go; ones that were already
/// empty are left alone.
fn sweep(
    layout: &Layout,
    hooks: &mut Map<String, Value>,
    mut keep: impl FnMut(&str, Option<&str>, &mut Value, &'static str) -> bool,
) {
    let mut emptied = Vec::new();
    for (event, entries) in hooks.iter_mut() {
        let Some(entries) = entries.as_array_mut() else {
            continue;
        };
        let mut dropped = false;
        if layout.flat {
            entries.retain_mut(|h| {
                let matcher = h.get("matcher").and_then(Value::as_str).map(str::to_string);
                match ours(layout, h) {
                    None => true,
                    Some(sub) => {
                        let k = keep(event, matcher.as_deref(), h, sub);
                        dropped |= !k;
                        k
                    }
                }
            });
        } else {
            entries.retain_mut(|group| {
                let matcher = group
                    .get("matcher")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                    return true;
                };
                let mut removed_here = false;
                handlers.retain_mut(|h| match ours(layout, h) {
                    None => true,
                    Some(sub) => {
                        let k = keep(event, matcher.as_deref(), h, sub);
                        removed_here |= !k;
                        k
                    }
                });
                let drop = removed_here && handlers.is_empty();
                dropped |= drop;
                !drop
            });
        }
        if dropped && entries.is_empty() {
            emptied.push(event.clone());
        }
    }
    for e in emptied {
        hooks.shift_remove(&e);
    }
}

/// The hook subcommand a handler runs, if it is ours for this agent.
fn ours(layout: &Layout, handler: &Value) -> Option<&'static str> {
    if handler
        .get("type")
        .is_some_and(|t| t.as_str() != Some("command"))
    {
        return None;
    }
    let (agent, sub) = agent_command(handler.get("command")?.as_str()?)?;
    (agent == layout.agent).then_some(sub)
}

/// The command line that runs `sub` for `agent` on the binary at `exe`.
pub(super) fn command_for(exe: &Path, agent: Agent, sub: &str) -> String {
    let p = exe.to_string_lossy();
    let quoted = if !p.contains(['"', '\\', '$', '`']) {
        format!("\"{p}\"")
    } else {
        format!("'{}'", p.replace('\'', r"'\''"))
    };
    format!("{quoted} --agent {} {sub}", agent.name())
}

/// Splits `<program> --agent NAME <sub>` when the program's file name is `omc-hooks`.
pub(super) fn agent_command(command: &str) -> Option<(Agent, &'static str)> {
    let words = shell_words(command)?;
    let [program, flag, name, sub] = words.as_slice() else {
        return None;
    };
    if flag != "--agent" || program.rsplit('/').next() != Some("omc-hooks") {
        return None;
    }
    let hook = crate::hooks::find(sub)?;
    Some((Agent::parse(name)?, hook.name))
}

/// Splits a command into words as `sh` would (quotes and backslashes; `$…` left as written).
/// `None` for an unbalanced quote.
fn shell_words(s: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        ch => cur.push(ch),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            ch @ ('"' | '\\' | '$' | '`') => cur.push(ch),
                            ch => {
                                cur.push('\\');
                                cur.push(ch);
                            }
                        },
                        ch => cur.push(ch),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.push(chars.next()?);
            }
            ch if ch.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            ch => {
                in_word = true;
                cur.push(ch);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Some(words)
}

/// Removes the value at a JSON pointer of depth ≤ 2, and its parent object if that leaves it
/// empty (install created both).
fn remove_pointer(value: &mut Value, pointer: &str) {
    let key = pointer.trim_start_matches('/');
    let Some(obj) = value.as_object_mut() else {
        return;
    };
    match key.split_once('/') {
        None => {
            obj.shift_remove(key);
        }
        Some((parent, leaf)) => {
            let emptied = obj
                .get_mut(parent)
                .and_then(Value::as_object_mut)
                .map(|m| {
                    m.shift_remove(leaf);
                    m.is_empty()
                })
                .unwrap_or(false);
            if emptied {
                obj.shift_remove(parent);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_commands_are_recognised_per_agent() {
        let exe = Path::new("/opt/omc hooks/omc-hooks");
        for agent in [Agent::Codex, Agent::Gemini, Agent::Qwen, Agent::Cursor] {
            let cmd = command_for(exe, agent, "stop");
            assert_eq!(agent_command(&cmd), Some((agent, "stop")), "{cmd}");
        }
        let odd = Path::new("/we\"ird/$x/it's/omc-hooks");
        assert_eq!(
            agent_command(&command_for(odd, Agent::Gemini, "pre-compact")),
            Some((Agent::Gemini, "pre-compact"))
        );
        for cmd in [
            "/usr/bin/omc-hooks stop",
            "/usr/bin/omc-hooks --agent codex status",
            "/usr/bin/omc-hooks --agent vim stop",
            "/usr/bin/other --agent codex stop",
            "\"/a/omc-hooks --agent codex stop",
            "/usr/bin/omc-hooks --agent codex stop extra",
        ] {
            assert_eq!(agent_command(cmd), None, "{cmd}");
        }
    }

    #[test]
    fn merge_then_remove_gives_back_the_value_for_every_agent() {
        let exe = Path::new("/x/omc-hooks");
        for agent in [Agent::Codex, Agent::Gemini, Agent::Qwen, Agent::Cursor] {
            let layout = Layout::of(agent);
            let user_hook = if layout.flat {
                json!({"command": "./audit.sh", "timeout": 3})
            } else {
                json!({"hooks": [{"type": "command", "command": "./audit.sh"}]})
            };
            let event = layout.rows().next().unwrap().0;
            let original = json!({"model": {"name": "x"}, "hooks": { event: [user_hook] }});
            let mut v = original.clone();
            let mut rec = Record::default();
            let m = merge(&layout, &mut v, exe, &mut rec).unwrap();
            assert_eq!(m.added, layout.rows().count(), "{agent}");
            let again = merge(&layout, &mut v.clone(), exe, &mut rec.clone()).unwrap();
            assert_eq!(again, Merged::default(), "{agent}: idempotent");
            assert_eq!(v["hooks"][event][0], original["hooks"][event][0], "{agent}");
            let n = remove(&layout, &mut v).unwrap();
            assert_eq!(n, m.added, "{agent}");
            for p in &rec.added {
                remove_pointer(&mut v, p);
            }
            assert_eq!(v, original, "{agent}");
        }
    }

    #[test]
    fn a_moved_binary_replaces_the_old_entries() {
        let layout = Layout::of(Agent::Gemini);
        let mut v = json!({});
        let mut rec = Record::default();
        merge(&layout, &mut v, Path::new("/old/omc-hooks"), &mut rec).unwrap();
        let m = merge(&layout, &mut v, Path::new("/new/omc-hooks"), &mut rec).unwrap();
        assert_eq!(m.updated, layout.rows().count());
        assert!(!v.to_string().contains("/old/"));
    }
}
