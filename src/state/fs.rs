//! The file primitives every state write goes through: directories created without following
//! symlinks, atomic replacement, advisory locks with a bounded wait, and quarantine.

use crate::platform;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// State files are small; anything larger is not ours and is treated as corrupt.
pub const MAX_STATE_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// How long a read-modify-write waits for another hook process to finish its own.
pub const LOCK_WAIT: Duration = Duration::from_secs(2);

/// Creates `base/rel` one component at a time (mode 0700), refusing to pass through a symlink
/// at any level below `base`, and refusing a `base` that is itself a symlink.
pub fn ensure_dir(base: &Path, rel: &Path) -> io::Result<PathBuf> {
    reject_symlink(base)?;
    if !base.exists() {
        platform::private_dir_builder()
            .recursive(true)
            .create(base)?;
    }
    ensure_below(base, rel)
}

/// [`ensure_dir`] below a `base` already known to be a real directory: only `rel`'s
/// components are looked at (and made where missing).
pub fn ensure_below(base: &Path, rel: &Path) -> io::Result<PathBuf> {
    let mut dir = base.to_path_buf();
    for comp in rel.components() {
        let std::path::Component::Normal(name) = comp else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "state path component is not a plain name",
            ));
        };
        dir.push(name);
        match fs::symlink_metadata(&dir) {
            Ok(m) if platform::is_link(&m) => return Err(symlink_error(&dir)),
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    NotADirectory(dir.clone()),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                match platform::private_dir_builder().create(&dir) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                        reject_symlink(&dir)?;
                    }
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(dir)
}

/// `Err` if `path` is a symlink. A missing path is fine.
pub fn reject_symlink(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if platform::is_link(&m) => Err(symlink_error(path)),
        _ => Ok(()),
    }
}

/// `Ok(true)` for a real directory, `Ok(false)` for anything else that is not a symlink
/// (missing included), `Err` for a symlink.
pub fn real_dir(path: &Path) -> io::Result<bool> {
    match fs::symlink_metadata(path) {
        Ok(m) if platform::is_link(&m) => Err(symlink_error(path)),
        Ok(m) => Ok(m.is_dir()),
        Err(_) => Ok(false),
    }
}

fn symlink_error(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        SymlinkRefused(path.to_path_buf()),
    )
}

/// The error payload of a refused symlink, so callers can say exactly what is in the way
/// (see [`super::health`]).
#[derive(Debug)]
pub struct SymlinkRefused(pub PathBuf);

impl std::fmt::Display for SymlinkRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "refusing to follow a symlink at {}", self.0.display())
    }
}

impl std::error::Error for SymlinkRefused {}

/// The error payload of a non-directory where a state directory belongs.
#[derive(Debug)]
pub struct NotADirectory(pub PathBuf);

impl std::fmt::Display for NotADirectory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} exists and is not a directory", self.0.display())
    }
}

impl std::error::Error for NotADirectory {}

/// Reads a file that must be a regular file (not a symlink) of bounded size.
/// `Ok(None)` when it does not exist.
///
/// One `open` that refuses a symlink (`O_NOFOLLOW`) and never waits on a FIFO (`O_NONBLOCK`),
/// then `fstat` on what was opened: no window between checking the path and opening it, and
/// the whole file read in one go from its known size.
///
/// The file read is held with a shared lock until it is read ([`platform::hold_for_reading`]):
/// [`write_state`] writes the next version into the file that was replaced last time (its
/// spare), so a reader that opened that file just before it was replaced must keep the
/// writer out of it, or see it torn. A writer holds a file while it is a spare, and for the
/// moment after it is exchanged into place, complete: one held that is no longer at `path` is
/// opened again; one held at `path` is asked again a few times, then read (a lock of another
/// kind: the flusher holds its lock file for as long as it runs).
pub fn read_regular(path: &Path) -> io::Result<Option<Vec<u8>>> {
    let mut reopened = 0;
    let file = loop {
        let file = match platform::open_no_follow(OpenOptions::new().read(true), path, true) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) if platform::is_link_refusal(&e) => {
                return Err(symlink_error(path));
            }
            Err(e) => return Err(e),
        };
        if reopened == READ_REOPENS || held_for_reading(&file, path) {
            break file;
        }
        reopened += 1;
        if reopened > 4 {
            std::thread::sleep(Duration::from_micros(50));
        } else {
            std::thread::yield_now();
        }
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a regular file",
        ));
    }
    // The size read is the one `fstat` gave: the file is held ([`platform::hold_for_reading`])
    // and replaced whole, never written in place while held, so no read past it is needed to
    // find its end. A size of 0 may be a file that does not say its size: read to its end.
    let cap = meta.len().min(MAX_STATE_FILE_BYTES + 1);
    let limit = if cap == 0 {
        MAX_STATE_FILE_BYTES + 1
    } else {
        cap
    };
    let mut buf = Vec::with_capacity(cap as usize + 1);
    file.take(limit).read_to_end(&mut buf)?;
    Ok(Some(buf))
}

