//! `omc-hooks install` / `uninstall`: the alternative to a plugin — our hooks, running an
//! installed binary, merged into a Claude Code settings file of the chosen scope.
//!
//! The file is edited in place ([`super::settings::edit`]), so every byte install does not own
//! stays as it was; what install created or changed is noted in the user's registry
//! ([`super::registry`]) so that uninstall gives the file (or its absence) back exactly.

use super::args::{fail, parse, usage_error};
use super::hook_binary;
use super::omc;
use super::registry::{self, Install};
use super::settings::merge::{self, Record};
use super::settings::{self, Scope, SettingsFile};
use crate::env::Env;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

pub(super) const INSTALL_HELP: &str = "\
Usage: omc-hooks install [--scope project|local|user] [--project DIR] [--use-path]
                         [--statusline [--force]] [--disable-omc] [--gitignore] [--backup]
       omc-hooks install --agent codex|gemini|qwen|cursor|factory|codebuddy|qoder|cline|
                         auggie [--project DIR | --user]
       omc-hooks install --agent kimi --user

Adds omc-hooks' hooks to a Claude Code settings file — the alternative to installing the
plugin. The hooks run this binary by its absolute path (or, with --use-path, 'omc-hooks'
looked up on PATH).

  --scope local    <project>/.claude/settings.local.json: this machine only (the default, as
                   an absolute path belongs to this machine, not in the team's file)
  --scope project  <project>/.claude/settings.json, shared through git (the default with
                   --use-path)
  --scope user     ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json if set): every
                   project (--user is the same)
  --project DIR    the project (default: the nearest directory holding .omc/ or .git)
  --use-path       write 'omc-hooks <hook>' (found on PATH, e.g. after 'cargo install')
                   instead of this binary's absolute path; refused when that is a script
                   (npm's launcher: every hook would start Node.js)
  --statusline     also set Claude Code's status line to 'omc-hooks statusline'; an existing
                   status line of yours is kept unless --force
  --disable-omc    switch off oh-my-claudecode's hooks for this scope when both would run (its
                   Stop loop and ours would fight); uninstall switches them back on
  --gitignore      add '.omc/' (and, for the local scope, '.claude/settings.local.json') to
                   the project's .gitignore when git does not ignore them (else install says so)
  --backup         copy the settings file to <name>.omc-hooks.bak first (one, replaced)

Every other byte of the file is kept. Installing twice changes nothing; after moving the
binary, install again and the entries are updated. A file that is not valid JSON (comments
included) is refused, untouched. What install created is recorded in
~/.local/share/omc-hooks/installs.json ($XDG_DATA_HOME/omc-hooks), which 'status --all' reads.
Use one way of loading omc-hooks (this or the plugin), or each hook runs twice.

  --agent NAME     another agent's hook file instead of Claude Code's (claude is the default):
                   codex   DIR/.codex/hooks.json     (--user: $CODEX_HOME/hooks.json)
                   gemini  DIR/.gemini/settings.json (--user: ~/.gemini/settings.json)
                   qwen    DIR/.qwen/settings.json   (--user: $QWEN_HOME/settings.json)
                   cursor  DIR/.cursor/hooks.json    (--user: ~/.cursor/hooks.json)
                   factory DIR/.factory/settings.json   (droid; --user: ~/.factory/)
                   codebuddy DIR/.codebuddy/settings.json (--user: $CODEBUDDY_CONFIG_DIR,
                           else ~/.codebuddy/)
                   qoder   DIR/.qoder/settings.json     (--user: $QODER_CONFIG_DIR, else
                           ~/.qoder/)
                   kimi    --user only: [[hooks]] tables at the end of
                           $KIMI_SHARE_DIR/config.toml (~/.kimi/), in one marked block
                   cline   DIR/.clinerules/hooks/: one script per event (--user:
                           $CLINE_DIR/hooks/, else ~/.cline/hooks/)
                   auggie  DIR/.augment/settings.json (augment; --user: ~/.augment/)
                   each hook runs '<this binary> --agent NAME <subcommand>'; what else install
                   adds there is listed in omc-hooks-install.json beside the file, so
                   'uninstall --agent NAME' gives the file back as it was.";

pub(super) const UNINSTALL_HELP: &str = "\
Usage: omc-hooks uninstall [--scope project|local|user] [--project DIR] [--backup]
       omc-hooks uninstall --agent codex|gemini|qwen|cursor|factory|codebuddy|qoder|cline|
                           auggie [--project DIR | --user]
       omc-hooks uninstall --agent kimi --user

