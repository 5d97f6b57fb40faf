//! The command line: hook subcommands (run by Claude Code) and the commands for the person at
//! the keyboard. `--help` and `--version` answer before anything else is read.
//!
//! Each human command lives in its own file and is registered in [`COMMANDS`]; hook
//! subcommands come from [`crate::hooks::HOOKS`].

mod agent_install;
mod agent_trace;
mod args;
mod cancel;
pub mod demo;
pub mod detect;
mod doctor;
mod flush;
mod hook_binary;
mod import_atomcode;
mod install;
pub mod mode;
mod notify;
mod omc;
mod registry;
mod report;
mod run_report;
mod runs;
mod settings;
mod status;
mod status_all;
mod statusline;
mod trust;
mod trust_evidence;

use crate::env::Env;
use std::ffi::OsString;

/// A human-facing command: name, one-line summary, detailed help, entry point.
pub struct Command {
    pub name: &'static str,
    pub summary: &'static str,
    pub help: &'static str,
    pub run: fn(&[String], &Env) -> i32,
}

/// Human commands, in the order `help` lists them.
pub const COMMANDS: &[Command] = &[
    Command {
        name: "detect",
        summary: "show what a prompt would activate, and why (touches no state)",
        help: detect::HELP,
        run: detect::run,
    },
    Command {
        name: "status",
        summary: "what is running in this project (--all: every project), --watch to follow",
        help: status::HELP,
        run: status::run,
    },
    Command {
        name: "report",
        summary: "what a run did, whether it is proven, what it cost (--all, --json, --html FILE)",
        help: run_report::HELP,
        run: run_report::run,
    },
    Command {
        name: "statusline",
        summary: "one line for Claude Code's status line: mode, iteration, guard, failures, context",
        help: statusline::HELP,
        run: statusline::run,
    },
    Command {
        name: "cancel",
        summary: "end the active runs of a session (or --all)",
        help: cancel::HELP,
        run: cancel::run,
    },
    Command {
        name: "doctor",
        summary: "check the installation and the state directory; say how to fix",
        help: doctor::HELP,
        run: doctor::run,
    },
    Command {
        name: "install",
        summary: "add the hooks to a Claude Code settings file (--scope), or --agent NAME's own file",
        help: install::INSTALL_HELP,
        run: install::run_install,
    },
    Command {
        name: "uninstall",
        summary: "remove exactly the hooks install added",
        help: install::UNINSTALL_HELP,
        run: install::run_uninstall,
    },
    Command {
        name: "trust",
        summary: "let a project's .omc/hooks.toml run (--revoke, --list)",
        help: trust::HELP,
        run: trust::run,
    },
    Command {
        name: "import-atomcode",
        summary: "convert your AtomCode hooks.toml and hooks.json into entries of your hooks.toml (--write)",
        help: import_atomcode::HELP,
        run: import_atomcode::run,
    },
    Command {
        name: "demo",
        summary: "replay a scripted session through the real hooks and show each state change",
        help: demo::HELP,
        run: demo::run,
    },
    Command {
        name: "manifest",
        summary: "print the hooks.json manifest compiled into this binary",
        help: "Usage: omc-hooks manifest\n\nPrints the hooks.json this binary was built with.",
        run: |args, _| {
            if let Some(a) = args.first() {
                eprintln!(
                    "omc-hooks manifest: unexpected argument '{a}'\n\nUsage: omc-hooks manifest"
                );
                return 2;
            }
            print!("{}", crate::hooks::MANIFEST);
            0
        },
    },
    Command {
        name: "flush",
        summary: "deliver the spooled export events now (hooks start it by themselves)",
        help: flush::HELP,
        run: flush::run,
    },
    Command {
        name: "notify",
        summary: "send a test message to each notification sink (Slack, Discord, Telegram)",
        help: notify::HELP,
        run: notify::run,
    },
    Command {
        name: "mode",
        summary: "start a persistent mode's run, record its progress, show the runs",
        help: mode::HELP,
        run: mode::run,
    },
];

