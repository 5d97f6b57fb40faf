//! Runs one script hook: `/bin/sh -c <command>` in its own process group, the event on stdin,
//! stdout read as the answer, everything bounded by a timeout.
//!
//! The process group is what makes the timeout real: a script that backgrounds a child (or a
//! `sleep` that holds the pipe) would otherwise outlive the hook, or keep our read of its stdout
//! waiting. When the script ends — on its own or at the timeout — the whole group is killed, so
//! nothing it started is left behind. (A child that deliberately leaves the group with `setsid`
//! is not ours to find; we stop waiting for its pipe after a short grace.)

use crate::platform;
use crate::terminal::clip;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Bytes of stdout kept; more is a broken hook.
const MAX_STDOUT: u64 = super::action::MAX_ANSWER_BYTES as u64;
/// Bytes of stderr kept for the diagnostic.
const MAX_STDERR: u64 = 4 * 1024;
/// After the script exits, how long its stdout may take to close.
const PIPE_GRACE: Duration = Duration::from_millis(200);
/// How long the kernel gets to reap a group killed at the timeout.
const REAP_GRACE: Duration = Duration::from_millis(200);

pub struct Invocation<'a> {
    pub command: &'a str,
    /// The shell the entry names (`config::SHELLS`), else the system's.
    pub shell: Option<&'a str>,
    pub cwd: &'a Path,
    pub stdin: &'a [u8],
    pub env: Vec<(&'static str, String)>,
    pub timeout: Duration,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Failure {
    /// The program that could not be started (the entry's `shell`, or the system's), and why.
    Spawn(String, String),
    Timeout(Duration),
    /// Exit status and the first line of stderr.
    Exit(String),
    Output(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Spawn(program, e) => write!(f, "cannot start {program}: {e}"),
            Failure::Timeout(t) => write!(
                f,
                "timed out after {} ms; its {} was killed",
                t.as_millis(),
                platform::SCRIPT_TREE
            ),
            Failure::Exit(e) => write!(f, "{e}"),
            Failure::Output(e) => write!(f, "{e}"),
        }
    }
}

/// The program an entry's `shell` runs (`None` for the system's shell, always there), for
/// `doctor`'s check that it is installed.
pub fn shell_program(shell: Option<&str>) -> Option<&'static str> {
    match shell? {
        "cmd" => Some("cmd.exe"),
        name => crate::config::hooks_toml::SHELLS
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, program, _)| *program),
    }
}

/// Whether `program` is found in the directories of `path` (a `PATH` value), as an
/// executable file (with `.exe` on Windows).
pub fn on_path(program: &str, path: &str) -> bool {
    std::env::split_paths(path).any(|dir| {
        [program.to_string(), format!("{program}.exe")]
            .iter()
            .any(|name| {
                std::fs::metadata(dir.join(name))
                    .is_ok_and(|m| m.is_file() && crate::platform::is_executable(&m))
            })
    })
}

