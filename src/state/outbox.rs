//! Append-only spool files (the export outbox) and the flusher's lock, under `.omc/export/`.
//!
//! Hooks append; one flusher process reads. The design keeps the hook's part to a handful of
//! system calls and no fsync (an fsync costs about as much as the whole hook budget here):
//!
//! * **Append**: one `write(2)` of the whole record on a file opened `O_APPEND`. Linux
//!   serialises appends to a regular file, so records from concurrent hooks never interleave.
//!   Each record is framed `\n<json>\n`: should a write ever be cut short (a full disk), the
//!   next record still starts on a line of its own and only the cut one is lost (the reader
//!   skips and counts lines that do not parse).
//! * **Rotation**: the flusher never reads a file that hooks may still append to. It renames
//!   the live file to a segment name, then takes the segment's exclusive lock once. Appenders
//!   hold a shared lock for the length of their write and, once they have it, check that the
//!   path still names the file they opened; so after that barrier no write can land in the
//!   segment, and a hook that opened the old file retries on a fresh one.
//! * **Locks** are taken through [`platform::lock_target`]: on Unix on the spool file itself, as
//!   described; on Windows, where locks are mandatory (a shared lock on the file would fail
//!   the holder's own write), on a lock file beside it, `<name>.lock`, named after the live
//!   file: appenders lock the live name's lock file (exclusively there, waiting their turn:
//!   Wine does not keep appends through separate handles whole, see
//!   [`platform::LockOn::lock_for_append`]), and the rotation's barrier takes the same
//!   one (by the name it renamed from), so the barrier still waits for exactly the appends that
//!   found the old file. The flusher's lock is likewise `flusher.lock.lock` there, so that
//!   `flusher.lock`'s pid stays readable while a flusher holds it.
//! * **Durability**: an appended record is in the page cache when the hook returns: it
//!   survives the hook, the agent and the flusher being killed. The flusher fsyncs a segment
//!   when it rotates it, so a power loss can only cost events that were never rotated (at most
//!   about one flush interval's worth).

use super::fs as sfs;
use super::{Scope, StateFile, Store};
use crate::platform;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The directory below `.omc/` that holds the outbox.
pub const DIR: &str = "export";

/// How long an appender waits for a rotation barrier before giving up (the barrier itself
/// lasts as long as the writes already in flight).
const APPEND_LOCK_WAIT: Duration = Duration::from_millis(200);

/// A file of the outbox, `.omc/export/<name>`.
pub fn file(name: &str) -> Option<StateFile> {
    StateFile::nested(&Scope::Omc, DIR, name)
}

/// What an append did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Appended {
    Written,
    /// The file had reached its bound; nothing was written.
    Full,
}

/// Opens an outbox file, never through a link (see [`platform::open_no_follow`]).
fn open(opts: &mut OpenOptions, path: &Path) -> io::Result<File> {
    platform::open_no_follow(opts, path, false)
}

impl Store {
    /// The outbox directory, created (mode 0700, no symlink followed) if needed.
    pub fn outbox_dir(&self) -> io::Result<PathBuf> {
        sfs::ensure_dir(self.omc_dir(), Path::new(DIR))
    }

