//! The Unix side of [`super`]: modes 0700/0600, `O_NOFOLLOW`, device and inode, the
//! `renameat2` exchange, process groups, `setsid`, `kill(pid, 0)`, the uid.

use std::fs::{DirBuilder, File, Metadata, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus};

/// A directory builder whose directories only the owner can enter (mode 0700).
pub fn private_dir_builder() -> DirBuilder {
    let mut b = DirBuilder::new();
    b.mode(0o700);
    b
}

/// Files these options create are readable by the owner only (mode 0600).
pub fn private_file(opts: &mut OpenOptions) -> &mut OpenOptions {
    opts.mode(0o600)
}

/// Temporary files this builder creates are readable by the owner only (mode 0600).
pub fn private_tempfile(b: &mut tempfile::Builder<'_, '_>) {
    b.permissions(Permissions::from_mode(0o600));
}

/// Opens `path` with `opts`, refusing a symlink at the last component (`O_NOFOLLOW`: the
/// kernel answers `ELOOP`, see [`is_link_refusal`]). With `nonblock`, a FIFO does not make the
/// open wait for a writer (`O_NONBLOCK`).
pub fn open_no_follow(opts: &mut OpenOptions, path: &Path, nonblock: bool) -> io::Result<File> {
    use rustix::fs::OFlags;
    let flags = if nonblock {
        OFlags::NOFOLLOW | OFlags::NONBLOCK
    } else {
        OFlags::NOFOLLOW | OFlags::CLOEXEC
    };
    opts.custom_flags(flags.bits() as i32).open(path)
}

/// Whether an error from [`open_no_follow`] means the path was a link.
pub fn is_link_refusal(e: &io::Error) -> bool {
    e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
        || e.get_ref().is_some_and(|i| i.is::<super::LinkRefused>())
}

/// Whether `meta` (from `symlink_metadata`) describes a link: a symlink.
pub fn is_link(meta: &Metadata) -> bool {
    meta.file_type().is_symlink()
}

/// Whether the open `file` is the file now at `path` (same device and inode; the path's last
/// component not followed).
pub fn is_at(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Whether the open `file` lives on a kernel's virtual file system (`/proc`, `/sys`, debugfs,
/// …): they show "regular files" whose reads block for ever (`/proc/kmsg`) or never end, so a
/// path from a payload naming one is not read. Linux only; elsewhere `false`.
pub fn kernel_file(file: &File) -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        /// PROC_SUPER_MAGIC, SYSFS_MAGIC, DEBUGFS_MAGIC, SECURITYFS_MAGIC, TRACEFS_MAGIC,
        /// CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, BPF_FS_MAGIC (linux/magic.h).
        const VIRTUAL: &[i64] = &[
            0x9fa0,
            0x6265_6572,
            0x6462_6720,
            0x7363_6673,
            0x7472_6163,
            0x27e0eb,
            0x6367_7270,
            0xcafe_4a11,
        ];
        // `f_type`'s integer type differs between targets: the cast is needed on some.
        #[allow(clippy::unnecessary_cast)]
        let kind = |s: &rustix::fs::StatFs| s.f_type as i64;
        rustix::fs::fstatfs(file).is_ok_and(|s| VIRTUAL.contains(&kind(&s)))
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = file;
        false
    }
}

/// Exchanges the names `a` and `b` atomically (`renameat2(RENAME_EXCHANGE)`); `Err` where
/// the file system cannot.
pub fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    Ok(renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE)?)
}

/// Whether a state file may be replaced by writing its spare and exchanging the two names
/// (`state::fs::write_atomic`): where [`exchange`] works and a shared `flock` keeps a writer
/// out of a file a reader still has open ([`hold_for_reading`]).
pub const SPARE_WRITES: bool = true;

/// Whether `meta` describes a file with one name only: a spare with a second hard link could
/// be another file of the user's, which a write into the spare would change.
pub fn single_link(meta: &Metadata) -> bool {
    meta.nlink() == 1
}

/// Whether two `Metadata` describe the same file (device and inode).
pub fn same_inode(a: &Metadata, b: &Metadata) -> bool {
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Whether the open lock `file`, opened at `path`, still has a name: a lock file deleted by
/// its last holder ([`crate::state`]'s `Lock::remove`) has none, and a lock on it guards
/// nothing. Lock files are never renamed, so a name left means the one at `path` (one
/// `fstat`, no look-up of the path).
pub fn still_named(file: &File, _path: &Path) -> bool {
    file.metadata().is_ok_and(|m| m.nlink() > 0)
}

/// Takes a shared lock on `file`, opened for reading, held until it is closed: a writer
/// never writes into a spare that a reader has open (it would tear the reader's view).
/// `false` when a writer holds the file now; `true` when it is held, and when locks are not
/// available here (then as before: the reader reads).
pub fn hold_for_reading(file: &File) -> bool {
    !matches!(
        file.try_lock_shared(),
        Err(std::fs::TryLockError::WouldBlock)
    )
}

/// Renames the temporary file over `path` (`rename(2)`, atomic).
pub fn persist(tmp: tempfile::TempPath, path: &Path) -> io::Result<()> {
    tmp.persist(path).map_err(|e| e.error)
}

/// Flushes `file` (open for reading at `path`) to the disk: `fsync` on it.
pub fn sync_file(file: &File, _path: &Path) -> io::Result<()> {
    file.sync_all()
}

/// Makes a directory's entries (a rename, a new file) durable: fsync on the directory.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// An exclusive lock that stands for a whole directory, held until [`unlock_dir`].
pub struct DirLock {
    _file: File,
}

/// Takes the lock that stands for `dir`: `flock` on the directory itself.
pub fn lock_dir(dir: &Path) -> io::Result<DirLock> {
    let f = File::open(dir)?;
    f.lock()?;
    Ok(DirLock { _file: f })
}

/// Releases [`lock_dir`]'s lock, leaving nothing behind in the directory.
pub fn unlock_dir(lock: DirLock, _dir: &Path) {
    drop(lock);
}

/// What to lock for `file`, opened at `path`, to lock it against other processes: the file
/// itself (`flock` is advisory: a holder still reads and writes it, and so do others).
pub fn lock_target<'a>(file: &'a File, _path: &Path) -> io::Result<super::LockOn<'a>> {
    Ok(super::LockOn::Itself(file))
}

