//! Claude Code settings files (`.claude/settings.json`, `~/.claude/settings.json`): where they
//! are, how our hook entries are recognised in them, and how they are merged in and out.
//!
//! Our entries are recognised by their command alone — a program whose file name is
//! `omc-hooks` followed by one hook subcommand — so uninstall removes exactly what install
//! added, and an install from a moved binary replaces the old entries instead of adding a
//! second set. Everything else in the file is kept in its order (serde_json's
//! `preserve_order`) and re-rendered in the file's own indentation, so install followed by
//! uninstall gives back the same bytes for a file in the usual pretty format.

use crate::env::Env;
use serde_json::{Map, Value};
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// `<project>/.claude/settings.json`.
pub(super) fn project_settings(project: &Path) -> PathBuf {
    project.join(".claude").join("settings.json")
}

/// The user's settings file: `$CLAUDE_CONFIG_DIR/settings.json`, else
/// `$HOME/.claude/settings.json`. `None` when neither variable is usable.
pub(super) fn user_settings(env: &Env) -> Option<PathBuf> {
    let non_empty = |k: &str| {
        env.var(k)
            .filter(|v| !v.trim().is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = non_empty("CLAUDE_CONFIG_DIR") {
        let dir = match (dir.is_absolute(), &env.process_cwd) {
            (false, Some(cwd)) => cwd.join(dir),
            _ => dir,
        };
        return Some(dir.join("settings.json"));
    }
    non_empty("HOME").map(|h| h.join(".claude").join("settings.json"))
}

/// The command line a settings entry uses to run `sub` on the binary at `exe`.
pub(super) fn command_for(exe: &Path, sub: &str) -> String {
    format!("{} {sub}", shell_quote(&exe.to_string_lossy()))
}

/// Quotes a path for `sh -c`: double quotes (as the plugin manifest does) unless the path holds
/// a character that is special inside them, then single quotes.
fn shell_quote(s: &str) -> String {
    if !s.contains(['"', '\\', '$', '`']) {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Parses `s` as exactly one shell word (quotes and backslashes as `sh` reads them; `$…` left
/// as written). `None` if it is empty or more than one word.
fn shell_word(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        any = true;
        match c {
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    ch => out.push(ch),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => match chars.next()? {
                        ch @ ('"' | '\\' | '$' | '`') => out.push(ch),
                        '\n' => {}
                        ch => {
                            out.push('\\');
                            out.push(ch);
                        }
                    },
                    ch => out.push(ch),
                }
            },
            '\\' => out.push(chars.next()?),
            ch if ch.is_whitespace() => return None,
            ch => out.push(ch),
        }
    }
    any.then_some(out)
}

/// Splits an entry's command into (program, hook subcommand) when it is one of ours: a single
/// program word whose file name is `omc-hooks`, then a known hook subcommand.
pub(super) fn our_command(command: &str) -> Option<(String, &'static str)> {
    let command = command.trim();
    let (program, sub) = command.rsplit_once(char::is_whitespace)?;
    let hook = crate::hooks::find(sub.trim())?;
    let program = shell_word(program.trim())?;
    let file_name = program.rsplit('/').next()?;
    (file_name == "omc-hooks").then_some((program, hook.name))
}

/// The hook subcommand a handler object runs, if the handler is ours.
fn our_handler(handler: &Value) -> Option<&'static str> {
    if handler
        .get("type")
        .is_some_and(|t| t.as_str() != Some("command"))
    {
        return None;
    }
    our_command(handler.get("command")?.as_str()?).map(|(_, sub)| sub)
}

/// One of our handlers found in a settings file.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Found {
    pub(super) event: String,
    pub(super) sub: &'static str,
    pub(super) program: String,
}

