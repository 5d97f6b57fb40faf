//! Notifications (`type = "notify"` in `hooks.toml`): a run's end, a run waiting for the
//! person and a session's end reach a loopback "Slack"/"Discord"/"Telegram" endpoint through the
//! spool and the detached flusher; an endpoint that is down first gets the message once it is
//! up, once; the webhook URL and the bot token never land under `.omc/`; an untrusted project
//! file notifies nobody.

use super::server::{Mode, Server};
use super::*;
use crate::common::assert_has;
use crate::user_hooks::{SID, Setup, q};

const SLACK_VAR: &str = "OMC_TEST_SLACK_WEBHOOK_URL";

fn slack_entry(on: &str) -> String {
    format!(
        "[[hooks]]\nevent = \"*\"\ntype = \"notify\"\nservice = \"slack\"\nurl = \"${{{SLACK_VAR}}}\"\non = {on}\n"
    )
}

/// Runs hook `sub` with the webhook URL in the environment (as the agent's environment would
/// hold it) and a short flusher linger.
fn hook(s: &Setup, sub: &str, event: &str, url: &str, extra: Value) {
    hook_with(s, sub, event, &[(SLACK_VAR, url)], extra);
}

/// Runs hook `sub` on `event`'s payload with `extra`'s fields, with `env` and a short flusher
/// linger.
fn hook_with(s: &Setup, sub: &str, event: &str, env: &[(&str, &str)], extra: Value) {
    let mut p = crate::common::payload(event, SID, s.root());
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    let mut h = s.hook(sub).env("OMC_EXPORT_LINGER_MS", "300");
    for (k, v) in env {
        h = h.env(k, v);
    }
    h.payload(p).run().expect_valid();
}

/// A loopback "Slack" answering 200 at `path`, and a project whose user `hooks.toml` notifies
/// it of the events `on` lists: the server, the project and the webhook URL.
fn slack(on: &str, path: &str) -> (Server, Setup, String) {
    let srv = Server::start(Mode::Ok);
    let s = Setup::new();
    s.user_hooks(&slack_entry(on));
    let url = srv.url(path);
    (srv, s, url)
}

/// The person's prompt, through the hook.
fn prompt(s: &Setup, url: &str, text: &str) {
    hook(
        s,
        "user-prompt-submit",
        "UserPromptSubmit",
        url,
        json!({ "prompt": text }),
    );
}

/// A Stop with the model's last message, continued (`stop_hook_active`) or not.
fn stop(s: &Setup, url: &str, message: &str, active: bool) {
    let mut extra = json!({ "last_assistant_message": message });
    if active {
        extra["stop_hook_active"] = json!(true);
    }
    hook(s, "stop", "Stop", url, extra);
}

