//! `omc-hooks demo`: replays an embedded, scripted session through the real hook
//! subcommands in a temporary project, printing each event, the answer and the state change
//! (a diff of the files under `.omc/`).
//!
//! Every step runs this very binary as a separate process with the payload on stdin, exactly as
//! Claude Code would, with the clock pinned (`OMC_NOW_MS`) so the output is the same each time.

use crate::env::Env;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SCRIPT: &str = include_str!("../../templates/demo/script.json");

pub const HELP: &str = "Usage: omc-hooks demo [--keep]\n\n\
Replays a scripted session through the real hook subcommands in a temporary project:\n\
a keyword activates ralph, Stops are continued, a tool fails five times, the context is\n\
compacted and restored, and the run completes. Each step prints the event, the answer and\n\
the change to the state files.\n\n\
  --keep    keep the temporary project and print its path";

/// Lines of an answer or a new file shown before eliding the rest.
const SHOW_LINES: usize = 8;

pub fn run(args: &[String], env: &Env) -> i32 {
    let mut keep = false;
    for a in args {
        match a.as_str() {
            "--keep" => keep = true,
            other => {
                eprintln!("omc-hooks demo: unknown argument '{other}'.\n\n{HELP}");
                return 2;
            }
        }
    }
    match replay(keep, env, &mut std::io::stdout().lock()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("omc-hooks demo: {e}");
            1
        }
    }
}

/// Runs the script, writing the narration to `out`.
pub fn replay(keep: bool, env: &Env, out: &mut dyn Write) -> Result<(), String> {
    let script: Value = serde_json::from_str(SCRIPT).map_err(|e| format!("bad script: {e}"))?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let dir = tempfile::Builder::new()
        .prefix("omc-demo-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary project: {e}"))?;
    let project = dir.path().to_path_buf();
    std::fs::create_dir(project.join(".git")).map_err(|e| e.to_string())?;
    let sid = script["session_id"].as_str().unwrap_or("demo-session-0001");
    let start = script["start_ms"].as_i64().unwrap_or(0);
    let w = |out: &mut dyn Write, s: String| writeln!(out, "{s}").map_err(|e| e.to_string());

    w(
        out,
        format!(
            "omc-hooks demo — a scripted session replayed through the real hook subcommands\n\
             project: {} ({})\n",
            project.display(),
            if keep { "kept" } else { "removed afterwards" }
        ),
    )?;
    let steps = script["steps"].as_array().cloned().unwrap_or_default();
    for (i, step) in steps.iter().enumerate() {
        let hook = step["hook"].as_str().unwrap_or_default();
        let Some(h) = crate::hooks::find(hook) else {
            return Err(format!("script step {} names unknown hook {hook}", i + 1));
        };
        let now = start + step["at_s"].as_i64().unwrap_or(0) * 1000;
        let payload = payload_for(step, h.event, sid, &project);
        let before = snapshot(&project);
        let answer = invoke(&exe, hook, &payload, &project, now)?;
        let after = snapshot(&project);

        w(
            out,
            format!(
                "── {:>2}. {}  (`{}`, t+{}s)\n    {}",
                i + 1,
                h.event,
                hook,
                step["at_s"],
                step["note"].as_str().unwrap_or("")
            ),
        )?;
        if let Some(p) = payload.get("prompt").and_then(Value::as_str) {
            w(out, format!("    prompt: {p:?}"))?;
        }
        for line in describe_answer(&answer) {
            w(out, format!("    {line}"))?;
        }
        let diff = diff_states(&before, &after);
        if diff.is_empty() {
            w(out, "    state: unchanged".to_string())?;
        } else {
            w(out, "    state:".to_string())?;
            for line in diff {
                w(out, format!("      {line}"))?;
            }
        }
        w(out, String::new())?;
    }
    if let Some(line) = summary_line(&project, sid) {
        w(out, line)?;
    }
    if keep {
        let kept = dir.keep();
        w(out, format!("The project is kept at {}", kept.display()))?;
    }
    let (command, note) = how_to_run(env, &exe, "help");
    w(
        out,
        format!(
            "Run `{command}` for the commands{note}, and see the README to load the plugin into \
             Claude Code."
        ),
    )
}

