//! One scripted model for the Codex, Gemini CLI and Qwen Code clients: a script of [`Step`]s
//! served over the wire API each client speaks ([`Wire`]: OpenAI Responses, Gemini
//! `streamGenerateContent`, OpenAI chat completions — all streamed as SSE), with every request
//! recorded and decoded into neutral [`Msg`]s so that a test can read what the model was shown
//! the same way whatever the client.
//!
//! Routing, per wire (`Wire::classify`):
//! * main loop — a model call that offers tools: consumes the script, then answers
//!   [`DEFAULT_TEXT`] (or the scenario's default) once the script is exhausted;
//! * compaction — the client's summary request: a canned `<state_snapshot>` answer
//!   ([`COMPACT_TEXT`]), never consumes the script;
//! * loop check — Gemini CLI's question, after 30 model turns of one prompt and every 10
//!   thereafter, whether the conversation is stuck (its `LoopDetectionService`, a JSON answer):
//!   [`LOOP_CHECK_TEXT`], "not stuck" (gemini-FINDINGS.md §6);
//! * side — any other model call: [`SIDE_TEXT`];
//! * anything else (not a model call): recorded, answered 404.

#![allow(dead_code)]

use super::http::{HttpServer, Req, Resp};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Text answered to main-loop requests once the script has run out.
pub const DEFAULT_TEXT: &str = "done";
/// Text answered to side requests.
pub const SIDE_TEXT: &str = "Scripted side reply";
/// Answer to Gemini CLI's loop check: no sign of a loop (a real model judges the scripted
/// progress the same way; a text answer there fails the check's JSON and the client retries).
pub const LOOP_CHECK_TEXT: &str = r#"{"unproductive_state_analysis": "Each turn runs a different command and reports progress.", "unproductive_state_confidence": 0.0}"#;
/// What Gemini CLI's loop-check request asks (its `checkForLoopWithLLM` task prompt).
const LOOP_CHECK_ASK: &str = "stuck in a repetitive, non-productive state";
/// Answer to compaction requests (both Gemini and Qwen look for a `<state_snapshot>`).
pub const COMPACT_TEXT: &str =
    "<state_snapshot>Scripted compaction summary of the conversation.</state_snapshot>";

/// One scripted model turn.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Assistant text; the turn ends.
    Text(String),
    /// One call of the client's shell tool with this command (Codex `exec_command {cmd}`,
    /// Gemini and Qwen `run_shell_command {command}`).
    Shell(String),
    /// One call of a named tool with these arguments, as the wire spells them.
    Call(String, Value),
    /// Several tool calls (`Shell` / `Call`) in one answer — parallel tool calls, as the
    /// wire spells them (Codex: several `function_call` output items; Gemini: several
    /// `functionCall` parts; chat completions: several `tool_calls`).
    Parallel(Vec<Step>),
}

/// What a recorded request was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Main,
    Compaction,
    /// Gemini CLI's loop check.
    LoopCheck,
    Side,
    /// Not a model call (404).
    Other,
}

/// Who a message of the conversation is from, in neutral terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// System prompt / system instruction.
    System,
    /// Codex `developer` messages (environment, hook context).
    Developer,
    User,
    Assistant,
    /// A tool result.
    Tool,
}

/// One message of a request's conversation, flattened to text. Assistant tool calls read
/// `[call <name> <arguments>]`.
#[derive(Clone, Debug)]
pub struct Msg {
    pub role: Role,
    pub text: String,
}

/// One HTTP request as received, decoded.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// Arrival order over the server's lifetime (0-based).
    pub seq: usize,
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
    pub kind: Kind,
    /// What the server answered with (main, compaction and side requests).
    pub step: Option<Step>,
    /// The conversation the model was shown, system prompt first.
    pub messages: Vec<Msg>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Everything not from the assistant (system, developer, user, tool), joined by newlines.
    pub fn shown_text(&self) -> String {
        join(self.messages.iter().filter(|m| m.role != Role::Assistant))
    }

    /// The non-assistant messages after the model's last turn: what is new in this request
    /// (the prompt and its hook context on the first request; a tool result and its context;
    /// a continuation).
    pub fn new_text(&self) -> String {
        let start = self
            .messages
            .iter()
            .rposition(|m| m.role == Role::Assistant)
            .map_or(0, |i| i + 1);
        join(self.messages[start..].iter())
    }

    /// The text of the last `user` message.
    pub fn last_user_text(&self) -> String {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| m.text.clone())
            .unwrap_or_default()
    }

    /// Texts of all `user` messages, in order.
    pub fn user_texts(&self) -> Vec<String> {
        self.messages
            .iter()
            .filter(|m| m.role == Role::User)
            .map(|m| m.text.clone())
            .collect()
    }

    /// Tool results after the model's last turn.
    pub fn tool_outputs(&self) -> Vec<String> {
        let start = self
            .messages
            .iter()
            .rposition(|m| m.role == Role::Assistant)
            .map_or(0, |i| i + 1);
        self.messages[start..]
            .iter()
            .filter(|m| m.role == Role::Tool)
            .map(|m| m.text.clone())
            .collect()
    }
}

