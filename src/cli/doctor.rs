//! `omc-hooks doctor`: checks the installation and the project's state, and says how to fix
//! each problem. Exit 0 when healthy, 1 when a problem was found. Read-only.

use super::args::{parse, usage_error};
use super::report::Report;
use super::runs;
use super::settings;
use crate::env::Env;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

pub(super) const HELP: &str = "\
Usage: omc-hooks doctor [--agents]

  --agents   print what works in each agent (keywords, continuation, tool failures, skill
             guards, compaction memory, user hooks, export; why not where not) and which
             event of each agent runs which hook subcommand, and exit

Checks, and says how to fix:
  * this binary's version, and the plugin checkout it sits in (hooks.json, plugin.json);
  * where the hooks are installed — <project>/.claude/settings.json, settings.local.json,
    ~/.claude/settings.json — and whether their commands reach an existing executable; the
    same for the other agents' files install --agent writes (.codex/hooks.json,
    .gemini/settings.json, .qwen/settings.json, .cursor/hooks.json, and their user-level
    ones), with the switches that turn a client's hooks off;
  * the project's state directory: whether the hooks can write it (read-only filesystem,
    permissions, a refused symlink, a full disk), corrupt files moved aside (*.corrupt-*),
    temporary files left by an interrupted write (.tmp-*), unreadable state files, stale
    active runs;
  * .omc/config.json against its schema: each invalid value or unknown key, with its fix;
  * export: the OMC_EXPORT_* switches, each sink's spool (pending, dropped, refused events,
    the last delivery error) and whether a flusher runs;
  * the Claude Code version, if `claude` is on PATH;
  * user hooks: your hooks.toml and the project's .omc/hooks.toml — whether the project's is
    trusted, every mistake with its line (a mistake disables only its entry), literal secrets
    in the project's file;
  * with OMC_TRACE_FILE set: hooks whose payloads look like another agent's than the one
    they were installed for (--agent).
Exit status 0 when healthy, 1 when a problem was found. Changes nothing (to test that the
state directory is writable it writes one small probe file and removes it at once).";

/// How long `claude --version` may take.
const CLAUDE_TIMEOUT: Duration = Duration::from_secs(5);

/// A temporary file younger than this may belong to a write in progress.
const TMP_GRACE: Duration = Duration::from_secs(60);