/// Every handler of ours in a parsed settings file.
pub(super) fn find_ours(settings: &Value) -> Vec<Found> {
    let mut out = Vec::new();
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, _, handler) in handlers(hooks) {
        if let Some(command) = handler.get("command").and_then(Value::as_str)
            && our_handler(handler).is_some()
            && let Some((program, sub)) = our_command(command)
        {
            out.push(Found {
                event: event.clone(),
                sub,
                program,
            });
        }
    }
    out
}

/// Every handler of a `hooks` object (event → matcher groups → handlers) with its event and
/// group, skipping entries of the wrong shape.
fn handlers(hooks: &Map<String, Value>) -> impl Iterator<Item = (&String, &Value, &Value)> {
    hooks.iter().flat_map(|(event, groups)| {
        groups
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(move |group| {
                group
                    .get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(move |handler| (event, group, handler))
            })
    })
}

/// One handler install wants: under `event`, in a group with `matcher`.
struct Wanted {
    event: String,
    matcher: Option<Value>,
    sub: &'static str,
    handler: Value,
    placed: bool,
}

/// The embedded manifest's entries with the plugin-root command replaced by `exe`.
fn wanted(exe: &Path) -> Result<Vec<Wanted>, String> {
    let manifest: Value = serde_json::from_str(crate::hooks::MANIFEST)
        .map_err(|e| format!("embedded manifest: {e}"))?;
    let events = manifest
        .get("hooks")
        .and_then(Value::as_object)
        .ok_or("embedded manifest has no hooks object")?;
    let mut out = Vec::new();
    for (event, group, handler) in handlers(events) {
        let Some(sub) = our_handler(handler) else {
            return Err(format!("embedded manifest: unexpected handler {handler}"));
        };
        let mut handler = handler.clone();
        handler["command"] = Value::String(command_for(exe, sub));
        out.push(Wanted {
            event: event.clone(),
            matcher: group.get("matcher").cloned(),
            sub,
            handler,
            placed: false,
        });
    }
    Ok(out)
}

/// What a merge did to a settings value.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Merge {
    pub(super) added: usize,
    pub(super) updated: usize,
    pub(super) removed: usize,
}

/// Merges our hooks (running `exe`) into `settings`. Entries already present for the same
/// event, matcher and subcommand are updated in place; ours that the manifest no longer wants
/// there are removed; missing ones are appended as groups of their own. Everything else stays.
pub(super) fn install(settings: &mut Value, exe: &Path) -> Result<Merge, String> {
    let mut wanted = wanted(exe)?;
    let obj = settings
        .as_object_mut()
        .ok_or("the settings file is not a JSON object")?;
    let hooks = obj
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or("its \"hooks\" entry is not an object")?;
    for w in &wanted {
        if hooks.get(&w.event).is_some_and(|g| !g.is_array()) {
            return Err(format!(
                "its \"hooks\".\"{}\" entry is not an array",
                w.event
            ));
        }
    }
    let mut merge = Merge::default();
    sweep(hooks, |event, matcher, handler, sub| {
        match wanted.iter_mut().find(|w| {
            !w.placed && w.event == event && w.sub == sub && w.matcher.as_ref() == matcher
        }) {
            Some(w) => {
                w.placed = true;
                if *handler != w.handler {
                    *handler = w.handler.clone();
                    merge.updated += 1;
                }
                true
            }
            None => {
                merge.removed += 1;
                false
            }
        }
    });
    for w in wanted.into_iter().filter(|w| !w.placed) {
        let mut group = Map::new();
        if let Some(m) = w.matcher {
            group.insert("matcher".into(), m);
        }
        group.insert("hooks".into(), Value::Array(vec![w.handler]));
        hooks
            .entry(w.event)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .expect("checked above")
            .push(Value::Object(group));
        merge.added += 1;
    }
    Ok(merge)
}