/// Parses `args` (without the program name) and runs the chosen subcommand.
///
/// Exit codes depend on who is asking. Claude Code runs `omc-hooks <sub>` with the payload on
/// stdin and treats exit 2 as "block": a mistyped or stale manifest entry must then cost one
/// diagnostic line, never the agent. So when stdin is not a terminal (a hook invocation), an
/// unknown subcommand, a missing one, or an unknown argument to a hook subcommand exits 0 with
/// one line on stderr. A person at a terminal still gets usage errors and a non-zero status.
pub fn run(args: Vec<OsString>) -> i32 {
    let args: Vec<String> = args
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let as_hook = !std::io::IsTerminal::is_terminal(&std::io::stdin());
    // `omc-hooks --agent NAME <hook subcommand>`: a hook installed for another agent.
    let (agent, args) = match args.first().map(String::as_str) {
        Some(a) if a == "--agent" || a.starts_with("--agent=") => {
            let (value, rest) = match a.strip_prefix("--agent=") {
                Some(v) => (Some(v.to_string()), args[1..].to_vec()),
                None => (args.get(1).cloned(), args.get(2..).unwrap_or(&[]).to_vec()),
            };
            if rest.first().is_none_or(|s| crate::hooks::find(s).is_none()) {
                let msg = format!(
                    "--agent NAME goes before a hook subcommand, e.g. 'omc-hooks --agent codex \
                     stop' (NAME: {}; hook subcommands: 'omc-hooks help')",
                    crate::protocol::Agent::names()
                );
                if as_hook {
                    crate::diag!("{msg}; nothing to do");
                    return 0;
                }
                eprintln!("omc-hooks: {msg}");
                return 2;
            }
            (Some(value), rest)
        }
        _ => (None, args),
    };
    if let Some(hook) = args.first().and_then(|a| crate::hooks::find(a)) {
        let rest = &args[1..];
        if rest.iter().any(|a| a == "-h" || a == "--help") {
            return pipe_safe(|| {
                println!("{}", hook_help(hook));
                0
            });
        }
        // `omc-hooks stop --agent codex` is accepted as well as `--agent codex stop`.
        let (trailing, rest) = take_agent(rest);
        if let Some(extra) = rest.first() {
            crate::diag!(
                "{}: ignoring unexpected argument '{extra}'{}",
                hook.name,
                if rest.len() > 1 { " (and more)" } else { "" }
            );
        }
        let agent = match agent.or(trailing) {
            None => Some(crate::protocol::Agent::Claude),
            Some(value) => {
                let parsed = value.as_deref().and_then(crate::protocol::Agent::parse);
                if parsed.is_none() {
                    crate::diag!(
                        "{}: unknown agent '{}' (known: {}); reading the payload by its shape",
                        hook.name,
                        value.unwrap_or_default(),
                        crate::protocol::Agent::names()
                    );
                }
                parsed
            }
        };
        let env = Env::from_process();
        crate::state::fs::set_durable(env.durable);
        return crate::dispatch::run_hook(hook, env, agent);
    }
    pipe_safe(|| run_command(&args, as_hook))
}

/// Takes `--agent NAME` / `--agent=NAME` out of a hook's trailing arguments: the value given
/// (`Some(None)` for `--agent` without one), and the arguments left.
fn take_agent(rest: &[String]) -> (Option<Option<String>>, Vec<String>) {
    let mut agent = None;
    let mut left = Vec::new();
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.strip_prefix("--agent=") {
            Some(v) => agent = Some(Some(v.to_string())),
            None if a == "--agent" => agent = Some(it.next().cloned()),
            None => left.push(a.clone()),
        }
    }
    (agent, left)
}