Removes exactly what 'omc-hooks install' added: the hook entries whose command runs a program
named omc-hooks with one of its hook subcommands, and the containers, status line and other
settings install created or changed (each given back its old text, unless you changed it
since). A settings file install created is deleted again. Without --scope, both files of the
project (settings.json and settings.local.json); --scope user (or --user) for the user's.
Backups beside the file are listed. State in .omc/ is not touched. With --agent NAME, the
same for that agent's file (see 'omc-hooks help install').";

/// What the command line asked.
struct Opts {
    scope: Option<Scope>,
    project: Option<PathBuf>,
    use_path: bool,
    statusline: bool,
    force: bool,
    backup: bool,
    gitignore: bool,
    disable_omc: bool,
}

fn options(command: &str, help: &str, args: &[String], env: &Env) -> Result<Opts, i32> {
    let flags: &[&'static str] = if command == "install" {
        &[
            "user",
            "use-path",
            "statusline",
            "force",
            "backup",
            "gitignore",
            "disable-omc",
        ]
    } else {
        &["user", "backup"]
    };
    let p = parse(args, flags, &["project", "scope"], false)
        .map_err(|e| usage_error(command, help, &e))?;
    let mut scope = match p.value("scope") {
        None => None,
        Some(s) => Some(Scope::parse(s).ok_or_else(|| {
            usage_error(
                command,
                help,
                &format!("--scope is project, local or user, not '{s}'"),
            )
        })?),
    };
    if p.flag("user") {
        if scope.is_some_and(|s| s != Scope::User) {
            return Err(usage_error(
                command,
                help,
                "--user is --scope user; choose one",
            ));
        }
        scope = Some(Scope::User);
    }
    if p.flag("force") && !p.flag("statusline") {
        return Err(usage_error(
            command,
            help,
            "--force only applies to --statusline",
        ));
    }
    let project = match p.value("project") {
        Some(dir) => {
            if scope == Some(Scope::User) {
                return Err(usage_error(
                    command,
                    help,
                    "--project DIR names a project; the user scope has none (choose one)",
                ));
            }
            let dir = PathBuf::from(dir);
            let dir = match (dir.is_absolute(), &env.process_cwd) {
                (false, Some(cwd)) => cwd.join(dir),
                _ => dir,
            };
            if !dir.is_dir() {
                return Err(fail(
                    command,
                    &format!(
                        "{} is not a directory; pass an existing project directory",
                        dir.display()
                    ),
                ));
            }
            Some(crate::platform::canonicalize(&dir).unwrap_or(dir))
        }
        None => crate::state::root::resolve(env, None)
            .map(|r| crate::platform::canonicalize(&r.project).unwrap_or(r.project)),
    };
    Ok(Opts {
        scope,
        project,
        use_path: p.flag("use-path"),
        statusline: p.flag("statusline"),
        force: p.flag("force"),
        backup: p.flag("backup"),
        gitignore: p.flag("gitignore"),
        disable_omc: p.flag("disable-omc"),
    })
}

