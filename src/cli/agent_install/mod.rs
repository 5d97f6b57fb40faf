//! `omc-hooks install --agent NAME` / `uninstall --agent NAME`: our hooks in another agent's
//! own configuration (Codex CLI, Gemini CLI, Qwen Code, Cursor, and the clients that copy
//! Claude Code's format in a folder of their own: Factory Droid, CodeBuddy, Qoder), from the
//! rows of the agents' event table marked installed, each as
//! `'<this binary>' --agent NAME <subcommand>`; for the agents served by a TypeScript plugin
//! (OpenCode, Kilo Code, Pi), the plugin file itself (`plugin.rs`).
//!
//! What is written is merged into what is there as edits of the file's text (every other byte
//! kept: `settings::edit`), installing twice changes nothing, and uninstall removes exactly
//! what install added: our entries are recognised by their command, and whatever else install had to add
//! (the file itself, Gemini's `hooksConfig.enabled`, Cursor's `version`, Codex's feature
//! switch) is listed in a small record beside the file (`omc-hooks-install.json`), so uninstall
//! gives back the bytes that were there before. Claude Code (`--agent claude`, the default)
//! goes through the Claude settings path of `install.rs`.

pub(super) mod check;
mod cline;
mod codex_features;
mod kimi;
mod layout;
mod plugin;
// Generates (and a test pins) the shipped Codex plugin and Gemini extension files.
#[cfg(test)]
mod packaging;

