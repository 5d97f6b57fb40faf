//! A hook's internal deadline (contract §3): past it, unless the hook has begun to answer, a
//! line goes to stderr (and to the trace file, when one is set) and the process exits 0 with
//! nothing on stdout.
//!
//! On Unix it is a timer signal, not a thread. A second thread cost every hook a fifth of its
//! time on the benchmark's machine (BENCHMARKS.md, "Issue 44, round 5"): creating it, its stack
//! and its first allocation's arena are fresh pages, and a process that has had two threads
//! pays for them again when its mappings change and when it exits. `SIGALRM` needs two system
//! calls and no page. The handler does only what is safe in a signal handler (an atomic swap,
//! `open`, `write`, `_exit`), with bytes prepared before the timer is armed.
//!
//! Elsewhere (Windows) a thread sleeps through the deadline, as every platform did before.
//!
//! Whoever takes the gate first decides: the hook, by [`Deadline::answer`] before it prints,
//! or the deadline, which then exits. So the deadline never cuts a half-written answer, and an
//! answer never follows the deadline's line.

use std::time::Duration;

/// What the deadline leaves behind when it passes: the stderr line, and the trace file's line.
pub struct Expiry {
    /// The whole line for stderr, newline included.
    pub stderr_line: String,
    /// The trace file (`OMC_TRACE_FILE`) and the whole line to append to it.
    pub trace: Option<(std::path::PathBuf, String)>,
}

pub use imp::Deadline;

/// Arms the deadline: `after` from now, unless [`Deadline::answer`] is called first, `expiry`
/// is written and the process exits 0. Call once per process.
pub fn arm(after: Duration, expiry: Expiry) -> std::io::Result<Deadline> {
    imp::arm(after, expiry)
}

#[cfg(unix)]
#[allow(unsafe_code)]
mod imp {
    use super::Expiry;
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    /// The gate: set by whoever goes first, the hook answering or the handler ending it.
    static TAKEN: AtomicBool = AtomicBool::new(false);
    /// The handler's bytes, prepared before the timer is armed and never changed after.
    static EXPIRY: OnceLock<Prepared> = OnceLock::new();

    struct Prepared {
        stderr_line: Vec<u8>,
        trace: Option<(CString, Vec<u8>)>,
    }

    /// The armed deadline of this process.
    pub struct Deadline(());

    impl Deadline {
        /// Takes the gate before printing the answer: `true` when the hook may answer. Once it
        /// returns `true` the deadline no longer acts (the handler finds the gate taken and
        /// returns; an interrupted system call is restarted).
        pub fn answer(&self) -> bool {
            !TAKEN.swap(true, Ordering::SeqCst)
        }
    }

    pub(super) fn arm(after: Duration, expiry: Expiry) -> std::io::Result<Deadline> {
        let trace = expiry.trace.and_then(|(path, line)| {
            Some((
                CString::new(path.as_os_str().as_bytes()).ok()?,
                line.into_bytes(),
            ))
        });
        if EXPIRY
            .set(Prepared {
                stderr_line: expiry.stderr_line.into_bytes(),
                trace,
            })
            .is_err()
        {
            return Err(std::io::Error::other("the deadline is already armed"));
        }
        // SAFETY: `sigaction` and `sigset_t` are plain C structs for which all-zero is a valid
        // (empty) value; every pointer passed points to a live local; `on_alarm` has the
        // signature the kernel calls a handler with (no SA_SIGINFO) and does only what is
        // async-signal-safe (see there).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_alarm as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The agent's own mask is inherited across exec: a blocked SIGALRM would never come.
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGALRM);
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            let timer = libc::itimerval {
                it_interval: libc::timeval {
                    tv_sec: 0,
                    tv_usec: 0,
                },
                it_value: libc::timeval {
                    tv_sec: after.as_secs() as libc::time_t,
                    // At least 1 µs: a zero value would disarm the timer.
                    tv_usec: (after.subsec_micros().max(u32::from(after.is_zero())))
                        as libc::suseconds_t,
                },
            };
            if libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(Deadline(()))
    }

    /// Runs in whichever thread the signal lands on. Async-signal-safe only: an atomic swap,
    /// a lock-free read of the prepared bytes, `open`, `write`, `_exit`. No allocation.
    extern "C" fn on_alarm(_signal: libc::c_int) {
        if TAKEN.swap(true, Ordering::SeqCst) {
            return; // the hook is answering: let it finish
        }
        if let Some(p) = EXPIRY.get() {
            write_all(2, &p.stderr_line);
            if let Some((path, line)) = &p.trace {
                // SAFETY: `path` is a NUL-terminated string that lives as long as the process.
                let fd = unsafe {
                    libc::open(
                        path.as_ptr(),
                        libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_CLOEXEC,
                        0o666 as libc::c_uint,
                    )
                };
                if fd >= 0 {
                    write_all(fd, line);
                }
            }
        }
        // SAFETY: `_exit` ends the process at once, without running anything of ours.
        unsafe { libc::_exit(0) }
    }

    fn write_all(fd: libc::c_int, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            // SAFETY: `bytes` is a live slice; `write` reads at most its length.
            let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
            if n > 0 {
                bytes = &bytes[n as usize..];
            } else if n < 0
                && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {
                continue;
            } else {
                return;
            }
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use super::Expiry;
    use std::io::Write;
    use std::sync::{Arc, Mutex, PoisonError};
    use std::time::Duration;

    /// The armed deadline of this process: a thread sleeping through it.
    pub struct Deadline(Arc<Mutex<bool>>);

    impl Deadline {
        /// Takes the gate before printing the answer: `true` when the hook may answer. A
        /// deadline that took it first is ending the process, and this never returns.
        pub fn answer(&self) -> bool {
            let mut taken = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            *taken = true;
            true
        }
    }

    pub(super) fn arm(after: Duration, expiry: Expiry) -> std::io::Result<Deadline> {
        let gate = Arc::new(Mutex::new(false));
        let theirs = Arc::clone(&gate);
        std::thread::Builder::new()
            .name("deadline".into())
            // It sleeps, then prints a line: a small stack is mapped and torn down faster.
            .stack_size(64 * 1024)
            .spawn(move || {
                std::thread::sleep(after);
                let taken = theirs.lock().unwrap_or_else(PoisonError::into_inner);
                if !*taken {
                    let _ = std::io::stderr().write_all(expiry.stderr_line.as_bytes());
                    if let Some((path, line)) = &expiry.trace {
                        // Failures are ignored: a trace never stops a hook.
                        if let Ok(mut f) = std::fs::OpenOptions::new()
                            .create(true)
                            .append(true)
                            .open(path)
                        {
                            let _ = f.write_all(line.as_bytes());
                        }
                    }
                    // Exit while holding the gate: the main thread can no longer print.
                    std::process::exit(0);
                }
            })?;
        Ok(Deadline(gate))
    }
}
