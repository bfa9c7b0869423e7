//! The HTML report (docs/contract.md §9.10): escaping of hostile ids, the CSP, titles
//! in HTML only, and the page in headless Chromium (no console error, no request
//! but the file, the filter, a row's lists, a screenshot of the demo report).

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::common::{assert_code, crate_dir, fixture, run, stderr, stdout};

/// `compare` on the hostile fixture with `titles` (none when `None`) and `extra`.
fn hostile_with(titles: Option<&str>, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "compare",
        "--gold",
        "gold.toml",
        "baseline.toml",
        "candidate.toml",
    ];
    if let Some(t) = titles {
        args.extend(["--titles", t]);
    }
    args.extend_from_slice(extra);
    run(fixture("html"), &args)
}

fn hostile(extra: &[&str]) -> std::process::Output {
    hostile_with(Some("titles.csv"), extra)
}

/// The text between `open` and the next `</script>` after it.
fn between<'a>(page: &'a str, open: &str) -> &'a str {
    let start = page.find(open).expect(open) + open.len();
    let end = page[start..].find("</script>").expect("</script>") + start;
    &page[start..end]
}

#[test]
fn hostile_ids_are_escaped_in_markup_and_in_the_data_block() {
    let out = hostile(&["--format", "html"]);
    assert_code(&out, 1);
    let page = stdout(&out);
    // Exactly the file's two script elements; none opened or closed by an id.
    assert_eq!(page.matches("<script").count(), 2, "{page}");
    assert_eq!(page.matches("</script>").count(), 2, "{page}");
    assert!(!page.contains("<!--"), "a comment opened by an id");
    assert!(!page.contains("<b>x"), "markup from an id");
    for c in ['\u{202e}', '\u{2066}', '\u{2028}', '\u{2029}'] {
        assert!(!page.contains(c), "U+{:04X} written raw", c as u32);
    }
    // An attribute cannot be closed by an id: every `"onmouseover` is escaped.
    for (i, _) in page.match_indices("onmouseover") {
        let before = &page[..i];
        assert!(
            before.ends_with("&quot;") || before.ends_with("\\\""),
            "unescaped at {i}: {}",
            &page[i.saturating_sub(30)..i + 12]
        );
    }
    let data = between(
        &page,
        "<script type=\"application/json\" id=\"ragdiff-data\">",
    );
    for c in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
        assert!(!data.contains(c), "{c:?} raw in the data block");
    }
    let v: serde_json::Value = serde_json::from_str(data).expect("the data block parses");
    let ids: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"Q0<script>alert(1)</script>"), "{ids:?}");
    assert!(ids.contains(&"Q2<!--"), "{ids:?}");
    assert!(
        ids.contains(&"Q4a\\u{202e}b\\u{2066}c"),
        "bidi shown as escapes: {ids:?}"
    );
    assert_eq!(ids.len(), 6, "the six hostile queries changed: {ids:?}");
    assert_eq!(
        v["titles"]["D0<script>alert(1)</script>"],
        "title <script>alert(1)</script>"
    );
}

#[test]
fn the_csp_allows_only_the_files_own_script_and_style_by_hash() {
    let page = stdout(&run(crate_dir(), &["compare", "--format", "html"]));
    let hash = |text: &str| {
        let d = Sha256::digest(text.as_bytes());
        format!(
            "'sha256-{}'",
            base64::engine::general_purpose::STANDARD.encode(d)
        )
    };
    let script = between(&page, "<script>");
    let start = page.find("<style>").unwrap() + "<style>".len();
    let style = &page[start..start + page[start..].find("</style>").unwrap()];
    let csp = page
        .split("http-equiv=\"Content-Security-Policy\" content=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("a CSP meta tag");
    assert!(csp.starts_with("default-src 'none'; "), "{csp}");
    assert!(
        csp.contains(&format!("style-src {};", hash(style))),
        "{csp}"
    );
    assert!(
        csp.contains(&format!("script-src {};", hash(script))),
        "{csp}"
    );
    assert!(!csp.contains("unsafe"), "{csp}");
    // The SVG uses classes: no inline style attribute for the CSP to block.
    assert!(!page.contains(" style="), "a style attribute");
    assert!(
        page.contains("<svg class=\"interval\""),
        "the intervals are drawn"
    );
    for needle in ["http://", "https://", "src=", "href="] {
        assert!(!page.contains(needle), "{needle} in a self-contained page");
    }
}

#[test]
fn titles_show_in_the_html_report_only() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (md, json, csv, html) = (file("r.md"), file("r.json"), file("r.csv"), file("r.html"));
    let out = hostile(&[
        "--export-markdown",
        &md,
        "--export-json",
        &json,
        "--export-csv",
        &csv,
        "--export-html",
        &html,
    ]);
    assert_code(&out, 1);
    let read = |p: &str| std::fs::read_to_string(p).unwrap();
    assert!(
        read(&html).contains("title \\\"onmouseover"),
        "titles in HTML"
    );
    for other in [
        read(&md),
        read(&json),
        read(&csv),
        stdout(&out),
        stderr(&out),
    ] {
        assert!(
            !other.contains("title <!--"),
            "a title outside HTML:\n{other}"
        );
    }
    // Without --titles: ids only.
    let page = stdout(&hostile_with(None, &["--format", "html"]));
    assert!(page.contains("\"titles\":{}"), "no titles without --titles");
}