/// The settings file of a scope.
fn path_of(command: &str, scope: Scope, project: Option<&Path>, env: &Env) -> Result<PathBuf, i32> {
    match scope {
        Scope::User => settings::user_settings(env).ok_or_else(|| {
            fail(
                command,
                "cannot find your home directory: set HOME (or CLAUDE_CONFIG_DIR) and try again",
            )
        }),
        Scope::Project | Scope::Local => {
            let project = project.ok_or_else(|| {
                fail(
                    command,
                    "cannot tell which project this is; run it inside the project or pass --project DIR",
                )
            })?;
            Ok(if scope == Scope::Project {
                settings::project_settings(project)
            } else {
                settings::local_settings(project)
            })
        }
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

/// Finds `name` on PATH as `sh` would.
pub(super) fn on_path(name: &str, env: &Env) -> Option<PathBuf> {
    let suffixed = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    std::env::split_paths(env.var("PATH")?)
        .filter(|d| !d.as_os_str().is_empty())
        .flat_map(|d| {
            let plain = d.join(name);
            let exe = (suffixed != name).then(|| d.join(&suffixed));
            std::iter::once(plain).chain(exe)
        })
        .find(|p| std::fs::metadata(p).is_ok_and(|m| crate::platform::is_executable(&m)))
}

/// The settings values of the three scopes, in the order Claude Code layers them, with the
/// file being edited seen as it is now.
fn layers(project: Option<&Path>, env: &Env, editing: &Path, now: &Value) -> Vec<Value> {
    let mut paths = vec![settings::user_settings(env)];
    if let Some(p) = project {
        paths.push(Some(settings::project_settings(p)));
        paths.push(Some(settings::local_settings(p)));
    }
    paths
        .into_iter()
        .flatten()
        .map(|p| {
            if p == editing {
                now.clone()
            } else {
                settings::load(&p).map(|f| f.value()).unwrap_or(Value::Null)
            }
        })
        .collect()
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
    let o = match options("install", INSTALL_HELP, args, env) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let scope = o.scope.unwrap_or(if o.use_path {
        Scope::Project
    } else {
        Scope::Local
    });
    let path = match path_of("install", scope, o.project.as_deref(), env) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let exe = hook_binary::this_binary();
    let program = if o.use_path {
        let Some(found) = on_path("omc-hooks", env) else {
            return fail(
                "install",
                "--use-path: no 'omc-hooks' on PATH. Install it (cargo install --path . puts \
                 it in ~/.cargo/bin) or leave --use-path out to use this binary's path.",
            );
        };
        if let Some(why) = hook_binary::use_path_refusal(&found, exe.as_deref().ok()) {
            return fail("install", &why);
        }
        "omc-hooks".to_string()
    } else {
        match &exe {
            Ok(p) => p.to_string_lossy().into_owned(),
            Err(e) => return fail("install", &format!("cannot locate this binary: {e}")),
        }
    };
    let mut file = match load_or_report("install", &path) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let original = file.edit.text().to_string();
    let mut record = Record::default();
    let merge = match merge::install_hooks(&mut file.edit, &program, &mut record) {
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
    let mut also = Vec::new();
    if o.statusline {
        match statusline(&mut file, &mut record, &program, o.force) {
            Ok(Some(what)) => also.push(what),
            Ok(None) => {}
            Err(msg) => return fail("install", &msg),
        }
    }
    let omc_notes = match coexist(&mut file, &mut record, &o, &path, env) {
        Ok(n) => n,
        Err(msg) => return fail("install", &msg),
    };
    also.extend(omc_notes.done);

    let changed = file.edit.text() != original || !file.existed;
    let mut created_dirs = Vec::new();
    if changed {
        if o.backup && file.existed {
            match settings::backup(&path) {
                Ok(b) => println!("Backup of the previous file: {}", b.display()),
                Err(e) => {
                    return fail(
                        "install",
                        &format!(
                            "cannot back up {}: {e}; nothing was changed",
                            path.display()
                        ),
                    );
                }
            }
        }
        match settings::save(&path, file.edit.text()) {
            Ok(d) => created_dirs = d,
            Err(e) => return fail("install", &format!("cannot write {}: {e}", path.display())),
        }
    }
    let registered = registry::update(env, true, |r| {
        match r.installs.iter_mut().find(|i| i.settings == path) {
            Some(i) => {
                i.record.absorb(record);
                i.program = program.clone();
            }
            None => r.installs.push(Install {
                settings: path.clone(),
                scope: scope.name().into(),
                project: if scope == Scope::User {
                    None
                } else {
                    o.project.clone()
                },
                program: program.clone(),
                installed_at: crate::time::iso(env.now_ms()),
                created_file: !file.existed,
                created_dirs,
                gitignore: None,
                record,
            }),
        }
    });
    // Before anything is printed: a reader that stops early (`install | head -1`) must not
    // cut the install short between the .gitignore and its note in the registry.
    let (gitignore_out, gitignore_err) = match &o.project {
        Some(project) => apply_gitignore(env, &path, project, scope, o.gitignore),
        None => (Vec::new(), Vec::new()),
    };

    let shown = if o.use_path {
        "omc-hooks (looked up on PATH)".to_string()
    } else {
        program.clone()
    };
    let where_ = match scope {
        Scope::Local => "local scope: this machine only",
        Scope::Project => "project scope: shared with the team through git",
        Scope::User => "user scope: every project",
    };
    if changed {
        println!(
            "Installed omc-hooks in {} ({where_}): {} hooks added, {} updated, {} removed; they run {shown}.",
            path.display(),
            merge.added,
            merge.updated,
            merge.removed,
        );
    } else {
        println!(
            "omc-hooks is already installed in {} ({where_}, running {shown}); nothing changed.",
            path.display()
        );
    }
    for a in &also {
        println!("Also set: {a}.");
    }
    match registered {
        Ok(_) => {
            if let Some(f) = registry::file(env) {
                println!(
                    "Recorded in {} (for 'omc-hooks status --all' and 'uninstall').",
                    f.display()
                );
            }
        }
        Err(e) => eprintln!(
            "omc-hooks install: could not record the install in the registry ({e}); \
             'status --all' will not list this project and uninstall falls back to \
             recognising its entries."
        ),
    }
    if scope == Scope::Project && !o.use_path {
        println!(
            "Note: {} is shared with your team, and this writes a path of this machine into \
             it. --scope local keeps it to you; --use-path writes 'omc-hooks' instead.",
            path.display()
        );
    }
    if scope != Scope::User {
        // Copilot reads a trusted project's .claude/settings.json and settings.local.json (not
        // the user's file): tests/e2e/copilot-FINDINGS.md §8.
        println!(
            "GitHub Copilot CLI runs this file's hooks too; omc-hooks leaves those runs alone \
             (they would answer in Claude Code's format). For Copilot, run 'omc-hooks install \
             --agent copilot'."
        );
    }
    for n in omc_notes.advice {
        println!("{n}");
    }
    if let Some(note) = exe
        .as_deref()
        .ok()
        .filter(|_| !o.use_path)
        .and_then(hook_binary::npx_note)
    {
        println!("{note}");
    }
    for line in gitignore_out {
        println!("{line}");
    }
    for line in gitignore_err {
        eprintln!("{line}");
    }
    if changed {
        println!(
            "Start a new Claude Code session for it to take effect; 'omc-hooks doctor' checks the setup."
        );
    }
    0
}

/// `--statusline`: the `statusLine` setting pointing at `omc-hooks statusline`. `Err` when a
/// status line of the user's is there and `--force` was not given (nothing is written then).
fn statusline(
    file: &mut SettingsFile,
    record: &mut Record,
    program: &str,
    force: bool,
) -> Result<Option<String>, String> {
    let want = json!({
        "type": "command",
        "command": settings::command_for(program, "statusline"),
    });
    let key = super::settings::edit::Seg::Key("statusLine");
    if let Some(have) = file.edit.get(&[key])
        && !settings::our_statusline(&have)
        && !force
    {
        let what = have
            .get("command")
            .and_then(Value::as_str)
            .map_or_else(|| have.to_string(), str::to_string);
        return Err(format!(
            "{} already has a status line ({what}); nothing was changed. Add --force to replace \
             it (uninstall puts it back), or leave --statusline out.",
            file.path.display()
        ));
    }
    match merge::apply_change(&mut file.edit, record, &["statusLine"], want) {
        Ok(true) => Ok(Some("statusLine (runs omc-hooks statusline)".into())),
        Ok(false) => Ok(None),
        Err(e) => Err(format!("{}: {e}; nothing was changed", file.path.display())),
    }
}

/// What [`coexist`] did and what it advises.
#[derive(Default)]
struct OmcNotes {
    done: Vec<String>,
    advice: Vec<String>,
}

/// oh-my-claudecode running beside us: switched off with `--disable-omc`, else pointed out.
fn coexist(
    file: &mut SettingsFile,
    record: &mut Record,
    o: &Opts,
    path: &Path,
    env: &Env,
) -> Result<OmcNotes, String> {
    let mut notes = OmcNotes::default();
    let all = layers(o.project.as_deref(), env, path, &file.value());
    let plugins = omc::enabled_plugins(&all);
    let commands: Vec<String> = all.iter().flat_map(omc::hook_commands).collect();
    let env_skip = file
        .edit
        .get(&[
            super::settings::edit::Seg::Key("env"),
            super::settings::edit::Seg::Key("OMC_SKIP_HOOKS"),
        ])
        .and_then(|v| v.as_str().map(str::to_string));
    let env_only = file
        .edit
        .get(&[
            super::settings::edit::Seg::Key("env"),
            super::settings::edit::Seg::Key(omc::OMC_ONLY_VAR),
        ])
        .and_then(|v| v.as_str().map(str::to_string));
    let omc_off =
        omc::skip_tokens_set(env_skip.as_deref()) && omc::omc_only_set(env_only.as_deref());
    let need_skip = !commands.is_empty() && !omc_off;
    if plugins.is_empty() && !need_skip {
        return Ok(notes);
    }
    if !o.disable_omc {
        let mut what = Vec::new();
        if !plugins.is_empty() {
            what.push(format!("the plugin {}", plugins.join(", ")));
        }
        if need_skip {
            what.push(format!(
                "{} hook command(s) in your settings",
                commands.len()
            ));
        }
        notes.advice.push(format!(
            "oh-my-claudecode is also active here ({}): its keyword detector and Stop loop would \
             run beside ours and fight. Run install again with --disable-omc to switch them off \
             in {} (uninstall switches them back on).",
            what.join(" and "),
            path.display()
        ));
        return Ok(notes);
    }
    let err = |e: super::settings::edit::EditError| format!("{}: {e}", path.display());
    for id in &plugins {
        merge::apply_change(
            &mut file.edit,
            record,
            &["enabledPlugins", id],
            json!(false),
        )
        .map_err(err)?;
        notes.done.push(format!(
            "enabledPlugins.\"{id}\" = false (oh-my-claudecode off here)"
        ));
    }
    if need_skip {
        let value = omc::with_skip_tokens(env_skip.as_deref());
        merge::apply_change(
            &mut file.edit,
            record,
            &["env", "OMC_SKIP_HOOKS"],
            json!(value),
        )
        .map_err(err)?;
        // The same names would skip our keyword detection and Stop loop too: say they are
        // OMC's alone.
        merge::apply_change(
            &mut file.edit,
            record,
            &["env", omc::OMC_ONLY_VAR],
            json!("1"),
        )
        .map_err(err)?;
        notes.done.push(format!(
            "env.OMC_SKIP_HOOKS = \"{value}\" and env.{} = \"1\" (oh-my-claudecode's keyword \
             detector and Stop loop off, ours on)",
            omc::OMC_ONLY_VAR
        ));
    }
    Ok(notes)
}

/// What `--gitignore` does for a project: nothing (not a repository, or git ignores both
/// already), advice (not asked to add), or the lines to add.
enum GitignorePlan {
    Nothing,
    Advice(String),
    Add {
        edit: registry::GitignoreEdit,
        /// The whole file after the edit.
        text: String,
        /// The lines, for people: `.omc/ and .claude/settings.local.json`.
        lines: String,
    },
}

/// Says which of `.omc/` (the state) and, for the local scope, `.claude/settings.local.json`
/// (this machine's file) git does not ignore, and what adding them to `.gitignore` would
/// append (when asked).
fn gitignore_plan(project: &Path, scope: Scope, add: bool) -> GitignorePlan {
    if !project.join(".git").exists() {
        return GitignorePlan::Nothing;
    }
    let mut lines = vec![".omc/"];
    if scope == Scope::Local {
        lines.push(".claude/settings.local.json");
    }
    let missing: Vec<&str> = lines.into_iter().filter(|l| !ignored(project, l)).collect();
    if missing.is_empty() {
        return GitignorePlan::Nothing;
    }
    let file = project.join(".gitignore");
    if !add {
        return GitignorePlan::Advice(format!(
            "Git: {} not ignored in {}. Add {} to .gitignore, or run install with --gitignore \
             to have it done.",
            missing.join(" and "),
            project.display(),
            if missing.len() == 1 {
                "that line"
            } else {
                "those lines"
            }
        ));
    }
    let existed = file.exists();
    let old = std::fs::read_to_string(&file).unwrap_or_default();
    let sep = if old.is_empty() || old.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    let added: String = missing.iter().map(|l| format!("{l}\n")).collect();
    GitignorePlan::Add {
        text: format!("{old}{sep}{added}"),
        edit: registry::GitignoreEdit {
            file,
            appended: format!("{sep}{added}"),
            created_file: !existed,
        },
        lines: missing.join(" and "),
    }
}

/// Carries out `--gitignore` for the install of `settings`: the lines are noted in the
/// registry first and only then appended, so that nothing between the two — a closed stdout
/// (`install | head -1`), a kill — leaves lines uninstall does not know of (a note without its
/// lines only makes uninstall say the file changed). Returns what to print: (stdout, stderr).
fn apply_gitignore(
    env: &Env,
    settings: &Path,
    project: &Path,
    scope: Scope,
    add: bool,
) -> (Vec<String>, Vec<String>) {
    let (edit, text, lines) = match gitignore_plan(project, scope, add) {
        GitignorePlan::Nothing => return (Vec::new(), Vec::new()),
        GitignorePlan::Advice(a) => return (vec![a], Vec::new()),
        GitignorePlan::Add { edit, text, lines } => (edit, text, lines),
    };
    // Kept with this install, so that uninstall gives the file back as it was.
    let note = |undo: bool| {
        registry::update(env, true, |r| {
            if let Some(i) = r.installs.iter_mut().find(|i| i.settings == settings) {
                match (&mut i.gitignore, undo) {
                    (Some(prev), false) if prev.file == edit.file => {
                        prev.appended.push_str(&edit.appended)
                    }
                    (_, false) => i.gitignore = Some(edit.clone()),
                    (Some(prev), true) if prev.appended == edit.appended => i.gitignore = None,
                    (Some(prev), true) => {
                        if let Some(kept) = prev.appended.strip_suffix(edit.appended.as_str()) {
                            prev.appended = kept.to_string();
                        }
                    }
                    (None, true) => {}
                }
            }
        })
    };
    if let Err(e) = note(false) {
        return (
            Vec::new(),
            vec![format!(
                "omc-hooks install: could not note the .gitignore lines in the registry ({e}); \
                 {} left as it is: add {lines} yourself",
                edit.file.display()
            )],
        );
    }
    match std::fs::write(&edit.file, text) {
        Ok(()) => (
            vec![format!("Added {lines} to {}.", edit.file.display())],
            Vec::new(),
        ),
        Err(e) => {
            let _ = note(true);
            (
                Vec::new(),
                vec![format!(
                    "omc-hooks install: cannot write {}: {e}; add {lines} yourself",
                    edit.file.display()
                )],
            )
        }
    }
}

/// Takes back what `install --gitignore` appended: the file as it was, byte for byte, when the
/// appended text is still its end (deleted if install created it and nothing else is in it);
/// left as it is, with a note, when it was changed there since.
fn revert_gitignore(edit: &registry::GitignoreEdit) {
    let Ok(now) = std::fs::read_to_string(&edit.file) else {
        return;
    };
    let Some(before) = now.strip_suffix(edit.appended.as_str()) else {
        println!(
            "Left {} as it is: the lines install added ({}) are no longer its last ones.",
            edit.file.display(),
            edit.appended.trim().replace('\n', ", ")
        );
        return;
    };
    let result = if before.is_empty() && edit.created_file {
        std::fs::remove_file(&edit.file)
    } else {
        std::fs::write(&edit.file, before)
    };
    match result {
        Ok(()) if before.is_empty() && edit.created_file => println!(
            "Deleted {}, which install had created for {}.",
            edit.file.display(),
            edit.appended.trim().replace('\n', " and ")
        ),
        Ok(()) => println!(
            "Removed {} from {}, as install had added {}.",
            edit.appended.trim().replace('\n', " and "),
            edit.file.display(),
            if edit.appended.trim().contains('\n') {
                "them"
            } else {
                "it"
            }
        ),
        Err(e) => eprintln!(
            "omc-hooks uninstall: cannot write {}: {e}; remove {} yourself",
            edit.file.display(),
            edit.appended.trim().replace('\n', " and ")
        ),
    }
}

/// Whether git ignores `rel` in `project`: asked of git when it runs, else read from the
/// project's `.gitignore` (exact lines only).
fn ignored(project: &Path, rel: &str) -> bool {
    let git = std::process::Command::new("git")
        .args(["check-ignore", "-q", "--no-index", rel])
        .current_dir(project)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    match git.ok().and_then(|s| s.code()) {
        Some(0) => true,
        Some(1) => false,
        _ => {
            let bare = rel.trim_end_matches('/');
            std::fs::read_to_string(project.join(".gitignore"))
                .unwrap_or_default()
                .lines()
                .map(str::trim)
                .any(|l| {
                    let l = l.trim_start_matches('/');
                    l == rel || l == bare || l == format!("{bare}/*")
                })
        }
    }
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
    let o = match options("uninstall", UNINSTALL_HELP, args, env) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let scopes = match o.scope {
        Some(s) => vec![s],
        None => vec![Scope::Project, Scope::Local],
    };
    let mut code = 0;
    let mut any = false;
    for scope in scopes {
        let path = match path_of("uninstall", scope, o.project.as_deref(), env) {
            Ok(p) => p,
            Err(c) => return c,
        };
        match uninstall_one(&path, &o, env) {
            Ok(did) => any |= did,
            Err(c) => code = c,
        }
    }
    if code == 0 && !any {
        let hint = if o.scope.is_none() {
            " (looked in the project's settings.json and settings.local.json; --scope user for \
             ~/.claude/settings.json)"
        } else {
            ""
        };
        println!("omc-hooks is not installed there{hint}; nothing changed.");
    }
    code
}

/// Uninstalls from one settings file; `Ok(true)` when something was removed.
fn uninstall_one(path: &Path, o: &Opts, env: &Env) -> Result<bool, i32> {
    let entry = registry::read(env).ok().and_then(|r| r.find(path).cloned());
    let gitignore = entry.as_ref().and_then(|e| e.gitignore.as_ref());
    if !path.exists() {
        if let Some(g) = gitignore {
            revert_gitignore(g);
        }
        if entry.is_some() {
            let _ = registry::update(env, false, |r| r.take(path));
        }
        return Ok(false);
    }
    let mut file = load_or_report("uninstall", path)?;
    let original = file.edit.text().to_string();
    let record = entry.as_ref().map(|e| &e.record);
    let removed = merge::uninstall_hooks(&mut file.edit, record).map_err(|e| {
        fail(
            "uninstall",
            &format!(
                "{}: {e}; nothing was changed. Fix the file and try again.",
                path.display()
            ),
        )
    })?;
    let reverted = match record {
        Some(r) => merge::revert_changes(&mut file.edit, r),
        None => remove_our_statusline(&mut file),
    }
    .map_err(|e| fail("uninstall", &format!("{}: {e}", path.display())))?;
    if let Some(r) = record {
        merge::restore_empty_root(&mut file.edit, r)
            .map_err(|e| fail("uninstall", &format!("{}: {e}", path.display())))?;
    }
    let changed = file.edit.text() != original;
    if changed {
        if o.backup {
            match settings::backup(path) {
                Ok(b) => println!("Backup of the previous file: {}", b.display()),
                Err(e) => {
                    return Err(fail(
                        "uninstall",
                        &format!(
                            "cannot back up {}: {e}; nothing was changed",
                            path.display()
                        ),
                    ));
                }
            }
        }
        let created = entry.as_ref().is_some_and(|e| e.created_file);
        let empty = file.value().as_object().is_some_and(|m| m.is_empty());
        let result = if created && empty {
            std::fs::remove_file(path).map(|()| {
                settings::remove_empty_dirs(&entry.as_ref().expect("created").created_dirs);
            })
        } else {
            settings::save(path, file.edit.text()).map(|_| ())
        };
        if let Err(e) = result {
            return Err(fail(
                "uninstall",
                &format!("cannot write {}: {e}", path.display()),
            ));
        }
        let gone = if created && empty {
            " and deleted the file, which install had created"
        } else {
            ""
        };
        println!(
            "Removed {removed} omc-hooks hooks from {}{gone}.",
            path.display()
        );
        for r in &reverted.restored {
            println!("Restored {r} as it was before install.");
        }
    }
    for k in &reverted.kept {
        println!(
            "Left {k} in {} as it is: it was changed after install.",
            path.display()
        );
    }
    if let Some(g) = gitignore {
        revert_gitignore(g);
    }
    if entry.is_some()
        && let Err(e) = registry::update(env, false, |r| r.take(path))
    {
        eprintln!("omc-hooks uninstall: could not update the registry ({e})");
    }
    let backups = settings::backups_beside(path);
    if !backups.is_empty() {
        println!(
            "Backups beside it (delete them when you no longer need them): {}",
            backups
                .iter()
                .map(|b| b.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(changed)
}

/// Without a record: removes a `statusLine` that runs ours.
fn remove_our_statusline(
    file: &mut SettingsFile,
) -> Result<merge::Reverted, super::settings::edit::EditError> {
    let key = [super::settings::edit::Seg::Key("statusLine")];
    let mut out = merge::Reverted::default();
    if file
        .edit
        .get(&key)
        .is_some_and(|v| settings::our_statusline(&v))
    {
        file.edit.remove(&key)?;
        out.restored.push("/statusLine".into());
    }
    Ok(out)
}
