//! `omc-hooks mode …`: start a persistent mode's run, record its progress — the autopilot or
//! team phase, ultraqa's test result, the pipeline stage — and show the runs.
//!
//! `mode start` is how a mode without a magic keyword (ultraqa, team, pipeline) is started from a
//! shell; the plugin's slash commands start the same runs from inside Claude Code (both go
//! through [`crate::capabilities::persistent_mode::start`]). The Stop texts document the
//! progress commands; reporting the mode's own end (phase `complete`, tests passing, past the
//! last stage) ends the run here and now. Limits shown are the ones the Stop hook enforces.

use crate::capabilities::memory::{session_end, session_start};
use crate::capabilities::persistent_mode::budget as start_budget;
use crate::capabilities::persistent_mode::start;
use crate::config::Config;
use crate::env::Env;
use crate::modes::{self, Progress, REGISTRY};
use crate::protocol::agents::Agent;
use crate::state::files::ModeState;
use crate::state::{Change, Scope, SessionId, StateFile, Store, root};
use crate::terminal::one_line;
use serde_json::Value;

pub const HELP: &str = "\
Usage: omc-hooks mode <command> [--session ID]

Starts a persistent mode's run, records its progress (the Stop continuation texts say when),
or shows runs.

  omc-hooks mode start <mode> <task…>          starts a run of ralph, autopilot, ultrawork,
                                               ultraqa, ralplan, team or pipeline (restarts a
                                               running one); the next Stop continues it; a
                                               budget may head the task: 2h, 90m, 1h30m (time),
                                               --max N (iterations)
  omc-hooks mode show                          the active runs (of one session with --session)
  omc-hooks mode phase autopilot <phase>       expansion, planning, execution, qa, validation,
                                               complete (ends the run)
  omc-hooks mode phase team <phase>            plan, prd, exec, verify, fix; complete, failed
                                               or cancelled end the run
  omc-hooks mode tests ultraqa passing|failing passing ends the run; failing starts the next
                                               QA cycle
  omc-hooks mode stage pipeline <k>/<n>|done   now on stage k of n; done (or k = n+1) ends
                                               the run

The session: --session ID; else the one the agent names in the environment of the
commands the model runs (CLAUDE_CODE_SESSION_ID, CODEX_THREAD_ID, QWEN_CODE_SESSION_ID);
else, for start, the one session open in this project, and for the others the one session
with an active run of that mode. Inside Claude Code, the
plugin's slash commands /omc-hooks:ultraqa, /omc-hooks:team and /omc-hooks:pipeline <task>
start a run in the current session. The project is found as the hooks find it:
CLAUDE_PROJECT_DIR, else the nearest ancestor of the current directory holding .omc/ or .git,
else the current directory. Use -- before a task that starts with '-'.
Exit status: 0 done, 1 nothing to update or the run could not be written (the message says
why), 2 usage error.";

/// Entry point for `omc-hooks mode`.
pub fn run(args: &[String], env: &Env) -> i32 {
    match run_inner(args, env) {
        Ok(msg) => {
            println!("{msg}");
            0
        }
        Err(Failure::Usage(msg)) => {
            eprintln!("omc-hooks mode: {msg}\nRun 'omc-hooks mode --help' for the commands.");
            2
        }
        Err(Failure::Refused(msg)) => {
            eprintln!("omc-hooks mode: {msg}");
            1
        }
    }
}

enum Failure {
    Usage(String),
    Refused(String),
}

fn usage(msg: impl Into<String>) -> Failure {
    Failure::Usage(msg.into())
}

fn refused(msg: impl Into<String>) -> Failure {
    Failure::Refused(msg.into())
}

/// A progress report, validated before any state is touched.
enum Report {
    Phase(String),
    Tests(bool),
    Stage(u32, u32),
    StagesDone,
}