fn join<'a>(msgs: impl Iterator<Item = &'a Msg>) -> String {
    msgs.map(|m| m.text.as_str()).collect::<Vec<_>>().join("\n")
}

/// A client's wire API.
pub trait Wire: Send + Sync + 'static {
    /// Decodes the conversation of a request body.
    fn messages(&self, body: &Value) -> Vec<Msg>;
    /// Classifies a request.
    fn classify(&self, req: &Req, body: &Value, msgs: &[Msg]) -> Kind;
    /// Encodes the answer to a model call, reporting `prompt_tokens` as its input usage.
    fn answer(&self, req: &Req, body: &Value, step: &Step, prompt_tokens: u64) -> Resp;
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::SeqCst)
}

struct State {
    script: VecDeque<Step>,
    requests: Vec<Recorded>,
    default_text: String,
    prompt_tokens: u64,
    /// Main-loop answers left that report `prompt_tokens`; after them every answer reports 10
    /// (`None`: all of them).
    big_usage_left: Option<u32>,
}

/// A running scripted model. Dropping it stops the server.
pub struct ScriptedModel {
    state: Arc<Mutex<State>>,
    http: HttpServer,
}

impl ScriptedModel {
    pub fn start(wire: Arc<dyn Wire>, script: Vec<Step>) -> ScriptedModel {
        let state = Arc::new(Mutex::new(State {
            script: script.into(),
            requests: Vec::new(),
            default_text: DEFAULT_TEXT.to_owned(),
            prompt_tokens: 10,
            big_usage_left: None,
        }));
        let st = state.clone();
        let http = HttpServer::start(Arc::new(move |req: &Req| respond(&*wire, req, &st)));
        ScriptedModel { state, http }
    }

    pub fn port(&self) -> u16 {
        self.http.port()
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port())
    }

    pub fn set_default_text(&self, s: &str) {
        self.state.lock().unwrap().default_text = s.to_owned();
    }

    /// The input-token usage every answer reports (default 10): a large value makes the
    /// client compact its context.
    pub fn set_prompt_tokens(&self, n: u64) {
        self.state.lock().unwrap().prompt_tokens = n;
    }

    /// As [`set_prompt_tokens`](Self::set_prompt_tokens) for the first main-loop answer only:
    /// one compaction, for a client that would compact again after every answer reporting
    /// the same usage (OpenCode 1.18.33 does, opencode-FINDINGS.md).
    pub fn set_prompt_tokens_once(&self, n: u64) {
        let mut st = self.state.lock().unwrap();
        st.prompt_tokens = n;
        st.big_usage_left = Some(1);
    }

    /// Script items not yet consumed.
    pub fn remaining(&self) -> usize {
        self.state.lock().unwrap().script.len()
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }
}

fn respond(wire: &dyn Wire, req: &Req, state: &Mutex<State>) -> Resp {
    let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    let messages = wire.messages(&body);
    let kind = wire.classify(req, &body, &messages);
    let mut st = state.lock().unwrap();
    let step = match kind {
        Kind::Main => {
            let d = st.default_text.clone();
            Some(st.script.pop_front().unwrap_or(Step::Text(d)))
        }
        Kind::Compaction => Some(Step::Text(COMPACT_TEXT.to_owned())),
        Kind::LoopCheck => Some(Step::Text(LOOP_CHECK_TEXT.to_owned())),
        Kind::Side => Some(Step::Text(SIDE_TEXT.to_owned())),
        Kind::Other => None,
    };
    let prompt_tokens = match st.big_usage_left {
        None => st.prompt_tokens,
        Some(0) => 10,
        Some(n) => {
            if kind == Kind::Main {
                st.big_usage_left = Some(n - 1);
            }
            st.prompt_tokens
        }
    };
    let seq = st.requests.len();
    st.requests.push(Recorded {
        seq,
        method: req.method.clone(),
        path: req.path.clone(),
        headers: req.headers.clone(),
        body: body.clone(),
        kind,
        step: step.clone(),
        messages,
    });
    drop(st);
    match step {
        Some(s) => wire.answer(req, &body, &s, prompt_tokens),
        None => Resp::json(
            "404 Not Found",
            &json!({"error": {"code": 404, "message": "not scripted", "status": "NOT_FOUND"}}),
        ),
    }
}