    /// Appends one record (framed `\n<record>\n`) to `name` in the outbox, unless the file
    /// already holds `max_bytes` or more. See the module documentation for why this is safe
    /// against concurrent appenders and a rotating flusher.
    pub fn outbox_append(&self, name: &str, record: &[u8], max_bytes: u64) -> io::Result<Appended> {
        let dir = self.outbox_dir()?;
        let path = dir.join(plain(name)?);
        let mut framed = Vec::with_capacity(record.len() + 2);
        framed.push(b'\n');
        framed.extend_from_slice(record);
        framed.push(b'\n');
        let started = Instant::now();
        loop {
            let f = open(
                platform::private_file(OpenOptions::new().append(true).create(true)),
                &path,
            )?;
            // Held until this iteration ends (the lock file's handle, on Windows).
            let lock = platform::lock_target(&f, &path)?;
            lock_for_append_bounded(&lock, started)?;
            let meta = f.metadata()?;
            if !platform::is_at(&f, &path) {
                // Rotated away between our open and our lock: append to the new file.
                if started.elapsed() > APPEND_LOCK_WAIT {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the spool kept being rotated",
                    ));
                }
                continue;
            }
            if !meta.is_file() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "not a regular file",
                ));
            }
            if meta.len().saturating_add(framed.len() as u64) > max_bytes {
                return Ok(Appended::Full);
            }
            (&f).write_all(&framed)?;
            return Ok(Appended::Written);
        }
    }

    /// Renames the live file `from` to the segment `to` and waits for the appends already in
    /// flight to finish; then fsyncs the segment and the directory. `Ok(false)` if `from` does
    /// not exist. After this returns `true`, `to` never changes again.
    pub fn outbox_rotate(&self, from: &str, to: &str) -> io::Result<bool> {
        let dir = self.outbox_dir()?;
        let (from, to) = (dir.join(plain(from)?), dir.join(plain(to)?));
        match std::fs::rename(&from, &to) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(e),
        }
        let f = open(OpenOptions::new().read(true), &to)?;
        // The barrier: every append that found the old name has finished (the lock appenders
        // take by that name: the segment itself on Unix, `<from>.lock` on Windows).
        let barrier = platform::lock_target(&f, &from)?;
        barrier.file().lock()?;
        barrier.release()?;
        platform::sync_file(&f, &to)?;
        platform::sync_dir(&dir)?;
        Ok(true)
    }

    /// Reads up to `max` records of `name` starting at byte `offset`. Only complete lines are
    /// returned; a final line without its newline is left unread unless `sealed` (a rotated
    /// segment, which cannot grow), where it counts as corrupt. Blank lines (the framing) are
    /// skipped.
    pub fn outbox_read(
        &self,
        name: &str,
        offset: u64,
        max: usize,
        sealed: bool,
    ) -> io::Result<Chunk> {
        let path = self.outbox_dir()?.join(plain(name)?);
        let mut f = open(OpenOptions::new().read(true), &path)?;
        f.seek(SeekFrom::Start(offset))?;
        let mut r = BufReader::new(f);
        let mut chunk = Chunk {
            records: Vec::new(),
            end: offset,
            corrupt: 0,
            eof: false,
        };
        let mut line = Vec::new();
        while chunk.records.len() < max {
            line.clear();
            let n = r.read_until(b'\n', &mut line)?;
            if n == 0 {
                chunk.eof = true;
                break;
            }
            if line.last() != Some(&b'\n') {
                if sealed {
                    chunk.corrupt += 1;
                    chunk.end += n as u64;
                }
                chunk.eof = true;
                break;
            }
            chunk.end += n as u64;
            let body = &line[..line.len() - 1];
            if body.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            chunk.records.push(body.to_vec());
        }
        Ok(chunk)
    }

    /// The number of records (non-blank complete lines) in `name` from byte `offset`, and the
    /// file's size; `(0, 0)` when it does not exist.
    pub fn outbox_count(&self, name: &str, offset: u64) -> io::Result<(u64, u64)> {
        let Some(dir) = self.existing_outbox() else {
            return Ok((0, 0));
        };
        let path = dir.join(plain(name)?);
        let mut f = match open(OpenOptions::new().read(true), &path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((0, 0)),
            Err(e) => return Err(e),
        };
        let size = f.metadata()?.len();
        f.seek(SeekFrom::Start(offset.min(size)))?;
        let mut buf = vec![0u8; 64 * 1024];
        let (mut n, mut in_record) = (0u64, false);
        loop {
            let got = f.read(&mut buf)?;
            if got == 0 {
                break;
            }
            for &b in &buf[..got] {
                if b == b'\n' {
                    n += u64::from(in_record);
                    in_record = false;
                } else if !b.is_ascii_whitespace() {
                    in_record = true;
                }
            }
        }
        Ok((n, size))
    }

    /// The plain file names in the outbox (empty if it does not exist).
    pub fn outbox_list(&self) -> Vec<String> {
        self.list(&Scope::Omc, Some(DIR))
    }

    /// Removes an outbox file if present.
    pub fn outbox_remove(&self, name: &str) -> io::Result<()> {
        match file(name) {
            Some(f) => self.remove(&f),
            None => Err(bad_name()),
        }
    }

    /// The outbox directory if it exists and is no symlink (for read-only callers).
    fn existing_outbox(&self) -> Option<PathBuf> {
        let dir = self.omc_dir().join(DIR);
        let m = std::fs::symlink_metadata(&dir).ok()?;
        (m.is_dir() && sfs::reject_symlink(self.omc_dir()).is_ok()).then_some(dir)
    }

    /// Takes the flusher's lock (`.omc/export/flusher.lock`) if no other process holds it,
    /// and records `info` (one JSON line: pid, start) in it for `status`.
    pub fn flusher_try_lock(&self, info: &[u8]) -> io::Result<Option<FlusherLock>> {
        let (f, path) = self.open_flusher_lock()?;
        let lock = platform::lock_target(&f, &path)?;
        match lock.file().try_lock() {
            Ok(()) => {
                let beside = lock.into_beside();
                let mut f = f;
                f.set_len(0)?;
                f.seek(SeekFrom::Start(0))?;
                f.write_all(info)?;
                Ok(Some(FlusherLock {
                    _file: f,
                    _beside: beside,
                }))
            }
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }

    /// Whether a flusher holds the lock right now. A probe: takes the lock for an instant if
    /// it is free. Hooks use it before starting a flusher.
    pub fn flusher_busy(&self) -> io::Result<bool> {
        let (f, path) = self.open_flusher_lock()?;
        let lock = platform::lock_target(&f, &path)?;
        match lock.file().try_lock() {
            Ok(()) => Ok(false),
            Err(TryLockError::WouldBlock) => Ok(true),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }

    /// The content of the flusher's lock file (the last flusher's pid and start), without
    /// taking the lock; `None` if there is none.
    pub fn flusher_info(&self) -> Option<Vec<u8>> {
        let dir = self.existing_outbox()?;
        sfs::read_regular(&dir.join(FLUSHER_LOCK)).ok().flatten()
    }

    /// The flusher's lock file, open, and its path.
    fn open_flusher_lock(&self) -> io::Result<(File, PathBuf)> {
        let path = self.outbox_dir()?.join(FLUSHER_LOCK);
        let f = open(&mut sfs::lock_file_options(), &path)?;
        Ok((f, path))
    }
}

/// The flusher's lock file name.
pub const FLUSHER_LOCK: &str = "flusher.lock";

/// Held by the one running flusher of a project; released on drop or when it dies.
pub struct FlusherLock {
    _file: File,
    /// Windows: the lock file beside it, which holds the lock.
    _beside: Option<File>,
}

/// Records read from a spool file.
#[derive(Debug)]
pub struct Chunk {
    pub records: Vec<Vec<u8>>,
    /// The byte offset just past the last line consumed.
    pub end: u64,
    /// Lines skipped because they were cut (a sealed file's unterminated tail).
    pub corrupt: u64,
    /// The end of the file was reached (only set when fewer than `max` records were read).
    pub eof: bool,
}

fn lock_for_append_bounded(lock: &platform::LockOn<'_>, started: Instant) -> io::Result<()> {
    loop {
        match lock.lock_for_append() {
            Ok(()) => return Ok(()),
            Err(TryLockError::WouldBlock) if started.elapsed() < APPEND_LOCK_WAIT => {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(TryLockError::WouldBlock) => {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the spool is locked by a rotation that does not finish",
                ));
            }
            Err(TryLockError::Error(e)) => return Err(e),
        }
    }
}