/// Whether `file`, opened at `path` to be read, is now held for reading ([`read_regular`]), or
/// may be read through; `false` when a writer holds it as a spare (no longer at `path`).
fn held_for_reading(file: &File, path: &Path) -> bool {
    for _ in 0..READ_ASKS {
        if platform::hold_for_reading(file) {
            return true;
        }
        if !same_file(file, path) {
            return false;
        }
        std::thread::yield_now();
    }
    true
}

/// Reads a project file that a person wrote and the model may be shown (a rule file): `Ok(None)`
/// when it does not exist; `Err` when its real path (symlinks resolved) lies outside `root`,
/// when it is not a regular file (a FIFO, a device, a directory), or when it is larger than
/// `max` bytes. The type and size are checked with `stat` before opening, and the open itself
/// never waits ([`read_regular`]), so nothing here can hold the hook.
pub fn read_within(root: &Path, path: &Path, max: u64) -> io::Result<Option<Vec<u8>>> {
    let real = match fs::canonicalize(path) {
        Ok(p) => p,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !inside_root(root, &real)? {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{} resolves outside the project", path.display()),
        ));
    }
    let meta = fs::metadata(&real)?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not a regular file", path.display()),
        ));
    }
    if meta.len() > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is larger than {max} bytes", path.display()),
        ));
    }
    match read_regular(&real)? {
        Some(b) if b.len() as u64 > max => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is larger than {max} bytes", path.display()),
        )),
        other => Ok(other),
    }
}

/// Whether `real` (already canonical) lies under `root` once `root`'s own symlinks are
/// resolved. A directory to list goes through this before it is read.
pub fn inside_root(root: &Path, real: &Path) -> io::Result<bool> {
    Ok(real.starts_with(fs::canonicalize(root)?))
}

/// Whether writes are also made durable against a power failure (`OMC_DURABLE=1`): set once
/// per process from the environment, before any write ([`set_durable`]).
static DURABLE: AtomicBool = AtomicBool::new(false);

/// Chooses, for this process, whether [`write_atomic`] fsyncs (see there).
pub fn set_durable(on: bool) {
    DURABLE.store(on, Ordering::Relaxed);
}

/// Whether [`write_atomic`] fsyncs in this process.
pub fn durable() -> bool {
    DURABLE.load(Ordering::Relaxed)
}

/// How many times [`read_regular`] opens a file again that a writer holds as a spare.
const READ_REOPENS: usize = 40;

/// How many times [`read_regular`] asks again for a file a writer holds at its path.
const READ_ASKS: usize = 8;

/// Replaces `path` atomically with `bytes`: a temporary file in the same directory, written,
/// renamed over the target. Mode 0600. A symlink at the target is replaced, never followed.
///
/// Atomic, always: a reader, a concurrent hook or a process killed half-way sees the old file
/// or the new one, never a mix. Durable against a power failure only with `OMC_DURABLE=1`
/// ([`set_durable`]): then the file is fsynced before the rename and the directory after it.
/// Those two fsyncs cost about 0.5 ms per write here, more than the rest of a hook's own work
/// (BENCHMARKS.md, "Durability"); without them a power failure or kernel crash can lose the
/// last seconds of updates, and a file it leaves torn is moved aside and treated as absent like
/// any corrupt file — never a block.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no parent directory"))?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tmp-");
    platform::private_tempfile(&mut builder);
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    let durable = durable();
    if durable {
        tmp.as_file().sync_all()?;
    }
    replace(tmp.into_temp_path(), path)?;
    if durable {
        platform::sync_dir(dir)?;
    }
    Ok(())
}

