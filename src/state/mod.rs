//! Everything that touches `.omc/`. Nothing else in the crate reads or writes project files.
//!
//! A [`Store`] is the resolved root of one project. Files are named by [`StateFile`], which can
//! only be built from validated pieces (a checked session id, a plain file name), so no path is
//! ever made from a raw payload value. Reads treat a missing, unreadable or corrupt file as
//! absent — corrupt ones are moved aside first. Writes are atomic; read-modify-writes hold an
//! advisory lock.
//!
//! Every write goes through [`redacted_json`] or [`redacted_text`]: secret-shaped text (provider
//! keys, tokens, private keys, passwords; [`crate::redact`]) is redacted here, once, for every
//! file and every capability, so no writer can forget — `.omc/` gets committed, shared and
//! pasted. What a capability keeps in memory and answers with is untouched; only the bytes on
//! disk are redacted. (The export spools are the export module's, appended through
//! [`outbox`]: a sink redacts its records unless its configuration says not to, contract §18.)

pub mod files;
pub mod folder;
pub mod fs;
pub mod health;
pub mod outbox;
pub mod pending;
pub mod root;
pub mod session;
mod text;
pub mod transcript;
pub mod trust;
pub mod usage;

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

pub use root::Root;
pub use session::SessionId;

/// Which state directory a file belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// `.omc/state/sessions/<id>/`
    Session(SessionId),
    /// `.omc/state/` — only for payloads without a valid session id.
    Global,
    /// `.omc/` itself (notepad, project memory, session summaries, config).
    Omc,
}

impl Scope {
    /// The session scope for a raw id, or the session-less scope when it is missing or invalid.
    pub fn for_session(raw: Option<&str>) -> Scope {
        raw.and_then(SessionId::parse)
            .map_or(Scope::Global, Scope::Session)
    }

    pub fn session_id(&self) -> Option<&SessionId> {
        match self {
            Scope::Session(id) => Some(id),
            _ => None,
        }
    }

    fn rel_dir(&self) -> PathBuf {
        match self {
            Scope::Session(id) => Path::new("state/sessions").join(id.as_str()),
            Scope::Global => PathBuf::from("state"),
            Scope::Omc => PathBuf::new(),
        }
    }
}

/// A file inside `.omc/`: a scope, optional plain subdirectories and a plain file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateFile {
    rel_dir: PathBuf,
    name: String,
}

impl StateFile {
    /// `name` must be a plain file name (`[A-Za-z0-9][A-Za-z0-9._-]*`, no `..`).
    pub fn new(scope: &Scope, name: &str) -> Option<StateFile> {
        plain_name(name).then(|| StateFile {
            rel_dir: scope.rel_dir(),
            name: name.to_string(),
        })
    }

    /// A file in a plain subdirectory of the scope, e.g. `checkpoints/<stamp>.json`.
    pub fn nested(scope: &Scope, subdir: &str, name: &str) -> Option<StateFile> {
        (plain_name(subdir) && plain_name(name)).then(|| StateFile {
            rel_dir: scope.rel_dir().join(subdir),
            name: name.to_string(),
        })
    }