#[test]
fn a_doc_with_two_titles_is_refused_at_its_line() {
    let out = hostile_with(Some("titles-twice.csv"), &["--format", "html"]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains(
            "titles-twice.csv:3: doc D-ok has a title already (line 2); give each doc one title"
        ),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
}

#[test]
fn titles_without_an_html_report_is_a_usage_error() {
    let out = hostile(&["--format", "json"]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains(
            "--titles is for the HTML report only: add --export-html FILE or --format html"
        ),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
}

#[test]
fn an_html_export_over_the_titles_file_is_refused() {
    let out = hostile(&["--export-html", "titles.csv"]);
    assert_code(&out, 2);
    assert!(
        stderr(&out).contains("--export-html titles.csv would overwrite the input titles.csv"),
        "{}",
        stderr(&out)
    );
    let titles = std::fs::read_to_string(fixture("html/titles.csv")).unwrap();
    assert!(
        titles.starts_with("doc_id,title\n"),
        "the input is untouched"
    );
}

/// The means table draws each overall `--non-inferior` margin (dashed) in its rule's
/// row, a named measure's included, and none elsewhere (docs/contract.md §9.10).
#[test]
fn the_means_table_draws_a_named_rules_margin_too() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("margins.html");
    let out = run(
        crate_dir(),
        &[
            "compare",
            "--no-gate",
            "--non-inferior",
            "nDCG@5=0.05",
            "--non-inferior",
            "recall=0.1",
            "--export-html",
            page.to_str().unwrap(),
        ],
    );
    assert_code(&out, 0);
    let html = std::fs::read_to_string(&page).unwrap();
    let with_margin: Vec<&str> = html
        .lines()
        .filter(|l| l.contains("<line class=\"margin\""))
        .map(|l| l.split("</td>").next().unwrap())
        .collect();
    assert_eq!(
        with_margin,
        ["<tr><td>Recall@3", "<tr><td>nDCG@5"],
        "{html}"
    );
}

#[test]
fn promote_writes_the_html_report_too() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["gold", "runs"] {
        copy_dir(&crate_dir().join(sub), &dir.path().join(sub));
    }
    let html = dir.path().join("report.html");
    let out = run(
        dir.path(),
        &[
            "promote",
            "--force",
            "--export-html",
            html.to_str().unwrap(),
        ],
    );
    assert_code(&out, 0);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(page.contains("Q-21"), "{page}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// Whether a missing tool fails the test (CI) rather than skipping it.
fn in_ci() -> bool {
    ["CI", "RAGDIFF_CI"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty() && x != "false"))
}

fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser"].iter().find_map(|name| {
        let out = Command::new("sh")
            .args(["-c", &format!("command -v {name}")])
            .output()
            .ok()?;
        let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
        (out.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
    });
    if found.is_none() {
        assert!(
            !in_ci(),
            "chromium is missing: .ci/run installs it with apt-get"
        );
        eprintln!("skipped: chromium is not installed (apt-get install chromium)");
    }
    found
}

