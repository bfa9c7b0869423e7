//! Run results, streamed: CSV (`id,retrieved_doc_ids`) or TREC (`qid Q0 docid rank
//! score tag`). Each ranking is reduced to an [`Observed`] as soon as it is complete,
//! so for runs grouped by query memory grows with the gold set and depth, not with
//! the file. A TREC run whose queries are interleaved is read again with every line
//! kept, which costs memory in proportion to the file.

use std::hash::Hasher;
use std::io::Read;

use rustc_hash::{FxHashMap, FxHashSet, FxHasher};

use crate::load::lines::{Guard, GuardError};
use crate::model::{DataFormat, GoldSet, Hit, Id, Observed, ObservedRun, RankedDoc, Role, RunMeta};
use crate::validate::{Diagnostics, Location, ProblemKind};
use doc_table::DocTable;

/// Told how many more bytes were read.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

pub use crate::model::Wanted;

/// Which unjudged docs a reader keeps by id in [`Observed::unjudged`]: those in the
/// first `top` ranks, and those `wanted` at any rank.
#[derive(Clone, Copy)]
pub struct Keep<'w> {
    pub top: u32,
    pub wanted: Option<&'w Wanted>,
    /// Offer every returned list, as doc hashes, to drift's pairing as run `side`
    /// (docs/contract.md §6.5).
    pub pairing: Option<&'w dyn crate::model::ListSink>,
    pub side: Role,
    /// Keep the top `top` unjudged docs of every gold query (the label queue is
    /// exported); otherwise only of queries whose gold judges a doc not relevant,
    /// the only ones that can be suspect (docs/contract.md §6.3).
    pub every_query: bool,
    /// The run's chunk map: ids read are chunks, mapped to documents (§2.11).
    pub doc_map: Option<&'w crate::load::docmap::DocMap>,
    /// A TREC run holds its lists until its reading ends whole. Otherwise it offers
    /// each list as its query ends and, should the run turn out interleaved (a query
    /// coming back, so a list offered was partial), poisons the pairing, which the
    /// caller then redoes with this set (docs/contract.md §6.5).
    pub defer_trec: bool,
}

impl Keep<'_> {
    /// Keep no doc by id and no list (what `eval` and `validate` need).
    pub const NONE: Keep<'static> = Keep {
        top: 0,
        wanted: None,
        pairing: None,
        side: Role::Baseline,
        every_query: false,
        doc_map: None,
        defer_trec: false,
    };
}

/// What reading one run gave: the run (`None` when the file could not be read at
/// all), its problems and warnings, the one index version an `index_version` column
/// names (the one-file layout), and what reading cost.
pub struct ReadOutcome {
    pub run: Option<ObservedRun>,
    pub diag: Diagnostics,
    pub index_version: Option<String>,
    pub stats: ReadStats,
}

impl ReadOutcome {
    fn unread(diag: Diagnostics, stats: ReadStats) -> Self {
        Self {
            run: None,
            diag,
            index_version: None,
            stats,
        }
    }
}

/// What reading a run cost, for tests of the memory bound.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// The most TREC lines of one query held at once. With a declared depth this
    /// never exceeds it: lines past depth are counted, not stored.
    pub max_held: usize,
}

/// Where a run's results are read from: the file its metadata names, or bytes in
/// memory (the fuzz targets and tests).
pub struct Source<'b> {
    meta: RunMeta,
    bytes: Option<&'b [u8]>,
}

impl<'b> Source<'b> {
    /// The results file `meta` names.
    pub fn file(meta: RunMeta) -> Self {
        Self { meta, bytes: None }
    }

    /// `bytes`, read as the results of `meta`'s run.
    pub fn bytes(meta: RunMeta, bytes: &'b [u8]) -> Self {
        Self {
            meta,
            bytes: Some(bytes),
        }
    }
}

/// Reads runs against one gold set: the one way in for every format.
/// `RunReader::new(&gold).keep(keep).read(Source::file(meta))`.
#[derive(Clone, Copy)]
pub struct RunReader<'a> {
    gold: &'a GoldSet,
    extra_ok: &'a [&'a str],
    keep: Keep<'a>,
    progress: Progress<'a>,
}

impl<'a> RunReader<'a> {
    /// Keeping nothing by id, no extra column allowed, no progress shown.
    pub fn new(gold: &'a GoldSet) -> Self {
        Self {
            gold,
            extra_ok: &[],
            keep: Keep::NONE,
            progress: &|_| {},
        }
    }

