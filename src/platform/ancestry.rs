//! The processes above this one, for `trust` (a person's command; never a hook: reading other
//! processes costs time a hook does not have). Only the reading lives here, one function per
//! system; what counts as an agent is decided by the caller. Part of the platform seam: it
//! uses nothing of the crate.
//!
//! * Linux: `/proc/<pid>/stat` for the parent, `comm` and `cmdline` for what runs (readable for
//!   every process), `environ` for its variables (readable only for one's own processes).
//! * macOS: `ps -o ppid=,uid=,comm= -p PID` and `ps -E -ww -o command= -p PID` (the command
//!   line followed by the environment).
//! * Elsewhere (Windows included): not read; the caller is told so.

/// One process above this one.
#[derive(Debug, Clone)]
pub struct Process {
    pub pid: u32,
    /// The executable's short name (`comm`).
    pub name: String,
    /// Its command line, one argument each (on macOS, split at spaces).
    pub args: Vec<String>,
    /// Its environment as `NAME=value` items; `None` when it cannot be read (another user's
    /// process, or one that hides it).
    pub env: Option<Vec<String>>,
    /// Whether it runs as this process's user.
    pub same_user: bool,
}

/// This process's place among the terminals: for `trust`'s evidence of a detached run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Own {
    pub pid: u32,
    /// The process session it belongs to (its leader's pid).
    pub session: u32,
    /// Whether it has a controlling terminal (`setsid` leaves it none, even when its stdin is
    /// still a terminal's file).
    pub controlling_terminal: bool,
}

/// This process's session and controlling terminal. `Err` when they cannot be read here.
#[cfg(target_os = "linux")]
pub fn own() -> Result<Own, String> {
    let stat = std::fs::read_to_string("/proc/self/stat")
        .map_err(|e| format!("cannot read /proc/self/stat: {e}"))?;
    // `pid (comm) state ppid pgrp session tty_nr …`
    let mut rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r.split_whitespace())
        .ok_or("cannot read /proc/self/stat")?;
    let session = rest.nth(3).and_then(|v| v.parse().ok());
    let tty: Option<i64> = rest.next().and_then(|v| v.parse().ok());
    match (session, tty) {
        (Some(session), Some(tty)) => Ok(Own {
            pid: std::process::id(),
            session,
            controlling_terminal: tty != 0,
        }),
        _ => Err("cannot read /proc/self/stat".into()),
    }
}

/// This process's session and controlling terminal: not read on this system.
#[cfg(not(target_os = "linux"))]
pub fn own() -> Result<Own, String> {
    Err("the terminal's session is not read on this system".into())
}

/// One process by its pid (`Err` when it cannot be read), and its parent's pid.
pub fn process(pid: u32) -> Result<(Process, u32), String> {
    Ok((read(pid)?, parent_of(pid)?))
}

/// The most parents looked at: a chain longer than this is not a shell session.
const MAX_DEPTH: usize = 64;

/// The processes above this one, nearest first, up to and including the first process (pid
/// 1). `Err` with the reason when they cannot be read on this system.
pub fn ancestors() -> Result<Vec<Process>, String> {
    let mut out = Vec::new();
    let mut pid = parent_of(std::process::id())?;
    while pid != 0 {
        if out.len() >= MAX_DEPTH {
            return Err(format!("more than {MAX_DEPTH} parent processes"));
        }
        out.push(read(pid)?);
        if pid == 1 {
            break;
        }
        pid = parent_of(pid)?;
    }
    Ok(out)
}

#[cfg(target_os = "linux")]
fn parent_of(pid: u32) -> Result<u32, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_err(|e| format!("cannot read /proc/{pid}/stat: {e}"))?;
    // `pid (comm) state ppid …`: the name may hold spaces and parentheses; the last `)` ends it.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(1))
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| format!("cannot read the parent of process {pid}"))
}

#[cfg(target_os = "linux")]
fn read(pid: u32) -> Result<Process, String> {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    let dir = format!("/proc/{pid}");
    let meta = std::fs::metadata(&dir).map_err(|e| format!("cannot read {dir}: {e}"))?;
    let bounded = |name: &str| -> Option<Vec<u8>> {
        let mut buf = Vec::new();
        std::fs::File::open(format!("{dir}/{name}"))
            .ok()?
            .take(1 << 20)
            .read_to_end(&mut buf)
            .ok()?;
        Some(buf)
    };
    let split = |b: Vec<u8>| -> Vec<String> {
        b.split(|c| *c == 0)
            .filter(|s| !s.is_empty())
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .collect()
    };
    Ok(Process {
        pid,
        name: bounded("comm")
            .map(|b| String::from_utf8_lossy(&b).trim().to_string())
            .unwrap_or_default(),
        args: bounded("cmdline").map(split).unwrap_or_default(),
        env: bounded("environ").map(split),
        same_user: meta.uid() == rustix::process::getuid().as_raw(),
    })
}

#[cfg(target_os = "macos")]
fn ps(args: &[&str]) -> Result<String, String> {
    let out = std::process::Command::new("/bin/ps")
        .args(args)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run ps: {e}"))?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(target_os = "macos")]
fn parent_of(pid: u32) -> Result<u32, String> {
    ps(&["-o", "ppid=", "-p", &pid.to_string()])?
        .trim()
        .parse()
        .map_err(|_| format!("cannot read the parent of process {pid}"))
}

#[cfg(target_os = "macos")]
fn read(pid: u32) -> Result<Process, String> {
    let p = pid.to_string();
    let head = ps(&["-o", "uid=", "-o", "comm=", "-p", &p])?;
    let mut it = head.split_whitespace();
    let uid: u32 = it
        .next()
        .and_then(|u| u.parse().ok())
        .ok_or_else(|| format!("cannot read process {pid}"))?;
    let comm = it.collect::<Vec<_>>().join(" ");
    let name = comm.rsplit('/').next().unwrap_or(&comm).to_string();
    let plain = ps(&["-ww", "-o", "command=", "-p", &p])?;
    let with_env = ps(&["-E", "-ww", "-o", "command=", "-p", &p])?;
    let args: Vec<String> = plain.split_whitespace().map(str::to_string).collect();
    // `ps -E` appends the environment only for one's own processes: what follows the plain
    // command line is it, split at spaces (a value with spaces comes out in pieces, which is
    // enough to see a variable's name).
    let env = with_env
        .trim_end()
        .strip_prefix(plain.trim_end())
        .map(|rest| rest.split_whitespace().map(str::to_string).collect())
        .filter(|v: &Vec<String>| !v.is_empty());
    let same_user = uid == rustix::process::getuid().as_raw();
    Ok(Process {
        pid,
        name,
        args,
        env,
        same_user,
    })
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn parent_of(_pid: u32) -> Result<u32, String> {
    Err("the parent processes cannot be read on this system".into())
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn read(_pid: u32) -> Result<Process, String> {
    Err("the parent processes cannot be read on this system".into())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_parents_of_a_test_are_read() {
        let a = ancestors().unwrap();
        assert!(!a.is_empty());
        // The test harness is our parent or above, runs as us, and its environment is ours.
        let first = &a[0];
        assert!(first.same_user, "{first:?}");
        assert!(first.env.is_some(), "{first:?}");
        assert_eq!(a.last().unwrap().pid, 1, "{a:?}");
    }
}
