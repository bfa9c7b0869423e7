//! The shape of `src/`, read from the sources themselves (no hand-kept list of files):
//! every file's module path is derived from where it lies under `src/` and given a
//! layer by its path prefix (a file no layer claims fails); data flows one way, so
//! no module may import one of a higher layer, and no two top-level modules may
//! import each other, directly or round a cycle. Every function is at most 80 lines
//! (from `fn` to its closing brace, every line counted, unit tests too), except the
//! listed ones, which may only leave the list; no function takes a tuple-typed
//! parameter (packing parameters into tuples is not a way to shorten a signature).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first. A module belongs to the layer of the longest prefix
/// naming it (`compare` claims `compare` and `compare::drift`); it may import its own
/// layer and those below, never one above.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "base",
        &["model", "text", "exit", "interrupt", "progress", "swar"],
    ),
    ("read", &["load", "validate", "output"]),
    ("measure", &["metrics", "stats"]),
    ("eval", &["eval"]),
    ("compare", &["compare"]),
    ("gate", &["gate"]),
    ("record", &["record"]),
    ("report", &["report"]),
    // The parsed command line; settings turn it into what the app runs.
    ("cli", &["cli"]),
    ("settings", &["settings"]),
    ("app", &["app", "fuzz"]),
    // The crate root (`src/lib.rs`, declaring the modules) and the binary.
    ("root", &["crate", "main", "python"]),
];

/// The functions over 80 lines today (file under `src/`, fn name). This list may
/// only shrink: a function not on it may not pass 80 lines, and one on it that no
/// longer does fails the test until it is taken off.
const LONG_TODAY: &[(&str, &str)] = &[];

const LIMIT: usize = 80;

/// The functions taking a tuple-typed parameter today (file under `src/`, fn name).
/// This list may only shrink, like `LONG_TODAY`.
const TUPLES_TODAY: &[(&str, &str)] = &[];

/// The `(file, fn)` pairs found against those listed: (found and not listed, listed
/// and not found).
type Pair = (String, String);
fn against(found: &BTreeSet<Pair>, listed: &[(&str, &str)]) -> (Vec<Pair>, Vec<Pair>) {
    let listed: BTreeSet<Pair> = listed
        .iter()
        .map(|(f, n)| (f.to_string(), n.to_string()))
        .collect();
    (
        found.difference(&listed).cloned().collect(),
        listed.difference(found).cloned().collect(),
    )
}

/// One source file: its path under `src/`, its module path (`crate` for lib.rs,
/// `main` for the binary) and its text with comments and string contents blanked.
struct Source {
    file: String,
    module: Vec<String>,
    code: String,
}

fn sources() -> Vec<Source> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![src.clone()];
    let mut out = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a folder of src/").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let rel = path.strip_prefix(&src).expect("under src/");
                let file = rel.to_string_lossy().replace('\\', "/");
                let text = std::fs::read_to_string(&path).expect("a source file");
                out.push(Source {
                    module: module_path(&file),
                    code: blank(&text),
                    file,
                });
            }
        }
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

/// `lib.rs` -> `crate`, `main.rs` -> `main`, `a/mod.rs` -> `a`, `a/b.rs` -> `a::b`.
fn module_path(file: &str) -> Vec<String> {
    match file {
        "lib.rs" => return vec!["crate".into()],
        "main.rs" => return vec!["main".into()],
        _ => {}
    }
    let stem = file.strip_suffix(".rs").expect("a .rs file");
    let stem = stem.strip_suffix("/mod").unwrap_or(stem);
    stem.split('/').map(String::from).collect()
}

/// The layer (its index in `LAYERS`) of a module path: the longest prefix claiming it.
fn layer_of(module: &[String]) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    for (i, (_, prefixes)) in LAYERS.iter().enumerate() {
        for prefix in *prefixes {
            let parts: Vec<&str> = prefix.split("::").collect();
            let claims =
                parts.len() <= module.len() && parts.iter().zip(module).all(|(p, m)| p == m);
            if claims && best.is_none_or(|(len, _)| parts.len() > len) {
                best = Some((parts.len(), i));
            }
        }
    }
    best.map(|(_, i)| i)
}

