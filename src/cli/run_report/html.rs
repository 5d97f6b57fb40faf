//! `report --html FILE`: one self-contained page — inline style, an inline SVG timeline, a few
//! lines of inline script, no font, image, script or style from anywhere else, so it opens the
//! same offline, from a mail attachment or a CI artifact.
//!
//! The timeline has one column per iteration (`data-mark="iteration"` on its bar): the tokens
//! it spent as the bar, its tool calls and new work as the two thin bars under the axis, a red
//! dot per failed tool call, an orange diamond per hand-back; each column's `<title>` says the
//! numbers. The script only counts the marks the browser parsed into the legend (`#marks`) and
//! `<body data-marks-drawn>`, which is how the headless-browser test sees one mark per
//! iteration in the page as drawn.
//!
//! Text from the run (task, commands, paths, check output) is escaped, and `http` in it is
//! written with a character reference, so the page's source holds no address at all.

use super::view::RunReport;
use crate::state::usage::tokens_text;

/// Chart geometry, in SVG user units.
const WIDTH: f64 = 760.0;
const TOKENS_H: f64 = 160.0;
const LANE_H: f64 = 14.0;
const LEFT: f64 = 56.0;

/// The page.
pub(super) fn page(r: &RunReport, now: i64) -> String {
    let s = &r.run.state;
    let mut rows = String::new();
    let mut row = |k: &str, v: &str| {
        rows.push_str(&format!(
            "<tr><th>{}</th><td>{}</td></tr>\n",
            esc(k),
            esc(v)
        ));
    };
    row("Task", &s.prompt);
    row("Mode", r.run.mode);
    row("Agent", r.agent.as_deref().unwrap_or("claude"));
    row(
        "Started",
        &s.started_at.clone().unwrap_or_else(|| "?".into()),
    );
    row(
        "Ended",
        &s.ended_at.clone().unwrap_or_else(|| "not yet".into()),
    );
    row("Why", &r.reason_text());
    row("Verified", &r.verified_text());
    row("Iterations", &s.iteration.to_string());
    row("Tokens", &tokens_text(s.tokens_used));
    row("Cost", &r.cost_text());
    for e in &s.escalations {
        row("Escalated", e);
    }
    if let Some(note) = r.journal_note() {
        row("Journal", &note);
    }
    let list = |v: &[String]| -> String {
        if v.is_empty() {
            "<p class=\"none\">none recorded</p>".into()
        } else {
            format!(
                "<ul>{}</ul>",
                v.iter()
                    .map(|x| format!("<li><code>{}</code></li>", esc(x)))
                    .collect::<String>()
            )
        }
    };
    let failed_tails: String = s
        .checks
        .iter()
        .filter(|c| !c.ok && !c.tail.is_empty())
        .map(|c| {
            format!(
                "<h3>`{}` failed</h3><pre>{}</pre>",
                esc(&c.command),
                esc(&c.tail)
            )
        })
        .collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>omc-hooks report — {mode} {id}</title>\n<style>{STYLE}</style></head>\n<body>\n\
         <h1>{mode} run <code>{id}</code></h1>\n<p class=\"why\">{why}</p>\n\
         <h2>Timeline</h2>\n{chart}\n\
         <p class=\"legend\"><span class=\"k tok\"></span>tokens <span class=\"k tools\"></span>tool calls \
         <span class=\"k work\"></span>new work <span class=\"k fail\"></span>failures \
         <span class=\"k hand\"></span>hand-backs · <span id=\"marks\">{n}</span> iterations drawn</p>\n\
         <h2>Summary</h2>\n<table>\n{rows}</table>\n{failed_tails}\
         <h2>Files changed</h2>\n{files}\n<h2>Commands run</h2>\n{commands}\n\
         <p class=\"foot\">omc-hooks report, {at}</p>\n\
         <script>var n = document.querySelectorAll('svg [data-mark=iteration]').length;\
         document.getElementById('marks').textContent = n;\
         document.body.setAttribute('data-marks-drawn', n);</script>\n\
         </body></html>\n",
        mode = esc(r.run.mode),
        id = esc(&r.id),
        why = esc(&match r.cost_usd {
            Some(_) => r.reason_text(),
            None => format!("{} · {}", r.reason_text(), r.cost_text()),
        }),
        chart = chart(r),
        n = r.iterations.len(),
        files = list(&s.files_changed),
        commands = list(&s.commands_run),
        at = esc(&crate::time::human(now)),
    )
}

