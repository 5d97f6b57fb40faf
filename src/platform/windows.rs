//! The Windows side of [`super`]. Files: the access a new file or directory gets is the one it
//! inherits from its directory's ACL (under a user's profile: the user, SYSTEM and
//! Administrators), there is no mode to set; links are refused as name-surrogate reparse points
//! (symlinks and junctions alike); identity is the volume serial number and file index. Processes: a user
//! script's tree is killed with `taskkill /T /F`, the flusher starts detached from the hook's
//! console and process group, liveness asks `tasklist`.

use std::fs::{DirBuilder, File, Metadata, OpenOptions};
use std::io;
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;
const ERROR_ACCESS_DENIED: i32 = 5;
const ERROR_SHARING_VIOLATION: i32 = 32;
const DETACHED_PROCESS: u32 = 0x0000_0008;
const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
const CREATE_NO_WINDOW: u32 = 0x0800_0000;

/// How long [`persist`] retries a rename that another process's open handle refuses.
const REPLACE_RETRY: Duration = Duration::from_secs(2);

/// A directory builder (its directories inherit their parent's ACL).
pub fn private_dir_builder() -> DirBuilder {
    DirBuilder::new()
}

/// Nothing to add: a new file inherits its directory's ACL.
pub fn private_file(opts: &mut OpenOptions) -> &mut OpenOptions {
    opts
}

/// Nothing to add: a new file inherits its directory's ACL.
pub fn private_tempfile(_b: &mut tempfile::Builder<'_, '_>) {}

/// Opens `path` with `opts` without following a reparse point at the last component
/// (`FILE_FLAG_OPEN_REPARSE_POINT` opens the link itself), then refuses what was opened if it
/// is one: no window between a check and the open.
pub fn open_no_follow(opts: &mut OpenOptions, path: &Path, _nonblock: bool) -> io::Result<File> {
    let file = opts.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT).open(path)?;
    if is_link(&file.metadata()?) {
        return Err(link_refused());
    }
    Ok(file)
}

fn link_refused() -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, super::LinkRefused)
}

/// Whether an error from [`open_no_follow`] means the path was a link.
pub fn is_link_refusal(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|i| i.is::<super::LinkRefused>())
}

/// Whether `meta` (from `symlink_metadata`, or of a handle opened on the link itself)
/// describes a link: a name-surrogate reparse point, which is what std's `is_symlink` reports
/// on Windows: symlinks and junctions alike. Other reparse points (a OneDrive placeholder, a
/// deduplicated file) are files in their own right and are not refused.
pub fn is_link(meta: &Metadata) -> bool {
    meta.file_type().is_symlink()
}

/// The volume serial number and file index of an open file.
fn id_of(file: &File) -> io::Result<(u64, u64)> {
    let info = winapi_util::file::information(file)?;
    Ok((info.volume_serial_number(), info.file_index()))
}

/// Whether the open `file` is the file now at `path` (same volume and file index; a reparse
/// point at `path` is opened itself, not followed).
/// Whether the open `file` lives on a kernel's virtual file system: none on Windows.
pub fn kernel_file(_file: &File) -> bool {
    false
}

pub fn is_at(file: &File, path: &Path) -> bool {
    let at = OpenOptions::new()
        .access_mode(0)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS)
        .open(path);
    match (id_of(file), at.and_then(|f| id_of(&f))) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Windows has no exchange of two names: every write makes a new temporary file.
pub const SPARE_WRITES: bool = false;

/// Never asked on Windows (no spare writes).
pub fn single_link(_meta: &Metadata) -> bool {
    false
}

/// Never asked on Windows (no spare writes).
pub fn same_inode(_a: &Metadata, _b: &Metadata) -> bool {
    false
}

/// Whether the open lock `file` is still the one at `path` (a deleted one is pending deletion
/// or gone; Windows has no link count that says so as simply).
pub fn still_named(file: &File, path: &Path) -> bool {
    is_at(file, path)
}

/// No spare writes on Windows, so nothing to hold a reader's file against: always `true`
/// (and a Windows lock, being mandatory, would stop others' reads).
pub fn hold_for_reading(_file: &File) -> bool {
    true
}

/// Windows has no atomic exchange of two names: always `Err`, and the caller renames.
pub fn exchange(_a: &Path, _b: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "no exchange on Windows",
    ))
}

