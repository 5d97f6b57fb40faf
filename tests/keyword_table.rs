//! The labelled prompt table (`tests/data/keyword-prompts.tsv`): every case must come out as
//! labelled. Precision and recall over (prompt, mode) pairs are printed (`--nocapture`);
//! precision must be 1.0 on the table.

use omc_hooks::capabilities::keywords::detect;
use std::collections::BTreeSet;
use std::path::Path;

fn unescape(s: &str) -> String {
    s.replace("\\n", "\n").replace("\\t", "\t")
}

struct Case {
    line: usize,
    prompt: String,
    expected: BTreeSet<String>,
}

fn cases() -> Vec<Case> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/keyword-prompts.tsv");
    let text = std::fs::read_to_string(&p).unwrap();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (prompt, labels) = line
            .rsplit_once('\t')
            .unwrap_or_else(|| panic!("line {}: no TAB", i + 1));
        let expected = if labels.trim() == "-" {
            BTreeSet::new()
        } else {
            labels.split(',').map(|s| s.trim().to_string()).collect()
        };
        out.push(Case {
            line: i + 1,
            prompt: unescape(prompt),
            expected,
        });
    }
    out
}

#[test]
fn labelled_prompts_precision_and_recall() {
    let cases = cases();
    assert!(cases.len() >= 150, "the table has {} cases", cases.len());
    let (mut tp, mut fp, mut fneg) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for c in &cases {
        let det = detect(&c.prompt, &[]);
        let got: BTreeSet<String> = det.modes.iter().map(|m| m.to_string()).collect();
        tp += got.intersection(&c.expected).count();
        fp += got.difference(&c.expected).count();
        fneg += c.expected.difference(&got).count();
        if got != c.expected {
            let why: Vec<String> = det
                .candidates
                .iter()
                .map(|k| format!("{}@{}:{}", k.name, k.offset, k.rule))
                .collect();
            failures.push(format!(
                "line {}: {:?}\n    expected {:?}, got {:?} [{}]",
                c.line,
                c.prompt,
                c.expected,
                got,
                why.join(", ")
            ));
        }
    }
    let precision = if tp + fp == 0 {
        1.0
    } else {
        tp as f64 / (tp + fp) as f64
    };
    let recall = if tp + fneg == 0 {
        1.0
    } else {
        tp as f64 / (tp + fneg) as f64
    };
    println!(
        "keyword table: {} prompts, {} expected activations; precision {:.3} ({} false positives), recall {:.3} ({} missed)",
        cases.len(),
        tp + fneg,
        precision,
        fp,
        recall,
        fneg
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert_eq!(precision, 1.0);
}
