//! The domain types every step shares: gold sets, run metadata and what ragdiff keeps
//! of one ranking. Loading lives in `load`, numbers in `metrics`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use rustc_hash::FxHashMap;
use semver::Version;

mod allow;
pub mod history;
pub mod latency;
pub mod measure;
mod per_metric;
mod side;
pub mod threshold;

pub use allow::{AllowEntry, AllowSource};
pub use per_metric::{Metric, PerMetric};
pub use side::{Role, Side};

/// A query or doc id: ids are short, so they are stored inline (up to 24 bytes)
/// rather than each in an allocation of its own; a gold set holds millions.
pub type Id = compact_str::CompactString;

/// The format of a data file: CSV, whitespace-separated TREC lines, or JSON (one
/// dict of dicts) and JSONL (one object a line), `docs/contract.md §2.8`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataFormat {
    Csv,
    Trec,
    Json,
    Jsonl,
}

impl DataFormat {
    /// The default for a path: `.csv` is CSV, `.json` JSON, `.jsonl` JSONL, anything
    /// else TREC.
    pub fn from_extension(path: &std::path::Path) -> Self {
        match path.extension().and_then(|e| e.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("csv") => Self::Csv,
            Some(ext) if ext.eq_ignore_ascii_case("json") => Self::Json,
            Some(ext) if ext.eq_ignore_ascii_case("jsonl") => Self::Jsonl,
            _ => Self::Trec,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Csv => "csv",
            Self::Trec => "trec",
            Self::Json => "json",
            Self::Jsonl => "jsonl",
        }
    }
}

/// Column names a manifest's `[columns]` table (or `--columns`) gives for a long
/// table (docs/contract.md §2.16); a name not given is found as without them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LongNames {
    pub query: Option<String>,
    pub doc: Option<String>,
    pub rank: Option<String>,
    pub score: Option<String>,
    pub grade: Option<String>,
}

impl LongNames {
    /// The keys `[columns]` and `--columns` take.
    pub const KEYS: [&'static str; 5] = ["query", "doc", "rank", "score", "grade"];

    /// The name given for `key` (one of [`LongNames::KEYS`]).
    pub fn get(&self, key: &str) -> Option<&String> {
        match key {
            "query" => self.query.as_ref(),
            "doc" => self.doc.as_ref(),
            "rank" => self.rank.as_ref(),
            "score" => self.score.as_ref(),
            _ => self.grade.as_ref(),
        }
    }

    /// Set `key`'s name; false for a key [`LongNames::KEYS`] does not hold.
    pub fn set(&mut self, key: &str, name: String) -> bool {
        let slot = match key {
            "query" => &mut self.query,
            "doc" => &mut self.doc,
            "rank" => &mut self.rank,
            "score" => &mut self.score,
            "grade" => &mut self.grade,
            _ => return false,
        };
        *slot = Some(name);
        true
    }
}

/// One judged document of a gold query: every line the gold has for it, whatever its
/// grade (grade 0 and negative grades are judged, not relevant: docs/contract.md §6.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub doc: Id,
    pub grade: i64,
}

/// The hash of a doc id used to find it among a query's judgements and to detect
/// duplicates (not stable across versions; never stored).
pub fn doc_hash(bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(bytes);
    h.write_u8(0xff);
    h.finish()
}

/// A doc hash's bit in [`GoldQuery`]'s filter: its top six bits (the best mixed).
#[inline]
fn bloom_bit(hash: u64) -> u64 {
    1 << (hash >> 58)
}

/// One gold query: every judged document, ordered by [`doc_hash`] (with the hashes
/// beside them, for a fast look-up of every returned doc), how many of them are
/// relevant and how many were judged not relevant. Build it with [`GoldQuery::new`].
#[derive(Debug, Clone)]
pub struct GoldQuery {
    pub id: Id,
    pub judged: Vec<Judgement>,
    pub num_rel: u32,
    /// Judged docs below `min_grade`: a person looked at them and said no
    /// (docs/contract.md §6.3).
    pub non_relevant: u32,
    hashes: Vec<u64>,
    /// One bit per judged doc, chosen by its hash's top six bits: most returned docs
    /// are not judged, and a clear bit says so without a search.
    bloom: u64,
}

