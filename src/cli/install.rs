//! `omc-hooks install` / `uninstall`: the alternative to `claude --plugin-dir` — our hooks,
//! with this binary's absolute path, merged into a Claude Code settings file (see
//! [`super::settings`] for how entries are recognised and merged).

use super::args::{fail, parse, usage_error};
use super::settings::{self, SettingsFile};
use crate::env::Env;
use std::path::{Path, PathBuf};

pub(super) const INSTALL_HELP: &str = "\
Usage: omc-hooks install [--agent NAME] [--project DIR | --user]

Adds omc-hooks' hooks to a Claude Code settings file, running this binary by its absolute
path — an alternative to loading the checkout with `claude --plugin-dir`.

  (no option)      <project>/.claude/settings.json for the current project (the nearest
                   directory holding .omc/ or .git, as the hooks resolve it)
  --project DIR    DIR/.claude/settings.json
  --user           ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json if set)

Every other setting and hook is kept, in its order. Installing twice changes nothing; after
moving the binary, install again and the old entries are replaced. Before any change the file
is copied to settings.json.bak-<stamp>. A file that is not valid JSON is refused, untouched.
Use only one way of loading omc-hooks (this or --plugin-dir), or each hook runs twice.

  --agent NAME     another agent's configuration instead (claude is the default):
                   codex   DIR/.codex/hooks.json    (--user: $CODEX_HOME/hooks.json)
                   gemini  DIR/.gemini/settings.json (--user: ~/.gemini/settings.json)
                   qwen    DIR/.qwen/settings.json   (--user: $QWEN_HOME/settings.json)
                   cursor  DIR/.cursor/hooks.json    (--user: ~/.cursor/hooks.json)
                   each hook runs '<this binary> --agent NAME <subcommand>'; what else install
                   adds there is listed in omc-hooks-install.json beside the file, so
                   uninstall --agent NAME gives the file back as it was.";

pub(super) const UNINSTALL_HELP: &str = "\
Usage: omc-hooks uninstall [--agent NAME] [--project DIR | --user]

Removes exactly the hooks `omc-hooks install` added (entries whose command runs a program
named omc-hooks with one of its hook subcommands) from the same settings file `install`
would use. Everything else stays; groups and event lists left empty by the removal go too.
The file is first copied to settings.json.bak-<stamp>. State in .omc/ is not touched.
With --agent NAME, the same for that agent's file (see 'omc-hooks help install').";

/// Which settings file to act on, or the exit code of a usage error.
fn target(command: &str, help: &str, args: &[String], env: &Env) -> Result<PathBuf, i32> {
    let p =
        parse(args, &["user"], &["project"], false).map_err(|e| usage_error(command, help, &e))?;
    match (p.flag("user"), p.value("project")) {
        (true, Some(_)) => Err(usage_error(
            command,
            help,
            "choose one of --project DIR and --user",
        )),
        (true, None) => settings::user_settings(env).ok_or_else(|| {
            fail(
                command,
                "cannot find your home directory: set HOME (or CLAUDE_CONFIG_DIR) and try again",
            )
        }),
        (false, Some(dir)) => {
            let dir = PathBuf::from(dir);
            let dir = match (dir.is_absolute(), &env.process_cwd) {
                (false, Some(cwd)) => cwd.join(dir),
                _ => dir,
            };
            if dir.is_dir() {
                Ok(settings::project_settings(&dir))
            } else {
                Err(fail(
                    command,
                    &format!(
                        "{} is not a directory; pass an existing project directory",
                        dir.display()
                    ),
                ))
            }
        }
        (false, None) => crate::state::root::resolve(env, None)
            .map(|r| settings::project_settings(&r.project))
            .ok_or_else(|| {
                fail(
                    command,
                    "cannot tell which project this is; run it inside the project or pass --project DIR",
                )
            }),
    }
}