/// What the session summary SessionEnd wrote says, in one line: the story's own duration,
/// runs and failures, read back from the file.
fn summary_line(project: &Path, sid: &str) -> Option<String> {
    let path = project.join(".omc/sessions").join(format!("{sid}.json"));
    let v: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let runs: Vec<String> = v["modes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            format!(
                "{} {} after {} iterations",
                m["mode"].as_str().unwrap_or("?"),
                m["ended_reason"].as_str().unwrap_or("still active"),
                m["iteration"]
            )
        })
        .collect();
    let by_tool: Vec<String> = v["failures_by_tool"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(t, n)| format!("{t} {n}"))
        .collect();
    Some(format!(
        "Session summary (.omc/sessions/{sid}.json): {} long; {}; {} tool failure(s){}; {} file(s) edited.\n",
        crate::time::short_duration(v["duration_ms"].as_i64()?),
        if runs.is_empty() {
            "no run".to_string()
        } else {
            runs.join(", ")
        },
        v["failure_count"].as_u64().unwrap_or(0),
        if by_tool.is_empty() {
            String::new()
        } else {
            format!(" ({})", by_tool.join(", "))
        },
        v["edits"]["files"].as_u64().unwrap_or(0)
    ))
}

/// How the person runs this very binary with `args`, and a note when that is not by its name:
/// `omc-hooks <args>` when that name on PATH is this binary, else its path (after
/// `cargo run -- demo` nothing named omc-hooks need be on PATH), with how to put it there.
fn how_to_run(env: &Env, exe: &Path, args: &str) -> (String, String) {
    let me = crate::platform::canonicalize(exe).ok();
    let on_path = env.var("PATH").and_then(|p| {
        std::env::split_paths(p)
            .map(|d| d.join("omc-hooks"))
            .find(|c| c.is_file())
    });
    if me.is_some()
        && on_path
            .as_deref()
            .and_then(|c| crate::platform::canonicalize(c).ok())
            == me
    {
        return (format!("omc-hooks {args}"), String::new());
    }
    let shown = exe.display().to_string();
    let quoted = if shown
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        shown
    } else {
        format!("'{}'", shown.replace('\'', r"'\''"))
    };
    let why = if on_path.is_some() {
        "the omc-hooks on your PATH is another binary"
    } else {
        "omc-hooks is not on your PATH"
    };
    (
        format!("{quoted} {args}"),
        format!(" ({why}; `cargo install --path .` in the checkout puts this one there)"),
    )
}

/// The step's payload with the common fields filled in and `{project}` expanded.
fn payload_for(step: &Value, event: &str, sid: &str, project: &Path) -> Value {
    let text = step["payload"]
        .to_string()
        .replace("{project}", &project.to_string_lossy());
    let mut v: Value = serde_json::from_str(&text).unwrap_or_else(|_| json!({}));
    let common = json!({
        "session_id": sid,
        "transcript_path": project.join(".demo-transcript.jsonl"),
        "cwd": project,
        "hook_event_name": event,
    });
    for (k, val) in common.as_object().into_iter().flatten() {
        v[k] = val.clone();
    }
    v
}