impl GoldQuery {
    /// Keep every judgement (a doc is judged whatever its grade), sorted by hash,
    /// and count the relevant and the judged-not-relevant ones.
    pub fn new(id: Id, judged: Vec<Judgement>, min_grade: i64) -> Self {
        let mut keyed: Vec<(u64, Judgement)> = judged
            .into_iter()
            .map(|j| (doc_hash(j.doc.as_bytes()), j))
            .collect();
        keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.doc.cmp(&b.1.doc)));
        let (hashes, judged): (Vec<u64>, Vec<Judgement>) = keyed.into_iter().unzip();
        let num_rel = judged.iter().filter(|j| j.grade >= min_grade).count() as u32;
        let bloom = hashes.iter().fold(0, |b, &h| b | bloom_bit(h));
        Self {
            id,
            non_relevant: judged.len() as u32 - num_rel,
            judged,
            num_rel,
            hashes,
            bloom,
        }
    }

    /// The judged docs' hashes ([`doc_hash`]), in the order of `judged`.
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// Index of `doc` in `judged`, if the gold judged it.
    pub fn find(&self, doc: &[u8]) -> Option<usize> {
        self.find_hashed(doc, doc_hash(doc))
    }

    /// [`GoldQuery::find`] with the doc's [`doc_hash`] already computed. The filter's
    /// test is inlined into the caller (the run reader asks for every returned doc, and
    /// most are not judged); the search behind it is not.
    #[inline(always)]
    pub fn find_hashed(&self, doc: &[u8], hash: u64) -> Option<usize> {
        if self.bloom & bloom_bit(hash) == 0 {
            return None;
        }
        self.search(doc, hash)
    }

    /// The judged doc `doc` (hash `hash`) past the filter: a scan of a short query, a
    /// binary search of a long one.
    fn search(&self, doc: &[u8], hash: u64) -> Option<usize> {
        if self.hashes.len() <= 8 {
            return self
                .hashes
                .iter()
                .zip(&self.judged)
                .position(|(&h, j)| h == hash && j.doc.as_bytes() == doc);
        }
        let start = self.hashes.partition_point(|&h| h < hash);
        (start..self.hashes.len())
            .take_while(|&i| self.hashes[i] == hash)
            .find(|&i| self.judged[i].doc.as_bytes() == doc)
    }

    /// A query with no relevant doc: counted and listed apart, never in a mean.
    pub fn is_no_answer(&self) -> bool {
        self.num_rel == 0
    }
}

/// What the gold manifest (or a bare gold file) says about the gold set.
#[derive(Debug, Clone)]
pub struct GoldMeta {
    pub name: String,
    pub version: Option<Version>,
    pub frozen_at: Option<String>,
    /// The recorded sha256; it has been checked against the data when present.
    pub sha256: Option<String>,
    pub frozen_version: Option<Version>,
    pub corpus: Option<String>,
    /// The data path as written in the manifest (or given on the command line).
    pub data_display: String,
    pub data: PathBuf,
    pub format: DataFormat,
    /// A long table by the manifest's word (`format = "csv-long"` or `[columns]`,
    /// docs/contract.md §2.16), with the column names it gives; `None`: told from
    /// the header.
    pub long: Option<LongNames>,
    pub k: Option<u32>,
    pub min_grade: i64,
    pub manifest: Option<PathBuf>,
    /// The tags side file (`tags = "tags.csv"`), docs/contract.md §6.6.
    pub tags_file: Option<TagsFile>,
    /// The recorded sha256 of the tags side file (written by `freeze`).
    pub tags_sha256: Option<String>,
    /// What `freeze` recorded of the gold's meaning beside its data
    /// (docs/contract.md §4.4): `frozen_k`, `frozen_min_grade`, `frozen_tags`.
    pub frozen_meaning: FrozenMeaning,
}

