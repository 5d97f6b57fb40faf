//! The labelled prompt files, scored: every prompt's expected modes against what detection
//! returns. Precision and recall are over (prompt, mode) pairs; exact match is per prompt.
//! `-- --nocapture` prints the scores and every prompt that differs.
//!
//! * `tests/data/keyword-prompts.tsv`, the corpus the rules were written against: fails under
//!   precision 0.98 or recall 0.97.
//! * `tests/data/keyword-heldout.tsv`, written before the recall work and never tuned against
//!   (its header says how it scored then): fails under precision 0.97, recall 0.95, or exact
//!   match below 95 % of its prompts.
//! * `tests/data/keyword-blind-{A..O}.tsv`, batches each written and labelled before the detector
//!   saw them, scored once as they were (the first pass, in each file's header) and only then
//!   used to generalise the rules: each fails under the held-out thresholds.
//!
//! A file's labels are for a prompt typed while a run is active; an optional third column gives
//! the modes outside any run where they differ (a stop in the person's own words), and such a
//! prompt is scored in both views. A prompt is judged as the hook judges it: a budget after the
//! mode's name (`ralph 2h fix …`) is taken out first when the mode then activates.

use omc_hooks::capabilities::keywords::{Detection, with_budget};
use omc_hooks::config::Config;
use std::collections::BTreeSet;
use std::path::Path;

fn unescape(s: &str) -> String {
    s.replace("\\n", "\n").replace("\\t", "\t")
}

struct Case {
    line: usize,
    prompt: String,
    /// While a run is active (what `detect` reports).
    expected: BTreeSet<String>,
    /// Outside any run, when the file's third column says it differs.
    idle: Option<BTreeSet<String>>,
}

fn labels(s: &str) -> BTreeSet<String> {
    if s.trim() == "-" {
        BTreeSet::new()
    } else {
        s.split(',').map(|s| s.trim().to_string()).collect()
    }
}

fn cases(file: &str) -> Vec<Case> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut cols = line.split('\t');
        let prompt = cols.next().unwrap_or("");
        let expected = labels(
            cols.next()
                .unwrap_or_else(|| panic!("{file} line {}: no TAB", i + 1)),
        );
        let idle = cols.next().map(labels);
        assert!(
            cols.next().is_none(),
            "{file} line {}: too many TABs",
            i + 1
        );
        out.push(Case {
            line: i + 1,
            prompt: unescape(prompt),
            expected,
            idle,
        });
    }
    out
}

/// Scores of one file.
struct Score {
    prompts: usize,
    exact: usize,
    precision: f64,
    recall: f64,
    failures: Vec<String>,
}

/// Detection as the hook does it, with `running` saying whether anything of the session runs
/// (outside any run a stop in the person's own words is nothing).
fn judge(prompt: &str, running: bool) -> Detection {
    with_budget(prompt, &Config::default(), &|| running).2
}

