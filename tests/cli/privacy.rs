//! Nothing leaked (docs/contract.md §3, §9): a distinctive question text and a
//! secret-looking string planted in the gold's question column never show up in any
//! output: eval (table, JSON), validate, compare (table, Markdown, JSON, CSV and every
//! export file), freeze, error messages, warnings and GitHub Actions annotations, for
//! valid inputs and for broken ones (a broken row, a duplicate id, a bad UTF-8 byte in
//! the row, a row with too many cells, a gold without its header row, …).

use std::path::Path;
use std::process::Output;

use rstest::rstest;

use crate::common::{Change, EVAL_CAND_JSON, code, ragdiff, render};

const QUESTION: &str = "ZEBRA-QUESTION-7731 what is my salary";
const SECRET: &str = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c";

/// Pieces of the planted strings: none may appear anywhere, even cut or escaped.
const NEEDLES: [&str; 5] = [
    "ZEBRA",
    "QUESTION-7731",
    "salary",
    "sk-live",
    "4f9a8b7c6d5e",
];

/// The gold queries and what each does between baseline and candidate (every status
/// occurs, so every report section and annotation is written); Q-8 has no answer.
const QUERIES: [(&str, Change); 7] = [
    ("Q-1", Change::NewlyFailed),
    ("Q-2", Change::NewlyFailedRetrieval),
    ("Q-3", Change::Regressed),
    ("Q-4", Change::Improved),
    ("Q-5", Change::Fixed),
    ("Q-6", Change::StillFailing),
    ("Q-7", Change::Unchanged),
];

/// The question cell every gold row carries: both planted strings, quoted (it holds
/// a comma and a `;`).
fn question_cell() -> String {
    format!("\"{QUESTION}, {SECRET}; please\"")
}

/// The valid gold rows (without header), one per line.
fn valid_rows() -> Vec<Vec<u8>> {
    let q = question_cell();
    let mut rows: Vec<Vec<u8>> = QUERIES
        .iter()
        .map(|(id, _)| format!("{id},{q},r").into_bytes())
        .collect();
    rows.push(format!("Q-8,{q},").into_bytes());
    rows
}

const HEADER: &[u8] = b"id,question,expected_doc_ids";

fn join(header: Option<&[u8]>, rows: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(h) = header {
        out.extend_from_slice(h);
        out.push(b'\n');
    }
    for r in rows {
        out.extend_from_slice(r);
        out.push(b'\n');
    }
    out
}

/// The gold CSV of each variant, with the exit code `validate` gives it.
fn gold_variant(name: &str) -> (Vec<u8>, i32) {
    let mut rows = valid_rows();
    let h = Some(HEADER);
    match name {
        "valid" => (join(h, &rows), 0),
        // the question spans lines and holds doubled quotes: still valid
        "multiline-question" => {
            rows[0] = format!("Q-1,\"{QUESTION}\n\"\"{SECRET}\"\"\r\nend\",r").into_bytes();
            (join(h, &rows), 0)
        }
        // a doc id with a control character in the row that carries the question
        "broken-row" => {
            rows[2] = format!("Q-3,{},\"r;x\u{1}y\"", question_cell()).into_bytes();
            (join(h, &rows), 2)
        }
        "duplicate-id" => {
            rows.push(format!("Q-2,{},r", question_cell()).into_bytes());
            (join(h, &rows), 2)
        }
        "whitespace-id" => {
            rows.push(format!("   ,{},r", question_cell()).into_bytes());
            (join(h, &rows), 2)
        }
        // a Latin-1 byte between the planted strings: in the ignored question
        // column only a warning (docs/contract.md §12.14), which must not quote the cell either
        "bad-utf8-byte" => {
            let mut row = format!("Q-4,\"{QUESTION} ").into_bytes();
            row.push(0xE9);
            row.extend_from_slice(format!(" {SECRET}\",r").as_bytes());
            rows[3] = row;
            (join(h, &rows), 0)
        }
        // the question unquoted: its comma makes a fourth cell
        "too-many-cells" => {
            rows[4] = format!("Q-5,{QUESTION},{SECRET},r").into_bytes();
            (join(h, &rows), 2)
        }
        // a quote that never closes swallows the rest of the file
        "unterminated-quote" => {
            rows[5] = format!("Q-6,\"{QUESTION} {SECRET},r").into_bytes();
            (join(h, &rows), 2)
        }
        // no header row: the first row (with its question) is read as the header
        "no-header" => (join(None, &rows), 2),
        // the question column without a header cell of its own
        "header-too-short" => (join(Some(b"id,expected_doc_ids"), &rows), 2),
        other => panic!("unknown variant {other}"),
    }
}

