//! `omc-hooks flush`: delivers the project's spooled export events. Hooks start it detached
//! when they spool an event and no flusher runs; a person can run it with `--once`.

use super::args::{parse, usage_error};
use crate::env::Env;
use crate::export::flusher::{self, Options};
use crate::state::{Root, Store};
use std::path::PathBuf;

pub(super) const HELP: &str = "\
Usage: omc-hooks flush [--once] [--project DIR [--state-dir DIR]]

Delivers the events spooled in .omc/export/ to their sinks (batch webhooks, OpenTelemetry
collectors) and keeps going while events arrive; one flusher runs per project at a time.
Hooks start it by themselves when export is on (see 'Export' in the README); run it by hand
to push what is pending now.

  --once           send what is pending now and exit (no waiting for batches to fill, one
                   attempt per sink); exit 1 if events are left undelivered
  --project DIR    the project (default: the one around the current directory)
  --state-dir DIR  its state directory (default: DIR/.omc, or OMC_STATE_DIR)
  --detached       (used by the hooks) leave the starting process's session first

The sinks come from the environment (OMC_EXPORT_*) and the project's configuration, as the
hooks see them; 'omc-hooks status' shows what is pending and the last delivery error.";

pub(super) fn run(args: &[String], env: &Env) -> i32 {
    let p = match parse(
        args,
        &["once", "detached"],
        &["project", "state-dir"],
        false,
    ) {
        Ok(p) => p,
        Err(e) => return usage_error("flush", HELP, &e),
    };
    let root = match (p.value("project"), p.value("state-dir")) {
        (Some(project), state) => {
            let project = PathBuf::from(project);
            let omc = state
                .map(PathBuf::from)
                .or_else(|| env.state_dir.clone())
                .unwrap_or_else(|| project.join(".omc"));
            if !project.is_absolute() || !omc.is_absolute() {
                return usage_error("flush", HELP, "--project and --state-dir must be absolute");
            }
            Root { project, omc }
        }
        (None, Some(_)) => return usage_error("flush", HELP, "--state-dir needs --project"),
        (None, None) => match super::status::open_store("flush", env) {
            Ok(s) => s.root().clone(),
            Err(code) => return code,
        },
    };
    let store = Store::new(root, env.now_ms());
    let opts = Options {
        detached: p.flag("detached"),
        once: p.flag("once"),
    };
    flusher::run(&store, env, opts)
}