/// `page` in headless Chromium, driven by tests/browser/cdp.py (its screenshot to
/// `shot`): what the driver printed, once no console error, no request but the file
/// and the script's run are checked.
fn drive(chromium: &Path, page: &Path, shot: &Path) -> serde_json::Value {
    let driver = Command::new("python3")
        .arg(crate_dir().join("tests/browser/cdp.py"))
        .args([chromium.as_os_str(), page.as_os_str(), shot.as_os_str()])
        .output()
        .expect("python3 runs");
    assert!(
        driver.status.success(),
        "the driver failed: {}",
        String::from_utf8_lossy(&driver.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&driver.stdout).expect("the driver's JSON");
    assert_eq!(v["errors"], serde_json::json!([]), "console errors: {v}");
    let url = v["url"].as_str().unwrap();
    assert_eq!(
        v["requests"],
        serde_json::json!([url]),
        "a request but the file: {v}"
    );
    assert_eq!(v["ready"], "1", "the script ran: {v}");
    v
}

/// The delta as the page's script writes it (4 decimals, `+` for a rise).
fn shown_delta(x: f64) -> String {
    if x > 0.0 {
        format!("+{x:.4}")
    } else {
        format!("{x:.4}")
    }
}

/// `compare --measure` (docs/contract.md §5.4, §9.10): the means table gains a row
/// per named measure and the changed queries' table a `ΔNAME` column per measure,
/// in the static page and in Chromium, each cell the row's JSON delta; the column
/// sorts like the others.
#[test]
fn named_measures_get_a_means_row_and_a_delta_column_in_headless_chromium() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("measures.html");
    let json = dir.path().join("measures.json");
    let out = run(
        crate_dir(),
        &[
            "compare",
            "--measure",
            "Bpref",
            "--measure",
            "P(rel=1)@2",
            "--export-html",
            page.to_str().unwrap(),
            "--export-json",
            json.to_str().unwrap(),
        ],
    );
    assert_code(&out, 1);
    let html = std::fs::read_to_string(&page).unwrap();
    for text in [
        "<th>ΔnDCG</th><th>ΔBpref</th><th>ΔP(rel=1)@2</th></tr>",
        "<tr><td>Bpref</td>",
        "<tr><td>P(rel=1)@2</td>",
    ] {
        assert!(html.contains(text), "{text} not in the static page");
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let v = drive(&chromium, &page, &dir.path().join("measures.png"));
    let headers = v["headers"].as_array().unwrap();
    assert_eq!(headers.len(), 10, "{v}");
    assert_eq!(headers[8], "ΔBpref", "{v}");
    assert_eq!(headers[9], "ΔP(rel=1)@2", "{v}");
    let mut moved = 0;
    for cells in v["cells"].as_array().unwrap() {
        let id = cells[0].as_str().unwrap();
        let row = report["per_query"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} in JSON"));
        for (i, name) in [(8, "Bpref"), (9, "P(rel=1)@2")] {
            let d = row["delta"]["measures"][name].as_f64().unwrap();
            assert_eq!(cells[i], shown_delta(d).as_str(), "{id} {name}: {v}");
            moved += usize::from(d != 0.0);
        }
    }
    assert!(moved >= 4, "only {moved} named deltas moved: {v}");
    let sorted: Vec<f64> = v["sorted_last"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(sorted.len(), 6, "{v}");
    assert!(sorted.windows(2).all(|w| w[0] <= w[1]), "sorted: {v}");
}

/// The demo's report in headless Chromium, driven over the DevTools protocol by
/// tests/browser/cdp.py; its screenshot is written to
/// target/test-artefacts/html-demo.png (docs/guide.md shows a copy).
#[test]
fn the_demo_report_works_in_headless_chromium() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("demo.html");
    let out = run(
        crate_dir(),
        &["compare", "--export-html", page.to_str().unwrap()],
    );
    assert_code(&out, 1);
    let artefacts = crate_dir().join("target/test-artefacts");
    std::fs::create_dir_all(&artefacts).unwrap();
    let shot = artefacts.join("html-demo.png");
    let _ = std::fs::remove_file(&shot);
    let v = drive(&chromium, &page, &shot);
    assert_eq!(v["rows"], 6, "every changed query: {v}");
    assert_eq!(
        v["filtered"],
        serde_json::json!(["fixed", "fixed"]),
        "the filter hides rows: {v}"
    );
    let opened = &v["opened"];
    assert_eq!(opened["id"], "Q-21", "{v}");
    let lists = opened["lists"].as_array().unwrap();
    assert_eq!(lists.len(), 2, "both lists: {v}");
    assert_eq!(
        lists[0][1], "D-9 · relevant, grade 1 · candidate: rank 4 · lost",
        "labels, ranks in the other list, lost: {v}"
    );
    assert_eq!(lists[0].as_array().unwrap().len(), 3, "{v}");
    assert_eq!(
        lists[1].as_array().unwrap().len(),
        4,
        "to min(depth, 2k): {v}"
    );
    assert_eq!(opened["cut"], 2, "the k cut-off in each list: {v}");
    let sorted: Vec<&str> = v["sorted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(sorted.first(), Some(&"-0.5000"), "sorted by ΔRR: {v}");
    let png = std::fs::read(&shot).expect("the screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
}
