//! The docs hold: every relative link in every Markdown file resolves (the file
//! exists; a `#anchor` names a heading there, by GitHub's slug rules), README's and the
//! contract's exit-code tables equal `ragdiff::exit::CODES` row for row, and every
//! `ragdiff …` command line that README and the guide show runs on a copy of the demo
//! and exits with the code its line gives.
//!
//! The convention for command lines (CONTRIBUTING.md, "Docs"): in a ```sh or ```text
//! block, a line starting with `ragdiff`, `$ ragdiff` or `cargo run --release --` is
//! run; a `#` comment on the line saying `exit N` or `exits N` gives the expected
//! code, none means 0. A block whose commands cannot run on the demo carries
//! `<!-- not run -->` on the line before it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every Markdown file of the repository, outside `target/` and hidden folders.
fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("readable folder")
            .map(|e| e.expect("readable entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    walk(&path, out);
                }
            } else if name.ends_with(".md") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(root(), &mut out);
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn parser(text: &str) -> Parser<'_> {
    Parser::new_ext(text, Options::ENABLE_TABLES)
}

/// GitHub's anchor for a heading: lowercase, letters, digits, `-` and `_` kept,
/// spaces made `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown text's headings; a repeated slug gets `-1`, `-2`, ….
fn anchors(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut heading: Option<String> = None;
    for event in parser(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let n = seen.entry(base.clone()).or_insert(0);
                out.push(if *n == 0 { base } else { format!("{base}-{n}") });
                *n += 1;
            }
            _ => {}
        }
    }
    out
}

#[test]
fn slugs_follow_github() {
    assert_eq!(slug("1. Words"), "1-words");
    assert_eq!(slug("ragdiff — the contract"), "ragdiff--the-contract");
    assert_eq!(
        slug("2.1 Gold manifest (gold/<name>.toml)"),
        "21-gold-manifest-goldnametoml"
    );
    assert_eq!(
        anchors("# A\n\n## A\n\n### B_c\n"),
        ["a", "a-1", "b_c"].map(String::from)
    );
}

/// README is the first screen and the way in, not the manual: at most 300 lines; the
/// rest lives in docs/guide.md, docs/contract.md and ARCHITECTURE.md.
#[test]
fn readme_stays_short() {
    let lines = read(&root().join("README.md")).lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; move what a newcomer does not need first into docs/guide.md"
    );
}