/// Renames the temporary file over `path`, replacing it atomically (std's rename: POSIX
/// semantics where the file system has them, else `MoveFileExW(MOVEFILE_REPLACE_EXISTING)`).
/// A process that holds `path` open without sharing delete access makes the rename fail with
/// a sharing violation or access denied: retried for up to [`REPLACE_RETRY`] (under Wine, whose rename waits until no reader has the file open, this is what keeps concurrent hooks from failing a write).
pub fn persist(tmp: tempfile::TempPath, path: &Path) -> io::Result<()> {
    let deadline = Instant::now() + REPLACE_RETRY;
    let mut tmp = tmp;
    loop {
        match tmp.persist(path) {
            Ok(()) => return Ok(()),
            Err(e) => {
                let busy = matches!(
                    e.error.raw_os_error(),
                    Some(ERROR_ACCESS_DENIED | ERROR_SHARING_VIOLATION)
                );
                if !busy || Instant::now() >= deadline || path.is_dir() {
                    return Err(e.error);
                }
                tmp = e.path;
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
}

/// Flushes `file` (open for reading at `path`) to the disk. `FlushFileBuffers` needs a handle
/// with write access, which a reading handle lacks: then `path` is opened for writing (no
/// link followed, nothing truncated) and flushed.
pub fn sync_file(file: &File, path: &Path) -> io::Result<()> {
    match file.sync_all() {
        Err(e) if e.raw_os_error() == Some(ERROR_ACCESS_DENIED) => {
            open_no_follow(OpenOptions::new().write(true), path, false)?.sync_all()
        }
        other => other,
    }
}

/// Nothing to do: Windows cannot flush a directory's entries, and NTFS journals a rename.
pub fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// An exclusive lock that stands for a whole directory, held until [`unlock_dir`].
pub struct DirLock {
    _file: File,
}

/// The lock file [`lock_dir`] takes in the directory (a directory handle cannot be locked on
/// Windows).
const DIR_LOCK: &str = ".lock";

/// Takes the lock that stands for `dir`: a lock on `dir\.lock`.
pub fn lock_dir(dir: &Path) -> io::Result<DirLock> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join(DIR_LOCK))?;
    f.lock()?;
    Ok(DirLock { _file: f })
}

/// Releases [`lock_dir`]'s lock and deletes its file, so an empty directory can go.
pub fn unlock_dir(lock: DirLock, dir: &Path) {
    drop(lock);
    let _ = std::fs::remove_file(dir.join(DIR_LOCK));
}

/// What to lock for `file`, opened at `path`, to lock it against other processes: the lock file
/// `<path>.lock` beside it (created if needed, never through a link, never deleted). Windows
/// locks are mandatory: a shared lock on the file itself would fail its holder's own append,
/// and an exclusive one would stop every other process reading it. The lock stands for the
/// name, not the file: a file renamed away keeps its lock file's name behind (the spool's
/// rotation locks by the name appenders opened, see `state::outbox`).
pub fn lock_target<'a>(_file: &'a File, path: &Path) -> io::Result<super::LockOn<'a>> {
    let f = open_no_follow(
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
        &super::beside_lock_path(path),
        false,
    )?;
    Ok(super::LockOn::Beside(f))
}

/// Whether opening an existing lock file failed only for a moment: access denied is what
/// Windows answers while the file's deletion by its last holder is pending.
pub fn is_transient_open_error(e: &io::Error) -> bool {
    e.raw_os_error() == Some(ERROR_ACCESS_DENIED)
}

/// The absolute path with every link resolved, as people and shells write it: std's
/// canonical form is a verbatim path (`\\?\C:\…`, `\\?\UNC\server\…`), which Git Bash and the
/// commands install writes cannot run, so the prefix goes (`C:\…`, `\\server\…`).
pub fn canonicalize(path: &Path) -> io::Result<PathBuf> {
    Ok(plain_path(std::fs::canonicalize(path)?))
}

/// A verbatim path without its `\\?\` prefix (see [`canonicalize`]); any other path as it is.
fn plain_path(p: PathBuf) -> PathBuf {
    let s = p.to_string_lossy();
    if let Some(rest) = s.strip_prefix(r"\\?\UNC\") {
        return PathBuf::from(format!(r"\\{rest}"));
    }
    match s.strip_prefix(r"\\?\") {
        Some(rest) if rest.as_bytes().get(1) == Some(&b':') => PathBuf::from(rest),
        _ => p,
    }
}

/// Windows keeps no permission bits worth carrying over.
pub fn mode_of(_meta: &Metadata) -> Option<u32> {
    None
}

/// Nothing to set (see [`mode_of`]).
pub fn set_mode(_file: &File, _mode: u32) -> io::Result<()> {
    Ok(())
}

/// Nothing to set (see [`mode_of`]).
pub fn set_mode_at(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}

/// Any regular file can be run (by its extension or the shell that is named with it).
pub fn is_executable(meta: &Metadata) -> bool {
    meta.is_file()
}