/// Runs the script; `Ok` holds its stdout when it exited 0.
pub fn run(inv: Invocation<'_>) -> Result<Vec<u8>, Failure> {
    let named = inv
        .shell
        .and_then(|name| {
            crate::config::hooks_toml::SHELLS
                .iter()
                .find(|(n, _, _)| *n == name)
        })
        .filter(|(n, _, _)| *n != "cmd");
    // Named in a failure to start: a missing `pwsh` must not read as a broken /bin/sh.
    let program = match (named, inv.shell) {
        (Some((name, _, _)), _) => format!("the entry's shell `{name}`"),
        (None, Some("cmd")) => "the entry's shell `cmd` (cmd.exe)".to_string(),
        _ => platform::SCRIPT_SHELL.to_string(),
    };
    let mut cmd = match named {
        Some((_, program, args)) => {
            let mut c = std::process::Command::new(program);
            c.args(*args).arg(inv.command);
            c
        }
        // cmd.exe takes its command line as written (platform::script_command on Windows).
        None if inv.shell == Some("cmd") => platform::cmd_command(inv.command),
        None => platform::script_command(inv.command),
    };
    cmd.current_dir(inv.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    platform::own_tree(&mut cmd);
    for (k, v) in &inv.env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().map_err(|e| {
        let why = if e.kind() == std::io::ErrorKind::NotFound {
            "it is not installed here (not found on PATH)".to_string()
        } else {
            e.to_string()
        };
        Failure::Spawn(program.clone(), why)
    })?;
    let group = child.id();

    let stdin = child.stdin.take();
    let body = inv.stdin.to_vec();
    spawn(move || {
        if let Some(mut pipe) = stdin {
            // A script that does not read its stdin closes the pipe: EPIPE, not our problem.
            let _ = pipe.write_all(&body);
        }
    });
    let out = reader(child.stdout.take(), MAX_STDOUT + 1);
    let err = reader(child.stderr.take(), MAX_STDERR);
    let (tx, status_rx) = mpsc::channel();
    spawn(move || {
        let _ = tx.send(child.wait());
    });

    let status = match status_rx.recv_timeout(inv.timeout) {
        Ok(Ok(status)) => status,
        Ok(Err(e)) => {
            platform::kill_tree(group, true);
            return Err(Failure::Spawn(program, e.to_string()));
        }
        Err(_) => {
            platform::kill_tree(group, false);
            let _ = status_rx.recv_timeout(REAP_GRACE);
            return Err(Failure::Timeout(inv.timeout));
        }
    };
    // Whatever the script left running in its group dies with it.
    platform::kill_tree(group, true);
    let stdout = out.recv_timeout(PIPE_GRACE).map_err(|_| {
        Failure::Output("exited, but something it started still holds its stdout open".into())
    })?;
    if !status.success() {
        let stderr = err.recv_timeout(PIPE_GRACE).unwrap_or_default();
        return Err(Failure::Exit(describe_exit(status, &stderr)));
    }
    if stdout.len() as u64 > MAX_STDOUT {
        return Err(Failure::Output(format!(
            "printed more than {} KiB",
            MAX_STDOUT / 1024
        )));
    }
    Ok(stdout)
}

fn describe_exit(status: ExitStatus, stderr: &[u8]) -> String {
    let how = match (status.code(), platform::exit_signal(status)) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => format!("killed by signal {s}"),
        _ => "failed".into(),
    };
    let text = String::from_utf8_lossy(stderr);
    match text.lines().map(str::trim).find(|l| !l.is_empty()) {
        Some(line) => format!("{how}: {}", clip(line, 200)),
        None => how,
    }
}

/// Reads a pipe to its end (at most `cap` bytes) on a helper thread.
fn reader<R: Read + Send + 'static>(pipe: Option<R>, cap: u64) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = pipe {
            let mut limited = p.take(cap);
            let _ = limited.read_to_end(&mut buf);
            // Drain the rest so the writer is not blocked on a full pipe while we decide.
            let _ = std::io::copy(&mut limited.into_inner(), &mut std::io::sink());
        }
        let _ = tx.send(buf);
    });
    rx
}