pub(super) fn run(args: &[String], env: &Env) -> i32 {
    let parsed = match parse(args, &["agents"], &[], false) {
        Ok(p) => p,
        Err(e) => return usage_error("doctor", HELP, &e),
    };
    if parsed.flag("agents") {
        print!("{}", crate::protocol::agents::render_tables());
        return 0;
    }
    let mut r = Report::default();
    let exe = std::env::current_exe()
        .and_then(|p| crate::platform::canonicalize(&p))
        .ok();
    r.line(
        "binary",
        format!(
            "omc-hooks {} ({})",
            env!("CARGO_PKG_VERSION"),
            exe.as_deref()
                .map_or("location unknown".into(), |p| p.display().to_string())
        ),
    );
    r.line(
        "manifest",
        format!(
            "hooks.json built in: {} hook subcommands",
            crate::hooks::HOOKS.len()
        ),
    );
    check_plugin(&mut r, exe.as_deref());
    let root = crate::state::root::resolve(env, None);
    let mut installs: Vec<(PathBuf, BTreeSet<String>)> = Vec::new();
    if let Some(root) = &root {
        let dir = root.project.join(".claude");
        check_settings(
            &mut r,
            env,
            "project",
            &dir.join("settings.json"),
            "",
            &mut installs,
        );
        check_settings(
            &mut r,
            env,
            "local",
            &dir.join("settings.local.json"),
            "",
            &mut installs,
        );
    }
    match settings::user_settings(env) {
        Some(p) => check_settings(&mut r, env, "user", &p, " --user", &mut installs),
        None => r.line(
            "user",
            "no HOME or CLAUDE_CONFIG_DIR set; user settings not checked",
        ),
    }
    super::agent_install::check::check(&mut r, env, root.as_ref().map(|r| r.project.as_path()));
    let programs: BTreeSet<&String> = installs.iter().flat_map(|(_, p)| p).collect();
    if programs.len() > 1 {
        r.problem(
            format!(
                "the settings files run different omc-hooks binaries ({}), so every hook runs more than once",
                programs
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "keep one: 'omc-hooks uninstall' (or 'uninstall --user') where you do not want it",
        );
    }
    if installs.is_empty() {
        r.notes.push(
            "no settings file installs the hooks: that is fine if you load the checkout with \
             'claude --plugin-dir'; otherwise run 'omc-hooks install' (or 'install --user')"
                .into(),
        );
    } else {
        r.notes.push(
            "installed through settings: do not also load the checkout with --plugin-dir, or \
             each hook runs twice"
                .into(),
        );
    }
    match &root {
        Some(root) => {
            check_state(&mut r, env, root);
            check_config(&mut r, env, root);
        }
        None => r.line("state", "cannot tell which project this is (no usable cwd)"),
    }
    let layers: Vec<serde_json::Value> = [
        settings::user_settings(env),
        root.as_ref()
            .map(|r| r.project.join(".claude/settings.json")),
        root.as_ref()
            .map(|r| r.project.join(".claude/settings.local.json")),
    ]
    .into_iter()
    .flatten()
    .filter_map(|p| settings::load(&p).ok().map(|f| f.value()))
    .collect();
    let omc = super::omc::doctor(root.as_ref().map(|r| r.omc.as_path()), &layers);
    if let Some(line) = omc.line {
        r.line("omc", line);
    }
    r.notes.extend(omc.notes);
    r.problems.extend(omc.problems);
    check_user_hooks(&mut r, env, root.as_ref());
    check_learned_skills(&mut r, env, root.as_ref());
    if let Some(root) = &root {
        // Temporary files of writers killed mid-write: removed when old enough that no live
        // writer holds them, and said.
        let removed = crate::state::Store::new(root.clone(), env.now_ms()).prune_temporaries();
        if !removed.is_empty() {
            r.notes.push(format!(
                "removed {} temporary file(s) left by writers that were killed mid-write: {}",
                removed.len(),
                removed.join(", ")
            ));
        }
        let f = crate::export::report::doctor(
            &crate::state::Store::new(root.clone(), env.now_ms()),
            env,
        );
        r.line("export", f.line);
        r.problems.extend(f.problems);
        r.notes.extend(f.notes);
    }
    check_claude(&mut r, env);
    if let Some(trace) = &env.trace_file {
        super::agent_trace::check(&mut r, trace);
    }
    if env.disabled {
        r.notes
            .push("DISABLE_OMC is set in this shell: every hook started from it is a no-op".into());
    }
    if !env.skip_hooks.is_empty() {
        let mut skipped: Vec<String> = crate::hooks::HOOKS
            .iter()
            .filter(|h| crate::hooks::skipped_by(&env.skip_hooks, **h))
            .map(|h| h.name.to_string())
            .collect();
        for h in crate::hooks::HOOKS {
            if !crate::hooks::skipped_by(&env.skip_hooks, h)
                && crate::hooks::omc_skips_hook_work(&env.skip_hooks, h, env.skip_omc_only)
            {
                skipped.push(format!(
                    "our work in {} (your own hooks.toml entries for it still run)",
                    h.name
                ));
            }
        }
        for c in crate::hooks::skipped_capabilities(&env.skip_hooks, env.skip_omc_only) {
            let c = format!("the {c} capability");
            if !skipped.contains(&c) {
                skipped.push(c);
            }
        }
        r.notes.push(format!(
            "OMC_SKIP_HOOKS='{}' skips: {}",
            env.skip_hooks.join(","),
            if skipped.is_empty() {
                "none of our hooks".to_string()
            } else {
                skipped.join(", ")
            }
        ));
    }
    for p in crate::capabilities::config_notice::switch_problems(env) {
        r.problem(
            p,
            "write DISABLE_OMC=1 (or 0), and hook names as 'omc-hooks help' lists them \
             (or their events) in OMC_SKIP_HOOKS, separated by commas",
        );
    }
    // The report quotes paths, file contents and other programs' output: no escape sequence
    // of theirs reaches the terminal.
    print!("{}", crate::terminal::strip(&r.render()));
    i32::from(!r.problems.is_empty())
}

/// The plugin checkout this binary is built in, if any: the nearest ancestor holding both
/// `hooks.json` and `.claude-plugin/plugin.json`.
fn check_plugin(r: &mut Report, exe: Option<&Path>) {
    let Some(checkout) = exe.and_then(|e| {
        e.ancestors().skip(1).find(|a| {
            a.join("hooks.json").is_file() && a.join(".claude-plugin/plugin.json").is_file()
        })
    }) else {
        r.line("plugin", "this binary is not inside a plugin checkout");
        return;
    };
    let mut facts = Vec::new();
    match std::fs::read_to_string(checkout.join("hooks.json")) {
        Ok(t) if t == crate::hooks::MANIFEST => facts.push("hooks.json matches this build".into()),
        Ok(_) => {
            facts.push("hooks.json differs from this build".into());
            r.problem(
                format!(
                    "{}/hooks.json has changed since this binary was built",
                    checkout.display()
                ),
                "rebuild: cargo build --release",
            );
        }
        Err(e) => facts.push(format!("hooks.json unreadable: {e}")),
    }
    let plugin_version = std::fs::read(checkout.join(".claude-plugin/plugin.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| {
            v.get("version")
                .and_then(|x| x.as_str())
                .map(str::to_string)
        });
    match plugin_version {
        Some(v) if v == env!("CARGO_PKG_VERSION") => facts.push(format!("plugin.json {v}")),
        Some(v) => {
            facts.push(format!("plugin.json {v}"));
            r.problem(
                format!(
                    "plugin.json says version {v} but this binary is {}",
                    env!("CARGO_PKG_VERSION")
                ),
                "rebuild from this checkout: cargo build --release",
            );
        }
        None => facts.push("plugin.json has no version".into()),
    }
    let release = checkout.join("target/release/omc-hooks");
    if !is_executable(&release) {
        r.notes.push(format!(
            "{} does not exist yet: with 'claude --plugin-dir {}' the hooks run omc-hooks from \
             PATH or ~/.cargo/bin instead ('cargo build --release' builds this checkout's)",
            release.display(),
            checkout.display()
        ));
    }
    r.line(
        "plugin",
        format!("checkout {} ({})", checkout.display(), facts.join("; ")),
    );
}

fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| crate::platform::is_executable(&m))
}

