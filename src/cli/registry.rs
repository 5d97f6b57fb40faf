//! The user's registry of installs: which settings files `omc-hooks install` wrote, for which
//! project, and what each install created there (so `uninstall` can undo exactly that).
//! `status --all` reads it to find every project's runs. Projects hooked into another agent
//! with `install --agent` are listed too (`agent_installs`), for `status --all` only: what to
//! undo there is kept beside the agent's own file.
//!
//! One JSON file, `$XDG_DATA_HOME/omc-hooks/installs.json` (else
//! `~/.local/share/omc-hooks/installs.json`), schema `state-schema/installs.schema.json`.
//! Read-modify-writes hold a lock on its directory and replace the file atomically. When the
//! last entry goes, the file goes too, with the directories the registry itself created.

use super::settings::merge::Record;
use crate::env::Env;
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

const FILE: &str = "installs.json";

/// The registry file's content.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub(super) struct Registry {
    pub(super) version: u32,
    #[serde(default)]
    pub(super) installs: Vec<Install>,
    /// Projects whose Codex, Gemini CLI, Qwen Code or Cursor hooks `install --agent` wrote.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) agent_installs: Vec<AgentInstall>,
    /// Directories created to hold this file, outermost first: removed (when empty) with it.
    #[serde(default)]
    pub(super) created_dirs: Vec<PathBuf>,
}

/// One settings file omc-hooks is installed in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Install {
    /// The settings file, absolute.
    pub(super) settings: PathBuf,
    /// `project`, `local` or `user`.
    pub(super) scope: String,
    /// The project it serves; `None` for the user settings (every project).
    pub(super) project: Option<PathBuf>,
    /// The program the hooks run (an absolute path, or `omc-hooks` for a PATH lookup).
    pub(super) program: String,
    pub(super) installed_at: String,
    /// The settings file did not exist before: uninstall deletes it if nothing else is left.
    #[serde(default)]
    pub(super) created_file: bool,
    /// Directories created for the settings file, outermost first.
    #[serde(default)]
    pub(super) created_dirs: Vec<PathBuf>,
    /// What `--gitignore` added to the project's `.gitignore`, for uninstall to take back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) gitignore: Option<GitignoreEdit>,
    #[serde(flatten)]
    pub(super) record: Record,
}

/// Lines `install --gitignore` appended to a `.gitignore`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(super) struct GitignoreEdit {
    /// The `.gitignore`, absolute.
    pub(super) file: PathBuf,
    /// The exact text appended at its end (a newline first when the file did not end with
    /// one, then one line per entry).
    pub(super) appended: String,
    /// The file did not exist before: uninstall deletes it when nothing else is in it.
    #[serde(default)]
    pub(super) created_file: bool,
}

/// A project's hook file of another agent, written by `install --agent` (project files only:
/// a user-level file serves every project, like Claude Code's user scope).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct AgentInstall {
    /// `codex`, `gemini`, `qwen` or `cursor`.
    pub(super) agent: String,
    /// The agent's hook file, absolute.
    pub(super) file: PathBuf,
    pub(super) project: PathBuf,
    pub(super) installed_at: String,
}

/// The registry's directory: `$XDG_DATA_HOME/omc-hooks` (an absolute XDG_DATA_HOME only, as
/// the XDG spec says), else `$HOME/.local/share/omc-hooks`.
pub(super) fn dir(env: &Env) -> Option<PathBuf> {
    let var = |k: &str| {
        env.var(k)
            .filter(|v| !v.trim().is_empty())
            .map(PathBuf::from)
    };
    var("XDG_DATA_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|h| h.join(".local").join("share")))
        .map(|d| d.join("omc-hooks"))
}

/// The registry file, if a data directory can be named.
pub(super) fn file(env: &Env) -> Option<PathBuf> {
    dir(env).map(|d| d.join(FILE))
}

fn read_file(path: &Path) -> io::Result<Registry> {
    match std::fs::read(path) {
        Ok(b) => serde_json::from_slice(&b).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} is not a valid registry ({e})", path.display()),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Registry {
            version: 1,
            ..Registry::default()
        }),
        Err(e) => Err(e),
    }
}

/// Reads the registry without locking (for `status`); an absent file is an empty registry.
pub(super) fn read(env: &Env) -> io::Result<Registry> {
    match file(env) {
        Some(f) => read_file(&f),
        None => Ok(Registry::default()),
    }
}

/// Runs `f` on the registry under its lock and writes the result back: the file is removed
/// when no install is left (with the directories it created, when empty). `create` says
/// whether a missing directory may be created (install) or means there is nothing to do.
pub(super) fn update<R>(
    env: &Env,
    create: bool,
    f: impl FnOnce(&mut Registry) -> R,
) -> io::Result<Option<R>> {
    let Some(dir) = dir(env) else {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            "no data directory: set HOME (or XDG_DATA_HOME)",
        ));
    };
    if !dir.is_dir() && !create {
        return Ok(None);
    }
    let made = super::settings::create_dirs(&dir)?;
    let lock = crate::platform::lock_dir(&dir)?;
    let path = dir.join(FILE);
    let mut reg = read_file(&path)?;
    reg.version = 1;
    if !made.is_empty() && reg.is_empty() {
        reg.created_dirs = made;
    }
    let out = f(&mut reg);
    if reg.is_empty() {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        crate::platform::unlock_dir(lock, &dir);
        super::settings::remove_empty_dirs(&reg.created_dirs);
        let _ = std::fs::remove_dir(&dir);
        return Ok(Some(out));
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(".installs.json.tmp-")
        .tempfile_in(&dir)?;
    let mut text = serde_json::to_vec_pretty(&reg).map_err(io::Error::other)?;
    text.push(b'\n');
    tmp.write_all(&text)?;
    tmp.as_file().sync_all()?;
    tmp.persist(&path).map_err(|e| e.error)?;
    Ok(Some(out))
}