fn run_inner(args: &[String], env: &Env) -> Result<String, Failure> {
    let mut session: Option<String> = None;
    let mut words: Vec<&str> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--" {
            words.extend(it.by_ref().map(String::as_str));
            break;
        }
        if a == "--session" {
            session = Some(
                it.next()
                    .ok_or_else(|| usage("--session needs a session id"))?
                    .clone(),
            );
        } else if let Some(v) = a.strip_prefix("--session=") {
            session = Some(v.to_string());
        } else {
            words.push(a.as_str());
        }
    }
    let session = match session {
        Some(raw) => Some(SessionId::parse(raw.trim()).ok_or_else(|| {
            usage(format!(
                "'{raw}' is not a session id (letters, digits, '_' and '-')"
            ))
        })?),
        None => None,
    };
    let root = root::resolve(env, None).ok_or_else(|| {
        refused("cannot tell which project this is: run it from inside the project")
    })?;
    let store = Store::new(root, env.now_ms());
    let from_client = client_session(&store, env);

    let (verb, rest) = words
        .split_first()
        .ok_or_else(|| usage("which command? start, show, phase, tests or stage"))?;
    let config = Config::read(&store).with_env(env);
    match *verb {
        "show" => {
            if !rest.is_empty() {
                return Err(usage("show takes no arguments"));
            }
            return Ok(show(&store, session.as_ref(), &config, env.now_ms()));
        }
        "start" => return start_run(&store, &config, rest, session.or(from_client), env),
        "phase" | "tests" | "stage" => {}
        other => {
            return Err(usage(format!(
                "unknown command '{other}'; one of start, show, phase, tests, stage"
            )));
        }
    }
    let [mode, value] = rest else {
        return Err(usage(format!("{verb} needs a mode and a value")));
    };
    let spec = modes::persistent(mode)
        .ok_or_else(|| usage(format!("'{mode}' is not a persistent mode")))?;
    let report = parse_report(verb, spec.name, spec.progress, value)?;
    let scope = pick_scope(&store, spec.name, session, from_client)?;
    crate::capabilities::run_events::around(&store, &scope, env, || {
        apply(&store, &scope, spec.name, report, env.now_ms())
    })
}