/// Resolves a command's program as `sh` would find it (PATH for a bare name).
fn resolve_program(program: &str, env: &Env) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    find_on_path(program, env)
}

fn find_on_path(name: &str, env: &Env) -> Option<PathBuf> {
    env.var("PATH")?
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join(name))
        .find(|p| is_executable(p))
}

fn check_settings(
    r: &mut Report,
    env: &Env,
    key: &str,
    path: &Path,
    flag: &str,
    installs: &mut Vec<(PathBuf, BTreeSet<String>)>,
) {
    if !path.exists() {
        r.line(key, format!("{}: no such file", path.display()));
        return;
    }
    let file = match settings::load(path) {
        Ok(f) => f,
        Err(e) => {
            r.line(key, format!("{}: {e}", path.display()));
            r.problem(
                format!("{} is {e}, so Claude Code cannot use it", path.display()),
                "repair the JSON (an earlier settings.json.bak-* beside it may help)",
            );
            return;
        }
    };
    let ours = settings::find_ours(&file.value());
    if ours.is_empty() {
        r.line(key, format!("{}: omc-hooks not installed", path.display()));
        return;
    }
    let subs: BTreeSet<&str> = ours.iter().map(|f| f.sub).collect();
    let programs: BTreeSet<String> = ours.iter().map(|f| f.program.clone()).collect();
    let mut status = Vec::new();
    for program in &programs {
        if program.contains("${") || program.contains("$(") {
            status.push(format!("{program} (contains variables; not checked)"));
            continue;
        }
        match resolve_program(program, env) {
            Some(p) if is_executable(&p) && super::hook_binary::is_script(&p) => {
                status.push(format!("{program} (a script)"));
                r.problem(
                    format!(
                        "the hooks in {} run {program}, a script that every hook starts before \
                         omc-hooks (npm's launcher starts Node.js: tens of milliseconds each)",
                        path.display()
                    ),
                    format!(
                        "run 'omc-hooks install{flag}' without --use-path: the entries then name \
                         the omc-hooks binary itself"
                    ),
                );
            }
            Some(p) if is_executable(&p) => {
                status.push(format!("{program} (ok)"));
                let this = std::env::current_exe()
                    .and_then(|e| crate::platform::canonicalize(&e))
                    .ok();
                if crate::platform::canonicalize(&p).ok() != this {
                    r.notes.push(format!(
                        "{} runs {program}, not this binary; 'omc-hooks doctor' from that \
                         binary checks its version",
                        path.display()
                    ));
                }
            }
            _ => {
                status.push(format!("{program} (MISSING)"));
                r.problem(
                    format!(
                        "the hooks in {} run {program}, which is not an existing executable, so \
                         none of them runs",
                        path.display()
                    ),
                    format!(
                        "run 'omc-hooks install{flag}' with the binary you want to use, or \
                         'omc-hooks uninstall{flag}' to remove the entries"
                    ),
                );
            }
        }
    }
    let missing: Vec<&str> = crate::hooks::HOOKS
        .iter()
        .map(|h| h.name)
        .filter(|n| !subs.contains(n))
        .collect();
    if !missing.is_empty() {
        r.problem(
            format!(
                "{} lacks the hooks {} (an older or partial install)",
                path.display(),
                missing.join(", ")
            ),
            format!("run 'omc-hooks install{flag}' again"),
        );
    }
    r.line(
        key,
        format!(
            "{}: installed, {} of {} hooks, running {}",
            path.display(),
            subs.len(),
            crate::hooks::HOOKS.len(),
            status.join(", ")
        ),
    );
    installs.push((path.to_path_buf(), programs));
}