fn score(file: &str) -> Score {
    let cases = cases(file);
    let (mut tp, mut fp, mut fneg, mut exact) = (0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    // every prompt as judged while a run is active, and again outside any run when its third
    // column says the two differ
    let views = cases.iter().map(|c| (c, false, &c.expected)).chain(
        cases
            .iter()
            .filter_map(|c| c.idle.as_ref().map(|e| (c, true, e))),
    );
    let mut judged = 0;
    for (c, idle, expected) in views {
        judged += 1;
        let det = judge(&c.prompt, !idle);
        let got: BTreeSet<String> = det.modes.iter().map(|m| m.to_string()).collect();
        tp += got.intersection(expected).count();
        fp += got.difference(expected).count();
        fneg += expected.difference(&got).count();
        if got == *expected {
            exact += 1;
            continue;
        }
        let why: Vec<String> = det
            .candidates
            .iter()
            .map(|k| format!("{}@{}:{}", k.name, k.offset, k.rule))
            .collect();
        failures.push(format!(
            "{file} line {}{}: {:?}\n    expected {:?}, got {:?} [{}]",
            c.line,
            if idle { " (outside a run)" } else { "" },
            c.prompt,
            expected,
            got,
            why.join(", ")
        ));
    }
    let ratio = |a: usize, b: usize| {
        if a + b == 0 {
            1.0
        } else {
            a as f64 / (a + b) as f64
        }
    };
    let s = Score {
        prompts: judged,
        exact,
        precision: ratio(tp, fp),
        recall: ratio(tp, fneg),
        failures,
    };
    println!(
        "{file}: {} judgements (prompts, and prompts outside a run where labelled), {} expected activations; precision {:.3} ({fp} false positives), \
         recall {:.3} ({fneg} missed), exact match {}/{}",
        s.prompts,
        tp + fneg,
        s.precision,
        s.recall,
        s.exact,
        s.prompts
    );
    for f in &s.failures {
        println!("{f}");
    }
    s
}

/// Prompts under each `# --- group N …` header of the corpus, up to the next `# ---` header.
fn group_sizes(file: &str) -> Vec<(String, usize)> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut current: Option<usize> = None;
    for line in std::fs::read_to_string(p).unwrap().lines() {
        if let Some(h) = line.strip_prefix("# --- ") {
            current = h.starts_with("group ").then(|| {
                let name = h.split(':').next().unwrap_or(h).to_string();
                out.push((name, 0));
                out.len() - 1
            });
        } else if !line.starts_with('#')
            && !line.trim().is_empty()
            && let Some(i) = current
        {
            out[i].1 += 1;
        }
    }
    out
}

#[test]
fn corpus_precision_recall_and_exact_match() {
    let s = score("keyword-prompts.tsv");
    assert!(s.prompts >= 400, "the corpus has {} prompts", s.prompts);
    // issue 15: at least 30 prompts for each missed group, and as many non-invocations beside
    let groups = group_sizes("keyword-prompts.tsv");
    println!("issue-15 sections: {groups:?}");
    for g in 1..=3 {
        for kind in ["invocations", "non-invocations"] {
            let name = format!("group {g} {kind}");
            let n = groups
                .iter()
                .find(|(h, _)| *h == name)
                .map_or(0, |(_, n)| *n);
            assert!(n >= 30, "{name}: {n} prompts");
        }
    }
    assert!(
        s.precision >= 0.98 && s.recall >= 0.97,
        "precision {:.3} / recall {:.3} under 0.98 / 0.97:\n{}",
        s.precision,
        s.recall,
        s.failures.join("\n")
    );
}

#[test]
fn heldout_precision_recall_and_exact_match() {
    let s = score("keyword-heldout.tsv");
    assert!(
        s.prompts >= 100,
        "the held-out file has {} prompts",
        s.prompts
    );
    let exact_min = (s.prompts as f64 * 0.95).ceil() as usize;
    assert!(
        s.precision >= 0.97 && s.recall >= 0.95 && s.exact >= exact_min,
        "precision {:.3} / recall {:.3} / exact {}/{} under 0.97 / 0.95 / {exact_min}:\n{}",
        s.precision,
        s.recall,
        s.exact,
        s.prompts,
        s.failures.join("\n")
    );
}

#[test]
fn blind_batches_precision_recall_and_exact_match() {
    let mut below = Vec::new();
    for batch in [
        "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O",
    ] {
        let s = score(&format!("keyword-blind-{batch}.tsv"));
        assert!(s.prompts >= 100, "batch {batch} has {} prompts", s.prompts);
        let exact_min = (s.prompts as f64 * 0.95).ceil() as usize;
        if s.precision < 0.97 || s.recall < 0.95 || s.exact < exact_min {
            below.push(format!(
                "batch {batch}: precision {:.3} / recall {:.3} / exact {}/{} under 0.97 / 0.95 / \
                 {exact_min}:\n{}",
                s.precision,
                s.recall,
                s.exact,
                s.prompts,
                s.failures.join("\n")
            ));
        }
    }
    assert!(below.is_empty(), "{}", below.join("\n"));
}