/// A human command, `help` or `--version`.
fn run_command(args: &[String], as_hook: bool) -> i32 {
    let Some(first) = args.first().map(String::as_str) else {
        if as_hook {
            crate::diag!("no subcommand given; nothing to do (run 'omc-hooks help' for the list)");
            return 0;
        }
        print!("{}", usage());
        return 2;
    };
    match first {
        "-h" | "--help" | "help" => {
            match args.get(1).map(String::as_str) {
                Some(name) => match help_for(name) {
                    Some(h) => println!("{h}"),
                    None => {
                        eprintln!("omc-hooks: no such command '{name}'. Try 'omc-hooks help'.");
                        return 2;
                    }
                },
                None => print!("{}", usage()),
            }
            return 0;
        }
        "-V" | "--version" | "version" => {
            println!("omc-hooks {}", env!("CARGO_PKG_VERSION"));
            return 0;
        }
        _ => {}
    }
    let rest = &args[1..];
    if let Some(cmd) = COMMANDS.iter().find(|c| c.name == first) {
        if rest.iter().any(|a| a == "-h" || a == "--help") {
            println!("{}", cmd.help);
            return 0;
        }
        let env = Env::from_process();
        crate::state::fs::set_durable(env.durable);
        return (cmd.run)(rest, &env);
    }
    if as_hook {
        // Perhaps a hook subcommand of another version named in a stale manifest.
        crate::diag!("unknown subcommand '{first}'; no-op (run 'omc-hooks help' for the list)");
        return 0;
    }
    eprintln!("omc-hooks: unknown command '{first}'. Run 'omc-hooks help' for the list.");
    2
}

/// Runs a command that prints for a person, treating a closed stdout (`omc-hooks status |
/// head -0`) as the reader having seen enough: quiet, exit 0, instead of a panic and a
/// backtrace. Any other panic is reported as an internal error.
fn pipe_safe(f: impl FnOnce() -> i32) -> i32 {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !is_broken_pipe(info.payload()) {
            default_hook(info);
        }
    }));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let _ = std::panic::take_hook();
    match result {
        Ok(code) => code,
        Err(payload) if is_broken_pipe(payload.as_ref()) => 0,
        Err(_) => 101,
    }
}

/// Whether a panic payload is `print!`'s "failed printing to stdout: Broken pipe".
fn is_broken_pipe(payload: &(dyn std::any::Any + Send)) -> bool {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("");
    text.contains("Broken pipe") || text.contains("os error 32")
}

fn hook_help(hook: crate::hooks::Hook) -> String {
    format!(
        "Usage: omc-hooks {name} < payload.json\n\n\
         Hook subcommand for Claude Code's {event} event. Reads one JSON payload on stdin and\n\
         prints nothing or one JSON object. Always exits 0; diagnostics go to stderr.\n\
         For another agent put '--agent NAME' first ({agents}); 'omc-hooks doctor --agents'\n\
         shows which of its events this subcommand serves.\n\
         Switches: DISABLE_OMC=1 turns it off, OMC_SKIP_HOOKS={name} skips it,\n\
         OMC_NOW_MS pins the clock, OMC_STATE_DIR moves the state directory.",
        name = hook.name,
        event = hook.event,
        agents = crate::protocol::Agent::names()
    )
}

const HELP_HELP: &str = "\
Usage: omc-hooks help [command]

Without a command, lists every command and hook subcommand. With one, shows its details
(the same text as 'omc-hooks <command> --help').";

fn help_for(name: &str) -> Option<String> {
    if matches!(name, "help" | "-h" | "--help") {
        return Some(HELP_HELP.to_string());
    }
    if let Some(h) = crate::hooks::find(name) {
        return Some(hook_help(h));
    }
    COMMANDS
        .iter()
        .find(|c| c.name == name)
        .map(|c| c.help.to_string())
}

fn usage() -> String {
    let mut s = format!(
        "omc-hooks {} — persistent modes, skill guards and memory for coding agents\n\n\
         Usage: omc-hooks <command> [args]\n\nCommands:\n",
        env!("CARGO_PKG_VERSION")
    );
    for c in COMMANDS {
        s.push_str(&format!("  {:<22} {}\n", c.name, c.summary));
    }
    s.push_str(
        "\nHook subcommands (run by Claude Code through hooks.json, by other agents as\n\
         'omc-hooks --agent NAME <subcommand>'; read a payload on stdin):\n",
    );
    for h in crate::hooks::HOOKS {
        s.push_str(&format!("  {:<22} {}\n", h.name, h.event));
    }
    s.push_str("\n'omc-hooks help <command>' shows a command's details.\n");
    s
}