/// Removes every handler of ours from `settings`, and the groups, event arrays and `hooks`
/// object that only held ours. Returns how many handlers were removed.
pub(super) fn uninstall(settings: &mut Value) -> Result<usize, String> {
    let obj = settings
        .as_object_mut()
        .ok_or("the settings file is not a JSON object")?;
    let Some(hooks) = obj.get_mut("hooks") else {
        return Ok(0);
    };
    let Some(hooks_map) = hooks.as_object_mut() else {
        return Err("its \"hooks\" entry is not an object".into());
    };
    let was_empty = hooks_map.is_empty();
    let mut removed = 0;
    sweep(hooks_map, |_, _, _, _| {
        removed += 1;
        false
    });
    if removed > 0 && !was_empty && hooks_map.is_empty() {
        obj.shift_remove("hooks");
    }
    Ok(removed)
}

/// Visits every handler of ours in `hooks`; `keep` decides whether it stays (and may rewrite
/// it). Groups left empty by a removal are dropped, then event arrays left empty by that. An
/// array or group that was already empty is left alone.
fn sweep(
    hooks: &mut Map<String, Value>,
    mut keep: impl FnMut(&str, Option<&Value>, &mut Value, &'static str) -> bool,
) {
    let mut emptied_events = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        let mut dropped_group = false;
        groups.retain_mut(|group| {
            let matcher = group.get("matcher").cloned();
            let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let mut removed_here = false;
            handlers.retain_mut(|h| match our_handler(h) {
                None => true,
                Some(sub) => {
                    let k = keep(event, matcher.as_ref(), h, sub);
                    removed_here |= !k;
                    k
                }
            });
            let drop = removed_here && handlers.is_empty();
            dropped_group |= drop;
            !drop
        });
        if dropped_group && groups.is_empty() {
            emptied_events.push(event.clone());
        }
    }
    for e in emptied_events {
        hooks.shift_remove(&e);
    }
}

/// A settings file as read from disk.
pub(super) struct SettingsFile {
    /// The path named (may be a symlink).
    pub(super) path: PathBuf,
    /// The original text, `None` when the file does not exist.
    pub(super) text: Option<String>,
    pub(super) value: Value,
}

/// Why a settings file could not be used.
pub(super) enum LoadError {
    Io(io::Error),
    Invalid(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Io(e) => write!(f, "{e}"),
            LoadError::Invalid(e) => write!(f, "not valid JSON ({e})"),
        }
    }
}

/// Reads and parses a settings file; a missing (or blank) file is an empty object.
pub(super) fn load(path: &Path) -> Result<SettingsFile, LoadError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(LoadError::Io(e)),
    };
    let value = match text.as_deref() {
        None => Value::Object(Map::new()),
        Some(t) if t.trim().is_empty() => Value::Object(Map::new()),
        Some(t) => serde_json::from_str(t).map_err(|e| LoadError::Invalid(e.to_string()))?,
    };
    Ok(SettingsFile {
        path: path.to_path_buf(),
        text,
        value,
    })
}

/// Renders `value` in the layout of `original`: compact if it was on one line, else pretty
/// with its indentation (two spaces by default); a final newline if it had one (new files
/// get one).
pub(super) fn render(value: &Value, original: Option<&str>) -> String {
    let original = original.filter(|t| !t.trim().is_empty());
    let one_line = original.is_some_and(|t| !t.trim().contains('\n'));
    let mut out = if one_line {
        serde_json::to_string(value).expect("a Value always serialises")
    } else {
        let indent = original.and_then(detect_indent).unwrap_or("  ");
        let mut buf = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
        serde::Serialize::serialize(value, &mut ser).expect("a Value always serialises");
        String::from_utf8(buf).expect("serde_json writes UTF-8")
    };
    if original.is_none_or(|t| t.ends_with('\n')) {
        out.push('\n');
    }
    out
}

/// The indentation unit of a pretty JSON text: the leading run of spaces (or tabs) of its
/// first indented line.
fn detect_indent(text: &str) -> Option<&str> {
    let line = text.lines().skip(1).find(|l| !l.trim().is_empty())?;
    let n = line.len() - line.trim_start().len();
    let ws = &line[..n];
    (n > 0 && (ws.bytes().all(|b| b == b' ') || ws.bytes().all(|b| b == b'\t'))).then_some(ws)
}

