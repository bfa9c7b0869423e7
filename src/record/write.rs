//! What `record` writes (docs/contract.md §4.8): the results file (JSONL by
//! default, TREC or CSV), a latency side file for TREC and CSV, and the run
//! manifest, as one atomic set through [`crate::output::write_files`].

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::record::questions::Question;
use crate::record::{Answer, Outcome};

/// The results file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ResultsFormat {
    #[default]
    Jsonl,
    Trec,
    Csv,
}

impl ResultsFormat {
    fn extension(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::Trec => "trec",
            Self::Csv => "csv",
        }
    }
}

/// The run's metadata, as the manifest records it.
#[derive(Debug, Clone)]
pub struct RunInfo {
    pub index_version: String,
    pub corpus: Option<String>,
    pub depth: u32,
    pub filters: BTreeMap<String, String>,
    pub format: ResultsFormat,
    pub concurrency: usize,
    pub host: String,
    /// RFC 3339, UTC.
    pub recorded_at: String,
}

/// The files of one recorded run.
#[derive(Debug, Clone)]
pub struct Paths {
    pub manifest: PathBuf,
    /// One results file per repeat (docs/contract.md §4.8).
    pub results: Vec<PathBuf>,
    /// TREC and CSV only: `STEM-latency.csv`, the first repeat's.
    pub latency: Option<PathBuf>,
}

impl Paths {
    /// Beside the manifest, named after its stem: `runs/candidate.toml` gives
    /// `runs/candidate.jsonl` (and `runs/candidate-latency.csv`); with `repeats`
    /// above 1, `runs/candidate-1.jsonl`, `runs/candidate-2.jsonl`, ….
    pub fn beside(manifest: &Path, format: ResultsFormat, repeats: u32) -> Self {
        let stem = manifest
            .file_stem()
            .map_or_else(|| "run".into(), |s| s.to_string_lossy().into_owned());
        let named = |name: String| manifest.with_file_name(name);
        let ext = format.extension();
        let results = match repeats {
            0 | 1 => vec![named(format!("{stem}.{ext}"))],
            n => (1..=n)
                .map(|r| named(format!("{stem}-{r}.{ext}")))
                .collect(),
        };
        Self {
            manifest: manifest.to_path_buf(),
            results,
            latency: (format != ResultsFormat::Jsonl).then(|| named(format!("{stem}-latency.csv"))),
        }
    }

