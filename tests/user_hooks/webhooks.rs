//! Synchronous webhooks against real loopback servers.

use super::http::{Reply, Server};
use super::{Setup, denied, diags, q};
use std::time::Duration;

fn webhook(url: &str, extra: &str) -> String {
    format!(
        "[[hooks]]\nevent = \"pre-tool-use\"\nmatcher = \"Bash\"\ntype = \"webhook\"\nurl = {}\n{extra}\n",
        q(url)
    )
}

#[test]
fn a_blocking_webhook_blocks_the_tool_call_and_receives_the_event() {
    let server = Server::start(vec![Reply::Json(
        200,
        r#"{"action":"block","reason":"policy says no"}"#.into(),
    )]);
    let s = Setup::new();
    s.user_hooks(&webhook(
        &server.url("/check"),
        "[hooks.headers]\nAuthorization = \"Bearer ${UH_TEST_TOKEN}\"\nX-Team = \"core\"",
    ));
    let out = s.bash_with("git push --force", &[("UH_TEST_TOKEN", "tok-123")]);
    assert_eq!(denied(&out).as_deref(), Some("policy says no"), "{out:?}");
    let got = server.received();
    assert_eq!(got.len(), 1);
    let r = &got[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/check"));
    assert_eq!(r.header("authorization"), Some("Bearer tok-123"));
    assert_eq!(r.header("x-team"), Some("core"));
    assert_eq!(r.header("x-omc-event"), Some("pre-tool-use"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    let body = r.json();
    assert_eq!(body["event"], "pre-tool-use");
    assert_eq!(body["tool_input"]["command"], "git push --force");
}

#[test]
fn the_answer_is_read_like_a_scripts_and_put_works() {
    let server = Server::start(vec![Reply::Json(
        200,
        r#"{"action":"modify","context":"ticket ABC-1 is open"}"#.into(),
    )]);
    let s = Setup::new();
    s.user_hooks(&webhook(&server.url("/"), "method = \"PUT\""));
    s.bash("ls").expect_context("ticket ABC-1 is open");
    assert_eq!(server.received()[0].method, "PUT");
}

#[test]
fn a_hanging_server_is_cut_at_the_timeout_and_the_call_is_allowed() {
    let server = Server::start(vec![Reply::Hang(Duration::from_secs(30))]);
    let s = Setup::new();
    s.user_hooks(&webhook(&server.url("/"), "timeout_ms = 300"));
    let out = s.bash("ls");
    out.expect_noop();
    let d = diags(&out);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].contains("no answer within 300 ms; allowed"), "{d:?}");
}

#[test]
fn errors_are_retried_with_backoff_and_non_2xx_or_silence_is_allow() {
    // 503 twice, then a block: the third attempt answers.
    let server = Server::start(vec![
        Reply::Json(503, "{}".into()),
        Reply::Json(503, "{}".into()),
        Reply::Json(200, r#"{"action":"block","reason":"third time"}"#.into()),
    ]);
    let s = Setup::new();
    s.user_hooks(&webhook(&server.url("/"), "timeout_ms = 5000\nretries = 2"));
    assert_eq!(denied(&s.bash("ls")).as_deref(), Some("third time"));
    assert_eq!(server.received().len(), 3);

    // A 403 is an answer, not a failure to retry: allow, one request.
    let server = Server::start(vec![Reply::Json(403, r#"{"action":"block"}"#.into())]);
    let s = Setup::new();
    s.user_hooks(&webhook(&server.url("/"), ""));
    let out = s.bash("ls");
    out.expect_noop();
    assert_eq!(server.received().len(), 1);
    assert!(diags(&out)[0].contains("answered HTTP 403; allowed"));

    // An empty 2xx is a plain allow, without a diagnostic.
    let server = Server::start(vec![Reply::Json(204, String::new())]);
    let s = Setup::new();
    s.user_hooks(&webhook(&server.url("/"), ""));
    let out = s.bash("ls");
    out.expect_noop();
    assert!(diags(&out).is_empty(), "{:?}", diags(&out));

    // Nobody listening: retried, then allow.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let s = Setup::new();
    s.user_hooks(&webhook(
        &format!("http://127.0.0.1:{port}/"),
        "retries = 1",
    ));
    let out = s.bash("ls");
    out.expect_noop();
    assert!(
        diags(&out)[0].contains("connection failed") && diags(&out)[0].contains("2 attempt"),
        "{:?}",
        diags(&out)
    );
}

#[test]
fn an_expanded_secret_never_reaches_diagnostics_or_state() {
    let server = Server::start(vec![Reply::Json(500, "{}".into())]);
    let s = Setup::new();
    s.user_hooks(&webhook(
        &server.url("/?key=${UH_SECRET}"),
        "retries = 0\n[hooks.headers]\nAuthorization = \"Bearer ${UH_SECRET}\"",
    ));
    let secret = "sup3r-s3cret-value";
    let out = s.bash_with("ls", &[("UH_SECRET", secret), ("OMC_DEBUG", "1")]);
    out.expect_noop();
    assert_eq!(server.received()[0].path, format!("/?key={secret}"));
    assert!(!out.stderr.contains(secret), "{}", out.stderr);
    assert!(out.stderr.contains("?key=${UH_SECRET}"), "{}", out.stderr);
    for f in s.project.files() {
        let text = std::fs::read_to_string(s.root().join(&f)).unwrap_or_default();
        assert!(!text.contains(secret), "{f}");
    }
    // An unset variable: the header is left out and the call still made.
    let s2 = Setup::new();
    let server = Server::start(vec![Reply::Json(200, String::new())]);
    s2.user_hooks(&webhook(
        &server.url("/"),
        "[hooks.headers]\nAuthorization = \"Bearer ${UH_NOT_SET_ANYWHERE}\"",
    ));
    let out = s2.bash("ls");
    out.expect_noop();
    assert_eq!(server.received()[0].header("authorization"), None);
    assert!(out.stderr.contains("$UH_NOT_SET_ANYWHERE not set"));
}