/// Files in the state directory that need a person: moved-aside corrupt files and temporary
/// files an interrupted write left behind. Symlinks are not followed.
fn walk(dir: &Path, depth: usize, corrupt: &mut Vec<PathBuf>, temps: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(ft) = e.file_type() else { continue };
        let name = e.file_name().to_string_lossy().into_owned();
        if ft.is_dir() && depth < 6 {
            walk(&e.path(), depth + 1, corrupt, temps);
        } else if ft.is_file() {
            if name.contains(".corrupt-") {
                corrupt.push(e.path());
            } else if name.starts_with(".tmp-") {
                let old = e
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| SystemTime::now().duration_since(t).ok())
                    .is_some_and(|age| age > TMP_GRACE);
                if old {
                    temps.push(e.path());
                }
            }
        }
    }
}

fn list_some(paths: &[PathBuf]) -> String {
    let mut s: Vec<String> = paths
        .iter()
        .take(5)
        .map(|p| p.display().to_string())
        .collect();
    if paths.len() > 5 {
        s.push(format!("and {} more", paths.len() - 5));
    }
    s.join(", ")
}

fn check_state(r: &mut Report, env: &Env, root: &crate::state::Root) {
    let writable = crate::state::health::probe(root);
    if let Err(p) = &writable {
        r.problem(
            format!(
                "the hooks cannot write state, because {}: modes do not start and checkpoints \
                 are not saved",
                p.cause()
            ),
            p.fix(),
        );
    }
    if !root.omc.exists() {
        r.line(
            "state",
            format!(
                "{}: none yet (created by the first hook){}",
                root.omc.display(),
                if writable.is_ok() {
                    ""
                } else {
                    "; NOT WRITABLE"
                }
            ),
        );
        return;
    }
    if std::fs::symlink_metadata(&root.omc).is_ok_and(|m| m.file_type().is_symlink()) {
        r.line(
            "state",
            format!("{}: a symlink (refused)", root.omc.display()),
        );
        return;
    }
    let store = crate::state::Store::new(root.clone(), env.now_ms());
    let now = env.now_ms();
    let views = runs::scan(&store);
    let sessions = views.iter().filter(|v| v.id().is_some()).count();
    let mut active = 0;
    for v in &views {
        for run in &v.active {
            active += 1;
            if run.is_stale(now) {
                let how = match v.id() {
                    Some(id) => format!("omc-hooks cancel --session {id}"),
                    None => "omc-hooks cancel --all".into(),
                };
                r.problem(
                    format!(
                        "{} has a stale {} run (no activity for over 2 h); Stop ignores it but it \
                         is still marked active",
                        v.label(),
                        run.mode
                    ),
                    format!("end it: {how}"),
                );
            }
        }
        for name in &v.unreadable {
            r.problem(
                format!("{}: {name} is not a valid state file", v.label()),
                "the next hook moves it aside and treats it as absent; delete it if you do not need it",
            );
        }
    }
    let (mut corrupt, mut temps) = (Vec::new(), Vec::new());
    walk(&root.omc, 0, &mut corrupt, &mut temps);
    corrupt.sort();
    temps.sort();
    if !corrupt.is_empty() {
        r.problem(
            format!(
                "{} corrupt state file(s) were moved aside: {}",
                corrupt.len(),
                list_some(&corrupt)
            ),
            "read them if you want to know what went wrong, then delete them (the hooks already \
             treat them as absent)",
        );
    }
    if !temps.is_empty() {
        r.problem(
            format!(
                "{} temporary file(s) left by an interrupted write: {}",
                temps.len(),
                list_some(&temps)
            ),
            "delete them; they are never read",
        );
    }
    r.line(
        "state",
        format!(
            "{}: {sessions} session(s), {active} active run(s), {} corrupt file(s), {}",
            root.omc.display(),
            corrupt.len(),
            if writable.is_ok() {
                "writable"
            } else {
                "NOT WRITABLE"
            }
        ),
    );
}