/// Replaces the state file `path` atomically with `bytes`, as [`write_atomic`] does (and as
/// durable), through its spare where it can.
///
/// Where the system can exchange two names ([`platform::SPARE_WRITES`]), the bytes go into
/// `path`'s spare, `.<name>.spare` beside it: the version the last write replaced, written
/// over in place and exchanged with `path` (`renameat2(RENAME_EXCHANGE)`), so that the spare
/// then holds the version just replaced. No file is created or deleted: a new temporary file
/// and the deletion of the replaced one cost 0.2–0.3 ms per write on ext4 (a new inode, found
/// past the recently deleted ones; the freed blocks), against ~0.02 ms for the write in place
/// and the exchange (BENCHMARKS.md, "Issue 44, round 3"). A reader holds what it reads
/// ([`read_regular`]), so no writer writes into a spare a reader still has open. A spare that
/// another writer or a reader holds, one that is not a plain file with one name, or a system
/// without the exchange: [`write_atomic`]'s new temporary file. Deleting a state file deletes
/// its spare ([`remove_file`]).
pub fn write_state(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no parent directory"))?;
    match write_through_spare(dir, path, bytes) {
        Some(done) => done,
        None => write_atomic(path, bytes),
    }
}

/// Deletes the state file `path` and its spare ([`write_state`]); a file already gone is no
/// error.
pub fn remove_file(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => {
            let _ = fs::remove_file(spare_for(path));
            Ok(())
        }
    }
}

/// Whether a file name is a state file's companion, not state: its lock file
/// (`.<name>.lock`, [`lock_for`]) or its spare (`.<name>.spare`, [`write_state`]).
pub fn is_companion(name: &str) -> bool {
    name.starts_with('.') && (name.ends_with(".lock") || name.ends_with(".spare"))
}

/// The spare of a state file: `.<name>.spare` beside it ([`write_state`]).
pub fn spare_for(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.spare"))
}

/// [`write_state`] through `path`'s spare; `None` when the spare cannot be used (nothing
/// written then), and the caller makes a new temporary file.
fn write_through_spare(dir: &Path, path: &Path, bytes: &[u8]) -> Option<io::Result<()>> {
    if !platform::SPARE_WRITES {
        return None;
    }
    let spare = spare_for(path);
    let mut file = platform::open_no_follow(
        platform::private_file(OpenOptions::new().write(true).create(true).truncate(false)),
        &spare,
        true,
    )
    .ok()?;
    file.try_lock().ok()?;
    // Held: no other writer exchanges it now. One that did between our open and our lock
    // made it `path` itself; one that fell back to a temporary file, or a removal, left it
    // with no name.
    let meta = file.metadata().ok()?;
    if !meta.is_file() || !platform::single_link(&meta) {
        return None;
    }
    let exists = match fs::symlink_metadata(path) {
        Ok(m) if platform::same_inode(&m, &meta) => return None,
        // Only a file (or a link, replaced) is replaced: a directory at `path` is left to the
        // temporary file's path, which refuses it; a spare beside it is of no use.
        Ok(m) if m.is_dir() => {
            let _ = fs::remove_file(&spare);
            return None;
        }
        Ok(_) => true,
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(_) => return None,
    };
    let written = (|| {
        file.write_all(bytes)?;
        if meta.len() > bytes.len() as u64 {
            file.set_len(bytes.len() as u64)?;
        }
        if durable() {
            file.sync_all()?;
        }
        if exists && platform::exchange(&spare, path).is_ok() {
            return Ok(());
        }
        fs::rename(&spare, path)
    })();
    if let Err(e) = written {
        return Some(Err(e));
    }
    if durable()
        && let Err(e) = platform::sync_dir(dir)
    {
        return Some(Err(e));
    }
    Some(Ok(()))
}

/// How old a temporary file of [`write_atomic`] must be before it counts as left by a writer
/// that was killed, in seconds: a writer holds its file for one write (and an fsync), and every
/// hook is ended by its own deadline within seconds, so a file this old has no live writer.
/// Their names are random, so age is what tells.
pub const ORPHAN_TEMP_AGE_SECS: u64 = 120;