    fn file_name(path: &Path) -> String {
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// Write the run: every repeat's results, latency (TREC, CSV: the first repeat's)
/// and manifest, all or nothing. `repeats` holds each repeat's outcomes.
pub fn write_run(
    paths: &Paths,
    info: &RunInfo,
    questions: &[Question],
    repeats: &[Vec<Outcome>],
) -> anyhow::Result<()> {
    // Errored in any repeat (docs/contract.md §6.8).
    let errored: Vec<&str> = questions
        .iter()
        .enumerate()
        .filter(|(i, _)| repeats.iter().any(|r| matches!(r[*i], Outcome::Errored(_))))
        .map(|(_, q)| q.id.as_str())
        .collect();
    let manifest = manifest_text(paths, info, &errored);
    let mut files: Vec<&Path> = paths.results.iter().map(PathBuf::as_path).collect();
    let n = files.len();
    if let Some(l) = &paths.latency {
        files.push(l);
    }
    files.push(&paths.manifest);
    let last = files.len() - 1;
    crate::output::write_files(&files, |i, out| match i {
        i if i < n => results(info, questions, &repeats[i], out),
        i if i == last => out.write_all(manifest.as_bytes()),
        _ => latency(questions, &repeats[0], out),
    })
}

/// The manifest: the run manifest's keys (docs/contract.md §2.2) and `[record]`.
pub fn manifest_text(paths: &Paths, info: &RunInfo, errored: &[&str]) -> String {
    use toml_edit::{DocumentMut, Table, value};
    let mut doc = DocumentMut::new();
    doc.decor_mut()
        .set_prefix("# Recorded by `ragdiff record` (docs/contract.md §4.8).\n");
    doc["index_version"] = value(&info.index_version);
    if let Some(c) = &info.corpus {
        doc["corpus"] = value(c);
    }
    doc["depth"] = value(i64::from(info.depth));
    let names: Vec<String> = paths.results.iter().map(|p| Paths::file_name(p)).collect();
    doc["results"] = match names.as_slice() {
        [one] => value(one),
        many => value(toml_edit::Array::from_iter(many.iter())),
    };
    if let Some(l) = &paths.latency {
        doc["latency"] = value(Paths::file_name(l));
    }
    if !errored.is_empty() {
        doc["errored"] = value(toml_edit::Array::from_iter(errored.iter().copied()));
    }
    if !info.filters.is_empty() {
        let mut t = Table::new();
        for (k, v) in &info.filters {
            t[k.as_str()] = value(v);
        }
        doc["filters"] = toml_edit::Item::Table(t);
    }
    let mut r = Table::new();
    r["concurrency"] = value(info.concurrency as i64);
    r["host"] = value(&info.host);
    r["recorded_at"] = value(&info.recorded_at);
    doc["record"] = toml_edit::Item::Table(r);
    doc.to_string()
}

/// Milliseconds with 3 decimals.
fn ms(latency: f64) -> f64 {
    (latency * 1000.0).round() / 1000.0
}

fn results(
    info: &RunInfo,
    questions: &[Question],
    outcomes: &[Outcome],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    match info.format {
        ResultsFormat::Jsonl => jsonl(questions, outcomes, out),
        ResultsFormat::Trec => trec(questions, outcomes, out),
        ResultsFormat::Csv => csv(questions, outcomes, out),
    }
}

fn jsonl(questions: &[Question], outcomes: &[Outcome], out: &mut dyn Write) -> std::io::Result<()> {
    for (q, o) in questions.iter().zip(outcomes) {
        let row = match o {
            Outcome::Answered(a) => {
                let mut row = serde_json::json!({
                    "id": q.id.as_str(),
                    "retrieved_doc_ids": a.doc_ids,
                });
                if let Some(s) = &a.scores {
                    row["scores"] = serde_json::json!(s);
                }
                row["latency_ms"] = serde_json::json!(ms(a.latency_ms));
                row
            }
            Outcome::Errored(_) => serde_json::json!({
                "id": q.id.as_str(),
                "retrieved_doc_ids": [],
                "errored": true,
            }),
        };
        serde_json::to_writer(&mut *out, &row)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// TREC: the retriever's scores, or (without them) depth-descending whole numbers
/// that keep its order.
fn trec(questions: &[Question], outcomes: &[Outcome], out: &mut dyn Write) -> std::io::Result<()> {
    for (q, o) in questions.iter().zip(outcomes) {
        let Outcome::Answered(Answer {
            doc_ids, scores, ..
        }) = o
        else {
            continue;
        };
        let n = doc_ids.len();
        for (r, doc) in doc_ids.iter().enumerate() {
            let rank = r + 1;
            match scores {
                Some(s) => writeln!(out, "{} Q0 {doc} {rank} {} ragdiff", q.id, s[r])?,
                None => writeln!(out, "{} Q0 {doc} {rank} {} ragdiff", q.id, n - r)?,
            }
        }
    }
    Ok(())
}

fn csv(questions: &[Question], outcomes: &[Outcome], out: &mut dyn Write) -> std::io::Result<()> {
    let mut w = ::csv::Writer::from_writer(out);
    w.write_record(["id", "retrieved_doc_ids"])?;
    for (q, o) in questions.iter().zip(outcomes) {
        let docs = match o {
            Outcome::Answered(a) => a.doc_ids.join(";"),
            Outcome::Errored(_) => String::new(),
        };
        w.write_record([q.id.as_str(), &docs])?;
    }
    w.flush()
}

/// The latency side file: `id,latency_ms`, an empty cell for an errored query.
fn latency(
    questions: &[Question],
    outcomes: &[Outcome],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut w = ::csv::Writer::from_writer(out);
    w.write_record(["id", "latency_ms"])?;
    for (q, o) in questions.iter().zip(outcomes) {
        let cell = match o {
            Outcome::Answered(a) => format!("{}", ms(a.latency_ms)),
            Outcome::Errored(_) => String::new(),
        };
        w.write_record([q.id.as_str(), &cell])?;
    }
    w.flush()
}

/// `record --append-repeat MANIFEST` (docs/contract.md §4.8): one repeat more for an
/// existing run, recorded now from another build of the same index, in the run's own
/// format, depth and filters.
pub struct Append {
    manifest: PathBuf,
    /// The manifest as it is: rewritten in place with its other keys kept.
    text: String,
    pub index_version: String,
    pub depth: u32,
    pub filters: BTreeMap<String, String>,
    pub format: ResultsFormat,
    /// The existing results, as the manifest names them.
    names: Vec<String>,
    errored: Vec<String>,
    /// The new repeat's file: `STEM-K.EXT`, K one more than the repeats there are
    /// (or the first free number after it).
    new_results: PathBuf,
}

impl Append {
    /// The run to add to; problems (unreadable, another index version, other
    /// filters, a JSON run) go to `diag`.
    pub fn read(
        manifest: &Path,
        index_version: Option<&str>,
        depth: Option<u32>,
        filters_from: Option<&str>,
        filters: &BTreeMap<String, String>,
        diag: &mut crate::validate::Diagnostics,
    ) -> Option<Self> {
        let doc = crate::load::manifest::read(manifest, diag)?;
        let meta = crate::load::manifest::run(&doc, diag)?;
        let shown = manifest.display();
        let version = meta.index_version.as_ref().map(ToString::to_string)?;
        if let Some(v) = index_version
            && v != version
        {
            diag.usage(format!(
                "--index-version {}: {shown} records index_version {version}; --append-repeat adds a repeat of the same index version (leave --index-version out)",
                crate::text::shown(v)
            ));
        }
        if let Some(d) = depth
            && d != meta.depth
        {
            diag.usage(format!(
                "--depth {d}: {shown} records depth {}; --append-repeat adds a repeat at the run's own depth (leave --depth out)",
                meta.depth
            ));
        }
        if let Some(from) = filters_from
            && *filters != meta.filters
        {
            // A flag can be left out; the file's filters are the team's for every
            // recording (docs/contract.md §4.8).
            let fix = if from == "--filter" {
                "leave --filter out"
            } else {
                "record with the file's filters, or give --no-config"
            };
            diag.usage(format!(
                "{from}: {shown} records other filters; --append-repeat asks with the run's own ({fix})"
            ));
        }
        let format = match meta.format {
            crate::model::DataFormat::Jsonl => ResultsFormat::Jsonl,
            crate::model::DataFormat::Trec => ResultsFormat::Trec,
            crate::model::DataFormat::Csv => ResultsFormat::Csv,
            crate::model::DataFormat::Json => {
                diag.usage(format!(
                    "--append-repeat {shown}: its results are JSON; record writes JSONL, TREC or CSV"
                ));
                return None;
            }
        };
        let stem = manifest
            .file_stem()
            .map_or_else(|| "run".into(), |s| s.to_string_lossy().into_owned());
        let mut k = meta.repeat_count() + 1;
        let new_results = loop {
            let p = manifest.with_file_name(format!("{stem}-{k}.{}", format.extension()));
            if !p.exists() {
                break p;
            }
            k += 1;
        };
        let mut names = vec![meta.results_display.clone()];
        names.extend(meta.more_results.iter().map(|(d, _)| d.clone()));
        Some(Self {
            manifest: manifest.to_path_buf(),
            text: doc.doc.raw().to_string(),
            index_version: version,
            depth: meta.depth,
            filters: meta.filters,
            format,
            names,
            errored: meta.recording.errored,
            new_results,
        })
    }

    /// What is written: the new results file and the manifest.
    pub fn paths(&self) -> Paths {
        Paths {
            manifest: self.manifest.clone(),
            results: vec![self.new_results.clone()],
            latency: None,
        }
    }

    /// The new repeat's results and the manifest naming it, as one set.
    pub fn write(
        &self,
        paths: &Paths,
        info: &RunInfo,
        questions: &[Question],
        outcomes: &[Outcome],
    ) -> anyhow::Result<()> {
        let mut doc: toml_edit::DocumentMut = self.text.parse()?;
        let mut names = self.names.clone();
        names.push(Paths::file_name(&self.new_results));
        doc["results"] = toml_edit::value(toml_edit::Array::from_iter(names.iter()));
        let mut errored = self.errored.clone();
        for (q, o) in questions.iter().zip(outcomes) {
            if matches!(o, Outcome::Errored(_)) && !errored.iter().any(|e| *e == *q.id) {
                errored.push(q.id.to_string());
            }
        }
        if !errored.is_empty() {
            doc["errored"] = toml_edit::value(toml_edit::Array::from_iter(errored.iter()));
        }
        let manifest = doc.to_string();
        let files = [paths.results[0].as_path(), paths.manifest.as_path()];
        crate::output::write_files(&files, |i, out| match i {
            0 => results(info, questions, outcomes, out),
            _ => out.write_all(manifest.as_bytes()),
        })
    }
}