/// The keys `freeze` records so that `k`, `min_grade` and `tags` cannot change
/// without a raised version (docs/contract.md §4.4). Each field is `None` when its key
/// is absent; `Some(None)` is a recorded "none" (no pinned k, no tags file).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrozenMeaning {
    pub k: Option<Option<u32>>,
    pub min_grade: Option<i64>,
    pub tags: Option<Option<String>>,
}

impl FrozenMeaning {
    /// The meaning a manifest has now, as `freeze` would record it.
    pub fn of(meta: &GoldMeta) -> Self {
        Self {
            k: Some(meta.k),
            min_grade: Some(meta.min_grade),
            tags: Some(meta.tags_file.as_ref().map(|t| t.display.clone())),
        }
    }

    /// None of the three keys: a gold frozen before `freeze` recorded them.
    pub fn is_unrecorded(&self) -> bool {
        *self == Self::default()
    }

    /// Each key whose recorded value differs from `now`'s (a missing key differs):
    /// (manifest key, recorded, now), values as the manifest would show them.
    pub fn changes(&self, now: &Self) -> Vec<(&'static str, String, String)> {
        fn opt<T: ToString>(v: &Option<T>) -> String {
            v.as_ref()
                .map_or_else(|| "none".to_string(), |v| format!("{:?}", v.to_string()))
        }
        fn shown<T: ToString>(v: &Option<Option<T>>) -> String {
            v.as_ref().map_or_else(|| "(not recorded)".to_string(), opt)
        }
        let mut out = Vec::new();
        if self.k != now.k {
            let k = |v: &Option<Option<u32>>| shown(v).replace('"', "");
            out.push(("k", k(&self.k), k(&now.k)));
        }
        if self.min_grade != now.min_grade {
            let g =
                |v: &Option<i64>| v.map_or_else(|| "(not recorded)".to_string(), |g| g.to_string());
            out.push(("min_grade", g(&self.min_grade), g(&now.min_grade)));
        }
        if self.tags != now.tags {
            out.push(("tags", shown(&self.tags), shown(&now.tags)));
        }
        out
    }
}

/// A gold manifest's tags side file: the path as written and as resolved.
#[derive(Debug, Clone)]
pub struct TagsFile {
    pub display: String,
    pub path: PathBuf,
}

impl GoldMeta {
    /// A bare data file's metadata: named after the file, unfrozen, with no version,
    /// no corpus and no pinned k. Also the base of a stand-in gold and of tests.
    pub fn bare(data: &std::path::Path, format: DataFormat) -> Self {
        Self {
            name: data
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            version: None,
            frozen_at: None,
            sha256: None,
            frozen_version: None,
            corpus: None,
            data_display: data.display().to_string(),
            data: data.to_path_buf(),
            format,
            long: None,
            k: None,
            min_grade: 1,
            manifest: None,
            tags_file: None,
            tags_sha256: None,
            frozen_meaning: FrozenMeaning::default(),
        }
    }

    /// Metadata for a stand-in gold (see [`GoldSet::stand_in`]).
    pub fn placeholder() -> Self {
        Self::bare(std::path::Path::new(""), DataFormat::Csv)
    }

    pub fn frozen(&self) -> bool {
        self.sha256.is_some()
    }
}

/// A loaded gold set; queries keep the order of the data file.
#[derive(Debug, Clone)]
pub struct GoldSet {
    pub meta: GoldMeta,
    pub queries: Vec<GoldQuery>,
    /// Query ids by their hash (ids are not stored twice); an id whose hash another
    /// id already has goes to `collisions`.
    index: FxHashMap<u64, u32>,
    collisions: FxHashMap<Id, u32>,
    /// A stand-in for a gold that failed to load: runs read against it are checked
    /// for their own structure only (`validate` still lists their problems).
    pub stand_in: bool,
    /// The queries' tags (docs/contract.md §6.6); empty when the gold has none.
    pub tags: Tags,
}

