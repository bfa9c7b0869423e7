//! Gold and run manifests (TOML). Every key problem is collected with its line; the
//! data file itself is read by `load::gold` and `load::run`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use semver::Version;
use toml_edit::{Document, Table};

use crate::load::fs::{check_path, read_file};
use crate::model::{
    DataFormat, FrozenMeaning, GoldMeta, IndexVersion, LongNames, MetaValue, Recorded, Recording,
    RunMeta, TagsFile, TeamMeta,
};
use crate::validate::{Diagnostics, Location, ProblemKind};

const GOLD_KEYS: &str = "name, version, frozen_at, corpus, data, format, k, min_grade, sha256, frozen_version, tags, tags_sha256, frozen_k, frozen_min_grade, frozen_tags, queries, queries_sha256, columns";
const RUN_KEYS: &str = "index_version, corpus, depth, results, format, doc_map, approximate, filters, errored, latency, record, meta, columns";

/// The most characters of a manifest string that reports show (the gold's name and
/// versions, a corpus, a filter's key and value, a `[meta]` key, an unknown key),
/// as many as an index version may have (docs/contract.md §2.1).
const MAX_SHOWN_CHARS: usize = IndexVersion::MAX_CHARS;

/// The problem of a manifest string longer than [`MAX_SHOWN_CHARS`], named `key`.
fn too_long(key: &str, text: &str) -> Option<ProblemKind> {
    let chars = text.chars().count();
    (chars > MAX_SHOWN_CHARS).then(|| ProblemKind::TooLong {
        key: key.to_string(),
        chars,
        max: MAX_SHOWN_CHARS,
    })
}

/// A parsed manifest with its raw text, for line numbers.
pub struct ManifestDoc {
    pub path: PathBuf,
    pub display: String,
    pub doc: Document<String>,
    /// Where each line after the first starts, found once: a line number is then a
    /// binary search, not a count from the start (linear in the problems, not
    /// quadratic).
    line_starts: Vec<usize>,
}

/// The offsets just after each `\n` in `text`.
fn line_starts(text: &str) -> Vec<usize> {
    memchr::memchr_iter(b'\n', text.as_bytes())
        .map(|p| p + 1)
        .collect()
}

impl ManifestDoc {
    fn line_of(&self, span: Option<std::ops::Range<usize>>) -> Option<u64> {
        let start = span?.start;
        Some(self.line_starts.partition_point(|&s| s <= start) as u64 + 1)
    }

    /// The line of `key`'s own name in `table` (a table of any form: an entry of a
    /// `[gate.max_drop]` section or a dotted `max_drop.ndcg` sits on a line of its
    /// own).
    pub(crate) fn entry_line(&self, table: &dyn toml_edit::TableLike, key: &str) -> Option<u64> {
        table
            .get_key_value(key)
            .and_then(|(k, _)| self.line_of(k.span()))
    }

    pub(crate) fn key_location(&self, table: &Table, key: &str) -> Location {
        let line = table
            .get_key_value(key)
            .and_then(|(k, _)| self.line_of(k.span()));
        Location::at(self.display.clone(), line)
    }
}

/// Read and parse a manifest; a problem is recorded when it cannot be.
pub fn read(path: &Path, diag: &mut Diagnostics) -> Option<ManifestDoc> {
    read_as(path, "manifest", diag)
}

/// [`read`], the file called `what` in messages (`manifest`, `policy file`).
pub fn read_as(path: &Path, what: &'static str, diag: &mut Diagnostics) -> Option<ManifestDoc> {
    let display = path.display().to_string();
    let bytes = read_file(path, what, &display, diag)?;
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let line = e.as_bytes()[..e.utf8_error().valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64
                + 1;
            diag.problem(Location::line(&display, line), ProblemKind::NotUtf8);
            return None;
        }
    };
    parse(path, text, diag)
}