impl Registry {
    /// Nothing is installed anywhere.
    pub(super) fn is_empty(&self) -> bool {
        self.installs.is_empty() && self.agent_installs.is_empty()
    }

    /// Notes (or renews) the agent hook file `file` of `project`.
    pub(super) fn note_agent(&mut self, entry: AgentInstall) {
        self.agent_installs.retain(|a| a.file != entry.file);
        self.agent_installs.push(entry);
    }

    /// Forgets the agent hook file `file`.
    pub(super) fn forget_agent(&mut self, file: &Path) {
        self.agent_installs.retain(|a| a.file != file);
    }

    /// The entry for a settings file.
    pub(super) fn find(&self, settings: &Path) -> Option<&Install> {
        self.installs.iter().find(|i| i.settings == settings)
    }

    /// Takes the entry for a settings file out.
    pub(super) fn take(&mut self, settings: &Path) -> Option<Install> {
        let i = self.installs.iter().position(|i| i.settings == settings)?;
        Some(self.installs.remove(i))
    }

    /// The projects installed into (Claude Code's project and local scope, and other agents'
    /// project files), each once, in install order.
    pub(super) fn projects(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        let agents = self.agent_installs.iter().map(|a| a.project.clone());
        for p in self
            .installs
            .iter()
            .filter_map(|i| i.project.clone())
            .chain(agents)
        {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }

    /// Drops the entries of projects that no longer exist; returns them.
    pub(super) fn prune(&mut self) -> Vec<PathBuf> {
        let gone: Vec<PathBuf> = self
            .projects()
            .into_iter()
            .filter(|p| !p.is_dir())
            .collect();
        self.installs
            .retain(|i| i.project.as_ref().is_none_or(|p| !gone.contains(p)));
        self.agent_installs.retain(|a| !gone.contains(&a.project));
        gone
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_with(home: &Path) -> Env {
        let mut env = Env::default();
        env.extra
            .insert("HOME".into(), home.to_string_lossy().into_owned());
        env
    }

    fn entry(settings: &Path, project: Option<&Path>) -> Install {
        Install {
            settings: settings.into(),
            scope: "local".into(),
            project: project.map(Into::into),
            program: "/bin/omc-hooks".into(),
            installed_at: "2026-12-01T00:00:00Z".into(),
            created_file: false,
            created_dirs: Vec::new(),
            gitignore: None,
            record: Record::default(),
        }
    }

    #[test]
    fn the_last_entry_out_removes_the_file_and_the_directories_it_made() {
        let home = tempfile::tempdir().unwrap();
        let env = env_with(home.path());
        assert_eq!(dir(&env), Some(home.path().join(".local/share/omc-hooks")));
        assert!(update(&env, false, |_| ()).unwrap().is_none());
        let s = home.path().join("p/.claude/settings.local.json");
        update(&env, true, |r| {
            r.installs.push(entry(&s, Some(home.path())))
        })
        .unwrap()
        .unwrap();
        let reg = read(&env).unwrap();
        assert_eq!(reg.installs.len(), 1);
        assert_eq!(reg.created_dirs.len(), 3, "{:?}", reg.created_dirs);
        assert_eq!(reg.projects(), vec![home.path().to_path_buf()]);
        update(&env, false, |r| r.take(&s)).unwrap();
        assert_eq!(
            std::fs::read_dir(home.path()).unwrap().count(),
            0,
            "nothing left in HOME"
        );
    }

    #[cfg(unix)] // Unix paths (`/xdg`); on Windows an absolute path has a drive.
    #[test]
    fn xdg_data_home_wins_when_absolute_and_deleted_projects_are_pruned() {
        let mut env = Env::default();
        env.extra.insert("HOME".into(), "/h".into());
        env.extra.insert("XDG_DATA_HOME".into(), "rel".into());
        assert_eq!(dir(&env), Some(PathBuf::from("/h/.local/share/omc-hooks")));
        env.extra.insert("XDG_DATA_HOME".into(), "/xdg".into());
        assert_eq!(dir(&env), Some(PathBuf::from("/xdg/omc-hooks")));
        let t = tempfile::tempdir().unwrap();
        let mut reg = Registry::default();
        reg.installs
            .push(entry(Path::new("/a/s.json"), Some(t.path())));
        reg.installs
            .push(entry(Path::new("/gone/s.json"), Some(Path::new("/gone"))));
        reg.installs.push(entry(Path::new("/u/s.json"), None));
        assert_eq!(reg.prune(), vec![PathBuf::from("/gone")]);
        assert_eq!(reg.installs.len(), 2);
    }
}
