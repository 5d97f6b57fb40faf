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
mod install;
pub mod mode;
mod runs;
mod settings;
mod status;

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
        summary: "what is running in this project: modes, skill guards, failures",
        help: status::HELP,
        run: status::run,
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
        summary: "add the hooks to .claude/settings.json (or --user)",
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
        name: "mode",
        summary: "record a persistent mode's phase, test result or stage; show the runs",
        help: mode::HELP,
        run: mode::run,
    },
];

/// Parses `args` (without the program name) and runs the chosen subcommand.
pub fn run(args: Vec<OsString>) -> i32 {
    let args: Vec<String> = args
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let Some(first) = args.first().map(String::as_str) else {
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
    if first == "--agent" || first.starts_with("--agent=") {
        return agent_hook(&args);
    }
    let rest = &args[1..];
    if let Some(hook) = crate::hooks::find(first) {
        if rest.iter().any(|a| a == "-h" || a == "--help") {
            println!("{}", hook_help(hook));
            return 0;
        }
        // `omc-hooks stop --agent codex` is accepted as well as `--agent codex stop`.
        let agent = match agent_flag(rest) {
            Ok(a) => a,
            Err(_) => Some(crate::protocol::Agent::Claude),
        };
        return crate::dispatch::run_hook(hook, Env::from_process(), agent);
    }
    if let Some(cmd) = COMMANDS.iter().find(|c| c.name == first) {
        if rest.iter().any(|a| a == "-h" || a == "--help") {
            println!("{}", cmd.help);
            return 0;
        }
        return (cmd.run)(rest, &Env::from_process());
    }
    eprintln!("omc-hooks: unknown command '{first}'. Run 'omc-hooks help' for the list.");
    2
}

/// `omc-hooks --agent NAME <hook subcommand>`: a hook installed for another agent. An unknown
/// name is reported and the payload's shape decides; the hook still exits 0, as every hook.
fn agent_hook(args: &[String]) -> i32 {
    let (value, rest) = match args[0].strip_prefix("--agent=") {
        Some(v) => (Some(v.to_string()), &args[1..]),
        None => (args.get(1).cloned(), args.get(2..).unwrap_or(&[])),
    };
    let Some(sub) = rest.first() else {
        eprintln!(
            "omc-hooks: --agent NAME goes before a hook subcommand, e.g. 'omc-hooks --agent codex stop' \
             (NAME: {})",
            crate::protocol::Agent::names()
        );
        return 2;
    };
    let Some(hook) = crate::hooks::find(sub) else {
        eprintln!(
            "omc-hooks: --agent applies to hook subcommands, not '{sub}'. Run 'omc-hooks help' for the list."
        );
        return 2;
    };
    if rest[1..].iter().any(|a| a == "-h" || a == "--help") {
        println!("{}", hook_help(hook));
        return 0;
    }
    let agent = value.as_deref().and_then(crate::protocol::Agent::parse);
    if agent.is_none() {
        eprintln!(
            "omc-hooks {}: unknown agent '{}' (known: {}); reading the payload by its shape",
            hook.name,
            value.unwrap_or_default(),
            crate::protocol::Agent::names()
        );
    }
    crate::dispatch::run_hook(hook, Env::from_process(), agent)
}

/// `--agent NAME` / `--agent=NAME` among a hook's trailing arguments. `Ok(None)`: given, but
/// not a name we know; `Err(())`: not given.
fn agent_flag(rest: &[String]) -> Result<Option<crate::protocol::Agent>, ()> {
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        let value = match a.strip_prefix("--agent=") {
            Some(v) => Some(v),
            None if a == "--agent" => it.next().map(String::as_str),
            None => continue,
        };
        let agent = value.and_then(crate::protocol::Agent::parse);
        if agent.is_none() {
            eprintln!(
                "omc-hooks: unknown agent '{}' (known: {}); reading the payload by its shape",
                value.unwrap_or_default(),
                crate::protocol::Agent::names()
            );
        }
        return Ok(agent);
    }
    Err(())
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

fn help_for(name: &str) -> Option<String> {
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
        "omc-hooks {} — persistent modes, skill guards and memory for Claude Code\n\n\
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