/// Parse manifest text (the fuzz targets and tests use this); `path` names it in
/// messages and anchors relative data paths.
pub fn parse(path: &Path, text: String, diag: &mut Diagnostics) -> Option<ManifestDoc> {
    let display = path.display().to_string();
    if text.trim().is_empty() {
        diag.problem(
            Location::file(&display),
            ProblemKind::EmptyFile {
                expected: "a TOML manifest",
            },
        );
        return None;
    }
    match Document::parse(text.clone()) {
        Ok(doc) => Some(ManifestDoc {
            path: path.to_path_buf(),
            display,
            line_starts: line_starts(doc.raw()),
            doc,
        }),
        Err(e) => {
            let line = e.span().map(|s| {
                text.as_bytes()[..s.start.min(text.len())]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count() as u64
                    + 1
            });
            diag.problem(
                Location::at(display, line),
                ProblemKind::Toml {
                    message: e.message().trim().to_string(),
                },
            );
            None
        }
    }
}

/// Typed access to a manifest's keys that records every problem it meets.
struct Keys<'a> {
    m: &'a ManifestDoc,
    table: &'a Table,
    diag: &'a mut Diagnostics,
}

impl Keys<'_> {
    /// A date string like "2026-09-19" (or a TOML date), if the key is there.
    fn date(&mut self, key: &str) -> Option<String> {
        let item = self.table.get(key)?;
        let text = item
            .as_str()
            .map(str::to_string)
            .or_else(|| item.as_datetime().map(|d| d.to_string()));
        match text {
            Some(t) if is_date(&t) => Some(t),
            Some(t) => {
                let loc = self.loc(key);
                self.diag
                    .problem(loc, ProblemKind::InvalidDate { value: t });
                None
            }
            None => {
                self.wrong(key, "a date string like \"2026-09-19\"");
                None
            }
        }
    }

    /// A sha256 in hex (64 digits), if the key is there; a malformed one is a problem.
    fn sha256(&mut self, key: &'static str) -> Option<String> {
        let sha = self.string(key, false)?;
        if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            let loc = self.loc(key);
            self.diag
                .problem(loc, ProblemKind::InvalidSha { value: sha.clone() });
        }
        Some(sha)
    }

    fn loc(&self, key: &str) -> Location {
        self.m.key_location(self.table, key)
    }

    fn wrong(&mut self, key: &str, expected: &'static str) {
        let loc = self.loc(key);
        self.diag.problem(
            loc,
            ProblemKind::WrongType {
                key: key.to_string(),
                expected,
            },
        );
    }

    fn missing(&mut self, key: &'static str) {
        self.diag.problem(
            Location::file(&self.m.display),
            ProblemKind::MissingKey { key },
        );
    }

    fn string(&mut self, key: &'static str, required: bool) -> Option<String> {
        match self.table.get(key) {
            None => {
                if required {
                    self.missing(key);
                }
                None
            }
            Some(item) => match item.as_str() {
                Some(s) => Some(s.to_string()),
                None => {
                    self.wrong(key, "a string");
                    None
                }
            },
        }
    }

    /// A string that reports show: at most [`MAX_SHOWN_CHARS`] characters.
    fn shown(&mut self, key: &'static str, required: bool) -> Option<String> {
        let s = self.string(key, required)?;
        match too_long(key, &s) {
            None => Some(s),
            Some(problem) => {
                let loc = self.loc(key);
                self.diag.problem(loc, problem);
                None
            }
        }
    }

    fn integer(&mut self, key: &'static str, required: bool) -> Option<i64> {
        match self.table.get(key) {
            None => {
                if required {
                    self.missing(key);
                }
                None
            }
            Some(item) => match item.as_integer() {
                Some(v) => Some(v),
                None => {
                    self.wrong(key, "a whole number");
                    None
                }
            },
        }
    }

    /// The gold's `min_grade` (default 1): a negative one is a problem, as a negative
    /// `rel` in a measure name is (docs/contract.md §2.1, §3): trec_eval grades a doc
    /// outside the qrels -1, so its `-l -1` would count unjudged docs as relevant.
    fn min_grade(&mut self) -> i64 {
        match self.integer("min_grade", false) {
            Some(value) if value < 0 => {
                let loc = self.loc("min_grade");
                self.diag
                    .problem(loc, ProblemKind::NegativeMinGrade { value });
                1
            }
            value => value.unwrap_or(1),
        }
    }

    /// A positive count such as depth or k; 0 and negatives are problems.
    fn positive(&mut self, key: &'static str, required: bool) -> Option<u32> {
        let v = self.integer(key, required)?;
        if v < 1 {
            let loc = self.loc(key);
            self.diag.problem(loc, ProblemKind::Zero { key });
            return None;
        }
        match u32::try_from(v) {
            Ok(v) => Some(v),
            Err(_) => {
                self.wrong(key, "a whole number below 4294967296");
                None
            }
        }
    }

    fn semver(&mut self, key: &'static str, required: bool) -> Option<Version> {
        let s = self.shown(key, required)?;
        match Version::parse(s.trim()) {
            Ok(v) => Some(v),
            Err(_) => {
                let loc = self.loc(key);
                self.diag
                    .problem(loc, ProblemKind::InvalidSemver { key, value: s });
                None
            }
        }
    }

    /// The run's `index_version`: any printable string (docs/contract.md §2.2).
    fn index_version(&mut self) -> Option<IndexVersion> {
        let s = self.string("index_version", true)?;
        match IndexVersion::parse(&s) {
            Ok(v) => Some(v),
            Err(reason) => {
                let loc = self.loc("index_version");
                self.diag
                    .problem(loc, ProblemKind::BadIndexVersion { reason });
                None
            }
        }
    }

    fn format(&mut self) -> Option<Option<DataFormat>> {
        match self.string("format", false) {
            None if self.table.contains_key("format") => None,
            None => Some(None),
            Some(s) => match s.as_str() {
                "csv" | "csv-long" => Some(Some(DataFormat::Csv)),
                "trec" => Some(Some(DataFormat::Trec)),
                "json" => Some(Some(DataFormat::Json)),
                "jsonl" => Some(Some(DataFormat::Jsonl)),
                _ => {
                    self.wrong(
                        "format",
                        "\"csv\", \"csv-long\", \"trec\", \"json\" or \"jsonl\"",
                    );
                    None
                }
            },
        }
    }

    /// A long table by the manifest's word (docs/contract.md §2.16): `format =
    /// "csv-long"`, or a `[columns]` table of names (`query`, `doc`, `rank`, `score`,
    /// `grade`; strings). `Some(None)`: neither; `None`: a problem was recorded.
    fn long(&mut self, format: Option<DataFormat>) -> Option<Option<LongNames>> {
        let forced = self.table.get("format").and_then(|v| v.as_str()) == Some("csv-long");
        let mut names = LongNames::default();
        let Some(item) = self.table.get("columns") else {
            return Some(forced.then_some(names));
        };
        let Some(t) = item.as_table_like() else {
            self.wrong(
                "columns",
                "a table of query, doc, rank, score, grade = \"column name\"",
            );
            return None;
        };
        let before = self.diag.problems.len();
        for (k, v) in t.iter() {
            let line = t
                .get_key_value(k)
                .and_then(|(key, _)| self.m.line_of(key.span()));
            let loc = Location::at(self.m.display.clone(), line);
            match v.as_str() {
                _ if !LongNames::KEYS.contains(&k) => self.diag.problem(
                    loc,
                    ProblemKind::UnknownKey {
                        key: format!("columns.{k}"),
                        known: "query, doc, rank, score, grade",
                    },
                ),
                Some(name) if !name.is_empty() => {
                    names.set(k, name.to_string());
                }
                _ => self.diag.problem(
                    loc,
                    ProblemKind::WrongType {
                        key: format!("columns.{k}"),
                        expected: "a column name (a non-empty string)",
                    },
                ),
            }
        }
        if matches!(format, Some(DataFormat::Json | DataFormat::Jsonl)) {
            self.wrong(
                "columns",
                "no `columns` with format json or jsonl (a long table is CSV or TSV)",
            );
        }
        (self.diag.problems.len() == before).then_some(Some(names))
    }

    fn unknown(&mut self, known: &'static str) {
        let names: Vec<&str> = known.split(", ").collect();
        for (key, _) in self.table.iter() {
            if !names.contains(&key) {
                let loc = self.loc(key);
                let problem = too_long("an unknown key", key).unwrap_or(ProblemKind::UnknownKey {
                    key: key.to_string(),
                    known,
                });
                self.diag.problem(loc, problem);
            }
        }
    }

    /// Resolve a data path relative to the manifest's folder and check it can be read.
    fn data_path(&mut self, key: &'static str, what: &'static str) -> Option<(String, PathBuf)> {
        let value = self.string(key, true)?;
        let base = self.m.path.parent().unwrap_or(Path::new(""));
        let path = base.join(&value);
        let display = path.display().to_string();
        if let Err(kind) = check_path(&path, what, &display) {
            let loc = self.loc(key);
            self.diag.problem(loc, kind);
            return None;
        }
        let outside = Path::new(&value).is_absolute()
            || Path::new(&value)
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir));
        if outside {
            self.diag.warn(format!(
                "{}: {key} points outside the manifest's folder: {display}",
                self.m.display
            ));
        }
        Some((value, path))
    }
}