/// The model's own session, from the variable its client sets for the commands the model runs
/// ([`Agent::session_var`]). When several are set — an agent started from another agent's
/// command inherits the outer one's — the session that started last in this project is the
/// inner one, the agent that runs this command.
fn client_session(store: &Store, env: &Env) -> Option<SessionId> {
    let mut ids: Vec<SessionId> = Vec::new();
    for id in Agent::ALL
        .iter()
        .filter_map(|a| a.session_var())
        .filter_map(|var| env.var(var).and_then(SessionId::parse))
    {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.len() < 2 {
        return ids.pop();
    }
    let outside = crate::state::pending::sessions(env, store.project());
    // `max_by_key` keeps the last of equals; the agents' order decides among unknown starts.
    ids.into_iter()
        .rev()
        .max_by_key(|id| last_start(store, &outside, id))
}

/// When `id` last started in this project: its `session.json`, or its start kept outside a
/// project that had no `.omc/` then (`outside`, from [`crate::state::pending::sessions`]).
fn last_start(store: &Store, outside: &[(SessionId, Value)], id: &SessionId) -> Option<i64> {
    StateFile::new(&Scope::Session(id.clone()), session_start::MARKER)
        .and_then(|f| store.read::<session_start::Marker>(&f))
        .or_else(|| {
            outside
                .iter()
                .find(|(o, _)| o == id)
                .and_then(|(_, v)| serde_json::from_value(v.clone()).ok())
        })
        .and_then(|m| crate::time::parse_iso(&m.last_start_at))
}

/// `mode start <mode> <task…>`.
fn start_run(
    store: &Store,
    config: &Config,
    rest: &[&str],
    session: Option<SessionId>,
    env: &Env,
) -> Result<String, Failure> {
    let Some((mode, task)) = rest.split_first() else {
        return Err(usage(format!(
            "start needs a mode ({}) and a task",
            modes::PERSISTENT.join(", ")
        )));
    };
    let spec = modes::persistent(mode).ok_or_else(|| {
        usage(format!(
            "'{mode}' is not a persistent mode; one of {}",
            modes::PERSISTENT.join(", ")
        ))
    })?;
    // `mode start ralph 2h --max 40 fix …`: the budget words as after a keyword.
    let (task, budget) = start_budget::split_task(&task.join(" "));
    let config = &budget.apply(config, &[spec.name]);
    if task.trim().is_empty() {
        return Err(usage(format!(
            "start {mode} needs a task: what should the run work on?"
        )));
    }
    let id = match session {
        Some(id) => id,
        None => open_session(store, env)?,
    };
    let scope = Scope::Session(id.clone());
    let prompt = crate::capabilities::keywords::stored_prompt(task.trim());
    match start::start(
        store,
        &scope,
        spec.name,
        &prompt,
        env.now_ms(),
        config,
        None,
        None,
    ) {
        Ok(run) => Ok(format!(
            "{}: run started in session {id} (iteration 1/{}{}); the next Stop in that session \
             continues it. Task: {}",
            spec.name,
            run.state.max_iterations,
            match run.state.max_minutes {
                0 => String::new(),
                m => format!(", time budget {}", modes::minutes_text(m)),
            },
            run.state.prompt
        )),
        Err(problem) => Err(refused(format!(
            "{} NOT started: {}.\nfix: {}",
            spec.name,
            problem.cause(),
            problem.fix()
        ))),
    }
}

/// The one Claude Code session that is open in this project: started (`session.json`, or its
/// start kept outside a project that had no `.omc/` then) and not ended since (no summary
/// written after its last start).
fn open_session(store: &Store, env: &Env) -> Result<SessionId, Failure> {
    let outside = crate::state::pending::sessions(env, store.project());
    let mut ids = store.sessions();
    ids.extend(outside.iter().map(|(id, _)| id.clone()));
    ids.sort();
    ids.dedup();
    let mut open: Vec<SessionId> = ids
        .into_iter()
        .filter(|id| {
            let started = last_start(store, &outside, id);
            let ended = StateFile::nested(&Scope::Omc, session_end::DIR, &format!("{id}.json"))
                .and_then(|f| store.read::<session_end::Summary>(&f))
                .and_then(|s| crate::time::parse_iso(&s.ended_at));
            matches!((started, ended), (Some(s), e) if e.is_none_or(|e| e < s))
        })
        .collect();
    match open.len() {
        1 => Ok(open.remove(0)),
        0 => Err(refused(format!(
            "no open session found in {}; pass --session ID, or type \
             /omc-hooks:<mode> <task> inside the session",
            store.project().display()
        ))),
        _ => Err(usage(format!(
            "several sessions are open in this project ({}); pass --session ID",
            open.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn parse_report(
    verb: &str,
    mode: &str,
    progress: Progress,
    value: &str,
) -> Result<Report, Failure> {
    let wrong = |what: &str| {
        let which: Vec<&str> = REGISTRY
            .iter()
            .filter(|m| {
                matches!(
                    (what, m.progress),
                    ("phase", Progress::Phases { .. })
                        | ("tests", Progress::Tests)
                        | ("stage", Progress::Stages)
                )
            })
            .map(|m| m.name)
            .collect();
        usage(format!(
            "{mode} does not report a {what}; {what} is for {}",
            which.join(", ")
        ))
    };
    match verb {
        "phase" => {
            let Progress::Phases { phases, .. } = progress else {
                return Err(wrong("phase"));
            };
            let phase = modes::normalize_phase(mode, value);
            if !phases.contains(&phase.as_str()) {
                return Err(usage(format!(
                    "'{value}' is not one of {mode}'s phases: {}",
                    phases.join(", ")
                )));
            }
            Ok(Report::Phase(phase))
        }
        "tests" => {
            if progress != Progress::Tests {
                return Err(wrong("tests"));
            }
            match value.trim_start_matches('-') {
                "passing" | "pass" | "passed" => Ok(Report::Tests(true)),
                "failing" | "fail" | "failed" => Ok(Report::Tests(false)),
                _ => Err(usage(format!("'{value}': say passing or failing"))),
            }
        }
        "stage" => {
            if progress != Progress::Stages {
                return Err(wrong("stage"));
            }
            if value == "done" {
                return Ok(Report::StagesDone);
            }
            let parsed = value.split_once('/').and_then(|(k, n)| {
                Some((k.trim().parse::<u32>().ok()?, n.trim().parse::<u32>().ok()?))
            });
            match parsed {
                Some((k, n)) if n > 0 && (1..=n + 1).contains(&k) => Ok(Report::Stage(k, n)),
                _ => Err(usage(format!(
                    "'{value}': give the stage as k/n (stage k of n, 1 ≤ k ≤ n), or done"
                ))),
            }
        }
        other => Err(usage(format!(
            "unknown command '{other}'; one of start, show, phase, tests, stage"
        ))),
    }
}

fn mode_file(scope: &Scope, mode: &str) -> Option<StateFile> {
    StateFile::new(scope, &modes::state_file_name(mode))
}

fn is_live(s: &ModeState) -> bool {
    s.active && s.suspended_at.is_none()
}

/// `--session`; else the client's session when it has an active run of `mode`; else the single
/// scope of this project with an active run of `mode`.
fn pick_scope(
    store: &Store,
    mode: &str,
    session: Option<SessionId>,
    from_client: Option<SessionId>,
) -> Result<Scope, Failure> {
    if let Some(id) = session {
        return Ok(Scope::Session(id));
    }
    if let Some(id) = from_client {
        let scope = Scope::Session(id);
        let live = mode_file(&scope, mode)
            .and_then(|f| store.read::<ModeState>(&f))
            .is_some_and(|s| is_live(&s));
        if live {
            return Ok(scope);
        }
    }
    let mut found: Vec<Scope> = store
        .sessions()
        .into_iter()
        .map(Scope::Session)
        .chain([Scope::Global])
        .filter(|scope| {
            mode_file(scope, mode)
                .and_then(|f| store.read::<ModeState>(&f))
                .is_some_and(|s| is_live(&s))
        })
        .collect();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => {
            let how = if modes::KEYWORD_CHAIN.contains(&mode) {
                format!(
                    "a prompt such as '{mode} <task>', or with 'omc-hooks mode start {mode} <task>'"
                )
            } else {
                format!(
                    "'/omc-hooks:{mode} <task>' in Claude Code, or with 'omc-hooks mode start {mode} <task>'"
                )
            };
            Err(refused(format!(
                "no active {mode} run in {}. Start one with {how}.",
                store.project().display()
            )))
        }
        _ => {
            let ids: Vec<String> = found
                .iter()
                .map(|s| {
                    s.session_id()
                        .map_or("(no session)".into(), |i| i.to_string())
                })
                .collect();
            Err(usage(format!(
                "several sessions have an active {mode} run ({}); pass --session ID",
                ids.join(", ")
            )))
        }
    }
}

fn apply(
    store: &Store,
    scope: &Scope,
    mode: &str,
    report: Report,
    now_ms: i64,
) -> Result<String, Failure> {
    let file = mode_file(scope, mode).ok_or_else(|| refused("bad state file name"))?;
    let now_iso = crate::time::iso(now_ms);
    let where_ = scope
        .session_id()
        .map_or("no session".to_string(), |i| format!("session {i}"));
    let outcome = store.update(&file, |s: Option<ModeState>| {
        let Some(mut s) = s.filter(is_live) else {
            return (
                Change::Keep,
                Err(format!("no active {mode} run in {where_}")),
            );
        };
        s.mode = mode.to_string();
        let said = match report {
            Report::Phase(ref p) => {
                s.phase = Some(p.clone());
                s.extra.remove("current_phase");
                format!("phase {p}")
            }
            Report::Tests(true) => {
                s.extra.insert("all_passing".into(), Value::Bool(true));
                "tests passing".to_string()
            }
            Report::Tests(false) => {
                let (cycle, max_cycles) = modes::cycles_of(&s);
                s.extra.insert("all_passing".into(), Value::Bool(false));
                s.extra.insert("cycle".into(), (cycle + 1).into());
                s.extra.insert("max_cycles".into(), max_cycles.into());
                format!("tests failing; cycle {}/{max_cycles} next", cycle + 1)
            }
            Report::Stage(k, n) => {
                s.extra.insert("stage".into(), k.into());
                s.extra.insert("stage_count".into(), n.into());
                format!("stage {k}/{n}")
            }
            Report::StagesDone => {
                let n = modes::stages_of(&s).map_or(1, |(_, n)| n.max(1));
                s.extra.insert("stage".into(), (n + 1).into());
                s.extra.insert("stage_count".into(), n.into());
                "all stages done".to_string()
            }
        };
        s.last_checked_at = Some(now_iso.clone());
        let msg = match modes::finished(&s) {
            Some(why) => {
                s.end(why, &now_iso);
                format!("{mode}: {said} — run finished ({where_})")
            }
            None => format!("{mode}: {said} ({where_})"),
        };
        (Change::Write(s), Ok(msg))
    });
    match outcome {
        Ok(Ok(msg)) => Ok(msg),
        Ok(Err(msg)) => Err(refused(msg)),
        Err(e) => Err(refused(format!(
            "cannot update {}: {e}",
            store.path(&file).display()
        ))),
    }
}

/// One line per active run: where, mode, iteration/limit (the limit the Stop hook enforces),
/// progress, whether it waits for the user, task.
fn show(store: &Store, session: Option<&SessionId>, config: &Config, now: i64) -> String {
    let scopes: Vec<Scope> = match session {
        Some(id) => vec![Scope::Session(id.clone())],
        None => store
            .sessions()
            .into_iter()
            .map(Scope::Session)
            .chain([Scope::Global])
            .collect(),
    };
    let mut lines = Vec::new();
    for scope in &scopes {
        for spec in &REGISTRY {
            let Some(mut s) = mode_file(scope, spec.name).and_then(|f| store.read::<ModeState>(&f))
            else {
                continue;
            };
            if !is_live(&s) {
                continue;
            }
            s.mode = spec.name.to_string();
            let mut line = format!(
                "{}  {}  iteration {}/{}{}",
                scope
                    .session_id()
                    .map_or("(no session)".into(), |i| i.to_string()),
                spec.name,
                s.iteration,
                modes::effective_max(&s, config),
                modes::budget_suffix(&s, now)
            );
            match spec.progress {
                Progress::Phases { .. } => {
                    line += &format!(
                        "  phase {}",
                        modes::phase_of(&s).map_or("-".into(), |p| one_line(&p, 40))
                    )
                }
                Progress::Tests => {
                    let (c, m) = modes::cycles_of(&s);
                    line += &format!("  cycle {c}/{m}");
                }
                Progress::Stages => {
                    if let Some((k, n)) = modes::stages_of(&s) {
                        line += &format!("  stage {k}/{n}");
                    }
                }
                Progress::TokenOnly => {}
            }
            if s.awaiting_input_at.is_some() {
                line += "  waiting for your answer";
            } else if let Some(why) = &s.paused_reason {
                line += &format!("  paused: {why}");
            }
            // The task as the file holds it, which an older version or OMC may have written
            // with a secret or an escape sequence in it.
            line += &format!("  {}", one_line(&s.prompt, 60));
            lines.push(line);
        }
    }
    if lines.is_empty() {
        format!("no active runs in {}", store.project().display())
    } else {
        lines.join("\n")
    }
}
