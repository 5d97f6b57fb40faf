//! Claude Code settings files: where they are (project, local, user), how our entries are
//! recognised in them, and how a file is read and written back.
//!
//! Our hook entries are recognised by their command alone — a program whose file name is
//! `omc-hooks` followed by one hook subcommand — so uninstall removes exactly what install
//! added, and an install from a moved binary replaces the old entries instead of adding a
//! second set. The text is edited in place ([`edit::Edit`]): bytes we do not change stay as
//! they were. [`merge`] holds what install and uninstall do to a file.

pub(crate) mod edit;
pub(super) mod merge;
mod tree;

use crate::env::Env;
use edit::Edit;
use serde_json::Value;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Which settings file: Claude Code reads all three, local over project over user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    /// `<project>/.claude/settings.json`, shared with the team through git.
    Project,
    /// `<project>/.claude/settings.local.json`, this machine only (git-ignored by Claude Code).
    Local,
    /// `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json`), every project.
    User,
}

impl Scope {
    pub(super) fn parse(s: &str) -> Option<Scope> {
        match s {
            "project" => Some(Scope::Project),
            "local" => Some(Scope::Local),
            "user" => Some(Scope::User),
            _ => None,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::User => "user",
        }
    }
}

/// `<project>/.claude/settings.json`.
pub(super) fn project_settings(project: &Path) -> PathBuf {
    project.join(".claude").join("settings.json")
}

/// `<project>/.claude/settings.local.json`.
pub(super) fn local_settings(project: &Path) -> PathBuf {
    project.join(".claude").join("settings.local.json")
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

/// The command line a settings entry uses to run `sub` on `program` (an absolute path, quoted
/// here, or the bare name `omc-hooks` for a lookup on PATH).
pub(super) fn command_for(program: &str, sub: &str) -> String {
    if program == "omc-hooks" {
        format!("omc-hooks {sub}")
    } else {
        format!("{} {sub}", shell_quote(program))
    }
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

/// Splits a command into (program, last word) when the program is a single word whose file
/// name is `omc-hooks`.
fn split_ours(command: &str) -> Option<(String, &str)> {
    let (program, sub) = command.trim().rsplit_once(char::is_whitespace)?;
    let program = shell_word(program.trim())?;
    crate::platform::names_program(&program, "omc-hooks").then_some((program, sub.trim()))
}

/// Splits an entry's command into (program, hook subcommand) when it is one of ours: a single
/// program word whose file name is `omc-hooks`, then a known hook subcommand.
pub(super) fn our_command(command: &str) -> Option<(String, &'static str)> {
    let (program, sub) = split_ours(command)?;
    Some((program, crate::hooks::find(sub)?.name))
}

/// Whether a `statusLine` setting runs our `statusline` subcommand.
pub(super) fn our_statusline(setting: &Value) -> bool {
    setting
        .get("command")
        .and_then(Value::as_str)
        .and_then(split_ours)
        .is_some_and(|(_, sub)| sub == "statusline")
}

/// The hook subcommand a handler object runs, if the handler is ours.
pub(super) fn our_handler(handler: &Value) -> Option<&'static str> {
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
    for h in merge::handlers(settings) {
        if let Some(sub) = our_handler(h.handler)
            && let Some((program, _)) = h.handler["command"].as_str().and_then(our_command)
        {
            out.push(Found {
                event: h.event.to_string(),
                sub,
                program,
            });
        }
    }
    out
}

/// A settings file as read from disk.
pub(super) struct SettingsFile {
    /// The path named (may be a symlink).
    pub(super) path: PathBuf,
    /// Whether the file existed.
    pub(super) existed: bool,
    pub(super) edit: Edit,
}

impl SettingsFile {
    pub(super) fn value(&self) -> Value {
        self.edit.value()
    }
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
            LoadError::Invalid(e) => write!(f, "{e}"),
        }
    }
}

/// The text a settings file starts from when install creates it.
pub(super) const NEW_FILE: &str = "{}\n";

/// Reads and parses a settings file; a missing (or blank) file reads as [`NEW_FILE`].
pub(super) fn load(path: &Path) -> Result<SettingsFile, LoadError> {
    let (text, existed) = match std::fs::read_to_string(path) {
        Ok(t) if t.trim().is_empty() => (NEW_FILE.to_string(), true),
        Ok(t) => (t, true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => (NEW_FILE.to_string(), false),
        Err(e) => return Err(LoadError::Io(e)),
    };
    let edit = Edit::parse(&text).map_err(LoadError::Invalid)?;
    Ok(SettingsFile {
        path: path.to_path_buf(),
        existed,
        edit,
    })
}

/// The file a write goes to: through a symlink, its target.
fn target_of(path: &Path) -> io::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => crate::platform::canonicalize(path),
        _ => Ok(path.to_path_buf()),
    }
}