/// Removes the temporaries of [`write_atomic`] (`.tmp-XXXXXX`, regular files, not links) in
/// `dir` and its directories below (not following links, `depth` levels, at most 256
/// directories) that are older than [`ORPHAN_TEMP_AGE_SECS`]; returns the ones removed.
pub fn prune_temporaries(dir: &Path, depth: usize) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    let mut seen = 0;
    let now = std::time::SystemTime::now();
    while let Some((d, level)) = stack.pop() {
        seen += 1;
        if seen > 256 {
            break;
        }
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten().take(4096) {
            // The listing gives each entry's type (without following a link): only a
            // temporary's age costs a look at the file itself.
            let Ok(kind) = e.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if level < depth {
                    stack.push((e.path(), level + 1));
                }
                continue;
            }
            if !kind.is_file() || !e.file_name().to_string_lossy().starts_with(".tmp-") {
                continue;
            }
            let Ok(meta) = e.path().symlink_metadata() else {
                continue;
            };
            let old = meta
                .modified()
                .ok()
                .and_then(|m| now.duration_since(m).ok())
                .is_some_and(|age| age.as_secs() >= ORPHAN_TEMP_AGE_SECS);
            if meta.is_file() && old && fs::remove_file(e.path()).is_ok() {
                removed.push(e.path());
            }
        }
    }
    removed.sort();
    removed
}

/// Puts the written temporary file `tmp` in place of `path`, atomically.
///
/// When `path` exists, the two names are exchanged (`renameat2(RENAME_EXCHANGE)`) and the old
/// file, now under the temporary name, is deleted. A plain rename over an existing file would
/// do the same for readers, but ext4 then starts writing the new file's data back at once (its
/// `auto_da_alloc` safeguard for programs that rename without fsync): 0.25 ms per write here,
/// against 0.06 ms for the exchange and the unlink (BENCHMARKS.md, "Where the time goes").
/// Readers see the old file or the new one at every instant, as with a rename. Where the file
/// is new, or the file system cannot exchange, a plain rename.
fn replace(tmp: tempfile::TempPath, path: &Path) -> io::Result<()> {
    if platform::exchange(&tmp, path).is_err() {
        return platform::persist(tmp, path);
    }
    // `tmp` now names what was at `path`. Only a file may be replaced: a directory swapped out
    // by the exchange is swapped back, as a rename over a directory would have failed.
    if let Err(e) = fs::remove_file(&*tmp) {
        if platform::exchange(&tmp, path).is_ok() {
            return Err(e);
        }
        crate::diag!(
            "cannot remove {} after replacing {}: {e}",
            tmp.display(),
            path.display()
        );
    }
    // Already removed: nothing for the guard to delete.
    let _ = tmp.keep();
    Ok(())
}

/// An exclusive advisory lock on a sibling lock file, released on drop.
pub struct Lock {
    file: File,
    path: PathBuf,
}

impl Lock {
    /// Releases the lock and deletes the lock file, for a target that no longer exists, so a
    /// session's directory does not collect empty lock files. Deleted while still held: a
    /// process that meanwhile took the lock on this file finds in [`lock_for`] that it is no
    /// longer at its path and takes the new one instead, so two writers never both think they
    /// hold the lock.
    pub fn remove(self) {
        if same_file(&self.file, &self.path) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Whether the open `file` is the file now at `path` (not replaced, not unlinked).
fn same_file(file: &File, path: &Path) -> bool {
    platform::is_at(file, path)
}

/// How a lock file is opened (a state file's, [`lock_for`]; the export flusher's): for reading
/// and writing, made when missing with the owner's permissions only, never truncated.
pub fn lock_file_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    platform::private_file(o.read(true).write(true).create(true).truncate(false));
    o
}

/// Takes the lock for `target` (`.<name>.lock` beside it), waiting at most [`LOCK_WAIT`].
pub fn lock_for(target: &Path) -> io::Result<Lock> {
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let lock_path = target.with_file_name(format!(".{}.lock", name.to_string_lossy()));
    let deadline = std::time::Instant::now() + LOCK_WAIT;
    loop {
        let opened = platform::open_no_follow(&mut lock_file_options(), &lock_path, false);
        let file = match opened {
            Ok(f) => f,
            Err(e) if platform::is_link_refusal(&e) => return Err(symlink_error(&lock_path)),
            // The lock file's last holder is deleting it (Windows): try again.
            Err(e)
                if platform::is_transient_open_error(&e)
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(1));
                continue;
            }
            Err(e) => return Err(e),
        };
        lock_until(&file, &lock_path, deadline)?;
        // The holder before us may have deleted the lock file ([`Lock::remove`]): a lock on
        // the deleted file guards nothing, so take the one now at the path.
        if platform::still_named(&file, &lock_path) {
            return Ok(Lock {
                file,
                path: lock_path,
            });
        }
        drop(file);
        if std::time::Instant::now() >= deadline {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("timed out waiting for {}", lock_path.display()),
            ));
        }
    }
}