/// Write the gold variant, two valid runs (CSV) and their manifests, and the seeds'
/// one-file layout built from the same rows, into `dir`; `out/` takes the exports.
fn write_inputs(dir: &Path, gold: &[u8]) {
    use std::fmt::Write as _;
    let (mut base, mut cand) = (
        String::from("id,retrieved_doc_ids\n"),
        String::from("id,retrieved_doc_ids\n"),
    );
    let mut onefile =
        String::from("id,question,expected_doc_ids,retrieved_doc_ids,index_version\n");
    for (id, change) in QUERIES {
        let (b, c) = change.lists();
        let _ = writeln!(base, "{id},{b}");
        let _ = writeln!(cand, "{id},{c}");
        let _ = writeln!(onefile, "{id},{},r,{b},1.0.0", question_cell());
    }
    base.push_str("Q-8,x1\n");
    cand.push_str("Q-8,x1\n");
    onefile.push_str(&format!("Q-8,{},,x1,1.0.0\n", question_cell()));
    let files: [(&str, &[u8]); 7] = [
        ("gold.csv", gold),
        (
            "gold.toml",
            b"name = \"leak\"\nversion = \"1.0.0\"\ncorpus = \"leak\"\ndata = \"gold.csv\"\nk = 3\n",
        ),
        ("base.csv", base.as_bytes()),
        ("cand.csv", cand.as_bytes()),
        (
            "base.toml",
            b"index_version = \"1.0.0\"\ncorpus = \"leak\"\ndepth = 5\nresults = \"base.csv\"\n",
        ),
        (
            "cand.toml",
            b"index_version = \"1.1.0\"\ncorpus = \"leak\"\ndepth = 5\nresults = \"cand.csv\"\n",
        ),
        ("cases.csv", onefile.as_bytes()),
    ];
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).expect("an input is written");
    }
    std::fs::create_dir(dir.join("out")).expect("out/");
}

/// Files that hold the planted strings on purpose.
const PLANTED: [&str; 2] = ["gold.csv", "cases.csv"];

#[track_caller]
fn assert_clean(what: &str, bytes: &[u8], context: &str) {
    let text = String::from_utf8_lossy(bytes);
    for needle in NEEDLES {
        assert!(
            !text.contains(needle),
            "{what} contains {needle:?}:\n{text}\n---\n{context}"
        );
    }
}

/// Every file under `dir` but the planted inputs.
fn written_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("a folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if !(d == dir && PLANTED.contains(&entry.file_name().to_string_lossy().as_ref()))
            {
                out.push(path);
            }
        }
    }
    out
}

const COMPARE: [&str; 5] = ["compare", "--gold", "gold.toml", "base.toml", "cand.toml"];

/// Every command and output format, run under GitHub Actions (annotations on).
fn commands() -> Vec<Vec<&'static str>> {
    let with = |extra: &[&'static str]| {
        let mut v = COMPARE.to_vec();
        v.extend_from_slice(extra);
        v
    };
    vec![
        vec!["validate", "--gold", "gold.toml", "base.toml", "cand.toml"],
        vec!["validate", "--gold", "gold.csv", "base.csv"],
        vec!["eval", "--gold", "gold.toml", "base.toml"],
        EVAL_CAND_JSON.to_vec(),
        vec!["eval", "gold.csv", "base.csv", "--k", "3"],
        vec!["eval", "cases.csv"],
        vec!["eval", "cases.csv", "--format", "json"],
        with(&[]),
        with(&["--format", "markdown", "--export-json", "out/r.json"]),
        with(&["--format", "json", "--export-markdown", "out/r.md"]),
        with(&["--format", "csv", "--export-csv", "out/r.csv"]),
        with(&[
            "--export-markdown",
            "out/all.md",
            "--export-json",
            "out/all.json",
            "--export-csv",
            "out/all.csv",
        ]),
        with(&["--allow-failed", "Q-1", "--format", "json", "--no-gate"]),
        with(&["--max-drop", "mrr=0.01", "--fail-on-significant-drop"]),
        vec!["freeze", "gold.toml"],
    ]
}