use super::args::fail;
use super::registry;
use super::settings::edit::{Edit, Seg};
use super::settings::{self, SettingsFile};
use crate::env::Env;
use crate::protocol::Agent;
use layout::Layout;
use serde_json::{Value, json};
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
        match Agent::parse(&v) {
            Some(a) => agent = Some(a),
            None => {
                return Split::Err(super::args::usage_error(
                    command,
                    help,
                    &format!(
                        "unknown agent '{v}'; install knows {}",
                        Agent::ALL.map(Agent::name).join(", ")
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
    let exe = match super::hook_binary::this_binary() {
        Ok(p) => p,
        Err(e) => return fail("install", &format!("cannot locate this binary: {e}")),
    };
    let record_path = if agent == Agent::Cline {
        cline::record_path(&path)
    } else {
        layout.record_path(&path)
    };
    let mut record = read_record(&record_path).unwrap_or_default();
    let written = if layout.is_plugin() {
        plugin::install(agent, &path, &exe, &mut record).map(Written::plain)
    } else if agent == Agent::Cline {
        cline::install(&path, &exe, &mut record).map(Written::plain)
    } else if agent == Agent::Kimi {
        kimi::install(&path, &exe, &mut record).map(Written::plain)
    } else {
        install_hook_file(&layout, &path, &exe, env, &mut record)
    };
    let written = match written {
        Ok(w) => w,
        Err(code) => return code,
    };
    let saved = if agent == Agent::Cline {
        cline::save_record(&path, &record)
    } else {
        write_record(&record_path, &record)
    };
    if let Err(e) = saved {
        return fail(
            "install",
            &format!("cannot write {}: {e}", record_path.display()),
        );
    }
    let listed = note_in_registry(&layout, &path, agent, env);
    announce(&layout, &path, &exe, &written.merged, written.changed);
    if let Some(n) = written.feature {
        println!("{n}");
    }
    if let Some(f) = listed {
        println!(
            "Recorded in {} (for 'omc-hooks status --all').",
            f.display()
        );
    }
    for w in written.warnings {
        println!("Warning: {w}");
    }
    println!("{}", layout.trust_note(&path));
    0
}

/// What one agent's writer did: the entries merged, whether the file changed, and what install
/// says about it besides (Codex's feature switch, the layout's warnings on the file).
struct Written {
    merged: Merged,
    changed: bool,
    feature: Option<String>,
    warnings: Vec<String>,
}

impl Written {
    /// A writer with nothing to say besides what it merged.
    fn plain((merged, changed): (Merged, bool)) -> Self {
        Written {
            merged,
            changed,
            feature: None,
            warnings: Vec::new(),
        }
    }
}

/// Merges our entries into the agent's hook file (JSON, or Codex's TOML), writing it only when
/// it changed; Codex's feature switch is turned on beside it.
fn install_hook_file(
    layout: &Layout,
    path: &Path,
    exe: &Path,
    env: &Env,
    record: &mut Record,
) -> Result<Written, i32> {
    let mut file = load("install", path)?;
    let before = file.edit.text().to_string();
    let merged = merge(layout, &mut file.edit, exe, record).map_err(|e| {
        fail(
            "install",
            &format!(
                "{}: {e}; nothing was changed. Fix the file and try again.",
                path.display()
            ),
        )
    })?;
    let changed = before != file.edit.text() || !file.existed;
    if changed {
        match settings::save(path, file.edit.text()) {
            Ok(created) => {
                if !file.existed {
                    record.created_file = true;
                    record.created_dir |= !created.is_empty();
                    record.created_levels = record
                        .created_levels
                        .max(u32::try_from(created.len()).unwrap_or(u32::MAX));
                }
            }
            Err(e) => {
                return Err(fail(
                    "install",
                    &format!("cannot write {}: {e}", path.display()),
                ));
            }
        }
    }
    let feature = if layout.agent == Agent::Codex {
        codex_features::ensure(path, env, record).map_err(|e| fail("install", &e))?
    } else {
        None
    };
    Ok(Written {
        merged,
        changed,
        feature,
        warnings: layout.warnings(&file.value()),
    })
}

/// Says what install did.
fn announce(layout: &Layout, path: &Path, exe: &Path, merged: &Merged, changed: bool) {
    let agent = layout.agent;
    if changed && layout.is_plugin() {
        println!(
            "Installed the omc-hooks plugin for {} in {}: it passes {} events to '{} --agent {}'.",
            agent.client(),
            path.display(),
            merged.added + merged.updated,
            exe.display(),
            agent.name()
        );
    } else if changed {
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
    if let Some(note) = super::hook_binary::npx_note(exe) {
        println!("{note}");
    }
}

/// The project a hook file of `layout` belongs to: `<project>/.<agent>/<file>`, unless it is
/// the agent's user-level file.
fn project_of(layout: &Layout, path: &Path, env: &Env) -> Option<PathBuf> {
    if layout.user_file(env).as_deref() == Some(path) {
        return None;
    }
    let project = layout.project_of_file(path)?;
    Some(crate::platform::canonicalize(project).unwrap_or_else(|_| project.to_path_buf()))
}

/// Lists a project install in the user's registry, so that `status --all` finds the project;
/// returns the registry file when it was written. A failure is said and changes nothing else:
/// the hooks are installed either way.
fn note_in_registry(layout: &Layout, path: &Path, agent: Agent, env: &Env) -> Option<PathBuf> {
    let project = project_of(layout, path, env)?;
    let entry = registry::AgentInstall {
        agent: agent.name().to_string(),
        file: path.to_path_buf(),
        project,
        installed_at: crate::time::iso(env.now_ms()),
    };
    match registry::update(env, true, |r| r.note_agent(entry)) {
        Ok(_) => registry::file(env),
        Err(e) => {
            eprintln!(
                "omc-hooks install: could not record the install in the registry ({e}); \
                 'status --all' will not list this project."
            );
            None
        }
    }
}

/// Says what the uninstall of a writer of its own (Cline's scripts, Kimi's TOML block) did:
/// how many of our `what` it removed, or that none were there.
fn said_removed(agent: Agent, path: &Path, removed: Result<Option<usize>, i32>, what: &str) -> i32 {
    match removed {
        Err(code) => code,
        Ok(None) => {
            println!(
                "omc-hooks is not installed for {} in {}; nothing changed.",
                agent.client(),
                path.display()
            );
            0
        }
        Ok(Some(n)) => {
            println!(
                "Removed {n} omc-hooks {what} for {} from {}.",
                agent.client(),
                path.display()
            );
            0
        }
    }
}

/// `uninstall --agent NAME [--project DIR | --user]`.
pub(super) fn uninstall(agent: Agent, args: &[String], env: &Env, help: &str) -> i32 {
    let layout = Layout::of(agent);
    let path = match layout.target("uninstall", help, args, env) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if project_of(&layout, &path, env).is_some()
        && let Err(e) = registry::update(env, false, |r| r.forget_agent(&path))
    {
        eprintln!("omc-hooks uninstall: could not update the registry ({e})");
    }
    if layout.is_plugin() {
        let record_path = record_path(&path);
        let record = read_record(&record_path).unwrap_or_default();
        return match plugin::uninstall(agent, &path) {
            Err(code) => code,
            Ok(false) => {
                println!(
                    "omc-hooks is not installed for {} in {}; nothing changed.",
                    agent.client(),
                    path.display()
                );
                0
            }
            Ok(true) => {
                let _ = std::fs::remove_file(&record_path);
                plugin::remove_created_dirs(&path, &record);
                println!(
                    "Removed the omc-hooks plugin for {}: {} is gone.",
                    agent.client(),
                    path.display()
                );
                0
            }
        };
    }
    if agent == Agent::Cline {
        return said_removed(agent, &path, cline::uninstall(&path), "hook scripts");
    }
    if agent == Agent::Kimi {
        return said_removed(agent, &path, kimi::uninstall(&path), "hooks");
    }
    let record_path = layout.record_path(&path);
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
    let record = record.unwrap_or_default();
    let removed = match remove(&layout, &mut file.edit, &record) {
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
    let empty = file.value().as_object().is_some_and(|m| m.is_empty());
    if removed == 0 && record.added.is_empty() && !(record.created_file && empty) {
        let _ = std::fs::remove_file(&record_path);
        println!(
            "omc-hooks is not installed for {} in {}; nothing changed.",
            agent.client(),
            path.display()
        );
        return 0;
    }
    let _ = std::fs::remove_file(&record_path);
    if record.created_file && empty {
        if let Err(e) = std::fs::remove_file(&path) {
            return fail(
                "uninstall",
                &format!("cannot remove {}: {e}", path.display()),
            );
        }
        // The folders install created, innermost first, each only if empty.
        let levels = usize::try_from(record.created_levels)
            .unwrap_or(usize::MAX)
            .max(usize::from(record.created_dir));
        for dir in path.ancestors().skip(1).take(levels) {
            if std::fs::remove_dir(dir).is_err() {
                break;
            }
        }
        println!(
            "Removed {removed} omc-hooks hooks for {}: {} was created by install and is gone again.",
            agent.client(),
            path.display()
        );
    } else {
        if let Err(e) = settings::save(&path, file.edit.text()) {
            return fail(
                "uninstall",
                &format!("cannot write {}: {e}", path.display()),
            );
        }
        println!(
            "Removed {removed} omc-hooks hooks for {} from {}.",
            agent.client(),
            path.display()
        );
    }
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
    /// Kimi: install added a line break to end the file's last line before its block.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) kimi_newline: bool,
    /// Cline: the folders install created for its hook scripts, outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) created_dirs: Vec<PathBuf>,
    /// A plugin file, or a configuration file install created: how many folders above it
    /// install created (Copilot's `.github/hooks/` may be two; for a configuration file
    /// `created_dir` alone means one). Uninstall removes them, innermost first, when they are
    /// empty.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(super) created_levels: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn record_path(config: &Path) -> PathBuf {
    config.with_file_name(RECORD)
}

fn read_record(path: &Path) -> Option<Record> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

fn write_record(path: &Path, r: &Record) -> std::io::Result<()> {
    let nothing = !r.created_file
        && !r.created_dir
        && r.added.is_empty()
        && r.codex_config.is_none()
        && !r.kimi_newline
        && r.created_dirs.is_empty()
        && r.created_levels == 0;
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
                "{} is not valid JSON ({e}); nothing was changed. Fix the file (or move it \
                 away) and run 'omc-hooks {command}' again.",
                path.display()
            ),
        )
    })
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

/// One handler of ours found in the file: under `hooks.<event>[group]`, in the group's
/// `hooks[index]` (or the entry itself in Cursor's flat layout, `index` then `None`).
struct Found {
    event: String,
    group: usize,
    index: Option<usize>,
    matcher: Option<String>,
    sub: &'static str,
    handler: Value,
}

impl Found {
    fn path(&self) -> Vec<Seg<'_>> {
        let mut p = vec![
            Seg::Key("hooks"),
            Seg::Key(&self.event),
            Seg::Index(self.group),
        ];
        if let Some(i) = self.index {
            p.extend([Seg::Key("hooks"), Seg::Index(i)]);
        }
        p
    }
}

/// Every handler of ours for this agent, in file order.
fn find_ours(layout: &Layout, v: &Value) -> Vec<Found> {
    let mut out = Vec::new();
    let Some(hooks) = v.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, entries) in hooks {
        for (g, entry) in entries.as_array().into_iter().flatten().enumerate() {
            let matcher = entry
                .get("matcher")
                .and_then(Value::as_str)
                .map(str::to_string);
            if layout.flat {
                if let Some(sub) = ours(layout, entry) {
                    out.push(Found {
                        event: event.clone(),
                        group: g,
                        index: None,
                        matcher,
                        sub,
                        handler: entry.clone(),
                    });
                }
                continue;
            }
            let handlers = entry.get("hooks").and_then(Value::as_array);
            for (i, h) in handlers.into_iter().flatten().enumerate() {
                if let Some(sub) = ours(layout, h) {
                    out.push(Found {
                        event: event.clone(),
                        group: g,
                        index: Some(i),
                        matcher: matcher.clone(),
                        sub,
                        handler: h.clone(),
                    });
                }
            }
        }
    }
    out
}

fn edit_err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Removes `found` from the file, last first, with the groups and event lists that this
/// empties. Returns how many handlers went.
fn remove_found(edit: &mut Edit, mut found: Vec<Found>) -> Result<usize, String> {
    found.sort_by(|a, b| {
        (&a.event, a.group, a.index)
            .cmp(&(&b.event, b.group, b.index))
            .reverse()
    });
    let n = found.len();
    for f in &found {
        edit.remove(&f.path()).map_err(edit_err)?;
        let group = [Seg::Key("hooks"), Seg::Key(&f.event), Seg::Index(f.group)];
        if f.index.is_some()
            && edit.len(&[group[0], group[1], group[2], Seg::Key("hooks")]) == Some(0)
        {
            edit.remove(&group).map_err(edit_err)?;
        }
        let list = [Seg::Key("hooks"), Seg::Key(&f.event)];
        if edit.len(&list) == Some(0) {
            edit.remove(&list).map_err(edit_err)?;
        }
    }
    Ok(n)
}

/// Merges our entries into a configuration file's text; records scaffolding it adds.
fn merge(
    layout: &Layout,
    edit: &mut Edit,
    exe: &Path,
    record: &mut Record,
) -> Result<Merged, String> {
    if !edit.value().is_object() {
        return Err("the file is not a JSON object".into());
    }
    for (pointer, v) in layout.scaffold() {
        let keys: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
        let added = match keys.as_slice() {
            [k] if edit.get(&[Seg::Key(k)]).is_none() => {
                edit.set(&[Seg::Key(k)], &v).map_err(edit_err)?;
                Some(pointer.to_string())
            }
            [p, k] => match edit.get(&[Seg::Key(p)]) {
                None => {
                    edit.set(&[Seg::Key(p)], &json!({ *k: v }))
                        .map_err(edit_err)?;
                    Some(format!("/{p}"))
                }
                Some(Value::Object(m)) if !m.contains_key(*k) => {
                    edit.set(&[Seg::Key(p), Seg::Key(k)], &v)
                        .map_err(edit_err)?;
                    Some(pointer.to_string())
                }
                Some(Value::Object(_)) => None,
                Some(_) => return Err(format!("its \"{p}\" entry is not an object")),
            },
            _ => None,
        };
        if let Some(a) = added.filter(|a| !record.added.contains(a)) {
            record.added.push(a);
        }
    }
    match edit.get(&[Seg::Key("hooks")]) {
        None => edit
            .set(&[Seg::Key("hooks")], &json!({}))
            .map_err(edit_err)?,
        Some(Value::Object(_)) => {}
        Some(_) => return Err("its \"hooks\" entry is not an object".into()),
    }
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
        if edit
            .get(&[Seg::Key("hooks"), Seg::Key(w.event)])
            .is_some_and(|g| !g.is_array())
        {
            return Err(format!(
                "its \"hooks\".\"{}\" entry is not an array",
                w.event
            ));
        }
    }
    let mut m = Merged::default();
    // Ours that stay (the first per wanted entry) and ours that go.
    let mut stale = Vec::new();
    for f in find_ours(layout, &edit.value()) {
        match wanted.iter_mut().find(|w| {
            !w.placed && w.event == f.event && w.sub == f.sub && w.matcher == f.matcher.as_deref()
        }) {
            Some(w) => w.placed = true,
            None => stale.push(f),
        }
    }
    m.removed = remove_found(edit, stale)?;
    // Update the ones that stay, at their positions after the removals.
    for f in find_ours(layout, &edit.value()) {
        let Some(w) = wanted
            .iter()
            .find(|w| w.event == f.event && w.sub == f.sub && w.matcher == f.matcher.as_deref())
        else {
            continue;
        };
        // A flat layout keeps the matcher inside the handler: compare the whole entry.
        let mut want = w.handler.clone();
        if layout.flat
            && let (Some(mt), Some(o)) = (w.matcher, want.as_object_mut())
        {
            o.insert("matcher".into(), json!(mt));
        }
        if f.handler != want {
            edit.set(&f.path(), &want).map_err(edit_err)?;
            m.updated += 1;
        }
    }
    for w in wanted.into_iter().filter(|w| !w.placed) {
        let entry = if layout.flat {
            let mut h = w.handler;
            if let (Some(mt), Some(o)) = (w.matcher, h.as_object_mut()) {
                o.insert("matcher".into(), json!(mt));
            }
            h
        } else {
            match w.matcher {
                Some(mt) => json!({"matcher": mt, "hooks": [w.handler]}),
                None => json!({"hooks": [w.handler]}),
            }
        };
        let list = [Seg::Key("hooks"), Seg::Key(w.event)];
        if edit.get(&list).is_none() {
            edit.set(&list, &json!([entry])).map_err(edit_err)?;
        } else {
            edit.push(&list, &entry).map_err(edit_err)?;
        }
        m.added += 1;
    }
    Ok(m)
}