/// Runs one hook process and returns its decoded answer (`Null` for no output).
fn invoke(
    exe: &Path,
    hook: &str,
    payload: &Value,
    project: &Path,
    now: i64,
) -> Result<Value, String> {
    let mut child = Command::new(exe)
        .arg(hook)
        .current_dir(project)
        .env("OMC_NOW_MS", now.to_string())
        // The scripted story, not the person's own user hooks (which could call their servers).
        .env("XDG_CONFIG_HOME", project.join(".demo-config"))
        // Nor the person's state directory (session starts of a project without `.omc/`).
        .env("XDG_STATE_HOME", project.join(".demo-state"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("OMC_STATE_DIR")
        .env_remove("DISABLE_OMC")
        .env_remove("OMC_SKIP_HOOKS")
        .env_remove("OMC_TEAM_WORKER")
        .env_remove("OMC_TRACE_FILE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(payload.to_string().as_bytes())
            .map_err(|e| e.to_string())?;
    }
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&output.stdout);
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(text.trim()).map_err(|e| format!("{hook} printed invalid JSON: {e}"))
}

fn describe_answer(answer: &Value) -> Vec<String> {
    if answer.is_null() {
        return vec!["answer: nothing to say (no output)".to_string()];
    }
    let mut lines = Vec::new();
    if answer["decision"] == "block" {
        lines.push("answer: BLOCK — the model is sent back to work with this reason:".into());
        lines.extend(excerpt(answer["reason"].as_str().unwrap_or("")));
    }
    if let Some(ctx) = answer["hookSpecificOutput"]["additionalContext"].as_str() {
        lines.push(format!(
            "answer: context for the model ({} chars):",
            ctx.chars().count()
        ));
        lines.extend(excerpt(ctx));
    }
    if let Some(reason) = answer["hookSpecificOutput"]["permissionDecisionReason"].as_str() {
        lines.push("answer: tool call denied:".into());
        lines.extend(excerpt(reason));
    }
    if let Some(msg) = answer["systemMessage"].as_str() {
        lines.push("answer: note for the user:".into());
        lines.extend(excerpt(msg));
    }
    lines
}

fn excerpt(text: &str) -> Vec<String> {
    let all: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = all
        .iter()
        .take(SHOW_LINES)
        .map(|l| format!("  │ {l}"))
        .collect();
    if all.len() > SHOW_LINES {
        out.push(format!("  │ … ({} more lines)", all.len() - SHOW_LINES));
    }
    out
}

/// Every file under `.omc` (lock files and spares excluded) → its text.
fn snapshot(project: &Path) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    collect(project, &project.join(".omc"), &mut map);
    map
}

fn collect(base: &Path, dir: &Path, map: &mut BTreeMap<String, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p: PathBuf = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            collect(base, &p, map);
        } else if !name.ends_with(".lock") && !crate::state::fs::is_companion(&name) {
            let rel = p
                .strip_prefix(base)
                .unwrap_or(&p)
                .to_string_lossy()
                .into_owned();
            map.insert(rel, std::fs::read_to_string(&p).unwrap_or_default());
        }
    }
}

/// A compact description of what changed between two snapshots.
fn diff_states(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    for (path, new) in after {
        match before.get(path) {
            None => {
                out.push(format!("+ {path} (new)"));
                out.extend(excerpt(new).into_iter().map(|l| format!("  {l}")));
            }
            Some(old) if old != new => {
                out.push(format!("~ {path}"));
                let diff = similar::TextDiff::from_lines(old, new);
                for change in diff.iter_all_changes() {
                    let sign = match change.tag() {
                        similar::ChangeTag::Delete => "-",
                        similar::ChangeTag::Insert => "+",
                        similar::ChangeTag::Equal => continue,
                    };
                    out.push(format!("    {sign} {}", change.value().trim_end()));
                }
            }
            Some(_) => {}
        }
    }
    for path in before.keys().filter(|p| !after.contains_key(*p)) {
        out.push(format!("- {path} (removed)"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_names_real_hooks_and_runs_in_time_order() {
        let script: Value = serde_json::from_str(SCRIPT).unwrap();
        let steps = script["steps"].as_array().unwrap();
        let mut last = -1;
        for s in steps {
            assert!(
                crate::hooks::find(s["hook"].as_str().unwrap()).is_some(),
                "{s}"
            );
            let at = s["at_s"].as_i64().unwrap();
            assert!(at > last, "steps are in time order");
            last = at;
        }
    }

    #[test]
    fn diff_shows_changed_lines_only() {
        let a = BTreeMap::from([("f".to_string(), "a\nb\nc\n".to_string())]);
        let b = BTreeMap::from([
            ("f".to_string(), "a\nB\nc\n".to_string()),
            ("g".to_string(), "new\n".to_string()),
        ]);
        let d = diff_states(&a, &b);
        assert!(d.contains(&"~ f".to_string()));
        assert!(d.contains(&"    - b".to_string()));
        assert!(d.contains(&"    + B".to_string()));
        assert!(d.iter().any(|l| l == "+ g (new)"));
        assert!(!d.iter().any(|l| l.contains(" a")));
    }
}
