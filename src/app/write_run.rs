//! `write_run` (the Python module's): a results file and its manifest, written as one
//! atomic set, from lists already in rank order. Scored lists become a TREC run
//! (`qid Q0 doc rank score ragdiff`), unscored ones a CSV run (`id,retrieved_doc_ids`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::output;
use crate::validate::{InvalidInput, Problem, id_problem};

/// A run to write: per query its ids in rank order, and their scores when every doc
/// has one.
pub struct NewRun {
    pub manifest: PathBuf,
    pub results: PathBuf,
    pub queries: Vec<String>,
    pub docs: Vec<Vec<String>>,
    pub scores: Option<Vec<Vec<f64>>>,
    pub index_version: String,
    pub corpus: String,
    /// `None`: the longest list.
    pub depth: Option<u32>,
    pub filters: BTreeMap<String, String>,
}

/// Check the run, then write both files (all or nothing); every problem at once.
pub fn write_run(run: &NewRun) -> Result<(), InvalidInput> {
    let problems = problems(run);
    if !problems.is_empty() {
        return Err(InvalidInput {
            problems,
            dropped: Vec::new(),
            stopped: Vec::new(),
        });
    }
    let longest = run.docs.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let depth = run.depth.unwrap_or(longest as u32);
    let results = match &run.scores {
        Some(scores) => trec(run, scores),
        None => csv(run),
    };
    let manifest = manifest(run, depth);
    let texts = [results, manifest];
    output::write_files(&[&run.results, &run.manifest], |i, out| {
        out.write_all(texts[i].as_bytes())
    })
    .map_err(|e| match e.downcast::<InvalidInput>() {
        Ok(invalid) => invalid,
        Err(e) => InvalidInput::usage(format!("write_run: {e:#}")),
    })
}

fn usage(message: String) -> Problem {
    InvalidInput::usage(message).problems.remove(0)
}

/// Every reason the run cannot be written as asked.
fn problems(run: &NewRun) -> Vec<Problem> {
    let mut out = Vec::new();
    let trec = run.scores.is_some();
    for (what, value) in [
        ("index_version", &run.index_version),
        ("corpus", &run.corpus),
    ] {
        if let Some(why) = id_problem(value.trim()) {
            out.push(usage(format!("write_run: {what}: {why}")));
        }
    }
    for (i, (qid, docs)) in run.queries.iter().zip(&run.docs).enumerate() {
        let shown = crate::text::shown(qid);
        if let Some(why) = id_problem(qid).or_else(|| field_problem(qid, trec)) {
            out.push(usage(format!("write_run: query {shown}: {why}")));
        }
        if let Some(depth) = run.depth
            && docs.len() > depth as usize
        {
            out.push(usage(format!(
                "write_run: query {shown} has {} docs, more than depth {depth}",
                docs.len()
            )));
        }
        let mut seen = std::collections::HashSet::new();
        for doc in docs {
            let doc_shown = crate::text::shown(doc);
            if let Some(why) = id_problem(doc).or_else(|| field_problem(doc, trec)) {
                out.push(usage(format!(
                    "write_run: query {shown}: doc {doc_shown}: {why}"
                )));
            } else if !trec && doc.contains(';') {
                out.push(usage(format!(
                    "write_run: query {shown}: doc {doc_shown}: it contains `;`, which separates a CSV run's ids (give scores to write TREC)"
                )));
            }
            if !seen.insert(doc) {
                out.push(usage(format!(
                    "write_run: query {shown}: doc {doc_shown} is listed twice"
                )));
            }
        }
        if let Some(scores) = &run.scores
            && scores[i].iter().any(|s| !s.is_finite())
        {
            out.push(usage(format!(
                "write_run: query {shown}: a score is not a finite number"
            )));
        }
    }
    out
}

/// A TREC field is split on white space: an id must hold none.
fn field_problem(id: &str, trec: bool) -> Option<&'static str> {
    (trec && id.chars().any(char::is_whitespace))
        .then_some("it contains white space, which separates a TREC run's fields")
}

fn trec(run: &NewRun, scores: &[Vec<f64>]) -> String {
    let mut out = String::new();
    for ((qid, docs), scores) in run.queries.iter().zip(&run.docs).zip(scores) {
        for (rank, (doc, score)) in docs.iter().zip(scores).enumerate() {
            out.push_str(&format!("{qid} Q0 {doc} {} {score} ragdiff\n", rank + 1));
        }
    }
    out
}

fn csv(run: &NewRun) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record(["id", "retrieved_doc_ids"]);
    for (qid, docs) in run.queries.iter().zip(&run.docs) {
        let _ = w.write_record([qid.as_str(), docs.join(";").as_str()]);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The manifest: the results named relative to the manifest's folder when inside it.
fn manifest(run: &NewRun, depth: u32) -> String {
    let folder = run.manifest.parent().unwrap_or(Path::new(""));
    let results = run.results.strip_prefix(folder).unwrap_or(&run.results);
    let mut doc = toml_edit::DocumentMut::new();
    doc["index_version"] = toml_edit::value(run.index_version.trim());
    doc["corpus"] = toml_edit::value(run.corpus.trim());
    doc["depth"] = toml_edit::value(i64::from(depth));
    doc["results"] = toml_edit::value(results.to_string_lossy().as_ref());
    doc["format"] = toml_edit::value(if run.scores.is_some() { "trec" } else { "csv" });
    if !run.filters.is_empty() {
        let mut t = toml_edit::Table::new();
        for (k, v) in &run.filters {
            t[k.as_str()] = toml_edit::value(v.as_str());
        }
        doc["filters"] = toml_edit::Item::Table(t);
    }
    format!("# Written by ragdiff.write_run.\n{doc}")
}