/// Removes our entries (and the groups, event lists and `hooks` object this empties), then
/// the settings install listed as its own.
fn remove(layout: &Layout, edit: &mut Edit, record: &Record) -> Result<usize, String> {
    if !edit.value().is_object() {
        return Err("the file is not a JSON object".into());
    }
    let had_hooks = edit.len(&[Seg::Key("hooks")]).is_some_and(|n| n > 0);
    let n = remove_found(edit, find_ours(layout, &edit.value()))?;
    if n > 0 && had_hooks && edit.len(&[Seg::Key("hooks")]) == Some(0) {
        edit.remove(&[Seg::Key("hooks")]).map_err(edit_err)?;
    }
    for pointer in &record.added {
        let keys: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
        let path: Vec<Seg> = keys.iter().map(|k| Seg::Key(k)).collect();
        if edit.get(&path).is_some() {
            edit.remove(&path).map_err(edit_err)?;
        }
    }
    Ok(n)
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
    if flag != "--agent" || !crate::platform::names_program(program, "omc-hooks") {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Windows: a path with backslashes and spaces to `omc-hooks.exe` is known as ours, so
    /// install stays idempotent and uninstall finds its entries.
    #[cfg(windows)]
    #[test]
    fn a_windows_program_path_is_recognised_per_agent() {
        let exe = Path::new(r"C:\Program Files\omc hooks\omc-hooks.exe");
        for agent in [Agent::Codex, Agent::Gemini, Agent::Qwen, Agent::Cursor] {
            let cmd = command_for(exe, agent, "stop");
            assert_eq!(agent_command(&cmd), Some((agent, "stop")), "{cmd}");
        }
    }

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
    fn merge_then_remove_gives_back_the_bytes_for_every_agent() {
        let exe = Path::new("/x/omc-hooks");
        for agent in [Agent::Codex, Agent::Gemini, Agent::Qwen, Agent::Cursor] {
            let layout = Layout::of(agent);
            let event = layout.rows().next().unwrap().0;
            let user_hook = if layout.flat {
                r#"{"command": "./audit.sh", "timeout": 3}"#
            } else {
                r#"{"hooks": [{"type": "command", "command": "./audit.sh"}]}"#
            };
            let original = format!(
                "{{\n    \"model\": {{\"name\": \"x\"}},\n    \"hooks\": {{\n        \"{event}\": [\n            {user_hook}\n        ]\n    }}\n}}\n"
            );
            let mut edit = Edit::parse(&original).unwrap();
            let mut rec = Record::default();
            let m = merge(&layout, &mut edit, exe, &mut rec).unwrap();
            assert_eq!(m.added, layout.rows().count(), "{agent}");
            let installed = edit.text().to_string();
            let again = merge(&layout, &mut edit, exe, &mut rec.clone()).unwrap();
            assert_eq!(again, Merged::default(), "{agent}: idempotent");
            assert_eq!(edit.text(), installed, "{agent}: idempotent");
            assert!(installed.contains("./audit.sh"), "{agent}");
            let n = remove(&layout, &mut edit, &rec).unwrap();
            assert_eq!(n, m.added, "{agent}");
            assert_eq!(edit.text(), original, "{agent}");
        }
    }

    #[test]
    fn a_moved_binary_replaces_the_old_entries() {
        let layout = Layout::of(Agent::Gemini);
        let mut edit = Edit::parse("{}\n").unwrap();
        let mut rec = Record::default();
        merge(&layout, &mut edit, Path::new("/old/omc-hooks"), &mut rec).unwrap();
        let m = merge(&layout, &mut edit, Path::new("/new/omc-hooks"), &mut rec).unwrap();
        assert_eq!(m.updated, layout.rows().count());
        assert!(!edit.text().contains("/old/"));
        assert_eq!(rec.added, vec!["/hooksConfig".to_string()]);
    }
}