fn plain(name: &str) -> io::Result<&str> {
    file(name).map(|_| name).ok_or_else(bad_name)
}

fn bad_name() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "not a plain outbox file name")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Root;

    fn store(dir: &Path) -> Store {
        Store::new(
            Root {
                project: dir.to_path_buf(),
                omc: dir.join(".omc"),
            },
            0,
        )
    }

    #[test]
    fn append_read_and_bound() {
        let t = tempfile::tempdir().unwrap();
        let s = store(t.path());
        for i in 0..5 {
            let rec = format!("{{\"n\":{i}}}");
            assert_eq!(
                s.outbox_append("a.jsonl", rec.as_bytes(), 1 << 20).unwrap(),
                Appended::Written
            );
        }
        assert_eq!(s.outbox_count("a.jsonl", 0).unwrap().0, 5);
        let c = s.outbox_read("a.jsonl", 0, 3, false).unwrap();
        assert_eq!(c.records.len(), 3);
        let c2 = s.outbox_read("a.jsonl", c.end, 10, false).unwrap();
        assert_eq!(
            c2.records,
            vec![b"{\"n\":3}".to_vec(), b"{\"n\":4}".to_vec()]
        );
        assert!(c2.eof);
        let size = s.outbox_count("a.jsonl", 0).unwrap().1;
        assert_eq!(
            s.outbox_append("a.jsonl", b"{}", size + 3).unwrap(),
            Appended::Full
        );
        #[cfg(unix)]
        assert_eq!(
            crate::platform::mode_of(
                &std::fs::metadata(t.path().join(".omc/export/a.jsonl")).unwrap()
            ),
            Some(0o600)
        );
    }

    #[test]
    fn a_cut_record_costs_only_itself() {
        let t = tempfile::tempdir().unwrap();
        let s = store(t.path());
        s.outbox_append("a.jsonl", b"{\"n\":1}", 1 << 20).unwrap();
        // A write cut short by a full disk, then a normal append.
        let p = t.path().join(".omc/export/a.jsonl");
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"\n{\"n\":2,\"cut").unwrap();
        s.outbox_append("a.jsonl", b"{\"n\":3}", 1 << 20).unwrap();
        let c = s.outbox_read("a.jsonl", 0, 10, true).unwrap();
        let texts: Vec<String> = c
            .records
            .iter()
            .map(|r| String::from_utf8_lossy(r).into())
            .collect();
        assert_eq!(texts, vec!["{\"n\":1}", "{\"n\":2,\"cut", "{\"n\":3}"]);
        // (the reader's caller rejects the middle one when it fails to parse)
    }

    #[test]
    fn an_unterminated_tail_is_pending_when_live_and_corrupt_when_sealed() {
        let t = tempfile::tempdir().unwrap();
        let s = store(t.path());
        s.outbox_append("a.jsonl", b"{}", 1 << 20).unwrap();
        let p = t.path().join(".omc/export/a.jsonl");
        OpenOptions::new()
            .append(true)
            .open(&p)
            .unwrap()
            .write_all(b"\n{\"half")
            .unwrap();
        let live = s.outbox_read("a.jsonl", 0, 10, false).unwrap();
        assert_eq!((live.records.len(), live.corrupt), (1, 0));
        let sealed = s.outbox_read("a.jsonl", 0, 10, true).unwrap();
        assert_eq!((sealed.records.len(), sealed.corrupt), (1, 1));
        assert_eq!(sealed.end, std::fs::metadata(&p).unwrap().len());
    }

    #[test]
    fn rotation_under_concurrent_appenders_loses_nothing() {
        let t = tempfile::tempdir().unwrap();
        let s = store(t.path());
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let s = s.clone();
                std::thread::spawn(move || {
                    for i in 0..500 {
                        let rec = format!("{{\"w\":{w},\"i\":{i}}}");
                        // An append that gives up after its bounded wait wrote nothing and says
                        // so; its caller may try again, as here (Wine's slow file system under
                        // load gives up now and then). Any other error fails the test.
                        let mut tries = 0;
                        loop {
                            match s.outbox_append("live.jsonl", rec.as_bytes(), 1 << 30) {
                                Ok(_) => break,
                                Err(e) if e.kind() == io::ErrorKind::TimedOut && tries < 50 => {
                                    tries += 1;
                                }
                                Err(e) => panic!("append {w}/{i}: {e}"),
                            }
                        }
                    }
                })
            })
            .collect();
        let mut seen = 0;
        let mut seg = 0;
        let mut done = false;
        while !done {
            done = writers.iter().all(|w| w.is_finished());
            let name = format!("seg-{seg}.jsonl");
            if s.outbox_rotate("live.jsonl", &name).unwrap() {
                let c = s.outbox_read(&name, 0, usize::MAX, true).unwrap();
                assert_eq!(c.corrupt, 0);
                seen += c.records.len();
                s.outbox_remove(&name).unwrap();
                seg += 1;
            }
            // A flusher rotates now and then (once a flush), not in a tight loop.
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        for w in writers {
            w.join().unwrap();
        }
        if s.outbox_rotate("live.jsonl", "last.jsonl").unwrap() {
            seen += s
                .outbox_read("last.jsonl", 0, usize::MAX, true)
                .unwrap()
                .records
                .len();
        }
        assert_eq!(seen, 2000);
    }

    /// Where the spool's locks are: on Unix on the files themselves (nothing else in the
    /// outbox), on Windows on `<name>.lock` beside them, never on the spool file, whose own
    /// appender would otherwise be refused its write (mandatory locks).
    #[test]
    fn the_spool_locks_are_beside_the_files_on_windows_only() {
        let t = tempfile::tempdir().unwrap();
        let s = store(t.path());
        s.outbox_append("live.jsonl", b"{}", 1 << 20).unwrap();
        assert!(s.outbox_rotate("live.jsonl", "seg.jsonl").unwrap());
        s.outbox_append("live.jsonl", b"{}", 1 << 20).unwrap();
        let held = s.flusher_try_lock(b"{\"pid\":7}").unwrap().expect("free");
        let mut files = s.outbox_list();
        files.sort();
        #[cfg(unix)]
        let want = ["flusher.lock", "live.jsonl", "seg.jsonl"];
        #[cfg(windows)]
        let want = [
            "flusher.lock",
            "flusher.lock.lock",
            "live.jsonl",
            "live.jsonl.lock",
            "seg.jsonl",
        ];
        assert_eq!(files, want);
        // While the flusher holds its lock, its pid is readable and hooks still append.
        assert_eq!(s.flusher_info().unwrap(), b"{\"pid\":7}");
        s.outbox_append("live.jsonl", b"{}", 1 << 20).unwrap();
        assert_eq!(s.outbox_count("live.jsonl", 0).unwrap().0, 2);
        drop(held);
    }

    #[test]
    fn the_flusher_lock_is_exclusive_and_probed() {
        let t = tempfile::tempdir().unwrap();
        let s = store(t.path());
        assert!(!s.flusher_busy().unwrap());
        let held = s.flusher_try_lock(b"{\"pid\":1}").unwrap().expect("free");
        assert!(s.flusher_busy().unwrap());
        assert!(s.flusher_try_lock(b"x").unwrap().is_none());
        assert_eq!(s.flusher_info().unwrap(), b"{\"pid\":1}");
        drop(held);
        assert!(!s.flusher_busy().unwrap());
    }

    #[cfg_attr(
        windows,
        ignore = "Wine 8 makes no link std sees as one: real Windows only"
    )]
    #[test]
    fn a_symlinked_spool_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let s = store(t.path());
        s.outbox_dir().unwrap();
        let outside = t.path().join("outside");
        std::fs::write(&outside, b"").unwrap();
        crate::platform::symlink(&outside, t.path().join(".omc/export/a.jsonl")).unwrap();
        assert!(s.outbox_append("a.jsonl", b"{}", 1 << 20).is_err());
        assert_eq!(std::fs::read(&outside).unwrap(), b"");
    }
}