/// Every query's tags, stored flat: `labels` holds each distinct label once, and
/// query `i` carries `labels[flat[offsets[i]..offsets[i + 1]]]`. Empty (no offsets)
/// when the gold has no tags.
#[derive(Debug, Clone, Default)]
pub struct Tags {
    pub labels: Vec<Id>,
    offsets: Vec<u32>,
    flat: Vec<u32>,
}

impl Tags {
    /// Build from each query's label indices, in gold query order.
    pub fn new(labels: Vec<Id>, per_query: Vec<Vec<u32>>) -> Self {
        let mut offsets = Vec::with_capacity(per_query.len() + 1);
        let mut flat = Vec::new();
        offsets.push(0);
        for q in per_query {
            flat.extend(q);
            offsets.push(flat.len() as u32);
        }
        Self {
            labels,
            offsets,
            flat,
        }
    }

    /// Whether any query carries a tag.
    pub fn is_empty(&self) -> bool {
        self.flat.is_empty()
    }

    /// The label indices of gold query `i`.
    pub fn of(&self, i: usize) -> &[u32] {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.flat[a as usize..b as usize],
            _ => &[],
        }
    }
}

impl GoldSet {
    pub fn new(meta: GoldMeta, queries: Vec<GoldQuery>) -> Self {
        let mut index = FxHashMap::with_capacity_and_hasher(queries.len(), Default::default());
        let mut collisions = FxHashMap::default();
        for (i, q) in queries.iter().enumerate() {
            if let Some(previous) = index.insert(doc_hash(q.id.as_bytes()), i as u32) {
                // Keep the first one in `index`, the later one apart.
                index.insert(doc_hash(q.id.as_bytes()), previous);
                collisions.insert(q.id.clone(), i as u32);
            }
        }
        Self {
            meta,
            queries,
            index,
            collisions,
            stand_in: false,
            tags: Tags::default(),
        }
    }

    /// An empty stand-in for a gold that failed to load.
    pub fn stand_in(meta: GoldMeta) -> Self {
        Self {
            stand_in: true,
            ..Self::new(meta, Vec::new())
        }
    }

    /// The index of query `id`, if the gold has it.
    pub fn lookup(&self, id: &str) -> Option<u32> {
        match self.index.get(&doc_hash(id.as_bytes())) {
            Some(&i) if &*self.queries[i as usize].id == id => Some(i),
            _ => self.collisions.get(id).copied(),
        }
    }

    pub fn contains(&self, id: &str) -> bool {
        self.lookup(id).is_some()
    }

    /// Whether any query has a doc judged not relevant; when none has, every doc
    /// outside the relevant ones is merely unlabelled (docs/contract.md §6.3).
    pub fn judges_non_relevant(&self) -> bool {
        self.queries.iter().any(|q| q.non_relevant > 0)
    }

    /// How many queries have 0, 1, 2, … relevant docs.
    pub fn relevant_per_query(&self) -> BTreeMap<u32, usize> {
        let mut counts = BTreeMap::new();
        for q in &self.queries {
            *counts.entry(q.num_rel).or_insert(0) += 1;
        }
        counts
    }
}

/// A run's index version as its manifest spells it (docs/contract.md §2.2): any
/// printable string of at most [`IndexVersion::MAX_CHARS`] characters, trimmed; a
/// semantic version is also kept parsed, for the bump and its order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexVersion {
    text: String,
    semver: Option<Version>,
}

impl IndexVersion {
    pub const MAX_CHARS: usize = 128;