fn has_tools(body: &Value) -> bool {
    body.get("tools")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty())
}

/// Text of a content value: a string, or an array of parts with `text`.
fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn sse_event(out: &mut String, name: &str, data: &Value) {
    out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
}

fn sse_data(out: &mut String, data: &str) {
    out.push_str(&format!("data: {data}\n\n"));
}

// ------------------------------------------------------------ Responses (Codex) ----

/// OpenAI Responses API, as Codex calls it (`POST <base>/responses`, streamed; 0.169.0 and the
/// pinned 0.171.0 alike).
pub struct ResponsesWire;

/// Start of the last user message of a Codex (local) compaction request.
pub const CODEX_COMPACT_MARKER: &str = "You are performing a CONTEXT CHECKPOINT COMPACTION";

impl Wire for ResponsesWire {
    fn messages(&self, body: &Value) -> Vec<Msg> {
        let mut out = Vec::new();
        if let Some(s) = body.get("instructions").and_then(Value::as_str) {
            out.push(Msg {
                role: Role::System,
                text: s.to_owned(),
            });
        }
        for item in body
            .get("input")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let s = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or("");
            match s("type") {
                "message" | "" => {
                    let role = match s("role") {
                        "system" => Role::System,
                        "developer" => Role::Developer,
                        "assistant" => Role::Assistant,
                        _ => Role::User,
                    };
                    out.push(Msg {
                        role,
                        text: content_text(item.get("content").unwrap_or(&Value::Null)),
                    });
                }
                "function_call" | "custom_tool_call" | "local_shell_call" => out.push(Msg {
                    role: Role::Assistant,
                    text: format!(
                        "[call {} {}]",
                        s("name"),
                        item.get("arguments")
                            .or(item.get("input"))
                            .or(item.get("action"))
                            .map(|a| a.as_str().map_or(a.to_string(), str::to_owned))
                            .unwrap_or_default()
                    ),
                }),
                "function_call_output" | "custom_tool_call_output" => out.push(Msg {
                    role: Role::Tool,
                    text: match item.get("output") {
                        Some(Value::String(t)) => t.clone(),
                        Some(v) => content_text(v),
                        None => String::new(),
                    },
                }),
                _ => {}
            }
        }
        out
    }

    fn classify(&self, req: &Req, body: &Value, msgs: &[Msg]) -> Kind {
        if !(req.method == "POST" && req.bare_path().ends_with("/responses")) {
            return Kind::Other;
        }
        let last_user = msgs.iter().rev().find(|m| m.role == Role::User);
        if last_user.is_some_and(|m| m.text.contains(CODEX_COMPACT_MARKER)) {
            Kind::Compaction
        } else if has_tools(body) {
            Kind::Main
        } else {
            Kind::Side
        }
    }

    fn answer(&self, _req: &Req, _body: &Value, step: &Step, prompt_tokens: u64) -> Resp {
        let id = next_id();
        let resp_id = format!("resp_e2e_{id}");
        if let Step::Parallel(calls) = step {
            return codex_calls(&resp_id, calls, prompt_tokens);
        }
        let item = match step {
            Step::Text(t) => json!({
                "type": "message", "id": format!("msg_e2e_{id}"), "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": t, "annotations": []}]
            }),
            other => codex_call(id, other),
        };
        let mut out = String::new();
        sse_event(
            &mut out,
            "response.created",
            &json!({"type": "response.created",
                    "response": {"id": resp_id, "object": "response", "status": "in_progress"}}),
        );
        let mut added = item.clone();
        if let Step::Text(_) = step {
            added["content"] = json!([]);
            added["status"] = json!("in_progress");
        }
        sse_event(
            &mut out,
            "response.output_item.added",
            &json!({"type": "response.output_item.added", "output_index": 0, "item": added}),
        );
        if let Step::Text(t) = step {
            sse_event(
                &mut out,
                "response.output_text.delta",
                &json!({"type": "response.output_text.delta", "item_id": item["id"],
                        "output_index": 0, "content_index": 0, "delta": t}),
            );
        }
        sse_event(
            &mut out,
            "response.output_item.done",
            &json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        );
        sse_event(
            &mut out,
            "response.completed",
            &json!({"type": "response.completed", "response": {
                "id": resp_id, "object": "response", "status": "completed", "output": [item],
                "usage": {"input_tokens": prompt_tokens, "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                          "total_tokens": prompt_tokens + 5}}}),
        );
        Resp::sse(out)
    }
}

fn codex_call(id: u64, step: &Step) -> Value {
    match step {
        Step::Shell(cmd) => function_call(id, "exec_command", &json!({"cmd": cmd})),
        Step::Call(name, args) => function_call(id, name, args),
        other => panic!("not a tool call: {other:?}"),
    }
}

/// One Responses-API answer made of several `function_call` items.
fn codex_calls(resp_id: &str, calls: &[Step], prompt_tokens: u64) -> Resp {
    let items: Vec<Value> = calls.iter().map(|c| codex_call(next_id(), c)).collect();
    let mut out = String::new();
    sse_event(
        &mut out,
        "response.created",
        &json!({"type": "response.created",
                "response": {"id": resp_id, "object": "response", "status": "in_progress"}}),
    );
    for (i, item) in items.iter().enumerate() {
        sse_event(
            &mut out,
            "response.output_item.added",
            &json!({"type": "response.output_item.added", "output_index": i, "item": item}),
        );
        sse_event(
            &mut out,
            "response.output_item.done",
            &json!({"type": "response.output_item.done", "output_index": i, "item": item}),
        );
    }
    sse_event(
        &mut out,
        "response.completed",
        &json!({"type": "response.completed", "response": {
            "id": resp_id, "object": "response", "status": "completed", "output": items,
            "usage": {"input_tokens": prompt_tokens, "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": prompt_tokens + 5}}}),
    );
    Resp::sse(out)
}

fn function_call(id: u64, name: &str, args: &Value) -> Value {
    json!({"type": "function_call", "id": format!("fc_e2e_{id}"), "status": "completed",
           "call_id": format!("call_e2e_{id}"), "name": name, "arguments": args.to_string()})
}

// --------------------------------------------------------------- Gemini API ----

/// The Gemini API, as Gemini CLI 0.61.0 calls it (`POST /v1beta/models/<m>:streamGenerateContent?alt=sse`;
/// compression uses non-streaming `:generateContent`).
pub struct GeminiWire;

impl Wire for GeminiWire {
    fn messages(&self, body: &Value) -> Vec<Msg> {
        let mut out = Vec::new();
        if let Some(si) = body.get("systemInstruction") {
            let t = match si {
                Value::String(s) => s.clone(),
                v => content_text(v.get("parts").unwrap_or(&Value::Null)),
            };
            out.push(Msg {
                role: Role::System,
                text: t,
            });
        }
        for c in body
            .get("contents")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let model = c.get("role").and_then(Value::as_str) == Some("model");
            let mut texts = Vec::new();
            for p in c
                .get("parts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(t) = p.get("text").and_then(Value::as_str) {
                    if p.get("thought").and_then(Value::as_bool) != Some(true) {
                        texts.push(t.to_owned());
                    }
                } else if let Some(fc) = p.get("functionCall") {
                    out.push(Msg {
                        role: Role::Assistant,
                        text: format!(
                            "[call {} {}]",
                            fc.get("name").and_then(Value::as_str).unwrap_or(""),
                            fc.get("args").unwrap_or(&Value::Null)
                        ),
                    });
                } else if let Some(fr) = p.get("functionResponse") {
                    let r = fr.get("response").unwrap_or(&Value::Null);
                    let text = r
                        .get("output")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .or_else(|| r.get("error").and_then(Value::as_str).map(str::to_owned))
                        .unwrap_or_else(|| r.to_string());
                    out.push(Msg {
                        role: Role::Tool,
                        text,
                    });
                }
            }
            if !texts.is_empty() {
                out.push(Msg {
                    role: if model { Role::Assistant } else { Role::User },
                    text: texts.join("\n"),
                });
            }
        }
        out
    }

    fn classify(&self, req: &Req, body: &Value, msgs: &[Msg]) -> Kind {
        let p = req.bare_path();
        if req.method != "POST" || !p.contains("/models/") {
            return Kind::Other;
        }
        if p.ends_with(":streamGenerateContent") && has_tools(body) {
            Kind::Main
        } else if msgs.iter().any(|m| m.text.contains(LOOP_CHECK_ASK)) {
            Kind::LoopCheck
        } else if p.ends_with(":generateContent") || p.ends_with(":streamGenerateContent") {
            // Compression (summary + verification) and any side call: a state snapshot
            // satisfies the compressor and is harmless elsewhere.
            Kind::Compaction
        } else {
            Kind::Other
        }
    }

    fn answer(&self, req: &Req, _body: &Value, step: &Step, prompt_tokens: u64) -> Resp {
        fn part(step: &Step) -> Vec<Value> {
            match step {
                Step::Text(t) => vec![json!({"text": t})],
                Step::Shell(cmd) => vec![json!({"functionCall": {"name": "run_shell_command",
                    "args": {"command": cmd, "is_background": false, "description": "scripted command"}}})],
                Step::Call(name, args) => {
                    vec![json!({"functionCall": {"name": name, "args": args}})]
                }
                Step::Parallel(calls) => calls.iter().flat_map(part).collect(),
            }
        }
        let parts = part(step);
        let chunk = json!({
            "candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": prompt_tokens, "candidatesTokenCount": 5,
                              "totalTokenCount": prompt_tokens + 5},
            "modelVersion": "mock-gemini",
            "responseId": format!("resp_e2e_{}", next_id()),
        });
        if req.bare_path().ends_with(":streamGenerateContent") {
            let mut out = String::new();
            sse_data(&mut out, &chunk.to_string());
            Resp::sse(out)
        } else {
            Resp::json("200 OK", &chunk)
        }
    }
}