/// The SVG timeline.
fn chart(r: &RunReport) -> String {
    let its = &r.iterations;
    if its.is_empty() {
        return "<p class=\"none\">No iteration recorded in the run's journal.</p>".into();
    }
    let n = its.len() as f64;
    let plot_w = WIDTH - LEFT - 8.0;
    let step = plot_w / n;
    let bar_w = (step * 0.7).clamp(2.0, 48.0);
    let max_tokens = its.iter().map(|i| i.tokens).max().unwrap_or(0).max(1) as f64;
    let max_tools = its.iter().map(|i| i.tools).max().unwrap_or(0).max(1) as f64;
    let axis_y = 16.0 + TOKENS_H;
    let height = axis_y + 2.0 * LANE_H + 40.0;
    let mut o = format!(
        "<svg viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" role=\"img\" \
         aria-label=\"tokens, tool calls, new work, failures and hand-backs per iteration\">\n\
         <text x=\"4\" y=\"20\" class=\"ax\">{}</text>\
         <text x=\"4\" y=\"{axis_y}\" class=\"ax\">0</text>\
         <line x1=\"{LEFT}\" y1=\"{axis_y}\" x2=\"{}\" y2=\"{axis_y}\" class=\"axis\"/>\n",
        tokens_text(max_tokens as u64),
        WIDTH - 8.0,
    );
    for (k, it) in its.iter().enumerate() {
        let x = LEFT + step * k as f64 + (step - bar_w) / 2.0;
        let h = (it.tokens as f64 / max_tokens * TOKENS_H).max(1.0);
        let tools_w = bar_w * it.tools as f64 / max_tools;
        let work_w = bar_w * it.new_work as f64 / max_tools;
        let title = format!(
            "iteration {}: {} tokens, {} tool calls, {} with new work, {} failures{}{}",
            it.iteration,
            tokens_text(it.tokens),
            it.tools,
            it.new_work,
            it.failures,
            if it.hand_backs.is_empty() {
                String::new()
            } else {
                format!(", handed back: {}", it.hand_backs.join("; "))
            },
            if it.outcome == "continue" || it.outcome.is_empty() {
                String::new()
            } else {
                format!(", ended: {}", it.outcome)
            }
        );
        o.push_str(&format!(
            "<g class=\"it\" data-iteration=\"{i}\"><title>{title}</title>\
             <rect data-mark=\"iteration\" class=\"tok{end}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bar_w:.1}\" height=\"{h:.1}\"/>\
             <rect class=\"tools\" x=\"{x:.1}\" y=\"{ly1:.1}\" width=\"{tools_w:.1}\" height=\"5\"/>\
             <rect class=\"work\" x=\"{x:.1}\" y=\"{ly2:.1}\" width=\"{work_w:.1}\" height=\"5\"/>",
            i = it.iteration,
            title = esc(&title),
            end = if it.outcome == "continue" { "" } else { " end" },
            y = axis_y - h,
            ly1 = axis_y + 4.0,
            ly2 = axis_y + 4.0 + LANE_H / 2.0 + 2.0,
        ));
        for f in 0..it.failures.min(5) {
            o.push_str(&format!(
                "<circle class=\"fail\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\"/>",
                x + 4.0 + 8.0 * f as f64,
                axis_y + 2.0 * LANE_H + 8.0
            ));
        }
        for (b, _) in it.hand_backs.iter().enumerate().take(3) {
            let cx = x + bar_w - 4.0 - 10.0 * b as f64;
            let cy = axis_y - h - 8.0;
            o.push_str(&format!(
                "<path class=\"hand\" d=\"M{cx:.1} {:.1} L{:.1} {cy:.1} L{cx:.1} {:.1} L{:.1} {cy:.1} Z\"/>",
                cy - 5.0,
                cx + 5.0,
                cy + 5.0,
                cx - 5.0
            ));
        }
        if its.len() <= 40 || k % (its.len() / 20).max(1) == 0 {
            o.push_str(&format!(
                "<text class=\"ax\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                x + bar_w / 2.0,
                height - 4.0,
                it.iteration
            ));
        }
        o.push_str("</g>\n");
    }
    o.push_str("</svg>");
    o
}

/// Text for the page: HTML-escaped, and `http` written so that no address appears in the
/// source.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    let mut safe = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(i) = rest.to_ascii_lowercase().find("http") {
        safe.push_str(&rest[..i]);
        safe.push_str(&format!("&#{};", rest.as_bytes()[i]));
        safe.push_str(&rest[i + 1..i + 4]);
        rest = &rest[i + 4..];
    }
    safe.push_str(rest);
    safe
}

const STYLE: &str = "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;\
margin:24px auto;max-width:800px;color:#1d2330;background:#fff}\
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px;color:#3a4256}\
h3{font-size:14px;margin:12px 0 4px}.why{margin:0;color:#3a4256}\
code{font:13px ui-monospace,Menlo,Consolas,monospace}\
pre{background:#f4f5f8;padding:8px;overflow:auto;font-size:12px}\
table{border-collapse:collapse}th{text-align:left;padding:3px 16px 3px 0;color:#5a6378;\
vertical-align:top;font-weight:600}td{padding:3px 0}\
svg{display:block;background:#fafbfc;border:1px solid #e3e6ec;border-radius:6px}\
.axis{stroke:#9aa3b5}.ax{font-size:10px;fill:#5a6378}\
.tok{fill:#4c78d8}.tok.end{fill:#2f9e62}.tools{fill:#9aa3b5}.work{fill:#2f9e62}\
.fail{fill:#d64545}.hand{fill:#f08c2e}\
.legend{font-size:12px;color:#5a6378}.k{display:inline-block;width:10px;height:10px;\
margin:0 4px 0 10px;vertical-align:middle}.k.tok{background:#4c78d8}.k.tools{background:#9aa3b5}\
.k.work{background:#2f9e62}.k.fail{background:#d64545;border-radius:5px}.k.hand{background:#f08c2e;\
transform:rotate(45deg)}.none{color:#5a6378}.foot{margin-top:32px;font-size:12px;color:#8a92a6}\
ul{margin:0;padding-left:20px}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_no_address_survives() {
        let e = esc("<b> see https://x.test & HTTP://y 'q'");
        assert!(!e.to_ascii_lowercase().contains("http"), "{e}");
        assert!(e.contains("&lt;b&gt;") && e.contains("&amp;") && e.contains("&#104;ttps"));
    }
}
