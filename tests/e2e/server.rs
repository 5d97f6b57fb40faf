//! A scripted stand-in for the Anthropic Messages API, std + serde_json only.
//!
//! The real Claude Code client is pointed at it with `ANTHROPIC_BASE_URL`.
//! It answers `POST /v1/messages` (SSE when the body says `"stream": true`,
//! plain JSON otherwise) and `POST /v1/messages/count_tokens`; anything else
//! gets a harmless JSON answer.
//!
//! Routing (what the pinned client sends; seen with 2.1.328 and again with 2.1.332):
//! * main loop — a messages request with a non-empty `tools` array and no
//!   `x-claude-code-agent-id` header: consumes the main [`Reply`] script;
//! * subagent loop — same, but with an `x-claude-code-agent-id` header (its
//!   system prompt's billing line also says `cc_is_subagent=true`): consumes
//!   the separate subagent script (default text [`SUBAGENT_DEFAULT_TEXT`]);
//! * compaction — `/compact` / auto-compact sends the *full* main-loop
//!   request shape (tools included, no agent header) whose last user message
//!   starts with "CRITICAL: Respond with TEXT ONLY": answered with a canned
//!   `<analysis>/<summary>` text, never consumes a script;
//! * side requests without tools (title generation etc.): [`SIDE_TEXT`].
//!
//! When a script is exhausted the server answers with its default text.
//!
//! Every request is recorded ([`Recorded`]) so tests can inspect what the
//! model was shown.

#![allow(dead_code)]

use super::http::{HttpServer, Req, Resp};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Text answered to main-loop requests once the script has run out.
pub const DEFAULT_TEXT: &str = "done";
/// Text answered to side requests (no tools): title generation etc.
pub const SIDE_TEXT: &str = "Scripted side reply";
/// Text answered to subagent requests once their script has run out.
pub const SUBAGENT_DEFAULT_TEXT: &str = "subagent done";
/// Answer to compaction requests.
pub const COMPACT_SUMMARY: &str = "<analysis>scripted</analysis>\n<summary>Scripted compaction summary of the conversation.</summary>";
/// Start of the last user message of a compaction request.
pub const COMPACT_MARKER: &str = "CRITICAL: Respond with TEXT ONLY";

/// One scripted model turn.
#[derive(Clone, Debug)]
pub enum Reply {
    /// Assistant text, `stop_reason: end_turn`.
    Text(String),
    /// One or more tool calls `(tool name, input)`, `stop_reason: tool_use`.
    /// Ids are generated (`toolu_e2e_<n>`).
    ToolUse(Vec<(String, Value)>),
    /// An API error: the HTTP status line (`"400 Bad Request"`) and the error's `type` and
    /// `message` in the Messages API's error shape (issue 46: StopFailure).
    Error(&'static str, String, String),
}

impl Reply {
    pub fn text(s: impl Into<String>) -> Self {
        Reply::Text(s.into())
    }
    pub fn tool(name: impl Into<String>, input: Value) -> Self {
        Reply::ToolUse(vec![(name.into(), input)])
    }
}

/// One HTTP request as received.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// Arrival order over the whole server lifetime (0-based).
    pub seq: usize,
    pub method: String,
    /// Path including any query string (`/v1/messages?beta=true`).
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Parsed JSON body (`Value::Null` if empty or not JSON).
    pub body: Value,
    pub raw_body: String,
    /// Main agent loop: messages request with tools, no agent id, not a
    /// compaction request.
    pub main_loop: bool,
    /// Subagent loop: `x-claude-code-agent-id` header (its value).
    pub agent_id: Option<String>,
    /// A compaction (summary) request.
    pub compaction: bool,
    /// What the server answered with (a clone of the script item, or None
    /// for side / other requests).
    pub reply: Option<Reply>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// `POST /v1/messages` (not count_tokens).
    pub fn is_messages(&self) -> bool {
        let p = self.path.split('?').next().unwrap_or("");
        self.method == "POST" && p.ends_with("/v1/messages")
    }

    /// The system prompt flattened to text.
    pub fn system_text(&self) -> String {
        match self.body.get("system") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }

    /// Names of the tools offered in this request.
    pub fn tool_names(&self) -> Vec<String> {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// All text in `messages` not from the assistant (roles `user` and
    /// `system`): plain string contents, text
    /// blocks (incl. `<system-reminder>` blocks) and tool_result contents,
    /// joined by newlines. This is "what the model was shown" apart from the
    /// system prompt and its own earlier turns.
    pub fn user_text(&self) -> String {
        let mut out = Vec::new();
        for m in self.messages() {
            // this client also sends role "system" messages inside `messages`
            // (environment block, skill list); count them as shown text too
            if m.get("role").and_then(Value::as_str) != Some("assistant") {
                collect_text(m.get("content").unwrap_or(&Value::Null), &mut out);
            }
        }
        out.join("\n")
    }

    /// Text of the *last* user message only (what is new in this request).
    pub fn last_user_text(&self) -> String {
        let mut out = Vec::new();
        if let Some(m) = self
            .messages()
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        {
            collect_text(m.get("content").unwrap_or(&Value::Null), &mut out);
        }
        out.join("\n")
    }

    /// Everything: system prompt + all messages of every role.
    pub fn all_text(&self) -> String {
        let mut out = vec![self.system_text()];
        for m in self.messages() {
            collect_text(m.get("content").unwrap_or(&Value::Null), &mut out);
        }
        out.join("\n")
    }

    pub fn messages(&self) -> Vec<Value> {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    }

    /// tool_result blocks of the last user message: (tool_use_id, text, is_error).
    pub fn tool_results(&self) -> Vec<(String, String, bool)> {
        let mut res = Vec::new();
        if let Some(m) = self
            .messages()
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        {
            if let Some(a) = m.get("content").and_then(Value::as_array) {
                for b in a {
                    if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                        let mut t = Vec::new();
                        collect_text(b.get("content").unwrap_or(&Value::Null), &mut t);
                        res.push((
                            b.get("tool_use_id")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_owned(),
                            t.join("\n"),
                            b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                        ));
                    }
                }
            }
        }
        res
    }
}