#[test]
fn every_relative_link_resolves() {
    let files = markdown_files();
    assert!(files.len() >= 6, "found only {files:?}");
    let mut broken = Vec::new();
    for file in &files {
        let text = read(file);
        for event in parser(&text) {
            let dest = match event {
                Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                    dest_url.to_string()
                }
                _ => continue,
            };
            if dest.contains("://") || dest.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match dest.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (dest.as_str(), None),
            };
            let target = if path.is_empty() {
                file.clone()
            } else {
                file.parent().expect("a folder").join(path)
            };
            let shown = file.strip_prefix(root()).unwrap_or(file).display();
            if !target.exists() {
                broken.push(format!("{shown}: {dest}: no such file"));
                continue;
            }
            if let Some(anchor) = anchor
                && target.extension().is_some_and(|e| e == "md")
                && !anchors(&read(&target)).iter().any(|a| a == anchor)
            {
                broken.push(format!("{shown}: {dest}: no heading has this anchor"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The rows of every table whose header is `code | meaning`, cells as Markdown
/// (inline code keeps its backticks).
fn exit_code_tables(text: &str) -> Vec<Vec<(String, String)>> {
    let mut tables = Vec::new();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut cell: Option<String> = None;
    for event in parser(text) {
        match event {
            Event::Start(Tag::Table(_)) => rows.clear(),
            Event::Start(Tag::TableHead | Tag::TableRow) => rows.push(Vec::new()),
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::Text(t) => {
                if let Some(c) = cell.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::Code(t) => {
                if let Some(c) = cell.as_mut() {
                    c.push_str(&format!("`{t}`"));
                }
            }
            Event::End(TagEnd::TableCell) => {
                let c = cell.take().unwrap_or_default();
                rows.last_mut().expect("a row").push(c.trim().to_string());
            }
            Event::End(TagEnd::Table)
                if rows.first().is_some_and(|h| h == &["code", "meaning"]) =>
            {
                tables.push(
                    rows.iter()
                        .skip(1)
                        .map(|r| (r[0].clone(), r[1].clone()))
                        .collect(),
                );
            }
            _ => {}
        }
    }
    tables
}

#[test]
fn exit_code_tables_equal_the_one_in_exit_rs() {
    let expected: Vec<(String, String)> = ragdiff::exit::CODES
        .iter()
        .map(|(code, meaning)| (code.to_string(), meaning.to_string()))
        .collect();
    for doc in ["README.md", "docs/contract.md"] {
        let tables = exit_code_tables(&read(&root().join(doc)));
        assert_eq!(tables.len(), 1, "{doc}: one `code | meaning` table");
        assert_eq!(
            tables[0], expected,
            "{doc}'s exit codes differ from src/exit.rs"
        );
    }
}

#[test]
fn help_prints_the_exit_code_table() {
    let out = assert_cmd::Command::cargo_bin("ragdiff")
        .expect("built")
        .arg("--help")
        .output()
        .expect("runs");
    let help = String::from_utf8(out.stdout).expect("UTF-8");
    for (code, meaning) in ragdiff::exit::CODES {
        let line = format!("  {code:<4} {}", meaning.replace('`', ""));
        assert!(help.contains(&line), "--help lacks `{line}`:\n{help}");
    }
}

/// One command line a document shows, with the exit code it gives.
#[derive(Debug)]
struct Shown {
    doc: &'static str,
    line: usize,
    args: Vec<String>,
    exit: i32,
}

/// The words of a command line, quotes as a shell reads them, up to a `#` comment;
/// and the comment.
fn split(line: &str) -> (Vec<String>, String) {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, '#') if word.is_none() => return (words, line[i + 1..].to_string()),
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    (words, String::new())
}

/// `exit N` or `exits N` in a comment; none means 0.
fn expected_exit(comment: &str) -> i32 {
    let words: Vec<&str> = comment
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .find(|w| w[0] == "exit" || w[0] == "exits")
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(0)
}

#[test]
fn comments_give_the_exit_code() {
    let (args, comment) = split("$ ragdiff compare --x 'a b'   # exits 1 (a regression)");
    assert_eq!(args, ["$", "ragdiff", "compare", "--x", "a b"]);
    assert_eq!(expected_exit(&comment), 1);
    assert_eq!(expected_exit(" exit 0"), 0);
    assert_eq!(expected_exit(" the gate"), 0);
}

fn commands(doc: &'static str) -> Vec<Shown> {
    let text = read(&root().join(doc));
    let mut out = Vec::new();
    let mut block: Option<bool> = None; // Some(run?) inside a sh/text block
    for (event, range) in parser(&text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) => {
                let before = text[..range.start].trim_end();
                let marked = before
                    .lines()
                    .last()
                    .is_some_and(|l| l.trim() == "<!-- not run -->");
                block = matches!(&*lang, "sh" | "text").then_some(!marked);
            }
            Event::End(TagEnd::CodeBlock) => block = None,
            Event::Text(t) if block == Some(true) => {
                let first = text[..range.start].matches('\n').count() + 1;
                for (i, raw) in t.lines().enumerate() {
                    let line = raw.trim_start();
                    let line = line.strip_prefix("$ ").unwrap_or(line);
                    let rest = if let Some(r) = line.strip_prefix("cargo run --release --") {
                        r
                    } else if let Some(r) = line.strip_prefix("ragdiff ") {
                        r
                    } else {
                        continue;
                    };
                    let (args, comment) = split(rest);
                    out.push(Shown {
                        doc,
                        line: first + i,
                        args,
                        exit: expected_exit(&comment),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// A copy of the demo: the gold, the runs.
fn demo_copy() -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("created");
        for entry in std::fs::read_dir(from).expect("readable") {
            let path = entry.expect("entry").path();
            let dest = to.join(path.file_name().expect("a name"));
            if path.is_dir() {
                copy(&path, &dest);
            } else {
                std::fs::copy(&path, &dest).expect("copied");
            }
        }
    }
    let dir = tempfile::tempdir().expect("a temporary folder");
    for sub in ["gold", "runs"] {
        copy(&root().join(sub), &dir.path().join(sub));
    }
    dir
}

#[test]
fn every_command_line_runs_on_the_demo_with_its_exit_code() {
    let shown: Vec<Shown> = ["README.md", "docs/guide.md"]
        .into_iter()
        .flat_map(commands)
        .collect();
    assert!(shown.len() >= 6, "too few commands found: {shown:?}");
    let mut wrong = Vec::new();
    for cmd in &shown {
        let dir = demo_copy();
        let out = assert_cmd::Command::cargo_bin("ragdiff")
            .expect("built")
            .current_dir(dir.path())
            .env_remove("GITHUB_ACTIONS")
            .env_remove("CI")
            .env("NO_COLOR", "1")
            .args(&cmd.args)
            .output()
            .expect("runs");
        let code = out.status.code().unwrap_or(-1);
        if code != cmd.exit {
            wrong.push(format!(
                "{}:{}: ragdiff {} exited {code}, the text says {}\n{}",
                cmd.doc,
                cmd.line,
                cmd.args.join(" "),
                cmd.exit,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every file the citation rules cover: the sources, the tests and the Markdown.
fn cited_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("readable folder") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut out = markdown_files();
    for dir in ["src", "tests"] {
        walk(&root().join(dir), &mut out);
    }
    out.sort();
    out
}

/// The contract's section numbers: its headings (`## 2.`, `### 2.11`) and the
/// numbered items of §11 (`12.5`).
fn contract_sections() -> Vec<String> {
    let text = read(&root().join("docs/contract.md"));
    let mut out = Vec::new();
    let mut in_reliability = false;
    for line in text.lines() {
        let heading = line
            .strip_prefix("### ")
            .or_else(|| line.strip_prefix("## "));
        if let Some(h) = heading {
            let number = h
                .split_whitespace()
                .next()
                .unwrap_or("")
                .trim_end_matches('.');
            if number.chars().all(|c| c.is_ascii_digit() || c == '.') {
                in_reliability = number == "12" || number.starts_with("12.");
                out.push(number.to_string());
            }
        } else if in_reliability
            && let Some((n, _)) = line.split_once(". **")
            && n.chars().all(|c| c.is_ascii_digit())
        {
            out.push(format!("12.{n}"));
        }
    }
    out
}

/// A citation `§N` or `§N.M` in a text, with its line.
fn citations(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for (at, _) in line.match_indices('§') {
            let rest = &line[at + '§'.len_utf8()..];
            let number: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            let number = number.trim_end_matches('.');
            if !number.is_empty() {
                out.push((i + 1, number.to_string()));
            }
        }
    }
    out
}

#[test]
fn every_citation_names_a_section_of_the_contract() {
    let sections = contract_sections();
    assert!(sections.iter().any(|s| s == "12.10"), "{sections:?}");
    let mut wrong = Vec::new();
    for file in cited_files() {
        for (line, number) in citations(&read(&file)) {
            if !sections.contains(&number) {
                let shown = file.strip_prefix(root()).unwrap_or(&file).display();
                wrong.push(format!("{shown}:{line}: §{number} is not a section"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The word this test looks for, spelt so that this file does not hold it.
const WORD: &str = concat!("SP", "EC");

#[test]
fn nothing_cites_a_spec_or_an_issue() {
    let mut wrong = Vec::new();
    for file in cited_files() {
        for (i, line) in read(&file).lines().enumerate() {
            let lower = line.to_lowercase();
            let issue = lower.match_indices("issue ").any(|(at, m)| {
                lower[at + m.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit())
            });
            let spec = line.match_indices(WORD).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + WORD.len()..].chars().next();
                !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            });
            if spec || issue {
                let shown = file.strip_prefix(root()).unwrap_or(&file).display();
                wrong.push(format!("{shown}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "cite docs/contract.md sections instead:\n{}",
        wrong.join("\n")
    );
}