/// Whether opening an existing lock file failed only for a moment (never on Unix).
pub fn is_transient_open_error(_e: &io::Error) -> bool {
    false
}

/// The absolute path with every link resolved (`realpath`).
pub fn canonicalize(path: &Path) -> io::Result<std::path::PathBuf> {
    std::fs::canonicalize(path)
}

/// The permission bits of a file, to give a rewritten file the same (`& 0o7777`).
pub fn mode_of(meta: &Metadata) -> Option<u32> {
    Some(meta.permissions().mode() & 0o7777)
}

/// Sets permission bits read by [`mode_of`].
pub fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    file.set_permissions(Permissions::from_mode(mode))
}

/// Sets permission bits read by [`mode_of`] on the file at `path`.
pub fn set_mode_at(path: &Path, mode: u32) -> io::Result<()> {
    std::fs::set_permissions(path, Permissions::from_mode(mode))
}

/// Whether `meta` is a file this user may run (any execute bit).
pub fn is_executable(meta: &Metadata) -> bool {
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

/// Makes the file at `path` runnable by everyone, writable by its owner (0755).
pub fn make_executable(path: &Path) -> io::Result<()> {
    std::fs::set_permissions(path, Permissions::from_mode(0o755))
}

/// Whether the program path `program` (as written in a hook command) names the program `name`:
/// its last `/`-separated part is `name`.
pub fn names_program(program: &str, name: &str) -> bool {
    program.rsplit('/').next() == Some(name)
}

/// The shell a user script's command line runs in, as messages name it.
pub const SCRIPT_SHELL: &str = "/bin/sh";

/// The command that runs a user script's command line: `/bin/sh -c <command>`.
pub fn script_command(command: &str) -> Command {
    let mut cmd = Command::new(SCRIPT_SHELL);
    cmd.arg("-c").arg(command);
    cmd
}

/// A command line for `cmd.exe` (an entry's `shell = "cmd"`): there is none on Unix, so the
/// spawn fails and the entry is reported as not started.
pub fn cmd_command(command: &str) -> Command {
    let mut cmd = Command::new("cmd.exe");
    cmd.args(["/D", "/S", "/C", command]);
    cmd
}

/// What a user script's own tree is called in messages.
pub const SCRIPT_TREE: &str = "process group";

/// Starts the script as the leader of its own process group, so [`kill_tree`] reaches what it
/// starts in the background.
pub fn own_tree(cmd: &mut Command) {
    cmd.process_group(0);
}

/// Kills the process group led by `pid` (SIGKILL; nothing left to kill is fine). `exited`:
/// the leader has already exited (its group may still hold children).
pub fn kill_tree(pid: u32, _exited: bool) {
    if let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// The signal that ended a process, if one did.
pub fn exit_signal(status: ExitStatus) -> Option<i32> {
    status.signal()
}

/// Prepares the command that starts the detached flusher (nothing to do on Unix: the flusher
/// leaves the hook's session itself, [`detach_self`]).
pub fn detached_child(_cmd: &mut Command) {}

/// Leaves the session and process group of the starting process (`setsid`), so an agent that
/// kills the hook's group at its timeout does not reach this one. Fails only if the caller
/// already leads a group; nothing to report.
pub fn detach_self() {
    let _ = rustix::process::setsid();
}

/// Whether a process with this pid exists (`kill(pid, 0)`).
pub fn pid_alive(pid: u32) -> bool {
    rustix::process::Pid::from_raw(i32::try_from(pid).unwrap_or(0))
        .is_some_and(|p| rustix::process::test_kill_process(p).is_ok())
}

/// This machine's name (`uname`'s node name).
pub fn host_name() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// Where the user's home is when `HOME` is not set: nowhere else on Unix.
pub const HOME_FALLBACK: Option<&str> = None;

/// The environment variables that name the user, first set first.
pub const USER_NAME_VARS: &[&str] = &["USER", "LOGNAME"];

/// The operating system's number for the user running this process: `uid N`.
pub fn user_id() -> Option<String> {
    Some(format!("uid {}", rustix::process::getuid().as_raw()))
}

/// Widens the pipe on stdin to 1 MiB (Linux's limit for a process without privileges; other
/// systems and a stdin that is not a pipe: nothing). Called when a large payload is coming:
/// a writer blocked on the default 64 KiB pipe hands 8 MiB over in 128 turns between the two
/// processes, each a wake-up on both sides; on a 1 MiB pipe in 8, and the writer no longer
/// waits for each 64 KiB read. Failure changes nothing but speed.
pub fn widen_stdin_pipe() {
    #[cfg(target_os = "linux")]
    let _ = rustix::pipe::fcntl_setpipe_size(std::io::stdin(), 1 << 20);
}