    /// `text` as an index version, or why it cannot be one.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let chars = text.chars().count();
        if text.is_empty() {
            return Err("is empty; name the index build (a version, a commit, a date)".into());
        }
        if text.chars().any(char::is_control) {
            return Err("contains a control character (a newline, tab or similar)".into());
        }
        if chars > Self::MAX_CHARS {
            return Err(format!(
                "has {chars} characters, more than {}",
                Self::MAX_CHARS
            ));
        }
        Ok(Self {
            text: text.to_string(),
            semver: Version::parse(text).ok(),
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The version parsed, when it is a semantic version.
    pub fn semver(&self) -> Option<&Version> {
        self.semver.as_ref()
    }
}

impl std::fmt::Display for IndexVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// One value of a run manifest's `[meta]` table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum MetaValue {
    Text(String),
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl std::fmt::Display for MetaValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Text(s) => f.write_str(s),
            Self::Int(i) => write!(f, "{i}"),
            Self::Float(x) => write!(f, "{x}"),
            Self::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// A run manifest's `[meta]` keys in the manifest's order (a JSON object in that
/// order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TeamMeta(pub Vec<(String, MetaValue)>);

impl TeamMeta {
    /// At most this many keys.
    pub const MAX_KEYS: usize = 64;

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl serde::Serialize for TeamMeta {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// What a run manifest (or a bare run file) says about the run.
#[derive(Debug, Clone)]
pub struct RunMeta {
    pub index_version: Option<IndexVersion>,
    /// The manifest's `[meta]` table, in its order: the team's own keys, carried into
    /// reports and never gated on (docs/contract.md §2.2).
    pub team_meta: TeamMeta,
    pub corpus: Option<String>,
    /// The depth the retriever was asked for; for a bare file, the longest list.
    pub depth: u32,
    /// Whether `depth` was declared (a manifest) or measured (a bare file).
    pub depth_declared: bool,
    pub filters: BTreeMap<String, String>,
    pub results_display: String,
    pub results: PathBuf,
    pub format: DataFormat,
    /// As [`GoldMeta::long`], for the results files.
    pub long: Option<LongNames>,
    pub manifest: Option<PathBuf>,
    /// Further repeats of the same index version after `results` (display, path), in
    /// the manifest's order; empty for a single results file (docs/contract.md §6.5).
    pub more_results: Vec<(String, PathBuf)>,
    /// The chunk map the manifest names (display, path): the run's ids are chunk ids
    /// mapped to documents while reading (docs/contract.md §2.11).
    pub doc_map: Option<(String, PathBuf)>,
    /// `approximate = true`: an approximate-nearest-neighbour index, whose one run
    /// cannot confirm a new failure (docs/contract.md §6.5).
    pub approximate: bool,
    /// `compare --depth N`: every list is cut to its first N docs as it is read,
    /// after the declared depth is checked (docs/contract.md §6.1).
    pub cut: Option<u32>,
    /// What `record` wrote beside the results (docs/contract.md §4.8): the errored
    /// queries, the latency side file, the `[record]` table.
    pub recording: Recording,
}

/// A run manifest's `errored`, `latency` and `[record]` (docs/contract.md §2.2).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recording {
    /// Queries the retriever failed on (`errored = [...]`): each counts as an empty
    /// ranking on its side (docs/contract.md §6.8).
    pub errored: Vec<String>,
    /// The latency side file (display, path), `id,latency_ms`.
    pub latency: Option<(String, PathBuf)>,
    /// `[record]`'s concurrency and host, when both are there.
    pub recorded: Option<Recorded>,
}

/// How a run was recorded: latency is comparable only under the same of both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub concurrency: i64,
    pub host: String,
}

impl RunMeta {
    /// A bare results file's metadata: no version, corpus, filters or manifest, one
    /// repeat, and the depth measured while reading (`depth_declared` false, depth 0
    /// until then). Also the base of tests and fuzz targets.
    pub fn bare(results: &std::path::Path, format: DataFormat) -> Self {
        Self {
            index_version: None,
            team_meta: TeamMeta::default(),
            corpus: None,
            depth: 0,
            depth_declared: false,
            filters: BTreeMap::new(),
            results_display: results.display().to_string(),
            results: results.to_path_buf(),
            format,
            long: None,
            manifest: None,
            more_results: Vec::new(),
            doc_map: None,
            approximate: false,
            cut: None,
            recording: Recording::default(),
        }
    }

    /// How many results files (repeats) the run has.
    pub fn repeat_count(&self) -> usize {
        1 + self.more_results.len()
    }

    /// Every repeat's results file, the first being this run's `results`.
    pub fn results_paths(&self) -> impl Iterator<Item = &std::path::Path> {
        std::iter::once(self.results.as_path())
            .chain(self.more_results.iter().map(|(_, p)| p.as_path()))
    }

    /// The files beside the results that the run is read with: its doc map
    /// (docs/contract.md §2.11) and its latency side file (§6.9).
    pub fn side_files(&self) -> impl Iterator<Item = &std::path::Path> {
        let latency = self.recording.latency.iter();
        self.doc_map.iter().chain(latency).map(|(_, p)| p.as_path())
    }

    /// One single-file run per repeat, the first being this run's `results`.
    /// The depth the comparison sees: the cut when there is one, else the declared
    /// (or measured) depth.
    pub fn compared_depth(&self) -> u32 {
        self.cut.unwrap_or(self.depth)
    }

    pub fn repeat_metas(&self) -> Vec<RunMeta> {
        let first = Self {
            more_results: Vec::new(),
            ..self.clone()
        };
        let mut out = vec![first.clone()];
        for (display, path) in &self.more_results {
            out.push(Self {
                results_display: display.clone(),
                results: path.clone(),
                ..first.clone()
            });
        }
        out
    }
}

/// A judged doc found in a ranking: its rank (from 1) and its index in the gold
/// query's `judged` list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub rank: u32,
    pub judged: u32,
}

/// Unjudged docs a run reader is asked to find at any rank, by gold query index
/// (the label queue's baseline ranks: docs/contract.md §6.3).
pub type Wanted = FxHashMap<u32, Vec<Id>>;

/// An unjudged doc kept by id, with its rank (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankedDoc {
    pub rank: u32,
    pub doc: Id,
}