// ------------------------------------------------------ chat completions (Qwen) ----

/// OpenAI chat completions, as Qwen Code 0.24.4, OpenCode 1.18.33 (and Kilo Code 7.7.9), Pi
/// 0.73.1, GitHub Copilot CLI 1.0.102, Factory Droid 0.225 and CodeBuddy 2.117 call it (`POST
/// <base>/chat/completions`, streamed); [`Step::Shell`] is a call of the client's own shell
/// tool (the tools each pinned client offers: their FINDINGS).
pub struct ChatWire {
    /// The shell tool's name and its arguments for a command.
    shell: (&'static str, fn(&str) -> Value),
}

impl ChatWire {
    /// Qwen Code: `run_shell_command {command, is_background, description}`.
    pub fn qwen() -> ChatWire {
        ChatWire {
            shell: (
                "run_shell_command",
                |cmd| json!({"command": cmd, "is_background": false, "description": "scripted command"}),
            ),
        }
    }
    /// OpenCode and Kilo Code: `bash {command, description}`.
    pub fn opencode() -> ChatWire {
        ChatWire {
            shell: (
                "bash",
                |cmd| json!({"command": cmd, "description": "scripted command"}),
            ),
        }
    }
    /// Pi: `bash {command}`.
    pub fn pi() -> ChatWire {
        ChatWire {
            shell: ("bash", |cmd| json!({ "command": cmd })),
        }
    }
    /// GitHub Copilot CLI: `bash {command, description}`.
    pub fn copilot() -> ChatWire {
        ChatWire::opencode()
    }
    /// Factory Droid: `Execute {command, summary, riskLevel, riskLevelReason}`.
    pub fn factory() -> ChatWire {
        ChatWire {
            shell: ("Execute", |cmd| {
                json!({"command": cmd, "summary": "scripted command", "riskLevel": "low",
                             "riskLevelReason": "a scripted test command"})
            }),
        }
    }
    /// CodeBuddy: `Bash {command, description}`.
    pub fn codebuddy() -> ChatWire {
        ChatWire {
            shell: (
                "Bash",
                |cmd| json!({"command": cmd, "description": "scripted command"}),
            ),
        }
    }
}

impl Wire for ChatWire {
    fn messages(&self, body: &Value) -> Vec<Msg> {
        let mut out = Vec::new();
        for m in body
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let role = match m.get("role").and_then(Value::as_str).unwrap_or("") {
                "system" => Role::System,
                "developer" => Role::Developer,
                "assistant" => Role::Assistant,
                "tool" => Role::Tool,
                _ => Role::User,
            };
            let text = content_text(m.get("content").unwrap_or(&Value::Null));
            if role == Role::Assistant {
                if !text.is_empty() {
                    out.push(Msg {
                        role,
                        text: text.clone(),
                    });
                }
                for c in m
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let f = c.get("function").unwrap_or(&Value::Null);
                    out.push(Msg {
                        role,
                        text: format!(
                            "[call {} {}]",
                            f.get("name").and_then(Value::as_str).unwrap_or(""),
                            f.get("arguments").and_then(Value::as_str).unwrap_or("")
                        ),
                    });
                }
                // an assistant message with neither still marks the model's turn
                if text.is_empty() && m.get("tool_calls").is_none() {
                    out.push(Msg {
                        role,
                        text: String::new(),
                    });
                }
            } else {
                out.push(Msg { role, text });
            }
        }
        out
    }

    fn classify(&self, req: &Req, body: &Value, _msgs: &[Msg]) -> Kind {
        if !(req.method == "POST" && req.bare_path().ends_with("/chat/completions")) {
            return Kind::Other;
        }
        if has_tools(body) {
            Kind::Main
        } else {
            // compaction is a completion without tools; so is any other side call
            Kind::Compaction
        }
    }

    fn answer(&self, _req: &Req, body: &Value, step: &Step, prompt_tokens: u64) -> Resp {
        chat_answer(body, step, prompt_tokens, &|cmd| {
            (self.shell.0.to_owned(), (self.shell.1)(cmd))
        })
    }
}

