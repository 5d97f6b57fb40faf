//! The status line in the real client's interactive UI: Claude Code runs `omc-hooks
//! statusline` with its own payload and shows the line — idle at start-up, the ralph run with
//! the iteration the state file holds while the loop goes on, the context fill the model
//! server reports. The payloads it sent are checked for the fields the command reads and, with
//! `OMC_E2E_STATUSLINE_OUT=<dir>`, saved as fixtures (tests/e2e/record-statusline.sh).

use crate::common::BIN;
use crate::e2e::tui::Tui;
use crate::e2e::{Sandbox, plugin_dir};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(120);

/// The status row: the line of the screen that `pred` picks, trimmed.
fn status_row(screen: &str, pred: impl Fn(&str) -> bool) -> Option<String> {
    screen
        .lines()
        .map(str::trim)
        .find(|l| pred(l))
        .map(str::to_string)
}

/// (payload, what the command printed), in the order Claude Code ran the command.
fn recorded(dir: &Path) -> Vec<(Value, String)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
        .iter()
        .filter_map(|n| {
            let payload = serde_json::from_slice(&std::fs::read(dir.join(n)).ok()?).ok()?;
            let out = std::fs::read_to_string(dir.join(n.replace(".json", ".out"))).ok()?;
            Some((payload, out))
        })
        .collect()
}

/// `line` without its SGR escape sequences.
fn strip_sgr(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find("\x1b[") {
        out.push_str(&rest[..i]);
        rest = &rest[i + 2..];
        let end = rest.find('m').map_or(rest.len(), |j| j + 1);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn ralph_state(project: &Path) -> Option<(String, Value)> {
    let sessions = project.join(".omc/state/sessions");
    for e in std::fs::read_dir(sessions).ok()?.flatten() {
        let f = e.path().join("ralph-state.json");
        if let Ok(bytes) = std::fs::read(&f) {
            let v: Value = serde_json::from_slice(&bytes).ok()?;
            return Some((e.file_name().to_string_lossy().into_owned(), v));
        }
    }
    None
}

#[test]
fn the_real_client_shows_the_line_idle_during_a_run_and_at_91_percent() {
    let sb = Sandbox::new();
    sb.write(".omc/config.json", r#"{"ralph": {"max_iterations": 10}}"#);
    let rec = sb.root().join("statusline");
    std::fs::create_dir_all(&rec).unwrap();
    // The statusLine command: keep the payload and the answer, show the answer.
    let script = sb.root().join("statusline.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nn=\"{rec}/$(date +%s%N)-$$\"\ncat > \"$n.json\"\n\
             '{BIN}' statusline < \"$n.json\" > \"$n.out\"\ncat \"$n.out\"\n",
            rec = rec.display()
        ),
    )
    .unwrap();
    let settings = json!({"statusLine": {"type": "command",
                                         "command": format!("sh '{}'", script.display())}});
    let tui = Tui::start(&sb, Some(plugin_dir()), &settings, &[]);

    // Start-up: no response yet, so no context figure; nothing runs.
    tui.wait_for(
        "the idle line",
        |s| status_row(s, |l| l == "omc").is_some(),
        WAIT,
    );

    // A ralph run: the line follows the iteration in the state file. Wait until the loop has
    // gone quiet (no model request for 3 s, so the last status update has run), then compare.
    tui.type_line("ralph fix the tests");
    let start = Instant::now();
    let (mut seen, mut quiet_since) = (0, Instant::now());
    let (row, iteration) = loop {
        let n = tui.server.requests().len();
        if n != seen {
            (seen, quiet_since) = (n, Instant::now());
        }
        let screen = tui.screen();
        let row = status_row(&screen, |l| l.starts_with("ralph "));
        let state = ralph_state(&sb.project());
        if let (Some(row), Some((_, state))) = (&row, &state)
            && quiet_since.elapsed() > Duration::from_secs(3)
        {
            break (row.clone(), state["iteration"].as_u64().unwrap());
        }
        assert!(
            start.elapsed() < WAIT,
            "the ralph run never settled; screen:\n{screen}\nstate: {state:?}"
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    assert!(iteration >= 3, "the loop ran only to iteration {iteration}");
    assert_eq!(row, format!("ralph {iteration}/10 · ctx 0%"));
    // Claude Code draws the command's colours although its stdout is a pipe.
    let ansi = tui.screen_ansi();
    let ansi_row = ansi
        .lines()
        .find(|l| strip_sgr(l).trim().starts_with("ralph "))
        .unwrap_or("");
    assert!(
        ansi_row.contains("36m"),
        "the mode name is not drawn in cyan: {ansi_row:?}"
    );

    // cancelomc ends the run; the model server now reports 910 000 of 1 000 000 tokens.
    tui.server.set_input_tokens(910_000);
    tui.type_line("cancelomc");
    tui.wait_for(
        "the idle line at 91 %",
        |s| status_row(s, |l| l == "omc · ctx 91%").is_some(),
        WAIT,
    );
    let (session, state) = ralph_state(&sb.project()).unwrap();
    assert_eq!(state["active"], false, "{state}");

    // What Claude Code sent: one session, the fields the command reads, one line back each.
    let runs = recorded(&rec);
    assert!(runs.len() >= 4, "only {} status line runs", runs.len());
    for (payload, out) in &runs {
        assert_eq!(payload["session_id"], session.as_str(), "{payload}");
        assert!(payload["cwd"].is_string(), "{payload}");
        assert!(
            payload["context_window"]["context_window_size"].is_u64(),
            "{payload}"
        );
        assert_eq!(out.lines().count(), 1, "{out:?}");
    }
    let (first, _) = &runs[0];
    assert!(
        first["context_window"]["used_percentage"].is_null(),
        "{first}"
    );
    let ralph_run = runs
        .iter()
        .find(|(_, out)| out.contains("ralph"))
        .expect("a run shown as ralph");
    let full = runs
        .iter()
        .find(|(p, _)| p["context_window"]["used_percentage"] == 91)
        .expect("a payload at 91 %");

    if let Some(out) = std::env::var_os("OMC_E2E_STATUSLINE_OUT") {
        let out = PathBuf::from(out);
        std::fs::create_dir_all(&out).unwrap();
        for (name, payload) in [
            ("statusline-startup.json", first),
            ("statusline-ralph.json", &ralph_run.0),
            ("statusline-context-91.json", &full.0),
        ] {
            let mut bytes = serde_json::to_vec_pretty(payload).unwrap();
            bytes.push(b'\n');
            std::fs::write(out.join(name), bytes).unwrap();
        }
        eprintln!("[e2e] status line payloads written to {}", out.display());
    }
}