    /// Columns expected beside the run's own (the one-file layout).
    pub fn extra_ok(self, extra_ok: &'a [&'a str]) -> Self {
        Self { extra_ok, ..self }
    }

    /// The unjudged docs to keep by id, and the lists to offer drift's pairing.
    pub fn keep(self, keep: Keep<'a>) -> Self {
        Self { keep, ..self }
    }

    /// Told how many more bytes were read (files only).
    pub fn progress(self, progress: Progress<'a>) -> Self {
        Self { progress, ..self }
    }

    /// Read one run. Problems go to the outcome's diagnostics, never a panic.
    pub fn read(&self, source: Source) -> ReadOutcome {
        let Source { meta, bytes } = source;
        let display = meta.results.display().to_string();
        let outcome = match bytes {
            Some(bytes) => {
                let open = || -> Result<Box<dyn Read + '_>, ProblemKind> { Ok(Box::new(bytes)) };
                // bytes in memory: no progress to show
                read_from(meta, &display, &open, self.progress(&|_| {}))
            }
            None => {
                let path = meta.results.clone();
                let open = || -> Result<Box<dyn Read>, ProblemKind> {
                    crate::load::fs::open_regular(&path, "run results", &display)
                        .map(|f| Box::new(f) as Box<dyn Read>)
                };
                read_from(meta, &display, &open, *self)
            }
        };
        // Every list is offered: a query the other side waits for never comes.
        if let Some(pairing) = self.keep.pairing {
            pairing.finished(self.keep.side);
        }
        outcome
    }
}

/// Read from `source`, which can be opened again: a TREC run whose queries turn out
/// to be interleaved is read a second time with every line kept.
fn read_from<'s>(
    meta: RunMeta,
    display: &str,
    source: &dyn Fn() -> Result<Box<dyn Read + 's>, ProblemKind>,
    reader: RunReader,
) -> ReadOutcome {
    let (gold, progress) = (reader.gold, reader.progress);
    let mut diag = Diagnostics::default();
    let open = |diag: &mut Diagnostics| match source() {
        Ok(r) => Some(r),
        Err(kind) => {
            diag.problem(Location::file(display), kind);
            None
        }
    };
    let Some(input) = open(&mut diag) else {
        return ReadOutcome::unread(diag, ReadStats::default());
    };
    let Some(input) = json::check_content(input, meta.format, display, &mut diag) else {
        return ReadOutcome::unread(diag, ReadStats::default());
    };
    let depth = meta.depth_declared.then_some(meta.depth);
    // Every format keeps the same things (unjudged docs by id, lists for drift).
    let cut = meta.cut;
    let list_hint = meet::list_hint(meta.format);
    let collector = || {
        let mut c = Collector::new(gold, display, depth, gold.stand_in);
        c.keep = reader.keep;
        c.cut = cut;
        c.meet.list_hint = list_hint;
        c
    };
    // docs/contract.md §2.16: a CSV or TSV file whose header names a long table.
    let (input, long) = long_table(input, meta.format, meta.long.as_ref(), display, &mut diag);
    let Some(long) = long else {
        return ReadOutcome::unread(diag, ReadStats::default());
    };
    if let Some(cols) = long {
        let mut c = collector();
        let names = meta.long.clone().unwrap_or_default();
        long::read(
            Box::new(Guard::csv(input)),
            cols,
            &names,
            &mut c,
            &mut diag,
            progress,
        );
        return c.outcome(meta, diag, None);
    }
    match meta.format {
        DataFormat::Json | DataFormat::Jsonl => {
            let mut c = collector();
            match meta.format {
                DataFormat::Json => json::read(input, &mut c, &mut diag, progress),
                _ => jsonl::read(input, &mut c, &mut diag, progress),
            }
            c.outcome(meta, diag, None)
        }
        DataFormat::Csv => {
            let mut c = collector();
            let version = csv::read_csv(
                Guard::csv(input),
                display,
                reader.extra_ok,
                &mut c,
                &mut diag,
                progress,
            );
            c.finish_csv(&mut diag);
            c.outcome(meta, diag, version)
        }
        DataFormat::Trec => {
            trec::read_trec_run(meta, display, input, &open, &collector, diag, progress)
        }
    }
}