impl Keys<'_> {
    /// `results`: one file, or an array of repeats of one index version in one format
    /// (docs/contract.md §6.5). An empty array, a file listed twice and repeats whose
    /// formats differ (by extension, when `format` is not given) are problems.
    fn results_paths(&mut self, format: Option<DataFormat>) -> Option<Vec<(String, PathBuf)>> {
        let Some(array) = self.table.get("results").and_then(|i| i.as_array()) else {
            return self
                .data_path("results", "run results")
                .map(|one| vec![one]);
        };
        let loc = self.loc("results");
        if array.is_empty() {
            self.diag.problem(loc, ProblemKind::EmptyResults);
            return None;
        }
        let base = self.m.path.parent().unwrap_or(Path::new("")).to_path_buf();
        let mut out: Vec<(String, PathBuf)> = Vec::new();
        // Each path canonicalised once, and looked up: linear in the repeats (pairs
        // of paths, canonicalised twice each, were quadratic: 3,000 repeats took 32 s).
        let mut seen: std::collections::HashSet<PathBuf> =
            std::collections::HashSet::with_capacity(array.len() * 2);
        let mut ok = true;
        for value in array.iter() {
            let Some(value) = value.as_str() else {
                self.wrong("results", "a string or an array of strings");
                return None;
            };
            let path = base.join(value);
            let display = path.display().to_string();
            if let Err(kind) = check_path(&path, "run results", &display) {
                self.diag.problem(loc.clone(), kind);
                ok = false;
            } else if !unseen(&mut seen, &path) {
                self.diag
                    .problem(loc.clone(), ProblemKind::RepeatTwice { path: display });
                ok = false;
            } else {
                out.push((value.to_string(), path));
            }
        }
        if format.is_none()
            && let Some((_, first)) = out.first()
        {
            let first_format = DataFormat::from_extension(first);
            for (_, path) in &out[1..] {
                let f = DataFormat::from_extension(path);
                if f != first_format {
                    self.diag.problem(
                        loc.clone(),
                        ProblemKind::RepeatFormat {
                            path: path.display().to_string(),
                            format: f.name(),
                            first: first.display().to_string(),
                            first_format: first_format.name(),
                        },
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }
}

/// Is `s` a date like 2026-09-19?
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if !(digits(0..4) && digits(5..7) && digits(8..10)) {
        return false;
    }
    let month: u32 = s[5..7].parse().unwrap_or(0);
    let day: u32 = s[8..10].parse().unwrap_or(0);
    (1..=12).contains(&month) && (1..=31).contains(&day)
}

/// Load a gold manifest's keys; the data is checked to exist but not read. A frozen
/// gold's `k`, `min_grade` and `tags` must be those `freeze` recorded
/// (docs/contract.md §4.4); `freeze` itself reads with [`gold_unchecked`].
pub fn gold(m: &ManifestDoc, diag: &mut Diagnostics) -> Option<GoldMeta> {
    let meta = gold_unchecked(m, diag)?;
    if !meta.frozen() {
        return Some(meta);
    }
    let table = m.doc.as_table();
    if meta.frozen_meaning.is_unrecorded() {
        diag.warn(format!(
            "gold {} was frozen before ragdiff recorded k, min_grade and tags (frozen_k, frozen_min_grade, frozen_tags), so they can change unseen: run `ragdiff freeze {}` to record them (no version raise needed)",
            m.display, m.display
        ));
        return Some(meta);
    }
    for (key, frozen, now) in meta.frozen_meaning.changes(&FrozenMeaning::of(&meta)) {
        let loc = if table.contains_key(key) {
            m.key_location(table, key)
        } else {
            m.key_location(table, &format!("frozen_{key}"))
        };
        diag.problem(loc, ProblemKind::FrozenMeaningChanged { key, frozen, now });
    }
    // The meta is kept: the data and tags checks still report their own problems.
    Some(meta)
}

/// `frozen_k` (a whole number or "none"), `frozen_min_grade`, `frozen_tags` (a path
/// or "none"), as `freeze` writes them.
fn frozen_meaning_keys(keys: &mut Keys) -> FrozenMeaning {
    let k = keys.table.get("frozen_k").and_then(|item| {
        match (item.as_integer(), item.as_str()) {
            (Some(v), _) if v >= 1 => u32::try_from(v).ok().map(Some),
            (_, Some("none")) => Some(None),
            _ => None,
        }
        .or_else(|| {
            keys.wrong(
                "frozen_k",
                "a whole number >= 1 or \"none\", as `ragdiff freeze` writes it",
            );
            None
        })
    });
    let min_grade = keys.integer("frozen_min_grade", false);
    let tags = keys
        .string("frozen_tags", false)
        .map(|t| (t != "none").then_some(t));
    FrozenMeaning { k, min_grade, tags }
}

/// [`gold`] without the check of the recorded meaning (`freeze` re-records it).
pub fn gold_unchecked(m: &ManifestDoc, diag: &mut Diagnostics) -> Option<GoldMeta> {
    let before = diag.problems.len();
    let table = m.doc.as_table();
    let mut keys = Keys { m, table, diag };
    keys.unknown(GOLD_KEYS);
    let name = keys.shown("name", false).unwrap_or_else(|| {
        m.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let version = keys.semver("version", true);
    let frozen_at = keys.date("frozen_at");
    let corpus = keys.shown("corpus", true);
    let data = keys.data_path("data", "gold data");
    let format = keys.format();
    let long = keys.long(format.flatten());
    let k = keys.positive("k", false);
    let min_grade = keys.min_grade();
    let sha256 = keys.sha256("sha256");
    let frozen_version = keys.semver("frozen_version", false);
    let tags = gold_tags_keys(&mut keys);
    let frozen_meaning = frozen_meaning_keys(&mut keys);
    if let (Some(v), Some(f)) = (&version, &frozen_version)
        && v < f
    {
        let loc = keys.loc("version");
        keys.diag.problem(
            loc,
            ProblemKind::VersionBelowFrozen {
                version: v.to_string(),
                frozen: f.to_string(),
            },
        );
    }
    if diag.problems.len() > before {
        return None;
    }
    let (data_display, data) = data?;
    let format = format?.unwrap_or_else(|| DataFormat::from_extension(&data));
    let (tags_file, tags_sha256) = tags;
    if format == DataFormat::Csv && tags_file.is_some() {
        diag.problem(m.key_location(table, "tags"), ProblemKind::TagsFileForCsv);
        return None;
    }
    Some(GoldMeta {
        name,
        version,
        frozen_at,
        sha256: sha256.map(|s| s.to_ascii_lowercase()),
        frozen_version,
        corpus,
        data_display,
        data,
        format,
        long: long.flatten(),
        k,
        min_grade,
        manifest: Some(m.path.clone()),
        tags_file,
        tags_sha256,
        frozen_meaning,
    })
}

/// The gold manifest's `tags` side file and `tags_sha256` (docs/contract.md §6.6).
fn gold_tags_keys(keys: &mut Keys) -> (Option<TagsFile>, Option<String>) {
    let file = if keys.table.contains_key("tags") {
        keys.data_path("tags", "tags file")
            .map(|(display, path)| TagsFile { display, path })
    } else {
        None
    };
    let sha = keys.string("tags_sha256", false);
    if let Some(s) = &sha
        && (s.len() != 64 || !s.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        let loc = keys.loc("tags_sha256");
        keys.diag
            .problem(loc, ProblemKind::InvalidSha { value: s.clone() });
    }
    (file, sha.map(|s| s.to_ascii_lowercase()))
}

/// Load a run manifest's keys; the results file is checked to exist but not read.
pub fn run(m: &ManifestDoc, diag: &mut Diagnostics) -> Option<RunMeta> {
    let before = diag.problems.len();
    let table = m.doc.as_table();
    let mut keys = Keys { m, table, diag };
    keys.unknown(RUN_KEYS);
    let index_version = keys.index_version();
    let team_meta = team_meta(m, table, keys.diag);
    let corpus = keys.shown("corpus", true);
    let depth = keys.positive("depth", true);
    let format = keys.format();
    let long = keys.long(format.flatten());
    let results = keys.results_paths(format.flatten());
    let doc_map = keys
        .table
        .contains_key("doc_map")
        .then(|| keys.data_path("doc_map", "doc map"));
    let approximate = match table.get("approximate") {
        None => false,
        Some(v) => v.as_bool().unwrap_or_else(|| {
            keys.wrong("approximate", "true or false");
            false
        }),
    };
    let filters = filters(m, table, keys.diag);
    let recording = recording_keys(&mut keys);
    if diag.problems.len() > before {
        return None;
    }
    let mut results = results?.into_iter();
    let (results_display, results_path) = results.next()?;
    let format = format?.unwrap_or_else(|| DataFormat::from_extension(&results_path));
    let results_all: Vec<(String, PathBuf)> = results.collect();
    Some(RunMeta {
        index_version,
        team_meta,
        corpus,
        depth: depth?,
        depth_declared: true,
        filters,
        results_display,
        results: results_path,
        format,
        long: long.flatten(),
        manifest: Some(m.path.clone()),
        more_results: results_all,
        doc_map: doc_map.flatten(),
        approximate,
        cut: None,
        recording,
    })
}

/// A run's `[filters]`: a table of strings, each key and value at most
/// [`MAX_SHOWN_CHARS`] characters (docs/contract.md §2.2).
fn filters(m: &ManifestDoc, table: &Table, diag: &mut Diagnostics) -> BTreeMap<String, String> {
    let mut filters = BTreeMap::new();
    let Some(item) = table.get("filters") else {
        return filters;
    };
    let Some(t) = item.as_table_like() else {
        diag.problem(
            m.key_location(table, "filters"),
            ProblemKind::WrongType {
                key: "filters".into(),
                expected: "a table of key = \"value\" strings",
            },
        );
        return filters;
    };
    for (k, v) in t.iter() {
        let line = t
            .get_key_value(k)
            .and_then(|(key, _)| m.line_of(key.span()));
        let problem = too_long("a [filters] key", k).or_else(|| match v.as_str() {
            None => Some(ProblemKind::WrongType {
                key: format!("filters.{k}"),
                expected: "a string",
            }),
            Some(s) => too_long(&format!("filters.{k}"), s),
        });
        match (problem, v.as_str()) {
            (Some(problem), _) => diag.problem(Location::at(m.display.clone(), line), problem),
            (None, Some(s)) => {
                filters.insert(k.to_string(), s.to_string());
            }
            (None, None) => {}
        }
    }
    filters
}

/// `errored` (an array of query ids), `latency` (a side file) and `[record]`
/// (docs/contract.md §2.2, §4.8).
fn recording_keys(keys: &mut Keys) -> Recording {
    let mut out = Recording::default();
    if let Some(item) = keys.table.get("errored") {
        let ids: Option<Vec<String>> = item
            .as_array()
            .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect());
        match ids {
            Some(ids) => out.errored = ids,
            None => keys.wrong("errored", "an array of query ids"),
        }
    }
    if keys.table.contains_key("latency") {
        out.latency = keys.data_path("latency", "latency file");
    }
    if let Some(item) = keys.table.get("record") {
        match item.as_table_like() {
            None => keys.wrong("record", "a table (`[record]`)"),
            Some(t) => {
                let concurrency = t.get("concurrency").and_then(|v| v.as_integer());
                let host = t.get("host").and_then(|v| v.as_str());
                if let (Some(concurrency), Some(host)) = (concurrency, host) {
                    out.recorded = Some(Recorded {
                        concurrency,
                        host: host.to_string(),
                    });
                }
            }
        }
    }
    out
}

/// A run manifest's `[meta]` table (docs/contract.md §2.2): at most
/// [`TeamMeta::MAX_KEYS`] keys of strings, numbers and booleans, kept in order.
fn team_meta(m: &ManifestDoc, table: &Table, diag: &mut Diagnostics) -> TeamMeta {
    let mut out = TeamMeta::default();
    let Some(item) = table.get("meta") else {
        return out;
    };
    let Some(t) = item.as_table_like() else {
        diag.problem(
            m.key_location(table, "meta"),
            ProblemKind::WrongType {
                key: "meta".into(),
                expected: "a table of keys (`[meta]`)",
            },
        );
        return out;
    };
    if t.len() > TeamMeta::MAX_KEYS {
        diag.problem(
            m.key_location(table, "meta"),
            ProblemKind::MetaTooMany { count: t.len() },
        );
        return out;
    }
    for (k, v) in t.iter() {
        if let Some(problem) = too_long("a [meta] key", k) {
            let line = t
                .get_key_value(k)
                .and_then(|(key, _)| m.line_of(key.span()));
            diag.problem(Location::at(m.display.clone(), line), problem);
            continue;
        }
        let value = match v.as_value() {
            Some(toml_edit::Value::String(s)) => Some(MetaValue::Text(s.value().clone())),
            Some(toml_edit::Value::Integer(i)) => Some(MetaValue::Int(*i.value())),
            Some(toml_edit::Value::Float(f)) if f.value().is_finite() => {
                Some(MetaValue::Float(*f.value()))
            }
            Some(toml_edit::Value::Boolean(b)) => Some(MetaValue::Bool(*b.value())),
            _ => None,
        };
        match value {
            Some(value) => out.0.push((k.to_string(), value)),
            None => {
                let line = t
                    .get_key_value(k)
                    .and_then(|(key, _)| m.line_of(key.span()));
                diag.problem(
                    Location::at(m.display.clone(), line),
                    ProblemKind::WrongType {
                        key: format!("meta.{k}"),
                        expected: "a string, a finite number or a boolean",
                    },
                );
            }
        }
    }
    out
}

/// Whether a path names a manifest rather than a data file.
pub fn is_manifest(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

/// Record `path` (as written and canonical) in `seen`; false when it was there: the
/// same file listed twice, by the same or another name.
fn unseen(seen: &mut std::collections::HashSet<PathBuf>, path: &Path) -> bool {
    let canonical = path.canonicalize().ok();
    let again = seen.contains(path) || canonical.as_ref().is_some_and(|c| seen.contains(c));
    seen.insert(path.to_path_buf());
    if let Some(c) = canonical {
        seen.insert(c);
    }
    !again
}