/// The one backup `--backup` keeps beside a settings file, replaced each time.
pub(super) fn backup_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "settings.json".into());
    path.with_file_name(format!("{name}.omc-hooks.bak"))
}

/// Copies the current file to [`backup_path`] (replacing an older backup).
pub(super) fn backup(path: &Path) -> io::Result<PathBuf> {
    let to = backup_path(path);
    std::fs::copy(target_of(path)?, &to)?;
    Ok(to)
}

/// Backups beside a settings file: ours and the `<name>.bak-<stamp>` files older versions
/// left on every run.
pub(super) fn backups_beside(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    let name = name.to_string_lossy();
    let legacy = format!("{name}.bak-");
    let ours = format!("{name}.omc-hooks.bak");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n == ours || n.starts_with(&legacy)
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// Replaces the settings file with `text` atomically, keeping its permissions (through a
/// symlink, its target is replaced). Parent directories are created as needed; the ones that
/// were created are returned, outermost first.
pub(super) fn save(path: &Path, text: &str) -> io::Result<Vec<PathBuf>> {
    let target = target_of(path)?;
    let dir = target
        .parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no parent directory"))?
        .to_path_buf();
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "settings.json".into());
    let created = create_dirs(&dir)?;
    let mode = match std::fs::metadata(&target) {
        Ok(meta) => crate::platform::mode_of(&meta).unwrap_or(0o644),
        Err(e) if e.kind() == io::ErrorKind::NotFound => 0o644,
        Err(e) => return Err(e),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}.tmp-"))
        .tempfile_in(&dir)?;
    crate::platform::set_mode(tmp.as_file(), mode)?;
    tmp.write_all(text.as_bytes())?;
    tmp.as_file().sync_all()?;
    crate::platform::persist(tmp.into_temp_path(), &target)?;
    crate::platform::sync_dir(&dir)?;
    Ok(created)
}

/// `create_dir_all`, returning the directories it created, outermost first.
pub(super) fn create_dirs(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && std::fs::symlink_metadata(a).is_err())
        .map(Path::to_path_buf)
        .collect();
    std::fs::create_dir_all(dir)?;
    Ok(missing.into_iter().rev().collect())
}

/// Removes the directories of `dirs` that are empty, innermost first; the others stay.
pub(super) fn remove_empty_dirs(dirs: &[PathBuf]) {
    for d in dirs.iter().rev() {
        let _ = std::fs::remove_dir(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Windows: the binary is `omc-hooks.exe` at a path with backslashes and spaces; the
    /// command install writes (single-quoted: Git Bash keeps every backslash) is known as ours.
    #[cfg(windows)]
    #[test]
    fn a_windows_program_path_is_quoted_and_recognised() {
        let exe = r"C:\Users\Jane Doe\AppData\Roaming\npm\omc-hooks.exe";
        let cmd = command_for(exe, "user-prompt-submit");
        assert_eq!(
            cmd,
            r"'C:\Users\Jane Doe\AppData\Roaming\npm\omc-hooks.exe' user-prompt-submit"
        );
        assert_eq!(
            our_command(&cmd),
            Some((exe.to_string(), "user-prompt-submit"))
        );
        assert_eq!(
            our_command(r"'C:\bin\OMC-HOOKS.EXE' stop"),
            Some((r"C:\bin\OMC-HOOKS.EXE".to_string(), "stop"))
        );
        assert_eq!(our_command(r"'C:\bin\omc-hooks.cmd' stop"), None);
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
        let odd = "/we\"ird/$x/it's/omc-hooks";
        let cmd = command_for(odd, "pre-compact");
        assert_eq!(our_command(&cmd), Some((odd.to_string(), "pre-compact")));
        assert_eq!(command_for("omc-hooks", "stop"), "omc-hooks stop");
        assert!(our_statusline(
            &serde_json::json!({"type": "command", "command": "\"/x/omc-hooks\" statusline"})
        ));
        assert!(!our_statusline(
            &serde_json::json!({"type": "command", "command": "~/bin/line.sh"})
        ));
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

    #[test]
    fn created_directories_are_reported_and_removed_when_empty() {
        let t = tempfile::tempdir().unwrap();
        let deep = t.path().join("a/b/c");
        let made = create_dirs(&deep).unwrap();
        assert_eq!(
            made,
            vec![t.path().join("a"), t.path().join("a/b"), deep.clone()]
        );
        std::fs::write(t.path().join("a/keep"), "x").unwrap();
        remove_empty_dirs(&made);
        assert!(!t.path().join("a/b").exists());
        assert!(t.path().join("a/keep").exists());
    }
}