/// All ragdiff keeps of one ranking: enough to compute every metric at any k, the
/// relevant ids in the top k, and whether two rankings are identical. Slices of
/// exact size: this is held per query and run for the whole comparison.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observed {
    /// How many docs were returned.
    pub len: u32,
    /// Judged docs (any grade), in rank order.
    pub hits: Box<[Hit]>,
    /// A hash of the whole ordered list of doc ids.
    pub list_hash: u64,
    /// The [`doc_hash`]es of the unjudged docs in the first ranks the reader was
    /// asked to keep (k for `compare`, none otherwise), in rank order: enough to tell
    /// whether one entered the top k (docs/contract.md §6.3). At most that many per
    /// query: memory stays bounded by the gold set times k.
    pub unjudged: Box<[u64]>,
    /// Unjudged docs by id and rank, when the reader was asked for them (the label
    /// queue names docs: the same top ranks, and any doc it was asked to find at any
    /// rank); empty otherwise.
    pub unjudged_ids: Box<[RankedDoc]>,
}

impl Observed {
    /// An empty ranking, as a reader observes one: an errored query's
    /// (docs/contract.md §6.8).
    pub fn empty() -> Self {
        use std::hash::Hasher;
        Self {
            list_hash: rustc_hash::FxHasher::default().finish(),
            ..Self::default()
        }
    }

    /// Unjudged docs in the top k: the returned docs there minus the judged ones.
    pub fn unjudged_at(&self, k: u32) -> u32 {
        let judged = self.hits.iter().take_while(|h| h.rank <= k).count() as u32;
        self.len.min(k) - judged
    }
}