/// Nothing to do: Windows has no execute bit.
pub fn make_executable(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// Whether the program path `program` (as written in a hook command) names the program `name`:
/// its last part, after `\\` or `/`, is `name` or `name.exe`, in any case (Windows' file names
/// are case-insensitive).
pub fn names_program(program: &str, name: &str) -> bool {
    let last = program.rsplit(['/', '\\']).next().unwrap_or(program);
    let last = last.to_ascii_lowercase();
    last == name || last.strip_suffix(".exe") == Some(name)
}

/// The shell a user script's command line runs in, as messages name it.
pub const SCRIPT_SHELL: &str = "cmd.exe";

/// The command that runs a user script's command line: `cmd.exe /D /S /C "<command>"`, the
/// command passed as written (`/S` strips the outer quotes; no second round of quoting).
pub fn script_command(command: &str) -> Command {
    let mut cmd = Command::new(SCRIPT_SHELL);
    cmd.raw_arg(format!("/D /S /C \"{command}\""));
    cmd
}

/// A command line for `cmd.exe` (an entry's `shell = "cmd"`): the system's own way here.
pub fn cmd_command(command: &str) -> Command {
    script_command(command)
}

/// What a user script's own tree is called in messages.
pub const SCRIPT_TREE: &str = "process tree";

/// Starts the script in a new process group without a console window of its own.
pub fn own_tree(cmd: &mut Command) {
    cmd.creation_flags(CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW);
}

/// Kills the process tree rooted at `pid` with `taskkill /T /F` while the root still runs
/// (`exited`: it has ended; Windows then no longer knows its children as a tree, so nothing
/// is done). Where `taskkill` cannot take `/T` (Wine's), the root alone is killed.
pub fn kill_tree(pid: u32, exited: bool) {
    if exited {
        return;
    }
    let pid = pid.to_string();
    let taskkill = |args: &[&str]| {
        Command::new("taskkill")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .creation_flags(CREATE_NO_WINDOW)
            .status()
            .is_ok_and(|s| s.success())
    };
    if !taskkill(&["/T", "/F", "/PID", &pid]) {
        taskkill(&["/F", "/PID", &pid]);
    }
}

/// Windows ends processes with an exit code, never a signal.
pub fn exit_signal(_status: ExitStatus) -> Option<i32> {
    None
}

/// Starts the flusher without the hook's console and outside its process group, so the agent
/// ending the hook does not end the flusher.
pub fn detached_child(cmd: &mut Command) {
    cmd.creation_flags(DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP);
}

/// Nothing to do: [`detached_child`] started it detached.
pub fn detach_self() {}

/// Whether a process with this pid exists, as `tasklist` reports it.
pub fn pid_alive(pid: u32) -> bool {
    let Ok(out) = Command::new("tasklist")
        .args(["/NH", "/FO", "CSV", "/FI", &format!("PID eq {pid}")])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .creation_flags(CREATE_NO_WINDOW)
        .output()
    else {
        return false;
    };
    let needle = format!("\"{pid}\"");
    String::from_utf8_lossy(&out.stdout).contains(&needle)
}

/// This machine's name (`COMPUTERNAME`).
pub fn host_name() -> String {
    std::env::var("COMPUTERNAME").unwrap_or_default()
}

/// Where the user's home is when `HOME` is not set (Git Bash sets `HOME`; PowerShell and
/// `cmd.exe` do not): the profile directory.
pub const HOME_FALLBACK: Option<&str> = Some("USERPROFILE");

/// The environment variables that name the user, first set first.
pub const USER_NAME_VARS: &[&str] = &["USERNAME", "USER"];

/// No number stands for a Windows user the way a uid does (a SID would need the security
/// API): `None`, and the user's name alone is recorded.
pub fn user_id() -> Option<String> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_paths_are_plain_drive_and_unc_paths() {
        let t = tempfile::tempdir().unwrap();
        let c = canonicalize(t.path()).unwrap();
        assert!(!c.to_string_lossy().starts_with(r"\\?\"), "{}", c.display());
        assert!(c.is_absolute() && c.is_dir(), "{}", c.display());
        assert_eq!(
            plain_path(PathBuf::from(r"\\?\UNC\server\share\p")),
            PathBuf::from(r"\\server\share\p")
        );
        assert_eq!(
            plain_path(PathBuf::from(r"\\?\GLOBALROOT\x")),
            PathBuf::from(r"\\?\GLOBALROOT\x")
        );
    }

    #[test]
    fn a_program_is_named_by_its_last_part_with_or_without_exe() {
        assert!(names_program(r"C:\a b\omc-hooks.exe", "omc-hooks"));
        assert!(names_program("C:/x/OMC-HOOKS", "omc-hooks"));
        assert!(!names_program(r"C:\x\omc-hooks.exe.bak", "omc-hooks"));
    }
}

/// Nothing on Windows: an anonymous pipe's buffer is set by its creator.
pub fn widen_stdin_pipe() {}