/// `input` again and, for a CSV or TSV file whose header names a long table, its
/// columns (docs/contract.md §2.16). With `names` (the manifest's `format =
/// "csv-long"` or `[columns]`) the file must be one: `None` when it is not, with
/// the problem recorded.
fn long_table<'s>(
    input: Box<dyn Read + 's>,
    format: DataFormat,
    names: Option<&crate::model::LongNames>,
    display: &str,
    diag: &mut Diagnostics,
) -> (
    Box<dyn Read + 's>,
    Option<Option<crate::load::long::Columns>>,
) {
    match (format, names) {
        (DataFormat::Csv | DataFormat::Trec, None) => {
            let (first, input) = crate::load::long::sniff(input);
            let long = crate::load::long::detect(&first)
                .filter(|cols| format == DataFormat::Csv || cols.delimiter == b'\t');
            (input, Some(long))
        }
        (_, Some(names)) => {
            let (first, input) = crate::load::long::sniff(input);
            let cols = crate::load::long::named_or_problem(&first, names, display, diag);
            (input, cols.map(Some))
        }
        _ => (input, Some(None)),
    }
}

use crate::model::doc_hash as hash_bytes;

mod csv;
mod doc_table;
mod json;
mod jsonl;
mod long;
mod meet;
mod trec;

/// One list held back from drift's pairing: gold index (or none), query id, hashes.
type Deferred = (Option<usize>, Id, Box<[u64]>);

/// Reduces each complete ranking to what the metrics need, and checks it.
struct Collector<'g> {
    gold: &'g GoldSet,
    display: String,
    depth: Option<u32>,
    /// `compare --depth N`: lists are cut to N once checked against `depth`.
    cut: Option<u32>,
    /// No usable gold (it failed to load): check each ranking's own structure only.
    structure_only: bool,
    /// A CSV header with the required columns was read, and every row after it
    /// (else a gold query "missing" from the run may just not have been read).
    header_ok: bool,
    /// First lines of queries the gold does not have (structure-only reading).
    other_lines: FxHashMap<crate::model::Id, u64>,
    observed: Vec<Option<Observed>>,
    first_line: Vec<u64>,
    not_in_gold: Vec<String>,
    not_in_gold_count: u64,
    constant: Vec<String>,
    disagree: Vec<String>,
    /// Queries whose tied scores the rank column orders other than by doc id: a
    /// note, not a warning (the numbers follow trec_eval either way).
    tie_order: Vec<String>,
    longest: u32,
    /// Finds each ranking's duplicated docs, through `hashes`.
    table: DocTable,
    hashes: Vec<u64>,
    stats: ReadStats,
    /// Unjudged docs to keep by id.
    keep: Keep<'g>,
    /// A TREC pass's lists, offered to drift's pairing only when the pass ends
    /// whole: until then a query could come back (an interleaved run is read again),
    /// so a list seen so far may be partial. Other formats offer as they go.
    deferred: Option<Vec<Deferred>>,
    /// Whether the run's ids meet the gold's (docs/contract.md §2.15).
    meet: meet::Meet,
    /// Each row's `latency_ms`, when it has one (docs/contract.md §6.9).
    latency: Vec<f64>,
}

const SAMPLE: usize = 10;

impl<'g> Collector<'g> {
    fn new(gold: &'g GoldSet, display: &str, depth: Option<u32>, structure_only: bool) -> Self {
        Self {
            gold,
            display: display.to_string(),
            depth,
            cut: None,
            structure_only,
            header_ok: false,
            other_lines: FxHashMap::default(),
            observed: vec![None; gold.queries.len()],
            first_line: vec![0; gold.queries.len()],
            not_in_gold: Vec::new(),
            not_in_gold_count: 0,
            constant: Vec::new(),
            disagree: Vec::new(),
            tie_order: Vec::new(),
            longest: 0,
            table: DocTable::default(),
            hashes: Vec::new(),
            stats: ReadStats::default(),
            deferred: None,
            keep: Keep::NONE,
            meet: meet::Meet::default(),
            latency: Vec::new(),
        }
    }