/// `ralph …`, one continuation, then the completion token: a run of two iterations, completed.
fn ralph_run_to_completion(s: &Setup, url: &str) {
    prompt(s, url, "ralph fix the flaky tests");
    stop(s, url, "Fixed one; more to do.", false);
    stop(s, url, "All fixed and verified.\n<omc-complete/>", true);
    let state: Value = serde_json::from_slice(
        &std::fs::read(
            s.root()
                .join(format!(".omc/state/sessions/{SID}/ralph-state.json")),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(state["active"], false, "{state}");
    assert_eq!(state["ended_reason"], "completed", "{state}");
}

fn texts(srv: &Server) -> Vec<String> {
    srv.requests()
        .iter()
        .map(|r| r.json()["text"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Waits until `n` messages are answered and the flusher has exited (nothing more can come),
/// then checks that exactly `n` were sent and returns their texts.
fn delivered(srv: &Server, s: &Setup, what: &str, n: usize) -> Vec<String> {
    srv.wait_for(PATIENCE, what, |srv| srv.answered_ok() >= n);
    wait_until("the flusher to exit", || flusher_pid(s.root()).is_none());
    let got = texts(srv);
    assert_eq!(got.len(), n, "{got:?}");
    got
}

#[test]
fn a_completed_ralph_run_posts_one_slack_message_naming_the_mode_and_its_iterations() {
    let (srv, s, url) = slack("[\"run-end\"]", "/services/T000/B000/XXXX");
    ralph_run_to_completion(&s, &url);
    delivered(&srv, &s, "the run-end message", 1);
    let reqs = srv.requests();
    assert_eq!(reqs[0].path, "/services/T000/B000/XXXX");
    assert_eq!(reqs[0].header("content-type"), Some("application/json"));
    let body = reqs[0].json();
    assert_eq!(
        body.as_object().unwrap().len(),
        1,
        "Slack's shape is {{\"text\"}}: {body}"
    );
    let text = body["text"].as_str().unwrap();
    let project = s.root().file_name().unwrap().to_string_lossy().to_string();
    assert!(
        text.starts_with(&format!(
            "ralph completed in {project} after 2 iterations (of "
        )),
        "{text}"
    );
    // The run's summary and the command that shows its report follow the task (issue 42).
    assert_has(text, "Task: ralph fix the flaky tests\nTokens: ");
    assert!(text.ends_with("/ralph"), "{text}");
    assert_has(text, "\nReport: omc-hooks report ");
    // The URL (Slack's credential) is nowhere under .omc/.
    assert!(!contains(&all_state_bytes(s.root()), "/services/T000"));
}

#[test]
fn the_message_names_the_terminal_the_session_started_in() {
    let (srv, s, url) = slack("[\"run-end\"]", "/services/T000/B000/XXXX");
    std::fs::create_dir_all(s.root().join(".omc")).unwrap();
    let mut start = crate::common::payload("SessionStart", SID, s.root());
    start["source"] = json!("startup");
    // Issue 46: the terminal's own locator too (here a tmux pane, with tmux's socket).
    s.hook("session-start")
        .env("TERM_PROGRAM", "iTerm.app")
        .env("OMC_TTY", "/dev/pts/7")
        .env("TMUX", "/tmp/tmux-501/default,4242,0")
        .env("TMUX_PANE", "%3")
        .env("ITERM_SESSION_ID", "w0t1p0:6F3B")
        .payload(start)
        .run()
        .expect_valid();
    let marker: Value = serde_json::from_slice(
        &std::fs::read(
            s.root()
                .join(format!(".omc/state/sessions/{SID}/session.json")),
        )
        .unwrap(),
    )
    .unwrap();
    crate::schema::assert_valid("session", &marker);
    assert_eq!(
        marker["terminal_id"], "tmux pane %3 (/tmp/tmux-501/default)",
        "{marker}"
    );
    ralph_run_to_completion(&s, &url);
    let got = delivered(&srv, &s, "the run-end message", 1);
    assert!(
        got[0].contains(
            "in Claude Code (iTerm.app /dev/pts/7 tmux pane %3 (/tmp/tmux-501/default))."
        ),
        "{}",
        got[0]
    );
}

#[test]
fn with_the_endpoint_down_first_the_message_arrives_once_it_is_up_none_lost_none_twice() {
    let port = Server::free_port();
    let s = Setup::new();
    s.user_hooks(&slack_entry("[\"run-end\", \"needs-input\"]"));
    let url = format!("http://127.0.0.1:{port}/hook");
    ralph_run_to_completion(&s, &url);
    // Nothing listens: the flusher keeps the record and retries with back-off.
    wait_until("a failed delivery to be recorded", || {
        std::fs::read_dir(s.root().join(".omc/export"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".progress.json"))
            .any(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("last_error")))
    });
    assert!(!contains(
        &all_state_bytes(s.root()),
        &format!("127.0.0.1:{port}/hook")
    ));
    let srv = Server::start_on(port, Mode::Ok);
    let got = delivered(&srv, &s, "the message after the endpoint came up", 1);
    assert!(got[0].starts_with("ralph completed"), "{got:?}");
}

#[test]
fn a_run_waiting_for_the_person_and_the_session_end_are_told_with_their_figures() {
    let (srv, s, url) = slack("[\"needs-input\", \"session-end\"]", "/hook");
    hook(
        &s,
        "session-start",
        "SessionStart",
        &url,
        json!({"source": "startup"}),
    );
    prompt(&s, &url, "ralph migrate the db");
    stop(
        &s,
        &url,
        "Two schemas exist.\n\nShould I migrate v1 or v2?",
        false,
    );
    hook(
        &s,
        "session-end",
        "SessionEnd",
        &url,
        json!({"reason": "other"}),
    );
    // Two messages, or one holding both when the second came within the chat's one-second
    // spacing (a burst is folded): either way each is told whole, in order.
    srv.wait_for(PATIENCE, "the session-end message", |srv| {
        texts(srv).join("\n").contains("Session ended in ")
    });
    wait_until("the flusher to exit", || flusher_pid(s.root()).is_none());
    let got = texts(&srv);
    assert!(got.len() <= 2, "{got:?}");
    let all = got.join("\n\n");
    let waiting = all.find("ralph is waiting for you in ").expect(&all);
    assert!(all.contains("Should I migrate v1 or v2?"), "{got:?}");
    let ended = all.find("Session ended in ").expect(&all);
    assert!(waiting < ended, "{got:?}");
    assert!(all.contains("ralph suspended (1 iterations)"), "{got:?}");
}

#[test]
fn a_cancel_notifies_but_a_continuing_run_does_not() {
    let (srv, s, url) = slack("[\"run-end\"]", "/hook");
    prompt(&s, &url, "ralph fix it");
    for _ in 0..3 {
        stop(&s, &url, "working", true);
    }
    prompt(&s, &url, "cancelomc");
    let got = delivered(&srv, &s, "the cancel message", 1);
    assert!(got[0].starts_with("ralph was cancelled in "), "{got:?}");
}

#[test]
fn telegram_and_discord_get_their_own_shapes_and_the_token_stays_out_of_state() {
    let srv = Server::start(Mode::Ok);
    let s = Setup::new();
    s.user_hooks(&format!(
        "[[hooks]]\ntype = \"notify\"\nservice = \"telegram\"\nurl = {}\ntoken_env = \"OMC_TEST_TG_TOKEN\"\nchat_id = -100123\non = [\"run-end\"]\n\n\
         [[hooks]]\ntype = \"notify\"\nservice = \"discord\"\nurl = {}\non = [\"run-end\"]\n",
        q(&srv.url("/tg")),
        q(&srv.url("/discord/1/abc"))
    ));
    let run = |sub: &str, event: &str, extra: Value| {
        let token = ("OMC_TEST_TG_TOKEN", "123456:SECRET-token-value");
        hook_with(&s, sub, event, &[token], extra);
    };
    run(
        "user-prompt-submit",
        "UserPromptSubmit",
        json!({"prompt": "ralph tidy up"}),
    );
    run(
        "stop",
        "Stop",
        json!({"last_assistant_message": "done\n<omc-complete/>"}),
    );
    delivered(&srv, &s, "both messages", 2);
    let reqs = srv.requests();
    let tg = reqs
        .iter()
        .find(|r| r.path.starts_with("/tg"))
        .expect("telegram request");
    assert_eq!(tg.path, "/tg/bot123456:SECRET-token-value/sendMessage");
    assert_eq!(tg.json()["chat_id"], -100123);
    assert!(
        tg.json()["text"]
            .as_str()
            .unwrap()
            .starts_with("ralph completed")
    );
    let dc = reqs
        .iter()
        .find(|r| r.path.starts_with("/discord"))
        .expect("discord request");
    assert!(
        dc.json()["content"]
            .as_str()
            .unwrap()
            .starts_with("ralph completed")
    );
    assert_eq!(dc.json()["allowed_mentions"]["parse"], json!([]));
    assert!(!contains(&all_state_bytes(s.root()), "SECRET-token"));
}

#[test]
fn an_untrusted_project_file_notifies_nobody_until_trusted() {
    let srv = Server::start(Mode::Ok);
    let s = Setup::new();
    s.project_hooks(&slack_entry("[\"run-end\"]"));
    let url = srv.url("/hook");
    prompt(&s, &url, "ralph fix bug one");
    stop(&s, &url, "<omc-complete/>", false);
    assert!(spooled_records(s.root()).is_empty());
    assert!(flusher_pid(s.root()).is_none());
    s.trust();
    prompt(&s, &url, "ralph fix bug two");
    stop(&s, &url, "<omc-complete/>", false);
    let got = delivered(&srv, &s, "the trusted file's message", 1);
    assert!(got[0].contains("Task: ralph fix bug two"), "{got:?}");
}

#[test]
fn notify_test_sends_one_message_now_and_says_when_it_could_not() {
    let srv = Server::start(Mode::Ok);
    let s = Setup::new();
    s.user_hooks(&format!(
        "[[hooks]]\ntype = \"notify\"\nservice = \"slack\"\nname = \"team\"\nurl = {}\n",
        q(&srv.url("/t"))
    ));
    let (code, out, err) = s.cli(&["notify", "test"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("team: test message delivered (slack: http://127.0.0.1:"),
        "{out}"
    );
    assert_eq!(srv.request_count(), 1);
    assert!(texts(&srv)[0].starts_with("omc-hooks test notification from "));
    srv.set_mode(Mode::Status(404));
    let (code, out, _) = s.cli(&["notify", "test"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("team: NOT delivered") && out.contains("HTTP 404"),
        "{out}"
    );
    let (code, _, err) = s.cli(&["notify", "test", "--name", "other"]);
    assert_eq!(code, 1);
    assert_has(&err, "no notification sink");
}

#[test]
fn doctor_names_a_webhook_url_written_in_clear_in_a_project_file() {
    let s = Setup::new();
    s.project_hooks(
        "[[hooks]]\ntype = \"notify\"\nservice = \"slack\"\nurl = \"https://hooks.slack.example/services/T1/B2/abc\"\n\n\
         [[hooks]]\ntype = \"notify\"\nservice = \"discord\"\nurl = \"${DISCORD_WEBHOOK_URL}\"\n",
    );
    let (_, out, err) = s.cli(&["doctor"]);
    let all = format!("{out}{err}");
    let flagged: Vec<&str> = all
        .lines()
        .filter(|l| l.contains("written in clear"))
        .collect();
    assert_eq!(flagged.len(), 1, "{all}");
    assert!(
        flagged[0].contains("line 1") || flagged[0].contains("entry 1"),
        "{all}"
    );
}

#[test]
fn a_message_left_by_a_flusher_that_gave_up_goes_out_at_the_next_prompt() {
    let port = Server::free_port();
    let s = Setup::new();
    s.user_hooks(&slack_entry("[\"run-end\"]"));
    let url = format!("http://127.0.0.1:{port}/hook");
    ralph_run_to_completion(&s, &url);
    // The flusher that would have retried is gone (it gives up after ten minutes of failing).
    wait_until("a flusher to run", || flusher_pid(s.root()).is_some());
    kill_flusher(s.root());
    wait_until("it to be gone", || flusher_pid(s.root()).is_none());
    assert_eq!(spooled_records(s.root()).len(), 1);
    let srv = Server::start_on(port, Mode::Ok);
    // A prompt that ends no run: nothing new to announce, but the waiting message is sent.
    prompt(&s, &url, "what next?");
    let got = delivered(&srv, &s, "the waiting message", 1);
    assert!(got[0].starts_with("ralph completed"), "{got:?}");
}

/// A Stop of a model still working (`extra` payload fields), with our continuation cap at 2.
fn capped_stop(s: &Setup, url: &str, active: bool, extra: Value) {
    let mut p = json!({"last_assistant_message": "still working", "stop_hook_active": active});
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    let env = [(SLACK_VAR, url), ("OMC_STOP_BLOCK_CAP", "2")];
    hook_with(s, "stop", "Stop", &env, p);
}

#[test]
fn a_run_handed_back_at_the_continuation_cap_is_told_once() {
    let (srv, s, url) = slack("[\"run-end\"]", "/hook");
    let stop = |active: bool| capped_stop(&s, &url, active, json!({}));
    prompt(&s, &url, "ralph tidy the code");
    stop(false);
    stop(true);
    stop(true); // the cap: handed back, the run stays
    stop(false); // a later turn's stop continues it again: nothing to tell
    let got = delivered(&srv, &s, "the hand-back message", 1);
    assert!(
        got[0].starts_with(
            "ralph was handed back to you (no tool ran in the last 2 continuations) in "
        ),
        "{got:?}"
    );
}

/// Issue 34: the hand-back for no progress says what repeated, and a budget end what was spent.
#[test]
fn a_hand_back_for_no_progress_and_a_token_budget_end_say_why() {
    let (srv, s, url) = slack("[\"run-end\"]", "/hook");
    let transcript = s.root().join("t.jsonl");
    let stop = |active: bool| {
        capped_stop(&s, &url, active, json!({"transcript_path": transcript}));
    };
    let ls = || {
        hook(
            &s,
            "post-tool-use",
            "PostToolUse",
            &url,
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"},
                   "tool_response": {"stdout": "src", "stderr": ""}}),
        )
    };
    prompt(&s, &url, "ralph tidy the code");
    stop(false);
    ls();
    stop(true);
    ls();
    stop(true);
    ls();
    stop(true); // the cap: two continuations without progress
    let got = delivered(&srv, &s, "the hand-back message", 1);
    assert!(
        got[0].starts_with(
            "ralph was handed back to you (no progress in the last 2 continuations: ran `ls` \
             again with the same output) in "
        ),
        "{got:?}"
    );
    // A new run with a token budget: Claude Code's transcript records 60k, then 120k.
    prompt(&s, &url, "ralph --tokens 100k tidy the code");
    let line = |id: &str| {
        json!({"type": "assistant", "timestamp": "2026-12-03T13:45:00.000Z",
               "message": {"id": id, "usage": {"input_tokens": 60_000, "output_tokens": 0}}})
        .to_string()
    };
    std::fs::write(&transcript, format!("{}\n", line("a"))).unwrap();
    stop(false);
    std::fs::write(&transcript, format!("{}\n{}\n", line("a"), line("b"))).unwrap();
    stop(true);
    let got = delivered(&srv, &s, "the budget end", 2);
    assert!(
        got[1].starts_with("ralph reached its limit (token budget spent; 120k/100k tokens) in "),
        "{got:?}"
    );
}

#[test]
fn a_burst_of_run_ends_is_folded_into_few_messages_none_lost() {
    let srv = Server::start(Mode::Ok);
    let s = Setup::new();
    s.user_hooks(&format!(
        "[[hooks]]\nevent = \"*\"\ntype = \"notify\"\nname = \"chat\"\nservice = \"slack\"\nurl = \"${{{SLACK_VAR}}}\"\non = [\"run-end\"]\n"
    ));
    // 200 runs ended at once, as the spool holds them.
    let dir = s.root().join(".omc/export");
    std::fs::create_dir_all(&dir).unwrap();
    let mut spool = String::new();
    for i in 0..200 {
        let ev = json!({
            "id": format!("ev-{i}"), "event": "run-end", "session_id": format!("s{i}"),
            "agent": "claude", "timestamp_ms": 1_796_305_500_000_i64 + i, "mode": "ralph",
            "payload": {"outcome": "completed", "iterations": 2, "max_iterations": 100,
                        "duration_ms": 60_000, "project": "shop", "task": format!("job-{i:03}")}
        });
        spool.push_str(&format!("{ev}\n"));
    }
    std::fs::write(dir.join("chat.jsonl"), spool).unwrap();
    let url = srv.url("/services/T000/B000/XXXX");
    let (code, out, err) = s.cli_with(&["flush", "--once"], &[(SLACK_VAR, &url)]);
    assert_eq!(code, 0, "{out}{err}");
    let got = texts(&srv);
    assert!(
        !got.is_empty() && got.len() <= 20,
        "{} messages for 200 run ends",
        got.len()
    );
    let all = got.join("\n");
    for i in 0..200 {
        assert!(
            all.contains(&format!("job-{i:03}")),
            "job-{i:03} lost: {all}"
        );
    }
    assert!(got[0].starts_with("20 runs ended:"), "{}", got[0]);
    assert!(spooled_records(s.root()).is_empty(), "all delivered");
}

/// Issue 46: a run of this session untouched for 3 h, ended as stale at SessionStart, is a run
/// end the person hears of, as when a Stop ends it.
#[test]
fn a_stale_run_ended_at_session_start_is_notified() {
    let (srv, s, url) = slack("[\"run-end\"]", "/services/T000/B000/XXXX");
    let now: i64 = 1_796_305_500_000;
    let iso = omc_hooks::time::iso;
    let dir = s.root().join(format!(".omc/state/sessions/{SID}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("ralph-state.json"),
        serde_json::to_vec(&json!({
            "schema_version": 1, "mode": "ralph", "active": true, "session_id": SID,
            "prompt": "ralph fix the flaky tests", "iteration": 3, "max_iterations": 100,
            "started_at": iso(now - 4 * 3_600_000), "last_checked_at": iso(now - 3 * 3_600_000)
        }))
        .unwrap(),
    )
    .unwrap();
    hook(
        &s,
        "session-start",
        "SessionStart",
        &url,
        json!({"source": "resume"}),
    );
    let got = delivered(&srv, &s, "the run-end message", 1);
    assert!(
        got[0].contains("ended (no activity for two hours)"),
        "{}",
        got[0]
    );
}