/// Locks `file` exclusively, waiting until `deadline` at most.
fn lock_until(file: &File, lock_path: &Path, deadline: std::time::Instant) -> io::Result<()> {
    // Fast path: no contention.
    match file.try_lock() {
        Ok(()) => return Ok(()),
        Err(TryLockError::WouldBlock) => {}
        Err(TryLockError::Error(e)) => return Err(e),
    }
    // Contended: wait in the kernel, not by polling. A poller sleeps through the moment the
    // lock is free and loses it to whoever asks next; with 16 processes updating one file on a
    // loaded 2-core machine, polling starved some waiters past LOCK_WAIT (lost updates). The
    // blocking wait runs on a helper thread so it can be abandoned at the deadline; the helper
    // holds a clone of the same open file, so if it gets the lock after we gave up, the lock
    // goes away with the helper's clone and our `file` (both closed by then or right after).
    let waiter = file.try_clone()?;
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("state-lock".into())
        .spawn(move || {
            let got = waiter.lock();
            let _ = tx.send(got);
        })?;
    match rx.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("timed out waiting for {}", lock_path.display()),
        )),
    }
}

/// Moves a corrupt file aside to `<name>.corrupt-<stamp>` and returns the new path.
pub fn quarantine(path: &Path, stamp: &str) -> io::Result<PathBuf> {
    set_aside(path, "corrupt", stamp)
}