/// `.omc/config.json` against its schema: the file, each key and its problem, and the fix.
fn check_config(r: &mut Report, env: &Env, root: &crate::state::Root) {
    let store = crate::state::Store::new(root.clone(), env.now_ms());
    let config = crate::config::Config::read(&store);
    check_verify(r, env, &config);
    let Some(path) = config.path() else {
        r.line("config", "no .omc/config.json (defaults apply)");
        return;
    };
    let problems = config.problems();
    if problems.is_empty() {
        r.line("config", format!("{}: valid", path.display()));
        return;
    }
    r.line(
        "config",
        format!(
            "{}: {} problem(s); the hooks use the rest",
            path.display(),
            problems.len()
        ),
    );
    for p in problems {
        r.problem(
            format!("{}: {}", path.display(), p.summary()),
            p.fix.clone(),
        );
    }
}

/// Verify commands (contract §6, §17): the project's with whether the person trusted them
/// (untrusted ones are a problem, listed command by command), the person's own, and the
/// problems of the person's `config.json`.
fn check_verify(r: &mut Report, env: &Env, config: &crate::config::Config) {
    use crate::capabilities::verify_trust::{self as vt, Standing};
    let shown = |lists: &[(String, Vec<String>)]| -> String {
        lists
            .iter()
            .flat_map(|(k, cmds)| cmds.iter().map(move |c| format!("{k}: {c}")))
            .map(|c| crate::redact::text(&c).map_or(c, |(t, _)| t))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let project = vt::lists(config);
    if let Some(path) = config.path()
        && !project.is_empty()
    {
        match vt::standing(env, path, &project) {
            Standing::Trusted => r.line(
                "verify",
                format!("{}: trusted, used — {}", path.display(), shown(&project)),
            ),
            st => r.problem(
                format!(
                    "{}: verify commands {}, not used (a completion claim ends a run not \
                     verified) — {}",
                    path.display(),
                    if st == Standing::Changed {
                        "changed since you trusted them"
                    } else {
                        "not trusted"
                    },
                    shown(&project)
                ),
                "read them, then run 'omc-hooks trust' in the project (or put your own in your \
                 omc-hooks config.json)",
            ),
        }
    }
    let Some(user_path) = vt::user_path(env) else {
        return;
    };
    if !user_path.exists() {
        return;
    }
    let user = vt::user_config(env);
    let mine = vt::lists(&user);
    r.line(
        "verify",
        if mine.is_empty() {
            format!("{}: no verify commands", user_path.display())
        } else {
            format!("{}: yours, used — {}", user_path.display(), shown(&mine))
        },
    );
    for p in user.problems() {
        r.problem(
            format!("{}: {}", user_path.display(), p.summary()),
            p.fix.clone(),
        );
    }
}

/// User hooks (`hooks.toml`): files, trust, every mistake with its line, literal secrets.
fn check_user_hooks(r: &mut Report, env: &Env, root: Option<&crate::state::Root>) {
    let store = root.map(|root| crate::state::Store::new(root.clone(), env.now_ms()));
    let found = crate::user_hooks::report::doctor(env, store.as_ref());
    r.lines.extend(found.lines);
    r.problems.extend(found.problems);
    r.notes.extend(found.notes);
    // AtomCode's own files are not read by the hooks: the person is offered their import.
    for (file, imported) in super::import_atomcode::for_doctor(env) {
        r.note(if imported {
            format!(
                "AtomCode hooks file {}: imported into your hooks.toml",
                file.display()
            )
        } else {
            format!(
                "AtomCode hooks file {}: not read by these hooks; `omc-hooks import-atomcode` \
                 converts it into your hooks.toml (--write appends)",
                file.display()
            )
        });
    }
}

/// Learned skills (`.omc/skills/`, the user's skills folder): each with its triggers, and the
/// files left out with why.
fn check_learned_skills(r: &mut Report, env: &Env, root: Option<&crate::state::Root>) {
    let store = root.map(|root| crate::state::Store::new(root.clone(), env.now_ms()));
    let (skills, skipped) = crate::capabilities::learned_skills::load(store.as_ref(), env);
    if skills.is_empty() && skipped.is_empty() {
        r.line(
            "skills",
            "no learned skills (.omc/skills/*.md, skills/ beside your hooks.toml, \
             ~/.omc/skills/ or ~/.claude/skills/omc-learned/)",
        );
        return;
    }
    r.line("skills", format!("{} learned skill(s)", skills.len()));
    for s in &skills {
        r.note(format!(
            "skill {} ({}, {}): triggers {}{}",
            crate::terminal::shown(&s.name),
            s.source,
            s.path.display(),
            s.triggers
                .iter()
                .map(|t| format!("\"{}\"", crate::terminal::shown(t)))
                .collect::<Vec<_>>()
                .join(", "),
            if s.fuzzy { " (fuzzy)" } else { "" }
        ));
    }
    for (path, why) in &skipped {
        r.note(format!("skill file {} left out: {why}", path.display()));
    }
}

fn check_claude(r: &mut Report, env: &Env) {
    let Some(claude) = find_on_path("claude", env) else {
        r.line(
            "claude",
            "not found on PATH (Claude Code's version not checked)",
        );
        return;
    };
    let child = Command::new(&claude)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            r.line(
                "claude",
                format!("{}: cannot run it: {e}", claude.display()),
            );
            return;
        }
    };
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < CLAUDE_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                r.line(
                    "claude",
                    format!(
                        "{}: '--version' did not answer within {} s",
                        claude.display(),
                        CLAUDE_TIMEOUT.as_secs()
                    ),
                );
                return;
            }
        }
    }
    let out = child
        .wait_with_output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let first = out.lines().next().unwrap_or("").to_string();
    r.line(
        "claude",
        if first.is_empty() {
            format!("{} (no version printed)", claude.display())
        } else {
            format!("{first} ({})", claude.display())
        },
    );
}