/// Writes `text` to the settings file: the current file (through a symlink, its target) is
/// first copied to `<name>.bak-<stamp>`, then replaced atomically with the same permissions.
/// Returns the backup's path, if there was a file to back up.
pub(super) fn save(file: &SettingsFile, text: &str, stamp: &str) -> io::Result<Option<PathBuf>> {
    let target = match std::fs::symlink_metadata(&file.path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(&file.path)?,
        _ => file.path.clone(),
    };
    let dir = target
        .parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no parent directory"))?
        .to_path_buf();
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "settings.json".into());
    let (backup, mode) = match std::fs::metadata(&target) {
        Ok(meta) => {
            let mut backup = dir.join(format!("{name}.bak-{stamp}"));
            let mut n = 1;
            while std::fs::symlink_metadata(&backup).is_ok() {
                backup = dir.join(format!("{name}.bak-{stamp}-{n}"));
                n += 1;
            }
            std::fs::copy(&target, &backup)?;
            (Some(backup), meta.permissions().mode() & 0o7777)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            std::fs::create_dir_all(&dir)?;
            (None, 0o644)
        }
        Err(e) => return Err(e),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}.tmp-"))
        .tempfile_in(&dir)?;
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))?;
    tmp.write_all(text.as_bytes())?;
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    std::fs::File::open(&dir)?.sync_all()?;
    Ok(backup)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn exe() -> PathBuf {
        PathBuf::from("/opt/omc hooks/bin/omc-hooks")
    }

    #[test]
    fn commands_are_recognised_in_every_quoting() {
        for (cmd, prog) in [
            ("\"/a b/omc-hooks\" stop", "/a b/omc-hooks"),
            ("'/a$b/omc-hooks' stop", "/a$b/omc-hooks"),
            ("/usr/bin/omc-hooks   stop", "/usr/bin/omc-hooks"),
            ("omc-hooks stop", "omc-hooks"),
            (
                "\"${CLAUDE_PLUGIN_ROOT}/target/release/omc-hooks\" stop",
                "${CLAUDE_PLUGIN_ROOT}/target/release/omc-hooks",
            ),
        ] {
            assert_eq!(our_command(cmd), Some((prog.to_string(), "stop")), "{cmd}");
        }
        for cmd in [
            "/usr/bin/omc-hooks status",
            "/usr/bin/not-omc-hooks stop",
            "node /x/omc-hooks stop",
            "\"/a/omc-hooks stop",
            "stop",
        ] {
            assert_eq!(our_command(cmd), None, "{cmd}");
        }
        let odd = Path::new("/we\"ird/$x/it's/omc-hooks");
        let cmd = command_for(odd, "pre-compact");
        assert_eq!(
            our_command(&cmd),
            Some((odd.to_string_lossy().into_owned(), "pre-compact"))
        );
    }

    #[test]
    fn install_then_uninstall_restores_the_value() {
        let original = json!({
            "model": "opus",
            "hooks": {
                "Stop": [{"hooks": [{"type": "command", "command": "my-stop.sh"}]}],
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]
            },
            "permissions": {"allow": []}
        });
        let mut v = original.clone();
        let m = install(&mut v, &exe()).unwrap();
        assert_eq!(m.added, 10);
        assert_eq!(find_ours(&v).len(), 10);
        assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "my-stop.sh");
        assert_eq!(
            v["hooks"]["Stop"][1]["hooks"][0]["command"],
            "\"/opt/omc hooks/bin/omc-hooks\" stop"
        );
        let again = install(&mut v, &exe()).unwrap();
        assert_eq!(again, Merge::default());
        assert_eq!(uninstall(&mut v).unwrap(), 10);
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            serde_json::to_string(&original).unwrap()
        );
    }

    #[test]
    fn a_moved_binary_replaces_the_old_entries_in_place() {
        let mut v = json!({});
        install(&mut v, Path::new("/old/omc-hooks")).unwrap();
        let m = install(&mut v, Path::new("/new/omc-hooks")).unwrap();
        assert_eq!((m.added, m.updated, m.removed), (0, 10, 0));
        let ours = find_ours(&v);
        assert_eq!(ours.len(), 10);
        assert!(ours.iter().all(|f| f.program == "/new/omc-hooks"));
    }

    #[test]
    fn stray_entries_of_ours_are_removed_on_install() {
        let mut v = json!({"hooks": {"Notification": [
            {"hooks": [{"type": "command", "command": "/x/omc-hooks stop"}, {"type": "command", "command": "notify"}]}
        ]}});
        let m = install(&mut v, &exe()).unwrap();
        assert_eq!(m.removed, 1);
        assert_eq!(
            v["hooks"]["Notification"],
            json!([{"hooks": [{"type": "command", "command": "notify"}]}])
        );
    }

    #[test]
    fn containers_emptied_by_uninstall_go_but_already_empty_ones_stay() {
        // Without a record of what install created, uninstall drops a group, event array or
        // `hooks` object only when removing our handlers emptied it. One limitation follows:
        // an event array that was already `[]` before install is indistinguishable from one
        // install created, so it goes too (the README says so).
        let mut v = json!({"hooks": {"Stop": []}});
        install(&mut v, &exe()).unwrap();
        uninstall(&mut v).unwrap();
        assert_eq!(v, json!({}));
        // Untouched by install: an empty array of an event we do not use, an empty group.
        let original = json!({"hooks": {"Notification": [], "Stop": [{"hooks": []}]}});
        let mut v = original.clone();
        install(&mut v, &exe()).unwrap();
        uninstall(&mut v).unwrap();
        assert_eq!(v, original);
        // Nothing of ours: an empty hooks object stays.
        let mut v = json!({"hooks": {}});
        assert_eq!(uninstall(&mut v).unwrap(), 0);
        assert_eq!(v, json!({"hooks": {}}));
    }

    #[test]
    fn wrong_shapes_are_refused() {
        assert!(install(&mut json!([]), &exe()).is_err());
        assert!(install(&mut json!({"hooks": []}), &exe()).is_err());
        assert!(install(&mut json!({"hooks": {"Stop": {}}}), &exe()).is_err());
        assert!(uninstall(&mut json!({"hooks": 3})).is_err());
    }

    #[test]
    fn rendering_follows_the_original_layout() {
        let v = json!({"a": [1, {"b": true}], "c": {}});
        let two = "{\n  \"a\": [\n    1,\n    {\n      \"b\": true\n    }\n  ],\n  \"c\": {}\n}\n";
        assert_eq!(render(&v, Some(two)), two);
        assert_eq!(render(&v, Some(two.trim_end())), two.trim_end());
        let four = two.replace("  ", "    ");
        assert_eq!(render(&v, Some(&four)), four);
        let tabs = two.replace("  ", "\t");
        assert_eq!(render(&v, Some(&tabs)), tabs);
        assert_eq!(
            render(&v, Some("{\"a\":[1,{\"b\":true}],\"c\":{}}")),
            "{\"a\":[1,{\"b\":true}],\"c\":{}}"
        );
        assert_eq!(render(&v, None), two);
    }

    #[test]
    fn user_settings_honours_the_config_dir() {
        let mut env = Env::default();
        assert_eq!(user_settings(&env), None);
        env.extra.insert("HOME".into(), "/home/u".into());
        assert_eq!(
            user_settings(&env),
            Some(PathBuf::from("/home/u/.claude/settings.json"))
        );
        env.extra.insert("CLAUDE_CONFIG_DIR".into(), "/cfg".into());
        assert_eq!(
            user_settings(&env),
            Some(PathBuf::from("/cfg/settings.json"))
        );
    }
}