fn load_or_report(command: &str, path: &Path) -> Result<SettingsFile, i32> {
    settings::load(path).map_err(|e| match e {
        settings::LoadError::Invalid(_) => fail(
            command,
            &format!(
                "{} is {e}; nothing was changed. Fix the file (or move it away) and run \
                 'omc-hooks {command}' again.",
                path.display()
            ),
        ),
        settings::LoadError::Io(_) => fail(
            command,
            &format!("cannot read {}: {e}; nothing was changed.", path.display()),
        ),
    })
}

/// Writes the new text, reporting the backup; `Err` carries the exit code.
fn write(command: &str, file: &SettingsFile, env: &Env) -> Result<Option<PathBuf>, i32> {
    let text = settings::render(&file.value, file.text.as_deref());
    settings::save(file, &text, &crate::time::stamp(env.now_ms())).map_err(|e| {
        fail(
            command,
            &format!("cannot write {}: {e}", file.path.display()),
        )
    })
}

pub(super) fn run_install(args: &[String], env: &Env) -> i32 {
    let args = match super::agent_install::split("install", INSTALL_HELP, args) {
        super::agent_install::Split::Claude(rest) => rest,
        super::agent_install::Split::Agent(a, rest) => {
            return super::agent_install::install(a, &rest, env, INSTALL_HELP);
        }
        super::agent_install::Split::Err(code) => return code,
    };
    let args = &args[..];
    let path = match target("install", INSTALL_HELP, args, env) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let exe = match std::env::current_exe().and_then(|p| p.canonicalize()) {
        Ok(p) => p,
        Err(e) => return fail("install", &format!("cannot locate this binary: {e}")),
    };
    let mut file = match load_or_report("install", &path) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let before = file.value.clone();
    let merge = match settings::install(&mut file.value, &exe) {
        Ok(m) => m,
        Err(e) => {
            return fail(
                "install",
                &format!(
                    "{}: {e}; nothing was changed. Fix the file and try again.",
                    path.display()
                ),
            );
        }
    };
    let same = serde_json::to_string(&before).ok() == serde_json::to_string(&file.value).ok();
    if same && file.text.is_some() {
        println!(
            "omc-hooks is already installed in {} (running {}); nothing changed.",
            path.display(),
            exe.display()
        );
        return 0;
    }
    let backup = match write("install", &file, env) {
        Ok(b) => b,
        Err(code) => return code,
    };
    println!(
        "Installed omc-hooks in {}: {} hooks added, {} updated, {} removed; they run {}.",
        path.display(),
        merge.added,
        merge.updated,
        merge.removed,
        exe.display()
    );
    if let Some(b) = backup {
        println!("Backup of the previous file: {}", b.display());
    }
    println!(
        "Start a new Claude Code session for it to take effect; 'omc-hooks doctor' checks the setup."
    );
    0
}

pub(super) fn run_uninstall(args: &[String], env: &Env) -> i32 {
    let args = match super::agent_install::split("uninstall", UNINSTALL_HELP, args) {
        super::agent_install::Split::Claude(rest) => rest,
        super::agent_install::Split::Agent(a, rest) => {
            return super::agent_install::uninstall(a, &rest, env, UNINSTALL_HELP);
        }
        super::agent_install::Split::Err(code) => return code,
    };
    let args = &args[..];
    let path = match target("uninstall", UNINSTALL_HELP, args, env) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if !path.exists() {
        println!(
            "omc-hooks is not installed in {} (no such file); nothing changed.",
            path.display()
        );
        return 0;
    }
    let mut file = match load_or_report("uninstall", &path) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let removed = match settings::uninstall(&mut file.value) {
        Ok(n) => n,
        Err(e) => {
            return fail(
                "uninstall",
                &format!(
                    "{}: {e}; nothing was changed. Fix the file and try again.",
                    path.display()
                ),
            );
        }
    };
    if removed == 0 {
        println!(
            "omc-hooks is not installed in {}; nothing changed.",
            path.display()
        );
        return 0;
    }
    let backup = match write("uninstall", &file, env) {
        Ok(b) => b,
        Err(code) => return code,
    };
    println!("Removed {removed} omc-hooks hooks from {}.", path.display());
    if let Some(b) = backup {
        println!("Backup of the previous file: {}", b.display());
    }
    0
}
