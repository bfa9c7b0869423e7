//! Data flows one way: `cli -> settings -> app -> load -> validate -> metrics/eval
//! -> compare -> gate -> report`, with `model` and `text` at the bottom. This test
//! reads the sources and fails when a lower layer imports a higher one.

use std::path::Path;

/// Each layer and the modules it must never name (unit-test modules, `tests.rs`
/// files and code after `#[cfg(test)]`, are not scanned).
const RULES: &[(&str, &[&str])] = &[
    (
        "model",
        &[
            "text", "load", "validate", "metrics", "eval", "compare", "gate", "report", "app",
            "cli", "settings",
        ],
    ),
    (
        "swar",
        &[
            "model", "text", "load", "validate", "metrics", "eval", "compare", "gate", "report",
            "app", "cli", "settings",
        ],
    ),
    (
        "text",
        &[
            "model", "load", "validate", "metrics", "eval", "compare", "gate", "report", "app",
            "cli", "settings",
        ],
    ),
    (
        "load",
        &[
            "metrics", "eval", "compare", "gate", "report", "app", "cli", "settings",
        ],
    ),
    (
        "validate",
        &[
            "metrics", "eval", "compare", "gate", "report", "app", "cli", "settings",
        ],
    ),
    (
        "metrics",
        &[
            "load", "eval", "compare", "gate", "report", "app", "cli", "settings",
        ],
    ),
    (
        "eval",
        &[
            "load", "compare", "gate", "report", "app", "cli", "settings",
        ],
    ),
    (
        "stats",
        &[
            "load", "compare", "gate", "report", "app", "cli", "settings",
        ],
    ),
    (
        "compare",
        &["load", "gate", "report", "app", "cli", "settings"],
    ),
    ("gate", &["load", "report", "app", "cli", "settings"]),
    ("report", &["load", "app", "cli", "settings"]),
    ("settings", &["app"]),
];

fn sources(module: &str) -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let file = src.join(format!("{module}.rs"));
    if file.exists() {
        out.push((
            file.display().to_string(),
            std::fs::read_to_string(&file).unwrap(),
        ));
    }
    let dir = src.join(module);
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs")
                && p.file_name().is_some_and(|n| n != "tests.rs")
            {
                out.push((
                    p.display().to_string(),
                    std::fs::read_to_string(&p).unwrap(),
                ));
            }
        }
    }
    out
}

/// Whether `text` names `crate::<module>` (in a `use`, a path, or a `use crate::{…}`
/// group).
fn names(text: &str, module: &str) -> bool {
    // Unit tests may reach across layers; only the code above them counts.
    let text = &text[..text.find("#[cfg(test)]").unwrap_or(text.len())];
    let needle = format!("crate::{module}");
    let direct = text.match_indices(&needle).any(|(i, _)| {
        let after = text[i + needle.len()..].chars().next();
        !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    });
    let grouped = text.split("use crate::{").skip(1).any(|rest| {
        let group = &rest[..rest.find("};").unwrap_or(rest.len())];
        group
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == module)
    });
    direct || grouped
}

#[test]
fn lower_layers_never_import_higher_ones() {
    let mut broken = Vec::new();
    for (layer, forbidden) in RULES {
        let files = sources(layer);
        assert!(!files.is_empty(), "no sources for layer {layer}");
        for (path, text) in &files {
            for module in *forbidden {
                if names(text, module) {
                    broken.push(format!("{path} ({layer}) imports crate::{module}"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}

#[test]
fn the_scan_sees_an_import() {
    assert!(names("use crate::report::Format;", "report"));
    assert!(names("use crate::{exit, report};", "report"));
    assert!(names("let x = crate::report::num(1.0);", "report"));
    assert!(!names("use crate::reporting::X;", "report"));
    assert!(!names("use crate::load::fs;", "report"));
}

/// Every `fn` in `src/` (unit-test modules aside) with its length in lines, found
/// by indentation: the line that opens it, through the line that closes it at the
/// same indentation (rustfmt's layout).
fn long_functions(limit: usize) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![src];
    let mut long = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".rs") || name == "tests.rs" || name.ends_with("_tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let text = &text[..text.find("#[cfg(test)]").unwrap_or(text.len())];
            let lines: Vec<&str> = text.lines().collect();
            let mut i = 0;
            while i < lines.len() {
                let line = lines[i];
                let trimmed = line.trim_start();
                let indent = line.len() - trimmed.len();
                let head = trimmed
                    .trim_start_matches("pub(crate) ")
                    .trim_start_matches("pub(super) ")
                    .trim_start_matches("pub ")
                    .trim_start_matches("const ")
                    .trim_start_matches("unsafe ");
                if !head.starts_with("fn ") {
                    i += 1;
                    continue;
                }
                let mut open = i;
                while open < lines.len()
                    && !lines[open].trim_end().ends_with('{')
                    && !lines[open].trim_end().ends_with(';')
                {
                    open += 1;
                }
                if open >= lines.len() || lines[open].trim_end().ends_with(';') {
                    i = open + 1;
                    continue;
                }
                let mut close = open + 1;
                while close < lines.len() {
                    let l = lines[close];
                    if l.len() - l.trim_start().len() == indent && l.trim_start().starts_with('}') {
                        break;
                    }
                    close += 1;
                }
                let n = close - i + 1;
                if n > limit {
                    long.push(format!("{}:{} {} lines", p.display(), i + 1, n));
                }
                i = close + 1;
            }
        }
    }
    long
}

#[test]
fn no_function_in_src_is_over_80_lines() {
    let long = long_functions(80);
    assert!(long.is_empty(), "split these:\n{}", long.join("\n"));
}