    /// A row's `latency_ms` (docs/contract.md §6.9): a number of milliseconds >= 0,
    /// else a problem at `at`.
    fn latency(
        &mut self,
        query: &str,
        value: Option<f64>,
        text: &str,
        at: Location,
        diag: &mut Diagnostics,
    ) {
        match value {
            Some(ms) if ms.is_finite() && ms >= 0.0 => self.latency.push(ms),
            _ => diag.problem(
                at,
                ProblemKind::BadLatency {
                    query: query.to_string(),
                    value: crate::text::shown(text).into_owned(),
                },
            ),
        }
    }

    /// Hold the lists until [`Collector::offer_deferred`] (a TREC pass).
    fn defer_offers(&mut self) {
        if self.keep.pairing.is_some() {
            self.deferred = Some(Vec::new());
        }
    }

    /// The pass ended whole: offer the lists it held to drift's pairing.
    fn offer_deferred(&mut self) {
        if let (Some(pairing), Some(lists)) = (self.keep.pairing, self.deferred.take()) {
            for (qi, qid, list) in lists {
                pairing.offer(self.keep.side, qi, &qid, &list);
            }
        }
    }

    /// Count the run's queries that the gold does not have; they enter drift only.
    fn warn_not_in_gold(&mut self, diag: &mut Diagnostics) {
        if self.not_in_gold_count == 0 {
            return;
        }
        let n = std::mem::take(&mut self.not_in_gold_count) as usize;
        // Natural order, as every list of ids in a warning (docs/contract.md §5.2).
        crate::text::sort_natural(&mut self.not_in_gold);
        let mut ids = self.not_in_gold.join(", ");
        ids.push_str(&crate::text::and_more(n, self.not_in_gold.len()));
        diag.warn(format!(
            "{}: {n} run quer{} not in the gold set: left out of the metrics, as trec_eval does; compare counts them in drift: {ids}",
            self.display,
            if n == 1 { "y is" } else { "ies are" },
        ));
    }

    /// The gold index of `qid`, counting it when the gold does not have it.
    fn query(&mut self, qid: &str) -> Option<usize> {
        match self.gold.lookup(qid) {
            Some(i) => Some(i as usize),
            None if self.structure_only => None,
            None => {
                // Counted, not a problem: such queries enter drift only (§6.5).
                self.not_in_gold_count += 1;
                if self.not_in_gold.len() < SAMPLE {
                    self.not_in_gold.push(qid.to_string());
                }
                None
            }
        }
    }

    /// Record that gold query `qi` has a ranking starting at `line`; false (and a
    /// problem) when it already had one.
    fn claim(&mut self, qi: usize, line: u64, diag: &mut Diagnostics) -> bool {
        if self.first_line[qi] != 0 {
            diag.problem(
                Location::line(&self.display, line),
                ProblemKind::DuplicateQuery {
                    query: self.gold.queries[qi].id.to_string(),
                    first: self.first_line[qi],
                },
            );
            return false;
        }
        self.first_line[qi] = line;
        true
    }

    /// [`Collector::claim`] for a query the gold does not have (structure-only
    /// reading): a CSV run still lists each query once.
    fn claim_other(&mut self, qid: &str, line: u64, diag: &mut Diagnostics) -> bool {
        if let Some(&first) = self.other_lines.get(qid) {
            diag.problem(
                Location::line(&self.display, line),
                ProblemKind::DuplicateQuery {
                    query: qid.to_string(),
                    first,
                },
            );
            return false;
        }
        self.other_lines.insert(qid.into(), line);
        true
    }