/// Moves a file aside to `<name>.<label>-<stamp>` (`-<n>` added while that exists) and returns
/// the new path. A rename in the same directory: it needs no new space on the disk.
pub fn set_aside(path: &Path, label: &str, stamp: &str) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?
        .to_string_lossy()
        .into_owned();
    let mut aside = path.with_file_name(format!("{name}.{label}-{stamp}"));
    let mut n = 1;
    while aside.exists() {
        aside = path.with_file_name(format!("{name}.{label}-{stamp}-{n}"));
        n += 1;
    }
    fs::rename(path, &aside)?;
    Ok(aside)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file is read whole, by the size it says; one over the bound reads one byte past it
    /// (its readers refuse it); an empty one reads empty; a missing one is `None`.
    #[test]
    fn read_regular_reads_the_size_the_file_says_and_one_past_the_bound() {
        let t = tempfile::tempdir().unwrap();
        let small = t.path().join("small.json");
        std::fs::write(&small, b"{\"a\": 1}").unwrap();
        assert_eq!(read_regular(&small).unwrap().unwrap(), b"{\"a\": 1}");
        let empty = t.path().join("empty.json");
        std::fs::write(&empty, b"").unwrap();
        assert_eq!(read_regular(&empty).unwrap().unwrap(), b"");
        let big = t.path().join("big.json");
        std::fs::write(&big, vec![b'x'; MAX_STATE_FILE_BYTES as usize + 100]).unwrap();
        assert_eq!(
            read_regular(&big).unwrap().unwrap().len() as u64,
            MAX_STATE_FILE_BYTES + 1
        );
        assert!(read_regular(&t.path().join("none.json")).unwrap().is_none());
    }

    #[test]
    fn a_deleted_lock_file_never_lets_two_writers_in() {
        // Appenders add one line to a file; takers count its lines and delete it, and with it
        // the lock file (as `Store::update` does for a file that is gone). Every line appended
        // is taken exactly once, or is still there: no two holders at once.
        let t = tempfile::tempdir().unwrap();
        let target = t.path().join("ledger.txt");
        let taken = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let (target, taken) = (target.clone(), std::sync::Arc::clone(&taken));
                std::thread::spawn(move || {
                    let mut appended = 0;
                    for k in 0..150 {
                        let lock = lock_for(&target).unwrap();
                        let cur = fs::read_to_string(&target).unwrap_or_default();
                        if i % 2 == 0 || k % 7 != 0 {
                            fs::write(&target, format!("{cur}x\n")).unwrap();
                            appended += 1;
                            drop(lock);
                        } else {
                            taken.fetch_add(cur.lines().count(), Ordering::SeqCst);
                            let _ = fs::remove_file(&target);
                            lock.remove();
                        }
                    }
                    appended
                })
            })
            .collect();
        let appended: usize = threads.into_iter().map(|h| h.join().unwrap()).sum();
        let left = fs::read_to_string(&target)
            .unwrap_or_default()
            .lines()
            .count();
        assert_eq!(taken.load(Ordering::SeqCst) + left, appended);
    }

    #[test]
    fn only_old_temporaries_are_pruned() {
        let t = tempfile::tempdir().unwrap();
        let sub = t.path().join("state/sessions/s1");
        fs::create_dir_all(&sub).unwrap();
        let old = sub.join(".tmp-AbC123");
        let fresh = sub.join(".tmp-XyZ789");
        let other = sub.join("work.json");
        for f in [&old, &fresh, &other] {
            fs::write(f, b"{}").unwrap();
        }
        let long_ago =
            std::time::SystemTime::now() - std::time::Duration::from_secs(ORPHAN_TEMP_AGE_SECS + 5);
        for f in [&old, &other] {
            File::options()
                .write(true)
                .open(f)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        }
        // An old temporary's name on a link or a folder: neither is removed, nor followed.
        #[cfg(unix)]
        {
            let target = t.path().join("target");
            fs::write(&target, b"{}").unwrap();
            File::options()
                .write(true)
                .open(&target)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
            platform::symlink(&target, sub.join(".tmp-Link00")).unwrap();
            fs::create_dir(sub.join(".tmp-Dir000")).unwrap();
        }
        assert_eq!(prune_temporaries(t.path(), 3), vec![old.clone()]);
        #[cfg(unix)]
        {
            assert!(t.path().join("target").exists());
            assert!(sub.join(".tmp-Link00").symlink_metadata().is_ok());
            assert!(sub.join(".tmp-Dir000").is_dir());
        }
        assert!(!old.exists());
        assert!(fresh.exists(), "a live writer may still hold it");
        assert!(other.exists());
    }

    #[test]
    fn atomic_write_is_0600_and_replaces() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("f.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        #[cfg(unix)]
        assert_eq!(platform::mode_of(&fs::metadata(&p).unwrap()), Some(0o600));
        let leftovers: Vec<_> = fs::read_dir(t.path())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn concurrent_writers_and_readers_never_see_a_torn_file() {
        writers_and_readers(write_atomic);
    }

    #[test]
    fn concurrent_state_writers_and_readers_never_see_a_torn_file() {
        // The same through the spare: a writer that finds the spare held by a reader (who
        // opened it when it was the file) or by another writer makes a temporary file.
        writers_and_readers(write_state);
    }

    fn writers_and_readers(write: fn(&Path, &[u8]) -> io::Result<()>) {
        // Four writers replace the file with whole payloads of one repeated byte each, while
        // two readers read it: every write succeeds and every read is one payload, whole. On
        // Windows this is the rename over a file that readers hold open.
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("s.json");
        write(&p, &[b'a'; 64 * 1024]).unwrap();
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (p, stop) = (p.clone(), std::sync::Arc::clone(&stop));
                std::thread::spawn(move || {
                    let mut reads = 0;
                    while !stop.load(Ordering::Relaxed) || reads == 0 {
                        let got = read_regular(&p).unwrap().unwrap();
                        assert_eq!(got.len(), 64 * 1024 + usize::from(got[0] - b'a'));
                        assert!(got.iter().all(|b| *b == got[0]), "a torn read");
                        reads += 1;
                        // As hooks read: now and then, not back to back (Wine's rename, unlike
                        // Windows', waits for the file's readers to close it).
                        std::thread::sleep(Duration::from_millis(5));
                    }
                })
            })
            .collect();
        let writers: Vec<_> = (0..4u8)
            .map(|i| {
                let p = p.clone();
                std::thread::spawn(move || {
                    let byte = b'a' + i;
                    for _ in 0..40 {
                        write(&p, &vec![byte; 64 * 1024 + usize::from(i)]).unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        stop.store(true, Ordering::Relaxed);
        for r in readers {
            r.join().unwrap();
        }
    }

    #[cfg(unix)]
    fn inode(p: &Path) -> u64 {
        std::os::unix::fs::MetadataExt::ino(&fs::symlink_metadata(p).unwrap())
    }

    #[cfg(unix)]
    #[test]
    fn a_state_write_reuses_the_spare_and_creates_no_file() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("f.json");
        write_state(&p, b"one, longer than what follows").unwrap();
        let first = inode(&p);
        write_state(&p, b"two").unwrap();
        let second = inode(&p);
        assert_ne!(first, second);
        assert_eq!(
            fs::read(spare_for(&p)).unwrap(),
            b"one, longer than what follows"
        );
        // From now on the two files trade places: the third version is written into the first
        // one's file, cut to its length.
        write_state(&p, b"three").unwrap();
        assert_eq!(inode(&p), first);
        assert_eq!(inode(&spare_for(&p)), second);
        assert_eq!(fs::read(&p).unwrap(), b"three");
        assert_eq!(platform::mode_of(&fs::metadata(&p).unwrap()), Some(0o600));
        let names: Vec<String> = fs::read_dir(t.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "the file and its spare: {names:?}");
        remove_file(&p).unwrap();
        assert_eq!(
            fs::read_dir(t.path()).unwrap().count(),
            0,
            "the spare goes too"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_spare_a_reader_holds_is_not_written_into() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("f.json");
        write_state(&p, b"one").unwrap();
        write_state(&p, b"two").unwrap();
        // A reader opens "two" as read_regular does, and is slow; meanwhile two writes make
        // its file the spare, then want to write into it.
        let held = fs::File::open(&p).unwrap();
        assert!(platform::hold_for_reading(&held));
        write_state(&p, b"three").unwrap();
        write_state(&p, b"four").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"four");
        let mut seen = String::new();
        (&held).read_to_string(&mut seen).unwrap();
        assert_eq!(seen, "two", "the reader's file was left whole");
        drop(held);
        write_state(&p, b"five").unwrap();
        assert_eq!(read_regular(&p).unwrap().unwrap(), b"five");
    }

    #[cfg(unix)]
    #[test]
    fn a_spare_with_another_name_or_a_link_is_never_written_into() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("f.json");
        let precious = t.path().join("precious");
        write_state(&p, b"one").unwrap();
        fs::write(&precious, b"precious").unwrap();
        fs::hard_link(&precious, spare_for(&p)).unwrap();
        write_state(&p, b"two").unwrap();
        assert_eq!(fs::read(&precious).unwrap(), b"precious");
        assert_eq!(fs::read(&p).unwrap(), b"two");
        fs::remove_file(spare_for(&p)).unwrap();
        crate::platform::symlink(&precious, spare_for(&p)).unwrap();
        write_state(&p, b"three").unwrap();
        assert_eq!(fs::read(&precious).unwrap(), b"precious");
        assert_eq!(fs::read(&p).unwrap(), b"three");
    }

    #[test]
    fn atomic_write_never_replaces_a_directory() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("f.json");
        fs::create_dir(&p).unwrap();
        fs::write(p.join("inside"), b"kept").unwrap();
        assert!(write_atomic(&p, b"new").is_err());
        assert_eq!(fs::read(p.join("inside")).unwrap(), b"kept");
        let names: Vec<String> = fs::read_dir(t.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["f.json"], "no temporary file left beside it");
    }

    #[cfg_attr(
        windows,
        ignore = "Wine 8 makes no link std sees as one: real Windows only"
    )]
    #[test]
    fn atomic_write_replaces_a_planted_symlink_instead_of_following_it() {
        let t = tempfile::tempdir().unwrap();
        let outside = t.path().join("outside.txt");
        fs::write(&outside, b"precious").unwrap();
        let p = t.path().join("f.json");
        crate::platform::symlink(&outside, &p).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::read(&outside).unwrap(), b"precious");
        assert!(!fs::symlink_metadata(&p).unwrap().file_type().is_symlink());
    }

    #[cfg_attr(
        windows,
        ignore = "Wine 8 makes no link std sees as one: real Windows only"
    )]
    #[test]
    fn ensure_dir_refuses_symlinked_components() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().join("base");
        fs::create_dir(&base).unwrap();
        let elsewhere = t.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        crate::platform::symlink(&elsewhere, base.join("state")).unwrap();
        assert!(ensure_dir(&base, Path::new("state/sessions")).is_err());
        assert!(!elsewhere.join("sessions").exists());
        assert!(ensure_dir(&base, Path::new("../x")).is_err());
    }

    #[cfg_attr(
        windows,
        ignore = "Wine 8 makes no link std sees as one: real Windows only"
    )]
    #[test]
    fn reading_a_symlink_is_refused() {
        let t = tempfile::tempdir().unwrap();
        fs::write(t.path().join("real"), b"x").unwrap();
        crate::platform::symlink(t.path().join("real"), t.path().join("link")).unwrap();
        let e = read_regular(&t.path().join("link")).unwrap_err();
        assert!(e.get_ref().is_some_and(|i| i.is::<SymlinkRefused>()), "{e}");
        assert_eq!(read_regular(&t.path().join("missing")).unwrap(), None);
        assert_eq!(read_regular(&t.path().join("real")).unwrap().unwrap(), b"x");
    }

    /// A junction (Windows' directory mount point, which needs no privilege to create): what a
    /// symlink is refused for, a junction is refused for too.
    #[cfg(windows)]
    #[cfg_attr(
        windows,
        ignore = "Wine 8 makes no link std sees as one: real Windows only"
    )]
    #[test]
    fn a_junction_is_refused_like_a_symlink() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().join("base");
        let elsewhere = t.path().join("elsewhere");
        fs::create_dir_all(&base).unwrap();
        fs::create_dir_all(&elsewhere).unwrap();
        fs::write(elsewhere.join("s.json"), b"{}").unwrap();
        let junction = base.join("state");
        let made = std::process::Command::new("cmd.exe")
            .arg("/C")
            .arg("mklink")
            .arg("/J")
            .arg(&junction)
            .arg(&elsewhere)
            .output()
            .unwrap();
        assert!(made.status.success(), "mklink /J: {made:?}");
        assert!(fs::symlink_metadata(&junction).is_ok());
        assert!(reject_symlink(&junction).is_err());
        assert!(real_dir(&junction).is_err());
        assert!(ensure_dir(&base, Path::new("state/sessions")).is_err());
        assert!(!elsewhere.join("sessions").exists());
        let e = read_regular(&junction.join("s.json"));
        assert!(e.is_ok(), "a link above the file is ensure_dir's to refuse");
        assert!(read_regular(&junction).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_project_file_is_read_only_inside_the_project_regular_and_bounded() {
        use rustix::fs::{CWD, FileType, Mode, mknodat};
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), b"outside").unwrap();
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::write(root.join("real.md"), b"inside").unwrap();
        std::os::unix::fs::symlink(root.join("real.md"), root.join("near.md")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("far.md")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("dir")).unwrap();
        mknodat(
            CWD,
            root.join("fifo.md"),
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        std::fs::write(root.join("big.md"), vec![b'x'; 11]).unwrap();
        let read = |rel: &str| read_within(root, &root.join(rel), 10);
        assert_eq!(read("real.md").unwrap().unwrap(), b"inside");
        assert_eq!(read("near.md").unwrap().unwrap(), b"inside");
        assert_eq!(read("missing.md").unwrap(), None);
        for bad in ["far.md", "dir/secret", "fifo.md", "big.md"] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }

    #[cfg(unix)] // a FIFO is Unix's
    #[test]
    fn reading_a_fifo_or_a_directory_fails_at_once() {
        use rustix::fs::{CWD, FileType, Mode, mknodat};
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("fifo");
        mknodat(CWD, &fifo, FileType::Fifo, Mode::from_raw_mode(0o600), 0).unwrap();
        // No writer: a blocking open would wait forever.
        assert_eq!(
            read_regular(&fifo).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        assert_eq!(
            read_regular(t.path()).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
    }

    #[test]
    fn a_contended_lock_is_handed_over_when_released() {
        let t = tempfile::tempdir().unwrap();
        let target = t.path().join("s.json");
        let first = lock_for(&target).unwrap();
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(first);
        });
        let started = std::time::Instant::now();
        let second = lock_for(&target).expect("the lock after its release");
        assert!(started.elapsed() < LOCK_WAIT);
        releaser.join().unwrap();
        drop(second);
        // Free again: the helper thread kept nothing.
        drop(lock_for(&target).unwrap());
    }

    #[test]
    fn quarantine_never_overwrites_an_earlier_one() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("s.json");
        fs::write(&p, b"bad1").unwrap();
        let a = quarantine(&p, "X").unwrap();
        fs::write(&p, b"bad2").unwrap();
        let b = quarantine(&p, "X").unwrap();
        assert_ne!(a, b);
        assert_eq!(fs::read(a).unwrap(), b"bad1");
        assert_eq!(fs::read(b).unwrap(), b"bad2");
    }
}