/// One run read against a gold set: what was observed for each gold query, by the
/// gold query's index (`None`: the run did not list that query).
#[derive(Debug, Clone)]
pub struct ObservedRun {
    pub meta: RunMeta,
    pub observed: Vec<Option<Observed>>,
    /// What further repeats observed, one vector per repeat after the first
    /// (docs/contract.md §6.5); empty for a single results file.
    pub repeats: Vec<Vec<Option<Observed>>>,
    /// With a chunk map, whether each gold query has a relevant doc the map contains
    /// (docs/contract.md §2.11: failure kind `coverage`); `None` without a map.
    pub covered: Option<Vec<bool>>,
    /// The chunk map the run's ids went through, as every report names it
    /// (docs/contract.md §2.11); `None` without one.
    pub doc_map: Option<DocMapInfo>,
    /// Per-query wall times in milliseconds, of every query of the first repeat that
    /// has one (a `latency_ms` field or column, or the manifest's latency side file:
    /// docs/contract.md §6.9), in file order; empty without.
    pub latency: Vec<f64>,
}

/// A run's chunk map as reports name it: its path and the sha256 of the bytes read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DocMapInfo {
    pub path: String,
    pub sha256: String,
}

impl ObservedRun {
    /// Make every gold query the manifest lists as errored an empty ranking in every
    /// repeat (docs/contract.md §6.8); its gold ids, in the manifest's order.
    pub fn empty_errored(&mut self, gold: &GoldSet) -> Vec<String> {
        let mut ids = Vec::new();
        for id in &self.meta.recording.errored {
            let Some(qi) = gold.lookup(id) else { continue };
            for slots in std::iter::once(&mut self.observed).chain(&mut self.repeats) {
                if let Some(slot) = slots.get_mut(qi as usize) {
                    *slot = Some(Observed::empty());
                }
            }
            ids.push(id.clone());
        }
        ids
    }

    /// Drop what every repeat observed for the gold queries in `range` (their rows
    /// are built: docs/contract.md §12, memory).
    pub fn release(&mut self, range: std::ops::Range<usize>) {
        for slots in std::iter::once(&mut self.observed).chain(&mut self.repeats) {
            slots[range.clone()].fill(None);
        }
    }

    /// What each repeat observed for gold query `qi`, the first repeat first.
    pub fn observed_in_repeats(&self, qi: usize) -> impl Iterator<Item = Option<&Observed>> {
        std::iter::once(self.observed[qi].as_ref())
            .chain(self.repeats.iter().map(move |r| r[qi].as_ref()))
    }
}

/// Where a run reader sends every returned list, as [`doc_hash`]es, when its ranking
/// is complete (drift's pairing, docs/contract.md §6.5; `compare::drift::Pairing`
/// implements it), as grep-searcher's `Sink` receives matches.
pub trait ListSink: Sync {
    /// Run `side` returned `list` for a query: gold query `qi`, or `qid` when the gold
    /// does not have it.
    fn offer(&self, side: Role, qi: Option<usize>, qid: &str, list: &[u64]);
    /// Some list offered was partial (an interleaved TREC run): what was offered is
    /// void, and later offers are ignored.
    fn poison(&self);
    fn is_poisoned(&self) -> bool;
    /// Run `side` offered every list it will (its reading ended): a sink may drop
    /// what waits for it no longer.
    fn finished(&self, _side: Role) {}
}

/// What `compare --changed-since REV` found (docs/contract.md §12.1): the gate's own
/// inputs (policy, gold, baseline, allow-list) that differ from the revision.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ChangedInputs {
    /// The revision as given, and the commit it names.
    pub since: String,
    pub commit: String,
    /// How many input files were compared with the revision.
    pub checked: usize,
    /// Each input that differs, in the order checked.
    pub changed: Vec<ChangedInput>,
}

/// One input that differs from the revision.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ChangedInput {
    /// What the file is to the gate: "gold manifest", "baseline results", …
    pub input: &'static str,
    pub path: String,
    /// "changed" (other bytes), "added" (not in the revision) or "removed" (the
    /// policy file only: the revision had it, the working tree has none).
    pub change: &'static str,
    /// What changed in it, when ragdiff can say (the policy's settings).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
}