    /// Check one complete ranking (docs in rank order; `line_of(i)` is the line of
    /// the i-th doc) and, for a gold query, keep what the metrics need.
    /// A ranking longer than the declared depth is a problem; then the list is cut
    /// to `compare --depth N`, before anything is computed (docs/contract.md §6.1).
    fn check_depth_and_cut<'d>(
        &mut self,
        qid: &str,
        docs: &'d [&'d str],
        line_of: &dyn Fn(usize) -> u64,
        diag: &mut Diagnostics,
    ) -> &'d [&'d str] {
        let len = docs.len() as u32;
        if let Some(depth) = self.depth
            && len > depth
        {
            diag.problem(
                Location::line(&self.display, line_of(depth as usize)),
                ProblemKind::RankingTooLong {
                    query: qid.to_string(),
                    len: docs.len() as u64,
                    depth,
                },
            );
        }
        self.longest = self.longest.max(len);
        match self.cut {
            Some(n) => &docs[..docs.len().min(n as usize)],
            None => docs,
        }
    }

    fn accept(
        &mut self,
        qi: Option<usize>,
        qid: &str,
        docs: &[&str],
        line_of: &dyn Fn(usize) -> u64,
        diag: &mut Diagnostics,
    ) {
        let docs = self.check_depth_and_cut(qid, docs, line_of, diag);
        // With a chunk map the rest sees documents (docs/contract.md §2.11).
        let mapped;
        let chunk_line;
        let (docs, line_of): (&[&str], &dyn Fn(usize) -> u64) = match self.keep.doc_map {
            None => (docs, line_of),
            Some(map) => {
                let Some((d, at)) = map.to_docs(qid, docs, &self.display, line_of, diag) else {
                    return;
                };
                mapped = d;
                chunk_line = move |i: usize| line_of(at[i]);
                (&mapped, &chunk_line)
            }
        };
        let len = docs.len() as u32;
        let list_hash = self.hash_and_check(qid, docs, line_of, diag);
        if let Some(pairing) = self.keep.pairing
            && !self.structure_only
        {
            match &mut self.deferred {
                Some(d) => d.push((qi, Id::from(qid), self.hashes.as_slice().into())),
                None => pairing.offer(self.keep.side, qi, qid, &self.hashes),
            }
        }
        let Some(qi) = qi else {
            return;
        };
        let q = &self.gold.queries[qi];
        let mut hits = Vec::new();
        if !q.judged.is_empty() {
            for (i, (doc, &h)) in docs.iter().zip(&self.hashes).enumerate() {
                if let Some(j) = q.find_hashed(doc.as_bytes(), h) {
                    hits.push(Hit {
                        rank: i as u32 + 1,
                        judged: j as u32,
                    });
                }
            }
            let (hashes, hits) = (&self.hashes, &hits);
            let ranking = meet::Ranking {
                q,
                qid,
                docs,
                hashes,
                hits,
                line_of,
            };
            self.meet.saw(ranking, &self.display, diag);
        }
        let (unjudged, unjudged_ids) = self.unjudged(qi, docs, &hits);
        self.observed[qi] = Some(Observed {
            len,
            hits: hits.into_boxed_slice(),
            list_hash,
            unjudged,
            unjudged_ids,
        });
    }

    /// Hash every doc of a ranking into `self.hashes` and report each duplicated doc
    /// once, at its second occurrence; the hash of the whole list. Duplicates are
    /// found through an open-addressing table of (hash, position), cleared per ranking.
    fn hash_and_check(
        &mut self,
        qid: &str,
        docs: &[&str],
        line_of: &dyn Fn(usize) -> u64,
        diag: &mut Diagnostics,
    ) -> u64 {
        let mut list = FxHasher::default();
        self.table.reset(docs.len());
        self.hashes.clear();
        let mut reported: FxHashSet<&str> = FxHashSet::default();
        for (i, doc) in docs.iter().enumerate() {
            let h = hash_bytes(doc.as_bytes());
            list.write_u64(h);
            self.hashes.push(h);
            let hashes = &self.hashes;
            let repeat = self
                .table
                .seen_before(h, i, |j| hashes[j] == h && docs[j] == *doc);
            if repeat && reported.insert(doc) {
                diag.problem(
                    Location::line(&self.display, line_of(i)),
                    ProblemKind::DuplicateDocInRanking {
                        query: qid.to_string(),
                        doc: doc.to_string(),
                    },
                );
            }
        }
        list.finish()
    }

    /// The unjudged docs of one ranking that [`Keep`] asks for, in rank order
    /// (`hits` holds the judged ones, in rank order): the hashes of those in the top
    /// ranks, and by id when the label queue needs them (every query kept, or docs
    /// wanted at any rank).
    fn unjudged(&self, qi: usize, docs: &[&str], hits: &[Hit]) -> (Box<[u64]>, Box<[RankedDoc]>) {
        let wanted = self.keep.wanted.and_then(|w| w.get(&(qi as u32)));
        let top = if self.keep.every_query || self.gold.queries[qi].non_relevant > 0 {
            self.keep.top as usize
        } else {
            0 // can be neither suspect nor queued: nothing kept (memory)
        };
        let scan = match wanted {
            Some(_) => docs.len(),
            None => docs.len().min(top),
        };
        let with_ids = self.keep.every_query || wanted.is_some();
        let mut hashes = Vec::with_capacity(scan.min(top));
        let mut ids = Vec::new();
        let mut judged = hits.iter().map(|h| h.rank).peekable();
        for (i, doc) in docs.iter().take(scan).enumerate() {
            let rank = i as u32 + 1;
            if judged.next_if_eq(&rank).is_some() {
                continue;
            }
            if i < top {
                hashes.push(self.hashes[i]);
            }
            if with_ids && (i < top || wanted.is_some_and(|w| w.iter().any(|d| d == doc))) {
                let doc = Id::from(*doc);
                ids.push(RankedDoc { rank, doc });
            }
        }
        // Held for the whole comparison, per query and run: no spare capacity.
        (hashes.into_boxed_slice(), ids.into_boxed_slice())
    }

    fn finish_csv(&mut self, diag: &mut Diagnostics) {
        // Without a usable header no row was read: "missing" would be noise.
        self.warn_not_in_gold(diag);
        if self.structure_only || !self.header_ok {
            return;
        }
        for (qi, q) in self.gold.queries.iter().enumerate() {
            if self.first_line[qi] == 0 {
                diag.problem(
                    Location::file(&self.display),
                    ProblemKind::GoldQueryMissing {
                        query: q.id.to_string(),
                    },
                );
            }
        }
    }

    fn finish_trec(&mut self, diag: &mut Diagnostics) {
        self.note_tie_order(diag);
        let list = |ids: &mut Vec<String>, total: usize| {
            crate::text::sort_natural(ids);
            let mut s = ids.join(", ");
            s.push_str(&crate::text::and_more(total, ids.len()));
            s
        };
        self.warn_not_in_gold(diag);
        for (ids, what) in [
            (
                &mut self.constant,
                "all-equal scores, so they are ranked by doc id (descending), as trec_eval does",
            ),
            (
                &mut self.disagree,
                "scores whose order disagrees with the rank column; ragdiff, like trec_eval, ranks by score",
            ),
        ] {
            if !ids.is_empty() {
                let n = ids.len();
                crate::text::sort_natural(ids);
                let shown: Vec<String> = ids.iter().take(SAMPLE).cloned().collect();
                let mut shown = shown;
                diag.warn(format!(
                    "{}: {n} quer{} {what}: {}",
                    self.display,
                    if n == 1 { "y has" } else { "ies have" },
                    list(&mut shown, n)
                ));
            }
        }
    }

    /// The note for [`Collector::tie_order`], if any query is in it.
    fn note_tie_order(&mut self, diag: &mut Diagnostics) {
        let n = self.tie_order.len();
        if n > 0 {
            // The first ids in natural order (docs/contract.md §5.2), not the first
            // met in the file.
            crate::text::sort_natural(&mut self.tie_order);
            let shown: Vec<String> = self.tie_order.iter().take(SAMPLE).cloned().collect();
            diag.note(format!(
                "{}: {n} quer{} tied scores ordered differently from trec_eval's doc-id tie-break (numbers follow trec_eval): {}{}",
                self.display,
                if n == 1 { "y has" } else { "ies have" },
                shown.join(", "),
                crate::text::and_more(n, shown.len())
            ));
        }
    }

    /// The outcome of a reading that ended (whole or with problems).
    fn outcome(
        self,
        meta: RunMeta,
        mut diag: Diagnostics,
        index_version: Option<String>,
    ) -> ReadOutcome {
        if !self.structure_only {
            self.meet.check(self.gold, &self.display, &mut diag);
        }
        let stats = self.stats;
        ReadOutcome {
            run: Some(self.into_run(meta)),
            diag,
            index_version,
            stats,
        }
    }

    fn into_run(self, mut meta: RunMeta) -> ObservedRun {
        if !meta.depth_declared {
            meta.depth = self.longest.max(1);
        }
        ObservedRun {
            meta,
            observed: self.observed,
            repeats: Vec::new(),
            covered: None,
            doc_map: None,
            latency: self.latency,
        }
    }
}

/// Why reading a run stopped: the line cap's problem at its line, or the system's
/// error.
pub(super) fn read_error(e: &std::io::Error, display: &str) -> (Option<u64>, ProblemKind) {
    match GuardError::of(e) {
        Some(g) => g.problem(),
        None => (
            None,
            ProblemKind::PathUnreadable {
                what: "run results",
                path: display.to_string(),
                reason: e.to_string(),
            },
        ),
    }
}
