//! The report's page in a real browser (issue 42): Debian's Chromium, headless, renders what
//! `omc-hooks report --html` wrote for a scripted run. The page as the browser built it (after
//! the page's own inline script) has one mark per iteration, and its screenshot is not blank:
//! larger than a blank page's at the same size, and different from it.
//!
//! Needs `chromium` (`OMC_CHROMIUM`, else `chromium` on PATH or `/usr/bin/chromium`); `.ci/run`
//! installs it from Debian's packages. Without it the test fails loudly (e2e tests never skip).

use crate::common::Project;
use std::path::{Path, PathBuf};
use std::process::Command;

const SIZE: (u32, u32) = (900, 1100);

fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("OMC_CHROMIUM") {
        return p.into();
    }
    for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
        let c = dir.join("chromium");
        if c.is_file() {
            return c;
        }
    }
    let c = PathBuf::from("/usr/bin/chromium");
    assert!(
        c.is_file(),
        "chromium is needed for this test: apt-get install chromium (or set OMC_CHROMIUM)"
    );
    c
}

fn browser(args: &[String]) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", home.path().display()))
        .args(args)
        .env("HOME", home.path())
        .output()
        .expect("chromium runs")
}

fn url(p: &Path) -> String {
    format!("file://{}", p.display())
}

/// A PNG's width and height, from its header (the file must be a PNG).
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(
        bytes.len() > 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n") && &bytes[12..16] == b"IHDR"
    );
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

fn screenshot(page: &Path, to: &Path) -> Vec<u8> {
    let out = browser(&[
        format!("--screenshot={}", to.display()),
        format!("--window-size={},{}", SIZE.0, SIZE.1),
        url(page),
    ]);
    let png = std::fs::read(to).unwrap_or_else(|e| {
        panic!(
            "no screenshot ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(png_size(&png), SIZE);
    png
}

#[test]
fn e2e_report_page_renders_one_mark_per_iteration_and_is_not_blank() {
    let (p, _, _, _) = crate::run_report::scripted_run();
    let page = p.path().join("report.html");
    let (code, said) = crate::run_report::report(&p, &["--html", page.to_str().unwrap()]);
    assert_eq!(code, 0, "{said}");
    // The page as the browser built it, after its inline script ran.
    let out = browser(&["--dump-dom".to_string(), url(&page)]);
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(
        dom.contains("data-marks-drawn=\"2\""),
        "two iterations drawn: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(dom.matches("data-mark=\"iteration\"").count(), 2, "{dom}");
    assert!(dom.contains("<svg"), "{dom}");
    // The screenshot is not blank: a blank page at the same size is smaller, and different.
    let scratch = Project::new();
    let blank = scratch.path().join("blank.html");
    std::fs::write(&blank, "<!DOCTYPE html><html><body></body></html>").unwrap();
    let blank_png = screenshot(&blank, &scratch.path().join("blank.png"));
    let report_png = screenshot(&page, &scratch.path().join("report.png"));
    assert_ne!(blank_png, report_png);
    assert!(
        report_png.len() > 4 * blank_png.len(),
        "report {} bytes, blank {} bytes",
        report_png.len(),
        blank_png.len()
    );
    if let Some(to) = std::env::var_os("OMC_REPORT_SCREENSHOT") {
        std::fs::write(to, &report_png).unwrap();
    }
}
