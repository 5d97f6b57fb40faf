//! The flusher: the detached `omc-hooks flush` process that delivers spooled events. This
//! file holds the part a hook runs (is one running? start one) and the delivery loop.

use crate::env::Env;
use crate::state::Store;
use std::process::{Command, Stdio};

/// Starts a flusher for the project unless one holds the lock. Returns whether one was
/// started. The hook does not wait for it: the child gets no stdio, detaches itself
/// (`--detached`: a new session, so the agent killing the hook's process group does not reach
/// it) and is reaped by init once the hook exits.
pub fn ensure_running(store: &Store, env: &Env) -> bool {
    match store.flusher_busy() {
        Ok(true) => false,
        Ok(false) => match spawn(store, env) {
            Ok(()) => true,
            Err(e) => {
                crate::diag!("export: cannot start the flusher: {e}");
                false
            }
        },
        Err(e) => {
            crate::diag!("export: cannot probe the flusher lock: {e}");
            false
        }
    }
}

fn spawn(store: &Store, env: &Env) -> std::io::Result<()> {
    let exe = match env.var(crate::env::EXE_VAR) {
        Some(p) => std::path::PathBuf::from(p),
        None => std::env::current_exe()?,
    };
    Command::new(exe)
        .arg("flush")
        .arg("--detached")
        .arg("--project")
        .arg(store.project())
        .arg("--state-dir")
        .arg(store.omc_dir())
        .current_dir(store.project())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(drop)
}
