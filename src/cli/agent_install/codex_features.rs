//! Codex's opt-in switch for hooks, in the `config.toml` beside the `hooks.json` install wrote.
//!
//! Codex 0.124 and later run hooks by default (`codex features list`: `hooks stable true` on
//! 0.169); older builds run them only with `[features] codex_hooks = true` (the switch was
//! later renamed `hooks`, read under that name from 0.130 on, as the public notes on Codex's
//! hook protocol give it; not checked against a 0.12x client here). So install asks the `codex`
//! on PATH for its version and, only for a version that needs it, adds the switch — with
//! `toml_edit`, which keeps every other byte of the user's file, and with a trailing comment
//! that marks the line as ours. A switch the user set to `false` is reported, never flipped.
//! Uninstall removes exactly the line (and the table or file) install added.

use super::Record;
use crate::env::Env;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use toml_edit::{DocumentMut, Item, Table, value};

/// The comment that marks the line install added.
const MARK: &str = "# added by omc-hooks install; 'omc-hooks uninstall --agent codex' removes it";

/// The first Codex that runs hooks without the switch.
const DEFAULT_ON: (u64, u64, u64) = (0, 124, 0);
/// The first Codex that reads the switch as `hooks` (before: `codex_hooks`).
const RENAMED: (u64, u64, u64) = (0, 130, 0);

/// How long `codex --version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(5);

/// What install changed in `config.toml`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(in crate::cli) struct Change {
    pub(in crate::cli) path: String,
    pub(in crate::cli) key: String,
    pub(in crate::cli) created_file: bool,
    pub(in crate::cli) created_table: bool,
}

fn config_of(hooks_json: &Path) -> PathBuf {
    hooks_json.with_file_name("config.toml")
}

/// Makes sure this Codex will run hooks; returns a note for the person, if any.
pub(super) fn ensure(
    hooks_json: &Path,
    env: &Env,
    record: &mut Record,
) -> Result<Option<String>, String> {
    let path = config_of(hooks_json);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut doc: DocumentMut = match text.as_deref().unwrap_or("").parse() {
        Ok(d) => d,
        Err(e) => {
            return Ok(Some(format!(
                "Note: {} is not valid TOML ({e}); whether Codex runs hooks was not checked.",
                path.display()
            )));
        }
    };
    for key in ["hooks", "codex_hooks"] {
        if doc
            .get("features")
            .and_then(|f| f.get(key))
            .and_then(Item::as_bool)
            == Some(false)
        {
            return Ok(Some(format!(
                "Warning: {} sets [features] {key} = false, so Codex runs no hooks at all; \
                 change it to true (install leaves your setting alone).",
                path.display()
            )));
        }
    }
    let Some(version) = codex_version(env) else {
        return Ok(Some(
            "Note: no `codex` on PATH, so its version was not checked: Codex 0.124 and later \
             run hooks by default; older ones need `[features] codex_hooks = true` in \
             config.toml (run install again with codex on PATH to have it added)."
                .into(),
        ));
    };
    if version >= DEFAULT_ON {
        return Ok(None);
    }
    let key = if version >= RENAMED {
        "hooks"
    } else {
        "codex_hooks"
    };
    if doc
        .get("features")
        .and_then(|f| f.get(key))
        .and_then(Item::as_bool)
        == Some(true)
    {
        return Ok(None);
    }
    let created_table = doc.get("features").is_none();
    if created_table {
        doc.insert("features", Item::Table(Table::new()));
    }
    let features = doc["features"].as_table_mut().ok_or_else(|| {
        format!(
            "{}: [features] is not a table; nothing was changed",
            path.display()
        )
    })?;
    let mut v = value(true);
    if let Some(val) = v.as_value_mut() {
        val.decor_mut().set_suffix(format!(" {MARK}"));
    }
    features.insert(key, v);
    let out = doc.to_string();
    write(&path, &out)?;
    record.codex_config = Some(Change {
        path: path.display().to_string(),
        key: key.to_string(),
        created_file: text.is_none(),
        created_table,
    });
    Ok(Some(format!(
        "Codex {}.{}.{} runs hooks only when switched on: added `[features] {key} = true` to {}.",
        version.0,
        version.1,
        version.2,
        path.display()
    )))
}

/// Takes back what [`ensure`] added, if its line is still there and still ours.
pub(super) fn restore(hooks_json: &Path, record: &Record) -> Result<Option<String>, String> {
    let Some(ch) = &record.codex_config else {
        return Ok(None);
    };
    let path = config_of(hooks_json);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let Ok(mut doc) = text.parse::<DocumentMut>() else {
        return Ok(Some(format!(
            "Note: {} is no longer valid TOML; the line install added was left in it.",
            path.display()
        )));
    };
    let Some(features) = doc.get_mut("features").and_then(Item::as_table_mut) else {
        return Ok(None);
    };
    let ours = features
        .get(&ch.key)
        .and_then(Item::as_value)
        .and_then(|v| v.decor().suffix())
        .and_then(|s| s.as_str())
        .is_some_and(|s| s.contains("added by omc-hooks install"));
    if !ours {
        return Ok(None);
    }
    features.remove(&ch.key);
    if ch.created_table && features.is_empty() {
        doc.remove("features");
    }
    let out = doc.to_string();
    if ch.created_file && out.trim().is_empty() {
        std::fs::remove_file(&path)
            .map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
    } else {
        write(&path, &out)?;
    }
    Ok(Some(format!(
        "Removed `[features] {}` from {} (install had added it).",
        ch.key,
        path.display()
    )))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    let dir = path.parent().ok_or("config.toml has no directory")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mode = std::fs::metadata(path)
        .ok()
        .and_then(|m| crate::platform::mode_of(&m))
        .unwrap_or(0o600);
    crate::state::fs::write_atomic(path, text.as_bytes())
        .and_then(|()| crate::platform::set_mode_at(path, mode))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The version of the `codex` on PATH (`codex-cli 0.169.0`), if it answers in time.
fn codex_version(env: &Env) -> Option<(u64, u64, u64)> {
    let codex = env
        .var("PATH")?
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join("codex"))
        .find(|p| p.is_file())?;
    let mut child = Command::new(&codex)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < VERSION_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let out = child.wait_with_output().ok()?;
    parse_version(&String::from_utf8_lossy(&out.stdout))
}

/// The first `a.b.c` in a version line.
fn parse_version(text: &str) -> Option<(u64, u64, u64)> {
    text.split_whitespace().find_map(|w| {
        let mut it = w.trim_start_matches('v').split('.');
        let a = it.next()?.parse().ok()?;
        let b = it.next()?.parse().ok()?;
        let c = it
            .next()?
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()?;
        Some((a, b, c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(parse_version("codex-cli 0.169.0\n"), Some((0, 169, 0)));
        assert_eq!(
            parse_version("codex-cli 0.120.1-alpha.3"),
            Some((0, 120, 1))
        );
        assert_eq!(parse_version("v1.2.3"), Some((1, 2, 3)));
        assert_eq!(parse_version("codex"), None);
    }
}