fn spawn(f: impl FnOnce() + Send + 'static) {
    // Without a thread the worst case is a hang we cannot bound; failing to start one is rare
    // enough that running inline (and relying on the hook's watchdog) is the right fallback.
    if let Err(e) = std::thread::Builder::new()
        .name("user-hook".into())
        .spawn(f)
    {
        crate::diag!("cannot start a helper thread for a user hook: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inv<'a>(command: &'a str, cwd: &'a Path, timeout_ms: u64) -> Invocation<'a> {
        Invocation {
            shell: None,
            command,
            cwd,
            stdin: b"{\"event\":\"stop\"}",
            env: vec![("OMC_HOOK_EVENT", "stop".into())],
            timeout: Duration::from_millis(timeout_ms),
        }
    }

    #[cfg(unix)]
    #[test]
    fn stdin_env_and_cwd_reach_the_script() {
        let t = tempfile::tempdir().unwrap();
        let out = run(inv("pwd; cat; echo; echo $OMC_HOOK_EVENT", t.path(), 5_000)).unwrap();
        let text = String::from_utf8(out).unwrap();
        let canon = t.path().canonicalize().unwrap();
        assert_eq!(
            text,
            format!("{}\n{{\"event\":\"stop\"}}\nstop\n", canon.display())
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_failing_script_reports_status_and_stderr() {
        let t = tempfile::tempdir().unwrap();
        let e = run(inv("echo oops >&2; exit 3", t.path(), 5_000)).unwrap_err();
        assert_eq!(e, Failure::Exit("exited with status 3: oops".into()));
    }

    #[cfg(unix)]
    #[test]
    fn a_hanging_script_and_its_background_child_are_killed_at_the_timeout() {
        let t = tempfile::tempdir().unwrap();
        let pidfile = t.path().join("pid");
        let cmd = format!("sleep 30 & echo $! > {}; wait", pidfile.display());
        let e = run(inv(&cmd, t.path(), 300)).unwrap_err();
        assert_eq!(e, Failure::Timeout(Duration::from_millis(300)));
        let pid = std::fs::read_to_string(&pidfile).unwrap();
        assert!(!alive(pid.trim()), "the background sleeper survived");
    }

    #[cfg(unix)]
    #[test]
    fn a_background_child_of_a_finished_script_does_not_survive_or_hold_us() {
        let t = tempfile::tempdir().unwrap();
        let pidfile = t.path().join("pid");
        let cmd = format!(
            "sleep 30 & echo $! > {}; echo '{{\"action\":\"allow\"}}'",
            pidfile.display()
        );
        let out = run(inv(&cmd, t.path(), 5_000)).unwrap();
        assert_eq!(out, b"{\"action\":\"allow\"}\n");
        let pid = std::fs::read_to_string(&pidfile).unwrap();
        assert!(!alive(pid.trim()), "the background sleeper survived");
    }

    #[cfg(windows)]
    #[test]
    fn windows_stdin_env_and_cwd_reach_the_script_in_cmd() {
        let t = tempfile::tempdir().unwrap();
        // A line, as `set /p` reads one (Wine's drops the last byte of input without a newline).
        let mut i = inv(
            "set /p OMCIN=& set OMCIN& echo %OMC_HOOK_EVENT%& cd",
            t.path(),
            5_000,
        );
        i.stdin = b"{\"event\":\"stop\"}\n";
        let out = run(i).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            format!(
                "OMCIN={{\"event\":\"stop\"}}\r\nstop\r\n{}\r\n",
                t.path().display()
            )
        );
    }

    #[cfg(windows)]
    #[test]
    fn windows_a_failing_script_reports_status_and_stderr() {
        let t = tempfile::tempdir().unwrap();
        let e = run(inv("echo oops 1>&2& exit /b 3", t.path(), 5_000)).unwrap_err();
        assert_eq!(e, Failure::Exit("exited with status 3: oops".into()));
    }

    #[cfg(windows)]
    #[test]
    fn windows_a_hanging_script_is_killed_at_the_timeout() {
        let t = tempfile::tempdir().unwrap();
        let e = run(inv("ping -n 30 127.0.0.1 >nul", t.path(), 300)).unwrap_err();
        assert_eq!(e, Failure::Timeout(Duration::from_millis(300)));
    }

    /// Whether a process exists and is not a zombie.
    #[cfg(unix)]
    fn alive(pid: &str) -> bool {
        // Give the kernel a moment to deliver SIGKILL and the parent (init) to reap it.
        for _ in 0..50 {
            match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
                Err(_) => return false,
                Ok(s)
                    if s.rsplit(')')
                        .next()
                        .is_some_and(|r| r.trim_start().starts_with('Z')) =>
                {
                    return false;
                }
                Ok(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        true
    }
}