fn run_ci(dir: &Path, args: &[&str]) -> Output {
    ragdiff(dir)
        .env("GITHUB_ACTIONS", "true")
        .args(args)
        .output()
        .expect("ragdiff runs")
}

#[rstest]
#[case::valid("valid")]
#[case::multiline_question("multiline-question")]
#[case::broken_row("broken-row")]
#[case::duplicate_id("duplicate-id")]
#[case::whitespace_id("whitespace-id")]
#[case::bad_utf8_byte("bad-utf8-byte")]
#[case::too_many_cells("too-many-cells")]
#[case::unterminated_quote("unterminated-quote")]
#[case::no_header("no-header")]
#[case::header_too_short("header-too-short")]
fn no_output_contains_the_question_or_the_secret(#[case] variant: &str) {
    let (gold, validate_code) = gold_variant(variant);
    let text = String::from_utf8_lossy(&gold);
    assert!(text.contains(QUESTION) && text.contains(SECRET) || variant == "bad-utf8-byte");
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_inputs(dir.path(), &gold);

    let mut failures = Vec::new();
    for args in commands() {
        let out = run_ci(dir.path(), &args);
        let context = format!("ragdiff {}\n{}", args.join(" "), render(&out));
        for (what, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            if NEEDLES.iter().any(|n| text.contains(n)) {
                failures.push(format!("{what} of {context}"));
            }
        }
        if args[0] == "validate" && args[2] == "gold.toml" {
            assert_eq!(code(&out), validate_code, "{context}");
        }
        // the outputs were produced (valid) or refused (broken): the check means something
        if args[0] == "compare" && validate_code == 0 {
            assert!(matches!(code(&out), 0 | 1), "{context}");
            if !args.contains(&"--allow-failed") {
                assert!(
                    String::from_utf8_lossy(&out.stderr).contains("::error title="),
                    "no annotation: {context}"
                );
            }
        }
        if args[0] != "freeze" && validate_code == 2 && args[1] != "cases.csv" {
            assert_eq!(code(&out), 2, "{context}");
        }
    }
    assert!(
        failures.is_empty(),
        "planted text leaked:\n{}",
        failures.join("\n====\n")
    );

    let written = written_files(dir.path());
    if validate_code == 0 {
        for name in ["r.json", "r.md", "r.csv", "all.md", "all.json", "all.csv"] {
            assert!(
                dir.path().join("out").join(name).is_file(),
                "out/{name} was not written"
            );
        }
    }
    for path in written {
        let bytes = std::fs::read(&path).expect("readable");
        assert_clean(&path.display().to_string(), &bytes, variant);
    }
}

/// The one-file layout with a broken row that carries the question: the messages
/// show ids only.
#[rstest]
#[case::too_many_cells(format!("Q-1,{QUESTION},{SECRET},r,r,1.0.0"))]
#[case::duplicate_id(format!("Q-2,\"{QUESTION} {SECRET}\",r,r,1.0.0"))]
#[case::invalid_doc(format!("Q-3,\"{QUESTION} {SECRET}\",r,\"r;\u{7}\",1.0.0"))]
fn one_file_layout_with_a_broken_row(#[case] row: String) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let text = format!(
        "id,question,expected_doc_ids,retrieved_doc_ids,index_version\n\
         Q-2,{q},r,r,1.0.0\nQ-3,{q},r,x,1.0.0\n{row}\n",
        q = question_cell()
    );
    std::fs::write(dir.path().join("cases.csv"), text).expect("written");
    for args in [
        &["eval", "cases.csv"][..],
        &["eval", "cases.csv", "--format", "json"][..],
        &["validate", "--gold", "cases.csv", "cases.csv"][..],
    ] {
        let out = run_ci(dir.path(), args);
        let context = format!("ragdiff {}\n{}", args.join(" "), render(&out));
        assert_eq!(code(&out), 2, "{context}");
        assert_clean("stdout", &out.stdout, &context);
        assert_clean("stderr", &out.stderr, &context);
    }
}