    /// A file below `subdir` at the relative path `rel` (`arch/db/storage.md`: plain parts
    /// separated by `/`, at most 6 of them), for the person's folders that have subfolders
    /// (the wiki).
    pub fn deep(scope: &Scope, subdir: &str, rel: &str) -> Option<StateFile> {
        let parts: Vec<&str> = rel.split('/').collect();
        if !plain_name(subdir) || parts.len() > 6 || !parts.iter().all(|p| plain_name(p)) {
            return None;
        }
        let (name, dirs) = parts.split_last()?;
        let mut rel_dir = scope.rel_dir().join(subdir);
        for d in dirs {
            rel_dir.push(d);
        }
        Some(StateFile {
            rel_dir,
            name: (*name).to_string(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

fn plain_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 255
        && b[0].is_ascii_alphanumeric()
        && !name.contains("..")
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
}

/// Releases a read-modify-write's lock: with its lock file when the target is gone (removed,
/// or never written), so a session's directory keeps no empty lock file for a file it does not
/// have ([`fs::Lock::remove`] makes that safe for a process waiting on it).
fn release(lock: fs::Lock, target: &Path) {
    if std::fs::symlink_metadata(target).is_err() {
        lock.remove();
    }
}

/// The bytes of a state file: `value` as pretty-printed JSON and a newline, with every string
/// that holds secret-shaped text redacted (and the string value of every key naming a secret).
/// Going through a `Value` keeps the field order (`preserve_order`) and costs a few
/// microseconds for the files a hook writes.
pub fn redacted_json<T: Serialize + ?Sized>(value: &T) -> io::Result<Vec<u8>> {
    let mut v = serde_json::to_value(value)?;
    crate::redact::value(&mut v);
    let mut bytes = serde_json::to_vec_pretty(&v)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// A text file's new content with secret-shaped text redacted. Text that is a JSON document
/// (project memory) is redacted as JSON, so that a cut never breaks its quoting; it is
/// re-printed only when something was redacted. Anything else (the notepad's Markdown) is
/// redacted as text, the whole file: a secret a person pasted into it is cut too.
pub fn redacted_text(name: &str, text: String) -> String {
    if name.ends_with(".json")
        && let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&text)
    {
        if crate::redact::value(&mut v) == 0 {
            return text;
        }
        return serde_json::to_string_pretty(&v).map_or(text, |mut t| {
            t.push('\n');
            t
        });
    }
    crate::redact::text(&text).map_or(text, |(clean, _)| clean)
}

/// What a read-modify-write decides to do with the file.
pub enum Change<T> {
    Keep,
    Write(T),
    Remove,
}

/// One project's state.
/// A file that is there and could not be read ([`Store::read_text_or_missing`]); what went
/// wrong was said on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreadable;

#[cfg(test)]
thread_local! {
    /// The names of the files [`Store::read`] read on this thread, in order (tests of how
    /// often an event reads a file).
    pub static READS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

#[derive(Debug, Clone)]
pub struct Store {
    root: Root,
    now_ms: i64,
    /// Directories of this tree (the root included) this process has already seen to be real
    /// directories, not symlinks: each is checked once per process rather than once per file
    /// (a hook reads a dozen files in the same directory; ~50 `lstat`s fewer). Shared by
    /// clones; a directory removed through [`Store::remove_only`] is forgotten.
    seen_dirs: Arc<Mutex<Vec<PathBuf>>>,
}

impl Store {
    pub fn new(root: Root, now_ms: i64) -> Store {
        Store {
            root,
            now_ms,
            seen_dirs: Arc::default(),
        }
    }

    fn seen(&self, dir: &Path) -> bool {
        self.seen_dirs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|d| d == dir)
    }

    fn note_seen(&self, dir: &Path) {
        let mut seen = self
            .seen_dirs
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !seen.iter().any(|d| d == dir) {
            seen.push(dir.to_path_buf());
        }
    }

    /// Forgets `dir` and everything below it (it was removed).
    fn forget_seen(&self, dir: &Path) {
        self.seen_dirs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|d| !d.starts_with(dir));
    }

    /// [`fs::ensure_dir`] for `rel` below the root, from the deepest directory of the chain
    /// this process already made or checked: a checkpoint's new folder below the session's
    /// costs one look and a `mkdir`, not a look at every folder above it again.
    fn ensure(&self, rel: &Path) -> io::Result<PathBuf> {
        let full = self.root.omc.join(rel);
        if self.seen(&full) {
            return Ok(full);
        }
        let dir = if self.seen(&self.root.omc) {
            let mut base = self.root.omc.clone();
            let mut below = rel.components();
            for comp in rel.components() {
                base.push(comp);
                if !self.seen(&base) {
                    base.pop();
                    break;
                }
                below.next();
            }
            fs::ensure_below(&base, below.as_path())?
        } else {
            fs::ensure_dir(&self.root.omc, rel)?
        };
        let mut d = self.root.omc.clone();
        self.note_seen(&d);
        for comp in rel.components() {
            d.push(comp);
            self.note_seen(&d);
        }
        Ok(dir)
    }

    pub fn root(&self) -> &Root {
        &self.root
    }

    pub fn project(&self) -> &Path {
        &self.root.project
    }

    pub fn omc_dir(&self) -> &Path {
        &self.root.omc
    }

    /// The absolute path of a state file (for display; capabilities do not open it themselves).
    pub fn path(&self, file: &StateFile) -> PathBuf {
        self.root.omc.join(&file.rel_dir).join(&file.name)
    }

    /// The directory of a scope, if it exists.
    pub fn dir(&self, scope: &Scope) -> PathBuf {
        self.root.omc.join(scope.rel_dir())
    }

    /// Reads and decodes a file. Missing → `None`. Corrupt (not JSON, or not the expected
    /// shape) → moved aside to `<name>.corrupt-<stamp>` and `None`.
    pub fn read<T: DeserializeOwned>(&self, file: &StateFile) -> Option<T> {
        #[cfg(test)]
        READS.with(|r| r.borrow_mut().push(file.name().to_string()));
        let path = self.checked_path(file)?;
        match fs::read_regular(&path) {
            Ok(None) => None,
            Ok(Some(bytes)) => self.decode_or_quarantine(&path, &bytes),
            Err(e) => {
                match std::fs::symlink_metadata(&path) {
                    // A directory, FIFO or socket where a state file belongs (ours, never a
                    // person's) is moved aside like a corrupt file, so the next write can put
                    // the file there: `doctor` promises as much. A symlink is left alone (it is
                    // refused, never followed, and not ours to rename).
                    Ok(m) if !m.is_file() && !m.file_type().is_symlink() => {
                        let what = if m.is_dir() {
                            "a directory"
                        } else {
                            "not a regular file"
                        };
                        match fs::quarantine(&path, &crate::time::stamp(self.now_ms)) {
                            Ok(aside) => crate::diag!(
                                "state file {} is {what}; moved aside to {}",
                                path.display(),
                                aside.display()
                            ),
                            Err(e) => crate::diag!(
                                "state file {} is {what}; could not move it aside: {e}",
                                path.display()
                            ),
                        }
                    }
                    _ => crate::diag!("cannot read {}: {e}", path.display()),
                }
                None
            }
        }
    }

    /// Reads a file's raw text (for person-edited files such as the notepad).
    pub fn read_text(&self, file: &StateFile) -> Option<String> {
        self.read_text_or_missing(file).ok().flatten()
    }

    /// [`Store::read_text`] telling a missing file (`Ok(None)`) from one that is there and
    /// cannot be read (`Err`, said on stderr; also when its path is refused), so a caller need
    /// not look the file up again to tell which.
    pub fn read_text_or_missing(&self, file: &StateFile) -> Result<Option<String>, Unreadable> {
        let path = self.checked_path(file).ok_or(Unreadable)?;
        match fs::read_regular(&path) {
            Ok(Some(bytes)) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
            Ok(None) => Ok(None),
            Err(e) => {
                crate::diag!("cannot read {}: {e}", path.display());
                Err(Unreadable)
            }
        }
    }

    /// Reads a person-written file directly in `.omc/` (such as `hooks.toml`) as raw bytes, so
    /// that a caller can hash exactly what it then parses. Missing → `Ok(None)` after a single
    /// `lstat` (the common case must stay cheap); a symlink, at the file or at `.omc` itself, or
    /// anything but a regular file is an error, never followed.
    pub fn read_person_file(&self, name: &str) -> io::Result<Option<Vec<u8>>> {
        if !plain_name(name) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a plain file name",
            ));
        }
        let path = self.root.omc.join(name);
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
            Ok(_) => {}
        }
        self.checked_dir(Path::new(""))?;
        fs::read_regular(&path)
    }

    /// The files a person keeps under `.omc/<subdir>/` whose names end with `ext`, subfolders
    /// included (at most `max_depth` deep), as paths relative to that folder with `/` between
    /// parts, sorted, at most `max` of them. Nothing is read; a symlink (a file or a folder) is
    /// never followed, and a name that is not plain is left out.
    pub fn person_tree(
        &self,
        subdir: &str,
        ext: &str,
        max_depth: usize,
        max: usize,
    ) -> Vec<String> {
        if !plain_name(subdir) {
            return Vec::new();
        }
        let Ok(dir) = self.checked_dir(Path::new(subdir)) else {
            return Vec::new();
        };
        folder::tree(&dir, ext, max_depth, max, plain_name)
    }

    /// The Markdown files a person keeps in `.omc/<subdir>/` (learned skills), read as
    /// [`folder::read_folder`] does; nothing when `.omc` or the folder is a symlink.
    pub fn person_folder(&self, subdir: &str, max_files: usize, max_bytes: u64) -> folder::Listing {
        if !plain_name(subdir) {
            return folder::Listing::default();
        }
        match self.checked_dir(Path::new(subdir)) {
            Ok(dir) => folder::read_folder(&dir, ".md", max_files, max_bytes),
            Err(e) => folder::Listing {
                files: Vec::new(),
                skipped: vec![(self.root.omc.join(subdir), e.to_string())],
            },
        }
    }

    /// The directory `rel` below the state root, provided neither the root nor any component
    /// below it is a symlink. Reads and listings go through here, as writes go through
    /// [`fs::ensure_dir`], so a link planted in `.omc/` is never followed: not to read another
    /// directory's state, and not to quarantine (rename) a file there.
    fn checked_dir(&self, rel: &Path) -> io::Result<PathBuf> {
        let full = self.root.omc.join(rel);
        if self.seen(&full) {
            return Ok(full);
        }
        let mut dir = self.root.omc.clone();
        self.check_dir(&dir)?;
        for comp in rel.components() {
            dir.push(comp);
            self.check_dir(&dir)?;
        }
        Ok(dir)
    }

    /// `Err` if `dir` is a symlink; remembered when it is a real directory.
    fn check_dir(&self, dir: &Path) -> io::Result<()> {
        if self.seen(dir) {
            return Ok(());
        }
        if fs::real_dir(dir)? {
            self.note_seen(dir);
        }
        Ok(())
    }

    /// A file's path for reading, or `None` (with a diagnostic) when a symlink is in the way.
    fn checked_path(&self, file: &StateFile) -> Option<PathBuf> {
        match self.checked_dir(&file.rel_dir) {
            Ok(dir) => Some(dir.join(&file.name)),
            Err(e) => {
                crate::diag!("cannot read {}: {e}", self.path(file).display());
                None
            }
        }
    }

    fn decode_or_quarantine<T: DeserializeOwned>(&self, path: &Path, bytes: &[u8]) -> Option<T> {
        let error = if bytes.len() as u64 > fs::MAX_STATE_FILE_BYTES {
            "file too large".to_string()
        } else {
            match serde_json::from_slice::<T>(bytes) {
                Ok(v) => return Some(v),
                Err(e) => e.to_string(),
            }
        };
        match fs::quarantine(path, &crate::time::stamp(self.now_ms)) {
            Ok(aside) => crate::diag!(
                "corrupt state file {} ({error}); moved aside to {}",
                path.display(),
                aside.display()
            ),
            Err(e) => crate::diag!(
                "corrupt state file {} ({error}); could not move it aside: {e}",
                path.display()
            ),
        }
        None
    }

    /// Writes a value atomically (pretty-printed JSON, redacted, mode 0600).
    pub fn write<T: Serialize>(&self, file: &StateFile, value: &T) -> io::Result<()> {
        let bytes = redacted_json(value)?;
        let dir = self.ensure(&file.rel_dir)?;
        fs::write_state(&dir.join(&file.name), &bytes)
    }

    /// Moves a file aside to `<name>.<label>-<stamp>` (never through a symlinked directory):
    /// the way to end a file's life that needs no new space, when a write cannot be made.
    pub fn set_aside(&self, file: &StateFile, label: &str) -> io::Result<PathBuf> {
        let path = self.checked_dir(&file.rel_dir)?.join(&file.name);
        fs::set_aside(&path, label, &crate::time::stamp(self.now_ms))
    }

    /// Removes a file if present (never a directory, never through a symlinked directory),
    /// and its lock file with it, under the lock, when it has one.
    pub fn remove(&self, file: &StateFile) -> io::Result<()> {
        let path = self.checked_dir(&file.rel_dir)?.join(&file.name);
        if std::fs::symlink_metadata(&path).is_err() {
            return Ok(());
        }
        let lock_path = path.with_file_name(format!(".{}.lock", file.name));
        if std::fs::symlink_metadata(&lock_path).is_err() {
            return fs::remove_file(&path);
        }
        let lock = fs::lock_for(&path)?;
        fs::remove_file(&path)?;
        release(lock, &path);
        Ok(())
    }

    /// Read-modify-write under the file's lock. `f` sees the current value (or `None`) and
    /// returns what to do plus a result for the caller.
    pub fn update<T, R>(
        &self,
        file: &StateFile,
        f: impl FnOnce(Option<T>) -> (Change<T>, R),
    ) -> io::Result<R>
    where
        T: Serialize + DeserializeOwned,
    {
        let dir = self.ensure(&file.rel_dir)?;
        let path = dir.join(&file.name);
        let lock = fs::lock_for(&path)?;
        let current = self.read(file);
        let had = current.is_some();
        let (change, result) = f(current);
        // Whether the file is there now, from what was done (no look-up): a file that was
        // read (or written) is; one that was not, or was removed, is not — a corrupt one was
        // moved aside by the read.
        let there = match change {
            Change::Keep => had,
            Change::Write(v) => {
                fs::write_state(&path, &redacted_json(&v)?)?;
                true
            }
            Change::Remove => {
                fs::remove_file(&path)?;
                false
            }
        };
        if !there {
            lock.remove();
        }
        Ok(result)
    }

    /// Whether the state directory holds nothing but `files` (and their lock files and
    /// spares), so that [`Store::remove_only`] may take it away. False for anything else, a
    /// symlink included.
    pub fn holds_only(&self, files: &[&StateFile]) -> bool {
        let keep: Vec<PathBuf> = files.iter().map(|f| self.path(f)).collect();
        let locks: Vec<PathBuf> = keep
            .iter()
            .flat_map(|p| {
                [
                    p.with_file_name(format!(
                        ".{}.lock",
                        p.file_name().unwrap_or_default().to_string_lossy()
                    )),
                    fs::spare_for(p),
                ]
            })
            .collect();
        fn walk(dir: &Path, ok: &dyn Fn(&Path) -> bool) -> bool {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return false;
            };
            entries.flatten().all(|e| match e.file_type() {
                Ok(t) if t.is_dir() => walk(&e.path(), ok),
                Ok(t) if t.is_file() => ok(&e.path()),
                _ => false,
            })
        }
        fs::reject_symlink(&self.root.omc).is_ok()
            && self.root.omc.is_dir()
            && walk(&self.root.omc, &|p| {
                keep.iter().chain(&locks).any(|k| k == p)
            })
    }

    /// Removes `files` (with their lock files) and then every directory on their paths that is
    /// left empty, up to and including the state directory itself. A directory that is not
    /// empty (someone else wrote meanwhile) stays.
    pub fn remove_only(&self, files: &[&StateFile]) -> io::Result<()> {
        for f in files {
            self.remove(f)?;
            let lock = self
                .checked_dir(&f.rel_dir)?
                .join(format!(".{}.lock", f.name));
            match std::fs::remove_file(&lock) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
            let mut rel = f.rel_dir.clone();
            loop {
                let dir = self.root.omc.join(&rel);
                if fs::reject_symlink(&dir).is_err() || std::fs::remove_dir(&dir).is_err() {
                    break;
                }
                self.forget_seen(&dir);
                if !rel.pop() {
                    break;
                }
            }
        }
        Ok(())
    }

    /// The names in a scope's directory, of every type, read with one listing, so a hook can
    /// skip the files that are not there without opening each (a tool hook looks for seven
    /// mode files that exist only while a run is live). Empty when the directory does not
    /// exist; `None` when it cannot be listed (a symlink in the way, another error): the
    /// caller then reads file by file, which says why.
    pub fn names(&self, scope: &Scope) -> Option<Vec<String>> {
        let dir = self.checked_dir(&scope.rel_dir()).ok()?;
        match std::fs::read_dir(&dir) {
            Ok(entries) => Some(
                entries
                    .filter_map(Result::ok)
                    .filter_map(|e| e.file_name().into_string().ok())
                    .collect(),
            ),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Some(Vec::new()),
            Err(_) => None,
        }
    }

    /// Lists the plain file names in a scope's directory (empty if it does not exist).
    pub fn list(&self, scope: &Scope, subdir: Option<&str>) -> Vec<String> {
        let mut rel = scope.rel_dir();
        if let Some(s) = subdir {
            if !plain_name(s) {
                return Vec::new();
            }
            rel.push(s);
        }
        let Ok(dir) = self.checked_dir(&rel) else {
            return Vec::new();
        };
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| plain_name(n))
            .collect();
        names.sort();
        names
    }

    /// Removes the temporary files that writers killed mid-write left under `.omc/` (older than
    /// [`fs::ORPHAN_TEMP_AGE_SECS`]); returns them, relative to the project.
    pub fn prune_temporaries(&self) -> Vec<String> {
        if self.checked_dir(Path::new("")).is_err() {
            return Vec::new();
        }
        fs::prune_temporaries(self.omc_dir(), 4)
            .into_iter()
            .map(|p| {
                p.strip_prefix(self.project())
                    .unwrap_or(&p)
                    .display()
                    .to_string()
            })
            .collect()
    }

    /// The sessions whose state changed within `within_ms` of now and that have not ended
    /// since (no `.omc/sessions/<id>.json` summary written after their last change), with the
    /// milliseconds since that change, newest first: the agents working in this project now,
    /// for `trust` (contract §17). Every hook of a session that keeps state renames a file into
    /// its directory, so the newest time among the directory and its files is its last hook.
    pub fn live_sessions(&self, within_ms: i64) -> Vec<(SessionId, i64)> {
        let mtime_ms = |p: &Path| -> Option<i64> {
            let m = std::fs::symlink_metadata(p).ok()?.modified().ok()?;
            let d = m.duration_since(std::time::UNIX_EPOCH).ok()?;
            i64::try_from(d.as_millis()).ok()
        };
        let mut live: Vec<(SessionId, i64)> = self
            .sessions()
            .into_iter()
            .filter_map(|id| {
                let dir = self.omc_dir().join("state/sessions").join(id.as_str());
                let newest = std::fs::read_dir(&dir)
                    .into_iter()
                    .flatten()
                    .filter_map(Result::ok)
                    .take(256)
                    .filter_map(|e| mtime_ms(&e.path()))
                    .chain(mtime_ms(&dir))
                    .max()?;
                let ago = self.now_ms - newest;
                let summary = self
                    .omc_dir()
                    .join("sessions")
                    .join(format!("{}.json", id.as_str()));
                let ended = mtime_ms(&summary).is_some_and(|t| t >= newest);
                (ago <= within_ms && !ended).then_some((id, ago.max(0)))
            })
            .collect();
        live.sort_by_key(|(_, ago)| *ago);
        live
    }

    /// The valid session ids that have a state directory.
    pub fn sessions(&self) -> Vec<SessionId> {
        let Ok(dir) = self.checked_dir(Path::new("state/sessions")) else {
            return Vec::new();
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut ids: Vec<SessionId> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter_map(|n| SessionId::parse(&n))
            .collect();
        ids.sort();
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    struct Counter {
        n: u64,
    }

    fn store(dir: &Path) -> Store {
        Store::new(
            Root {
                project: dir.to_path_buf(),
                omc: dir.join(".omc"),
            },
            1_000,
        )
    }

    /// Issue 44: one listing says which of a scope's files exist — every kind of entry (a
    /// directory where a file belongs is still read, and moved aside, by `read`), none when the
    /// directory is absent, and `None` (read file by file) when a symlink is in the way.
    #[test]
    fn names_lists_every_entry_of_a_scope_once() {
        let t = tempfile::tempdir().unwrap();
        let st = store(t.path());
        let scope = Scope::for_session(Some("s1"));
        std::fs::create_dir_all(t.path().join(".omc")).unwrap();
        assert_eq!(st.names(&scope), Some(Vec::new()));
        let file = StateFile::new(&scope, "ralph-state.json").unwrap();
        st.write(&file, &Counter { n: 1 }).unwrap();
        std::fs::create_dir(st.dir(&scope).join("team-state.json")).unwrap();
        let mut names = st.names(&scope).unwrap();
        names.sort();
        assert_eq!(names, ["ralph-state.json", "team-state.json"]);
        #[cfg(unix)]
        {
            let other = tempfile::tempdir().unwrap();
            let linked = Scope::for_session(Some("s2"));
            std::os::unix::fs::symlink(other.path(), st.dir(&linked)).unwrap();
            assert_eq!(st.names(&linked), None);
        }
    }

    #[test]
    fn file_names_must_be_plain() {
        let s = Scope::Global;
        assert!(StateFile::new(&s, "ralph-state.json").is_some());
        for bad in ["", "../x", "a/b", ".hidden", "a..b", "x y"] {
            assert!(StateFile::new(&s, bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn invalid_session_ids_use_the_global_scope() {
        assert_eq!(Scope::for_session(Some("../../x")), Scope::Global);
        assert_eq!(Scope::for_session(None), Scope::Global);
        assert!(matches!(Scope::for_session(Some("abc")), Scope::Session(_)));
    }

    #[test]
    fn update_round_trips_and_removes() {
        let t = tempfile::tempdir().unwrap();
        let st = store(t.path());
        let f = StateFile::new(&Scope::for_session(Some("s1")), "c.json").unwrap();
        for _ in 0..3 {
            st.update(&f, |c: Option<Counter>| {
                (
                    Change::Write(Counter {
                        n: c.map_or(1, |c| c.n + 1),
                    }),
                    (),
                )
            })
            .unwrap();
        }
        assert_eq!(st.read::<Counter>(&f), Some(Counter { n: 3 }));
        assert!(t.path().join(".omc/state/sessions/s1/c.json").is_file());
        st.update(&f, |_: Option<Counter>| (Change::Remove, ()))
            .unwrap();
        assert_eq!(st.read::<Counter>(&f), None);
    }

    #[test]
    fn reads_and_listings_do_not_follow_a_symlinked_directory() {
        let t = tempfile::tempdir().unwrap();
        let outside = t.path().join("outside");
        std::fs::create_dir_all(outside.join("state/sessions/s1")).unwrap();
        std::fs::write(outside.join("state/sessions/s1/c.json"), b"{\"n\":7}").unwrap();
        std::fs::write(outside.join("state/sessions/s1/bad.json"), b"{oops").unwrap();
        let project = t.path().join("p");
        std::fs::create_dir(&project).unwrap();
        crate::platform::symlink(&outside, project.join(".omc")).unwrap();
        let st = store(&project);
        let scope = Scope::for_session(Some("s1"));
        assert_eq!(
            st.read::<Counter>(&StateFile::new(&scope, "c.json").unwrap()),
            None
        );
        assert_eq!(
            st.read_text(&StateFile::new(&scope, "c.json").unwrap()),
            None
        );
        // A corrupt file out there is not "quarantined" (renamed) either.
        assert_eq!(
            st.read::<Counter>(&StateFile::new(&scope, "bad.json").unwrap()),
            None
        );
        assert!(outside.join("state/sessions/s1/bad.json").exists());
        assert!(st.list(&scope, None).is_empty());
        assert!(st.sessions().is_empty());
    }

    /// A write into a new folder below one this process already checked looks only at what
    /// lies below it, and still refuses a link planted there.
    #[cfg_attr(
        windows,
        ignore = "Wine 8 makes no link std sees as one: real Windows only"
    )]
    #[test]
    fn a_new_folder_below_a_checked_one_is_made_and_a_link_there_refused() {
        let t = tempfile::tempdir().unwrap();
        let st = store(t.path());
        let scope = Scope::for_session(Some("s1"));
        let c = StateFile::new(&scope, "c.json").unwrap();
        st.write(&c, &Counter { n: 1 }).unwrap();
        assert_eq!(st.read::<Counter>(&c), Some(Counter { n: 1 }));
        let made = StateFile::nested(&scope, "checkpoints", "a.json").unwrap();
        st.write(&made, &Counter { n: 2 }).unwrap();
        assert_eq!(st.read::<Counter>(&made), Some(Counter { n: 2 }));
        let outside = t.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        let session = st.path(&c).parent().unwrap().to_path_buf();
        crate::platform::symlink(&outside, session.join("planted")).unwrap();
        let planted = StateFile::nested(&scope, "planted", "b.json").unwrap();
        assert!(st.write(&planted, &Counter { n: 3 }).is_err());
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    }

    #[test]
    fn every_writer_redacts() {
        let t = tempfile::tempdir().unwrap();
        let st = store(t.path());
        let key = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
        let scope = Scope::for_session(Some("s1"));
        let a = StateFile::new(&scope, "a.json").unwrap();
        st.write(
            &a,
            &serde_json::json!({"prompt": format!("use {key}"), "n": 1}),
        )
        .unwrap();
        let b = StateFile::new(&scope, "b.json").unwrap();
        st.update(&b, |_: Option<serde_json::Value>| {
            (Change::Write(serde_json::json!({"api_key": "plain"})), ())
        })
        .unwrap();
        let md = StateFile::new(&Scope::Omc, "notes.md").unwrap();
        st.update_text(&md, |_| Some(format!("# N\n\n{key}\n")))
            .unwrap();
        let js = StateFile::new(&Scope::Omc, "memory.json").unwrap();
        st.update_text(&js, |_| {
            Some(format!("{{\"facts\": [\"pw: \\\"{key}\"]}}\n"))
        })
        .unwrap();
        let read = |f: &StateFile| std::fs::read_to_string(st.path(f)).unwrap();
        assert_eq!(
            read(&a),
            "{\n  \"prompt\": \"use [REDACTED:github-token]\",\n  \"n\": 1\n}\n"
        );
        assert!(
            read(&b).contains("\"api_key\": \"[REDACTED]\""),
            "{}",
            read(&b)
        );
        assert_eq!(read(&md), "# N\n\n[REDACTED:github-token]\n");
        // JSON text is redacted as JSON: still a document, the cut inside its string.
        let v: serde_json::Value = serde_json::from_str(&read(&js)).unwrap();
        assert_eq!(v["facts"][0], "pw: \"[REDACTED:github-token]");
    }

    #[test]
    fn corrupt_file_is_quarantined_and_absent() {
        let t = tempfile::tempdir().unwrap();
        let st = store(t.path());
        let f = StateFile::new(&Scope::Global, "c.json").unwrap();
        std::fs::create_dir_all(t.path().join(".omc/state")).unwrap();
        std::fs::write(t.path().join(".omc/state/c.json"), b"{not json").unwrap();
        assert_eq!(st.read::<Counter>(&f), None);
        let names = st.list(&Scope::Global, None);
        assert!(
            names.iter().any(|n| n.starts_with("c.json.corrupt-")),
            "{names:?}"
        );
        // A schema-invalid (wrong shape) file is treated the same way.
        std::fs::write(t.path().join(".omc/state/c.json"), b"{\"n\":\"x\"}").unwrap();
        assert_eq!(st.read::<Counter>(&f), None);
        assert!(!t.path().join(".omc/state/c.json").exists());
    }
}