/// A chat-completions answer to `step` (streamed when the request asks for it), a shell call
/// spelled by `shell`.
fn chat_answer(
    body: &Value,
    step: &Step,
    prompt_tokens: u64,
    shell: &dyn Fn(&str) -> (String, Value),
) -> Resp {
    let id = next_id();
    let usage = json!({"prompt_tokens": prompt_tokens, "completion_tokens": 5,
                       "total_tokens": prompt_tokens + 5});
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("mock-model");
    let created = 1_796_305_500u64;
    let chunk = |choices: Value| {
        json!({"id": format!("chatcmpl-e2e-{id}"), "object": "chat.completion.chunk",
               "created": created, "model": model, "choices": choices})
    };
    let (delta, finish) = match step {
        Step::Text(t) => (json!({"role": "assistant", "content": t}), "stop"),
        Step::Shell(cmd) => {
            let (name, args) = shell(cmd);
            (tool_delta(id, &name, &args), "tool_calls")
        }
        Step::Call(name, args) => (tool_delta(id, name, args), "tool_calls"),
        Step::Parallel(calls) => {
            let list: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let (name, args) = match c {
                        Step::Shell(cmd) => shell(cmd),
                        Step::Call(name, args) => (name.clone(), args.clone()),
                        other => panic!("not a tool call: {other:?}"),
                    };
                    json!({"index": i, "id": format!("call_e2e_{id}_{i}"), "type": "function",
                           "function": {"name": name, "arguments": args.to_string()}})
                })
                .collect();
            (
                json!({"role": "assistant", "content": null, "tool_calls": list}),
                "tool_calls",
            )
        }
    };
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    if !stream {
        let mut message = delta.clone();
        if message.get("content").is_none() {
            message["content"] = Value::Null;
        }
        return Resp::json(
            "200 OK",
            &json!({"id": format!("chatcmpl-e2e-{id}"), "object": "chat.completion",
                    "created": created, "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage}),
        );
    }
    let mut out = String::new();
    sse_data(
        &mut out,
        &chunk(json!([{"index": 0, "delta": delta, "finish_reason": null}])).to_string(),
    );
    sse_data(
        &mut out,
        &chunk(json!([{"index": 0, "delta": {}, "finish_reason": finish}])).to_string(),
    );
    let mut last = chunk(json!([]));
    last["usage"] = usage;
    sse_data(&mut out, &last.to_string());
    sse_data(&mut out, "[DONE]");
    Resp::sse(out)
}

fn tool_delta(id: u64, name: &str, args: &Value) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": [{
        "index": 0, "id": format!("call_e2e_{id}"), "type": "function",
        "function": {"name": name, "arguments": args.to_string()}}]})
}
