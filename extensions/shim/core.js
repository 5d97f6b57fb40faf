// ---- omc-hooks plugin core (extensions/shim/core.js) ----
// Shared by the OpenCode / Kilo Code plugin and the Pi extension: runs the omc-hooks binary for
// one event, the payload on its stdin, and returns its answer. It decides nothing: which event
// runs which hook, and the binary's path, are in CONFIG (written by `omc-hooks install`), and
// what to do is the binary's answer. It fails open: a missing binary, a crash, a timeout or an
// answer it cannot read is one diagnostic and no answer, never a held or refused event.

import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

/** Where diagnostics go; each host part replaces it with its own logger. */
let report = (text) => {
  try {
    process.stderr.write(`omc-hooks: ${text}\n`);
  } catch {}
};

const said = new Set();

/** One diagnostic per kind of trouble per process: a broken install must not flood the log. */
function diagnose(kind, text) {
  if (said.has(kind)) return;
  said.add(kind);
  try {
    report(text);
  } catch {}
}

/** With OMC_TRACE_FILE set (tests, debugging), one line per event passed on and what came of it. */
function trace(event, action) {
  const file = process.env.OMC_TRACE_FILE;
  if (!file) return;
  try {
    appendFileSync(
      file,
      JSON.stringify({ plugin: CONFIG.agent, agent_event: event, action }) + "\n",
    );
  } catch {}
}

const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** The parts of an answer the hosts apply, each of the type it must have; anything else is dropped. */
function answerOf(text) {
  const line = text.trim().split("\n").pop();
  if (!line) return null;
  let v;
  try {
    v = JSON.parse(line);
  } catch {
    diagnose("garbage", "the binary's answer is not JSON; ignored");
    return null;
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return null;
  const out = {};
  for (const k of ["context", "continue", "deny", "message"]) {
    if (typeof v[k] === "string" && v[k] !== "") out[k] = v[k];
  }
  if (v.tool_input && typeof v.tool_input === "object" && !Array.isArray(v.tool_input)) {
    out.tool_input = v.tool_input;
  }
  return Object.keys(out).length ? out : null;
}

/**
 * Runs the hook that serves `event` (CONFIG.hooks) with `fields` as its payload; resolves to the
 * answer ({context, continue, deny, tool_input, message}, any of them) or null. Never rejects.
 */
function hook(event, fields) {
  const entry = CONFIG && CONFIG.hooks && CONFIG.hooks[event];
  if (!entry) return Promise.resolve(null);
  const [sub, timeoutMs] = entry;
  const payload = { hook_event_name: event, ...fields, omc_plugin: CONFIG.agent };
  return new Promise((resolve) => {
    let done = false;
    const finish = (answer, action) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      trace(event, action);
      resolve(answer);
    };
    let child;
    try {
      child = spawn(CONFIG.bin, ["--agent", CONFIG.agent, sub], {
        cwd: typeof fields.cwd === "string" ? fields.cwd : undefined,
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (e) {
      diagnose("spawn", `cannot run ${CONFIG.bin} (${e && e.message}); doing nothing until 'omc-hooks install --agent ${CONFIG.agent}' is run again`);
      finish(null, "error");
      return;
    }
    const timer = setTimeout(() => {
      diagnose("timeout", `${sub} did not answer within ${timeoutMs} ms; carried on without it`);
      try {
        child.kill("SIGKILL");
      } catch {}
      finish(null, "timeout");
    }, timeoutMs);
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      if (out.length < MAX_ANSWER_BYTES) out += d;
    });
    child.stderr.on("data", (d) => {
      if (err.length < 4096) err += d;
    });
    child.on("error", (e) => {
      diagnose("spawn", `cannot run ${CONFIG.bin} (${e && e.code ? e.code : e}); doing nothing until 'omc-hooks install --agent ${CONFIG.agent}' is run again`);
      finish(null, "error");
    });
    child.on("close", (code) => {
      if (done) return;
      if (code !== 0) {
        diagnose("exit", `${sub} exited with ${code}: ${err.trim().slice(0, 300)}`);
        finish(null, "error");
        return;
      }
      const answer = answerOf(out);
      finish(answer, answer ? Object.keys(answer).join(",") : "none");
    });
    child.stdin.on("error", () => {});
    try {
      child.stdin.end(JSON.stringify(payload));
    } catch {}
  });
}
