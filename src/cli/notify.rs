//! `omc-hooks notify test`: one test message to each notification sink configured for this
//! project (`type = "notify"` entries of the user's `hooks.toml` and of a trusted project
//! file), sent now rather than through the spool, so the person sees at once whether the URL,
//! the token and the chat are right.

use super::args::{fail, parse, usage_error};
use super::status::open_store;
use crate::env::Env;
use crate::export::SinkKind;

pub(super) const HELP: &str = "\
Usage: omc-hooks notify test [--name NAME]

Sends one test message to each notification sink (type = \"notify\" in hooks.toml: Slack,
Discord, Telegram) configured for this project, now, and says for each whether it arrived.
A project file's sinks count only once the file is trusted ('omc-hooks trust').

  --name NAME   only the sink of that name (its `name`, or the one 'omc-hooks status' shows)

The URL and token variables (\"${SLACK_WEBHOOK_URL}\", token_env) are read from this
shell's environment. Exit status: 0 every message arrived, 1 one did not or none is
configured (the message says why), 2 usage error.";

pub(super) fn run(args: &[String], env: &Env) -> i32 {
    let p = match parse(args, &[], &["name"], true) {
        Ok(p) => p,
        Err(e) => return usage_error("notify", HELP, &e),
    };
    match p.positional.as_slice() {
        [t] if t == "test" => {}
        [] => return usage_error("notify", HELP, "say what to do: omc-hooks notify test"),
        [other, ..] => return usage_error("notify", HELP, &format!("unknown command '{other}'")),
    }
    let store = match open_store("notify", env) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let sinks: Vec<_> = crate::export::sources::configured(&store, env)
        .into_iter()
        .filter(|s| p.value("name").is_none_or(|n| n == s.name))
        .filter_map(|s| match s.kind {
            SinkKind::Notify(t) => Some((s.name, s.timeout_ms, t)),
            _ => None,
        })
        .collect();
    if sinks.is_empty() {
        return fail(
            "notify",
            "no notification sink is configured for this project (a type = \"notify\" entry \
             in hooks.toml; a project file must be trusted); 'omc-hooks doctor' lists the entries",
        );
    }
    let project = store
        .project()
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let get = |k: &str| env.lookup(k);
    let mut code = 0;
    for (name, timeout_ms, target) in &sinks {
        let dest = crate::export::notify::destination(target);
        match crate::export::notify::send_test(target, &project, *timeout_ms, &get) {
            Ok(()) => println!("{name}: test message delivered ({dest})"),
            Err(e) => {
                println!("{name}: NOT delivered ({dest}): {e}");
                code = 1;
            }
        }
    }
    code
}