fn collect_text(content: &Value, out: &mut Vec<String>) {
    match content {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => {
            for b in a {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = b.get("text").and_then(Value::as_str) {
                            out.push(t.to_owned())
                        }
                    }
                    Some("tool_result") => {
                        collect_text(b.get("content").unwrap_or(&Value::Null), out)
                    }
                    Some("tool_use") => out.push(format!(
                        "[tool_use {}]",
                        b.get("input").unwrap_or(&Value::Null)
                    )),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

struct State {
    script: VecDeque<Reply>,
    sub_script: VecDeque<Reply>,
    requests: Vec<Recorded>,
    default_text: String,
    sub_default_text: String,
    /// `usage.input_tokens` reported with every answer (what the client's context-window
    /// figures are computed from).
    input_tokens: u64,
}

/// A running scripted server. Dropping it stops the accept loop.
pub struct ModelServer {
    state: Arc<Mutex<State>>,
    http: HttpServer,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl ModelServer {
    /// Bind 127.0.0.1:0 and serve `script` in a background thread.
    pub fn start(script: Vec<Reply>) -> ModelServer {
        let state = Arc::new(Mutex::new(State {
            script: script.into(),
            sub_script: VecDeque::new(),
            requests: Vec::new(),
            default_text: DEFAULT_TEXT.to_owned(),
            sub_default_text: SUBAGENT_DEFAULT_TEXT.to_owned(),
            input_tokens: 10,
        }));
        let st = state.clone();
        let http = HttpServer::start(Arc::new(move |req: &Req| respond(req, &st)));
        ModelServer { state, http }
    }

    pub fn port(&self) -> u16 {
        self.http.port()
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port())
    }

    /// Append more replies to the script (e.g. between two client runs).
    pub fn push(&self, replies: impl IntoIterator<Item = Reply>) {
        self.state.lock().unwrap().script.extend(replies);
    }

    /// Append replies to the subagent script (requests carrying an
    /// `x-claude-code-agent-id` header; all subagents share one queue).
    pub fn push_subagent(&self, replies: impl IntoIterator<Item = Reply>) {
        self.state.lock().unwrap().sub_script.extend(replies);
    }

    pub fn set_subagent_default_text(&self, s: &str) {
        self.state.lock().unwrap().sub_default_text = s.to_owned();
    }

    pub fn set_default_text(&self, s: &str) {
        self.state.lock().unwrap().default_text = s.to_owned();
    }

    /// Report `n` input tokens in the usage of every later answer (default 10): the client
    /// shows that as the context fill (e.g. 910 000 of a 1 000 000 window is 91 %).
    pub fn set_input_tokens(&self, n: u64) {
        self.state.lock().unwrap().input_tokens = n;
    }

    /// Main-script items not yet consumed.
    pub fn remaining(&self) -> usize {
        self.state.lock().unwrap().script.len()
    }

    /// Subagent-script items not yet consumed.
    pub fn remaining_subagent(&self) -> usize {
        self.state.lock().unwrap().sub_script.len()
    }

    /// Snapshot of all recorded requests so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }

    /// Forget recorded requests (script untouched).
    pub fn clear_requests(&self) {
        self.state.lock().unwrap().requests.clear();
    }
}

fn respond(req: &Req, state: &Arc<Mutex<State>>) -> Resp {
    let raw_body = String::from_utf8_lossy(&req.body).into_owned();
    let body: Value = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
    let bare = req.bare_path().to_owned();
    let mut st = state.lock().unwrap();
    let seq = st.requests.len();
    let mut rec = Recorded {
        seq,
        method: req.method.clone(),
        path: req.path.clone(),
        headers: req.headers.clone(),
        body: body.clone(),
        raw_body,
        main_loop: false,
        agent_id: req
            .headers
            .iter()
            .find(|(k, _)| k == "x-claude-code-agent-id")
            .map(|(_, v)| v.clone()),
        compaction: false,
        reply: None,
    };

    if req.method == "POST" && bare.ends_with("/v1/messages/count_tokens") {
        st.requests.push(rec);
        let n = (req.body.len() / 4).max(1);
        return Resp::json("200 OK", &json!({"input_tokens": n}));
    }
    if !(req.method == "POST" && bare.ends_with("/v1/messages")) {
        st.requests.push(rec);
        return Resp::json(
            "404 Not Found",
            &json!({"type":"error","error":{"type":"not_found_error","message":"not scripted"}}),
        );
    }

    let has_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .map(|a| !a.is_empty())
        .unwrap_or(false);
    // The client merges the compaction prompt into the last user message when the
    // conversation ended on a tool result, so the marker need not lead the text.
    rec.compaction = rec
        .last_user_text()
        .lines()
        .any(|l| l.trim_start().starts_with(COMPACT_MARKER));
    let reply = if rec.compaction {
        Reply::Text(COMPACT_SUMMARY.to_owned())
    } else if has_tools && rec.agent_id.is_some() {
        let d = st.sub_default_text.clone();
        st.sub_script.pop_front().unwrap_or(Reply::Text(d))
    } else if has_tools {
        rec.main_loop = true;
        let d = st.default_text.clone();
        st.script.pop_front().unwrap_or(Reply::Text(d))
    } else {
        Reply::Text(SIDE_TEXT.to_owned())
    };
    rec.reply = Some(reply.clone());
    st.requests.push(rec);
    let input_tokens = st.input_tokens;
    drop(st);
    if let Reply::Error(status, kind, message) = &reply {
        return Resp::json(
            status,
            &json!({"type": "error", "error": {"type": kind, "message": message}}),
        );
    }

    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("claude-sonnet-4-5")
        .to_owned();
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let (content, stop_reason) = reply_blocks(&reply);
    if stream {
        Resp::sse(sse(&model, &content, stop_reason, input_tokens))
    } else {
        let msg = json!({
            "id": format!("msg_e2e_{}", NEXT_ID.fetch_add(1, Ordering::SeqCst)),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": null,
            "usage": {"input_tokens": input_tokens, "output_tokens": 5,
                       "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        });
        Resp::json("200 OK", &msg)
    }
}

fn reply_blocks(reply: &Reply) -> (Vec<Value>, &'static str) {
    match reply {
        Reply::Text(t) => (vec![json!({"type":"text","text":t})], "end_turn"),
        Reply::ToolUse(calls) => (
            calls
                .iter()
                .map(|(name, input)| {
                    json!({"type":"tool_use",
                           "id": format!("toolu_e2e_{:04}", NEXT_ID.fetch_add(1, Ordering::SeqCst)),
                           "name": name, "input": input})
                })
                .collect(),
            "tool_use",
        ),
        Reply::Error(..) => (Vec::new(), "end_turn"),
    }
}

fn sse(model: &str, content: &[Value], stop_reason: &str, input_tokens: u64) -> String {
    let mut out = String::new();
    let mut ev = |name: &str, data: Value| {
        out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    ev(
        "message_start",
        json!({"type":"message_start","message":{
            "id": format!("msg_e2e_{}", NEXT_ID.fetch_add(1, Ordering::SeqCst)),
            "type":"message","role":"assistant","model":model,"content":[],
            "stop_reason":null,"stop_sequence":null,
            "usage":{"input_tokens":input_tokens,"output_tokens":1,
                     "cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}),
    );
    for (i, b) in content.iter().enumerate() {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => {
                ev(
                    "content_block_start",
                    json!({"type":"content_block_start","index":i,
                    "content_block":{"type":"text","text":""}}),
                );
                ev(
                    "content_block_delta",
                    json!({"type":"content_block_delta","index":i,
                    "delta":{"type":"text_delta","text":b["text"]}}),
                );
            }
            _ => {
                ev(
                    "content_block_start",
                    json!({"type":"content_block_start","index":i,
                    "content_block":{"type":"tool_use","id":b["id"],"name":b["name"],"input":{}}}),
                );
                ev(
                    "content_block_delta",
                    json!({"type":"content_block_delta","index":i,
                    "delta":{"type":"input_json_delta","partial_json":b["input"].to_string()}}),
                );
            }
        }
        ev(
            "content_block_stop",
            json!({"type":"content_block_stop","index":i}),
        );
    }
    ev(
        "message_delta",
        json!({"type":"message_delta","delta":{"stop_reason":stop_reason,"stop_sequence":null},
               "usage":{"output_tokens":5}}),
    );
    ev("message_stop", json!({"type":"message_stop"}));
    out
}