/// The text with comments, string and char literals blanked to spaces (newlines
/// kept, so line numbers stay), so that neither a `crate::` in a doc comment nor a
/// brace in a string is read as code.
fn blank(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let keep = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
                out.push(' ');
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    keep(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if (c[i] == 'r' || (c[i] == 'b' && next == Some('r')))
            && (i == 0 || !ident(c[i - 1]))
            && {
                let mut j = i + if c[i] == 'b' { 2 } else { 1 };
                while c.get(j) == Some(&'#') {
                    j += 1;
                }
                c.get(j) == Some(&'"')
            }
        {
            // A raw string: r"..", r#".."#, br"..".
            while c[i] != '"' {
                out.push(c[i]);
                i += 1;
            }
            let hashes = out.chars().rev().take_while(|&h| h == '#').count();
            out.push('"');
            i += 1;
            loop {
                if c[i] == '"' && (1..=hashes).all(|h| c.get(i + h) == Some(&'#')) {
                    out.push('"');
                    i += 1;
                    break;
                }
                keep(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '"' {
            out.push('"');
            i += 1;
            while c[i] != '"' {
                if c[i] == '\\' {
                    keep(&mut out, c[i]);
                    i += 1;
                }
                keep(&mut out, c[i]);
                i += 1;
            }
            out.push('"');
            i += 1;
        } else if c[i] == '\'' && (next == Some('\\') || c.get(i + 2) == Some(&'\'')) {
            // A char literal ('x', '\n', '\u{7f}'); a lifetime ('a) is left alone.
            out.push('\'');
            i += 1;
            if c[i] == '\\' {
                out.push(' ');
                i += 1;
            }
            while c[i] != '\'' {
                keep(&mut out, c[i]);
                i += 1;
            }
            out.push('\'');
            i += 1;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The top-level modules (and full paths) a file names through `crate::`: in paths,
/// in `use crate::…` and in `use crate::{a, b::c}` groups.
fn imports(code: &str) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with(|ch: char| ch.is_alphanumeric() || ch == '_') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut name = String::new();
            for ch in group.chars() {
                match ch {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        push_path(&mut out, &name);
                        name.clear();
                    }
                    _ if depth == 0 => name.push(ch),
                    _ => {}
                }
            }
            push_path(&mut out, &name);
        } else {
            push_path(&mut out, rest);
        }
    }
    out
}

/// The module path at the head of `text` (`load::fs::read_capped` -> [load, fs,
/// read_capped]; a caller takes the prefix a layer claims).
fn push_path(out: &mut BTreeSet<Vec<String>>, text: &str) {
    let mut parts = Vec::new();
    let mut rest = text.trim_start();
    loop {
        let end = rest
            .find(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
            .unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        parts.push(rest[..end].to_string());
        match rest[end..].strip_prefix("::") {
            Some(more) if more.starts_with(|ch: char| ch.is_alphanumeric() || ch == '_') => {
                rest = more
            }
            _ => break,
        }
    }
    if !parts.is_empty() && parts[0] != "self" {
        out.insert(parts);
    }
}

/// The code the import rules read: unit tests (`tests.rs`, `*_tests.rs` and code
/// after a `#[cfg(test)]`) may reach across layers to build their cases.
fn non_test(source: &Source) -> &str {
    if source.file.ends_with("tests.rs") {
        return "";
    }
    let code = &source.code;
    &code[..code.find("#[cfg(test)]").unwrap_or(code.len())]
}

/// One `fn` with a body: its name, the line of `fn`, how many lines it spans (from
/// `fn` to its closing brace) and its parameters' types.
struct Function {
    name: String,
    line: usize,
    lines: usize,
    params: Vec<String>,
}

fn functions(code: &str) -> Vec<Function> {
    let c: Vec<char> = code.chars().collect();
    let line_at = |i: usize| c[..i].iter().filter(|&&ch| ch == '\n').count() + 1;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut out = Vec::new();
    for i in 0..c.len().saturating_sub(3) {
        let keyword = c[i] == 'f'
            && c[i + 1] == 'n'
            && c[i + 2].is_whitespace()
            && (i == 0 || !ident(c[i - 1]));
        if !keyword {
            continue;
        }
        let mut j = i + 2;
        while c[j].is_whitespace() {
            j += 1;
        }
        let start = j;
        while ident(c[j]) {
            j += 1;
        }
        let name: String = c[start..j].iter().collect();
        // Generics, then the parameters, then the return type and where clause up to
        // the body's `{` (or `;` for a declaration without a body).
        let mut depth = 0i32;
        let mut params = None;
        let mut param_start = 0;
        while j < c.len() {
            match c[j] {
                '<' | '[' => depth += 1,
                '>' if c[j - 1] != '-' => depth -= 1,
                ']' => depth -= 1,
                '(' if depth == 0 && params.is_none() => {
                    param_start = j + 1;
                    depth += 1;
                }
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 && params.is_none() {
                        params = Some(c[param_start..j].iter().collect::<String>());
                    }
                }
                '{' | ';' if depth == 0 && params.is_some() => break,
                _ => {}
            }
            j += 1;
        }
        if j >= c.len() || c[j] == ';' {
            continue;
        }
        let open = j;
        let mut braces = 0;
        while j < c.len() {
            match c[j] {
                '{' => braces += 1,
                '}' => {
                    braces -= 1;
                    if braces == 0 {
                        break;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        assert!(
            j < c.len(),
            "fn {name} at line {}: no closing brace",
            line_at(open)
        );
        out.push(Function {
            name,
            line: line_at(i),
            lines: line_at(j) - line_at(i) + 1,
            params: param_types(&params.unwrap_or_default()),
        });
    }
    out
}

/// The type of each parameter in a parameter list (`self` forms left out).
fn param_types(list: &str) -> Vec<String> {
    let mut params = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    let mut last = ' ';
    for ch in list.chars() {
        match ch {
            '(' | '[' | '<' | '{' => depth += 1,
            '>' if last == '-' => {}
            ')' | ']' | '>' | '}' => depth -= 1,
            _ => {}
        }
        last = ch;
        if ch == ',' && depth == 0 {
            params.push(std::mem::take(&mut current));
        } else {
            current.push(ch);
        }
    }
    params.push(current);
    params
        .iter()
        .filter_map(|param| {
            let bytes: Vec<char> = param.chars().collect();
            let mut depth = 0;
            for (k, &ch) in bytes.iter().enumerate() {
                match ch {
                    '(' | '[' | '<' | '{' => depth += 1,
                    '>' if k > 0 && bytes[k - 1] == '-' => {}
                    ')' | ']' | '>' | '}' => depth -= 1,
                    ':' if depth == 0
                        && bytes.get(k + 1) != Some(&':')
                        && (k == 0 || bytes[k - 1] != ':') =>
                    {
                        return Some(bytes[k + 1..].iter().collect::<String>().trim().to_string());
                    }
                    _ => {}
                }
            }
            None
        })
        .collect()
}

/// Whether a parameter's type is a tuple (or a reference to one): `(A, B)`,
/// `&(A, B)`, `&mut (A, B)`, `&'a (A, B)`; the unit type `()` is not a tuple of
/// parameters.
fn is_tuple(ty: &str) -> bool {
    let mut ty = ty.trim();
    loop {
        if let Some(rest) = ty.strip_prefix('&') {
            ty = rest.trim_start();
        } else if let Some(rest) = ty.strip_prefix('\'') {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            ty = rest[end..].trim_start();
        } else if let Some(rest) = ty.strip_prefix("mut ") {
            ty = rest.trim_start();
        } else {
            break;
        }
    }
    let Some(inner) = ty.strip_prefix('(').and_then(|t| t.strip_suffix(')')) else {
        return false;
    };
    // `(impl Fn() + Sync)` is a parenthesised type; a tuple has a comma at its top.
    let mut depth = 0;
    let mut last = ' ';
    for ch in inner.chars() {
        match ch {
            '(' | '[' | '<' | '{' => depth += 1,
            '>' if last == '-' => {}
            ')' | ']' | '>' | '}' => depth -= 1,
            ',' if depth == 0 => return true,
            _ => {}
        }
        last = ch;
    }
    false
}

#[test]
fn every_source_file_has_a_layer() {
    let files = sources();
    assert!(files.len() > 20, "only {} files under src/", files.len());
    let lost: Vec<String> = files
        .iter()
        .filter(|s| layer_of(&s.module).is_none())
        .map(|s| format!("src/{} (module {})", s.file, s.module.join("::")))
        .collect();
    assert!(
        lost.is_empty(),
        "no layer claims these (add a prefix to LAYERS):\n{}",
        lost.join("\n")
    );
}

#[test]
fn lower_layers_never_import_higher_ones() {
    let mut broken = Vec::new();
    for source in sources() {
        let Some(own) = layer_of(&source.module) else {
            continue;
        };
        for path in imports(non_test(&source)) {
            let Some(theirs) = layer_of(&path) else {
                continue;
            };
            if theirs > own {
                broken.push(format!(
                    "src/{} ({}) imports crate::{} ({})",
                    source.file,
                    LAYERS[own].0,
                    path.join("::"),
                    LAYERS[theirs].0
                ));
            }
        }
    }
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}

#[test]
fn no_import_cycle_between_top_level_modules() {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for source in sources() {
        let from = source.module[0].clone();
        for path in imports(non_test(&source)) {
            if path[0] != from && layer_of(&path[..1]).is_some() {
                edges
                    .entry(from.clone())
                    .or_default()
                    .insert(path[0].clone());
            }
        }
    }
    // a reaches b: the transitive closure; a cycle is a pair that reach each other.
    let mut reach = edges.clone();
    loop {
        let mut grew = false;
        for a in edges.keys() {
            let via: BTreeSet<String> = reach[a]
                .iter()
                .flat_map(|b| reach.get(b).cloned().unwrap_or_default())
                .collect();
            let set = reach.get_mut(a).expect("a node");
            for b in via {
                grew |= set.insert(b);
            }
        }
        if !grew {
            break;
        }
    }
    let cycles: Vec<String> = reach
        .iter()
        .flat_map(|(a, set)| set.iter().map(move |b| (a, b)))
        .filter(|(a, b)| a < b && reach.get(*b).is_some_and(|back| back.contains(*a)))
        .map(|(a, b)| format!("{a} <-> {b}"))
        .collect();
    assert!(
        cycles.is_empty(),
        "import cycles between top-level modules:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn no_function_in_src_is_over_80_lines() {
    let mut long = BTreeSet::new();
    let mut report = Vec::new();
    for source in sources() {
        for f in functions(&source.code) {
            if f.lines > LIMIT {
                long.insert((source.file.clone(), f.name.clone()));
                report.push(format!(
                    "src/{}:{} fn {}: {} lines",
                    source.file, f.line, f.name, f.lines
                ));
            }
        }
    }
    let (new, gone) = against(&long, LONG_TODAY);
    assert!(
        new.is_empty() && gone.is_empty(),
        "over {LIMIT} lines and not listed in LONG_TODAY (split them): {new:?}\n\
         listed in LONG_TODAY but no longer over {LIMIT} lines (take them off): {gone:?}\n\
         all over {LIMIT}:\n{}",
        report.join("\n")
    );
}

#[test]
fn no_function_takes_a_tuple_parameter() {
    let mut found = BTreeSet::new();
    let mut report = Vec::new();
    for source in sources() {
        for f in functions(&source.code) {
            for ty in f.params.iter().filter(|ty| is_tuple(ty)) {
                found.insert((source.file.clone(), f.name.clone()));
                report.push(format!(
                    "src/{}:{} fn {}: a parameter of type {ty}",
                    source.file, f.line, f.name
                ));
            }
        }
    }
    let (new, gone) = against(&found, TUPLES_TODAY);
    assert!(
        new.is_empty() && gone.is_empty(),
        "taking a tuple-typed parameter and not listed in TUPLES_TODAY (pass the values \
         or a named struct): {new:?}\n\
         listed in TUPLES_TODAY but no longer taking one (take them off): {gone:?}\n\
         all:\n{}",
        report.join("\n")
    );
}

#[test]
fn the_scan_sees_an_import() {
    let names = |code: &str| -> Vec<String> {
        imports(&blank(code))
            .into_iter()
            .map(|p| p[0].clone())
            .collect()
    };
    assert_eq!(names("use crate::report::Format;"), ["report"]);
    assert_eq!(
        names("use crate::{exit, report::{a, b}};"),
        ["exit", "report"]
    );
    assert_eq!(names("let x = crate::report::num(1.0);"), ["report"]);
    assert_eq!(names("use crate::reporting::X;"), ["reporting"]);
    assert!(names("/// see crate::report\nlet s = \"crate::gate\";").is_empty());
    assert!(names("use my_crate::report;").is_empty());
    assert_eq!(
        layer_of(&module_path("compare/drift.rs")),
        layer_of(&["compare".into()])
    );
    assert_eq!(module_path("load/mod.rs"), ["load"]);
    assert_eq!(
        module_path("load/gold/formats.rs"),
        ["load", "gold", "formats"]
    );
    assert_eq!(layer_of(&["nowhere".into()]), None);
}

#[test]
fn the_scan_measures_a_function() {
    let code = blank(
        "fn short(a: u32) -> u32 {\n    a\n}\n\
         pub(crate) fn braces(s: &str, (x, y): (u8, u8), r: &mut (u8, u8)) {\n    let _ = \"}\";\n    let _ = '}';\n    // }\n    let _ = r#\"}\"#;\n    if true { }\n}\n\
         fn decl(x: ());\n\
         fn lifetime<'a, F: Fn(u8) -> u8>(f: F, s: &'a [u8; 4]) -> [u8; 2] {\n}\n",
    );
    let fs = functions(&code);
    let seen: Vec<(&str, usize, usize)> = fs
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.lines))
        .collect();
    assert_eq!(
        seen,
        [("short", 1, 3), ("braces", 4, 7), ("lifetime", 12, 2)]
    );
    assert_eq!(fs[1].params, ["&str", "(u8, u8)", "&mut (u8, u8)"]);
    let tuples: Vec<bool> = fs[1].params.iter().map(|t| is_tuple(t)).collect();
    assert_eq!(tuples, [false, true, true]);
    assert!(!is_tuple("()"));
    assert!(is_tuple("&'a (u8, u8)"));
    assert!(is_tuple("(u8,)"));
    assert!(!is_tuple("&(impl Fn(u8, u8) -> u8 + Sync)"));
    assert_eq!(fs[2].params, ["F", "&'a [u8; 4]"]);
}
