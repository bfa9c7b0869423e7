//! TREC runs (`qid Q0 docid rank score tag`), streamed: one pass when the queries
//! are grouped, a second keeping every query when they turn out interleaved.

use std::io::Read;

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Collector, Progress, ReadOutcome, hash_bytes, read_error};
use crate::load::lines::{self, Guard, parse_rank, split_fields};
use crate::model::RunMeta;
use crate::validate::{Diagnostics, Location, ProblemKind, id_problem};

/// A TREC run: one pass when its queries are grouped (the usual export), a second
/// pass keeping every query when they turn out interleaved.
pub(super) fn read_trec_run<'c, 's>(
    meta: RunMeta,
    display: &str,
    input: Box<dyn Read + 's>,
    open: &dyn Fn(&mut Diagnostics) -> Option<Box<dyn Read + 's>>,
    collector: &dyn Fn() -> Collector<'c>,
    mut diag: Diagnostics,
    progress: Progress,
) -> ReadOutcome {
    let mut c = collector();
    if c.keep.defer_trec {
        c.defer_offers();
    }
    if read_trec(
        Guard::lines(input),
        display,
        false,
        &mut c,
        &mut diag,
        progress,
    ) {
        c.finish_trec(&mut diag);
        c.offer_deferred();
        return c.outcome(meta, diag, None);
    }
    let first = c.stats;
    if let Some(pairing) = c.keep.pairing
        && !c.keep.defer_trec
    {
        pairing.poison(); // lists offered so far may be partial
    }
    let mut diag = Diagnostics::default();
    let Some(input) = open(&mut diag) else {
        return ReadOutcome::unread(diag, first);
    };
    let mut c = collector();
    // A poisoned pairing ignores what this pass offers (the caller pairs again); it
    // is kept so queries the gold lacks are still read and checked as in the first.
    if c.keep.defer_trec {
        c.defer_offers();
    }
    read_trec(
        Guard::lines(input),
        display,
        true,
        &mut c,
        &mut diag,
        &|_| {},
    );
    c.finish_trec(&mut diag);
    c.offer_deferred();
    c.stats.max_held = c.stats.max_held.max(first.max_held);
    c.outcome(meta, diag, None)
}

/// One TREC query's lines, waiting for its last line.
#[derive(Default)]
pub(super) struct TrecQuery {
    qid: String,
    line: u64,
    gold: Option<usize>,
    arena: String,
    entries: Vec<Entry>,
    /// Lines read for this query, stored or not.
    total: u64,
    /// The first line not stored (past depth).
    over_line: u64,
}

struct Entry {
    score: f64,
    rank: i64,
    start: u32,
    end: u32,
    line: u64,
}

impl TrecQuery {
    fn doc(&self, e: &Entry) -> &str {
        &self.arena[e.start as usize..e.end as usize]
    }

    /// Order as trec_eval does: score descending, ties by doc id descending (byte
    /// order); the rank column is ignored but checked for a warning.
    pub(super) fn finish(&mut self, c: &mut Collector, diag: &mut Diagnostics) {
        // A query the gold does not have is read all the same: it enters drift (§6.5).
        if let Some(qi) = self.gold
            && !c.claim(qi, self.line, diag)
        {
            return;
        }
        if let Some(depth) = c.depth
            && self.total > u64::from(depth)
        {
            // Only the first `depth` lines were kept (memory stays gold x depth); the
            // first line past depth is where the list became too long.
            diag.problem(
                Location::line(&c.display, self.over_line),
                ProblemKind::RankingTooLong {
                    query: self.qid.clone(),
                    len: self.total,
                    depth,
                },
            );
        }
        let arena = &self.arena;
        let doc = |e: &Entry| &arena.as_bytes()[e.start as usize..e.end as usize];
        let order =
            |a: &Entry, b: &Entry| b.score.total_cmp(&a.score).then_with(|| doc(b).cmp(doc(a)));
        // Exporters usually write a query's lines best first: then there is nothing to do.
        if !self.entries.is_sorted_by(|a, b| order(a, b).is_le()) {
            self.entries.sort_unstable_by(order);
        }
        if self.entries.len() > 1 && (self.gold.is_some() || c.structure_only) {
            let first = self.entries[0].score;
            if self.entries.iter().all(|e| e.score == first) {
                c.constant.push(self.qid.clone());
            } else {
                let (inverted, ties) = rank_findings(&self.entries);
                if inverted {
                    c.disagree.push(self.qid.clone());
                }
                if ties {
                    c.tie_order.push(self.qid.clone());
                }
            }
        }
        let docs: Vec<&str> = self.entries.iter().map(|e| self.doc(e)).collect();
        let entries = &self.entries;
        c.accept(self.gold, &self.qid, &docs, &|i| entries[i].line, diag);
    }

    pub(super) fn reset(&mut self, qid: &str, line: u64, gold: Option<usize>) {
        self.qid.clear();
        self.qid.push_str(qid);
        self.line = line;
        self.gold = gold;
        self.arena.clear();
        self.entries.clear();
        self.total = 0;
        self.over_line = 0;
    }

    /// Add a line; at most `cap` are stored (the run's depth; none for a query that
    /// is ignored), the rest only counted. Returns how many are held.
    pub(super) fn push(&mut self, doc: &str, score: f64, rank: i64, line: u64, cap: u64) -> usize {
        self.total += 1;
        if self.total > cap {
            if self.over_line == 0 {
                self.over_line = line;
            }
            return self.entries.len();
        }
        let start = self.arena.len() as u32;
        self.arena.push_str(doc);
        self.entries.push(Entry {
            score,
            rank,
            start,
            end: self.arena.len() as u32,
            line,
        });
        self.entries.len()
    }

    /// How many lines of this query may be stored.
    pub(super) fn cap(&self, c: &Collector) -> u64 {
        if self.gold.is_none() && !c.structure_only && c.keep.pairing.is_none() {
            0 // not in the gold and no drift to compute: ignored, as trec_eval does
        } else {
            c.depth.map_or(u64::MAX, u64::from)
        }
    }
}

/// For one query's entries in trec_eval's order (score descending, ties by doc id
/// descending): whether the rank column puts a lower score above a higher one (an
/// inversion: a warning), and whether it orders some tied scores other than by doc id
/// (a note: trec_eval's tie-break decides, so the numbers still agree with it).
fn rank_findings(entries: &[Entry]) -> (bool, bool) {
    let (mut inverted, mut ties) = (false, false);
    // The largest rank number among strictly higher scores seen so far.
    let mut above = i64::MIN;
    let mut group_max = i64::MIN;
    for (i, e) in entries.iter().enumerate() {
        if i > 0 && e.score == entries[i - 1].score {
            ties |= entries[i - 1].rank > e.rank;
        } else {
            above = above.max(group_max);
            group_max = i64::MIN;
        }
        inverted |= e.rank < above;
        group_max = group_max.max(e.rank);
    }
    (inverted, ties)
}

/// One parsed TREC run line: its fields, and whether its query is `current`, the id
/// of the query being read (already checked, so the usual next line's id is not
/// checked again); or a problem.
#[inline]
fn parse_trec_line<'t>(
    text: &'t str,
    line_no: u64,
    display: &str,
    current: &str,
    diag: &mut Diagnostics,
) -> Option<(TrecLine<'t>, bool)> {
    let mut f = [""; 6];
    let n = split_fields(text, &mut f);
    if n == 0 || f[0].starts_with('#') {
        return None;
    }
    if n < 6 {
        diag.problem(
            Location::line(display, line_no),
            ProblemKind::MalformedTrec {
                kind: "run",
                expected: "6 fields `qid Q0 docid rank score tag`",
                found: n,
            },
        );
        return None;
    }
    let (qid, doc) = (f[0], f[2]);
    let same = qid == current;
    if !ids_ok(qid, doc, same, display, line_no, diag) {
        return None;
    }
    let score = match parse_score(f[4]) {
        Ok(s) => s,
        Err(reason) => {
            diag.problem(
                Location::line(display, line_no),
                ProblemKind::BadScore {
                    query: qid.to_string(),
                    doc: doc.to_string(),
                    reason,
                },
            );
            return None;
        }
    };
    let Some(rank) = parse_rank(f[3]) else {
        diag.problem(
            Location::line(display, line_no),
            ProblemKind::BadRank {
                query: qid.to_string(),
                doc: doc.to_string(),
            },
        );
        return None;
    };
    let extra = n > 6;
    Some((
        TrecLine {
            qid,
            doc,
            score,
            rank,
            extra,
        },
        same,
    ))
}

/// Whether a run line's ids are usable (the query id only when not `known`); a
/// problem at `file`'s `line` when not.
#[inline]
fn ids_ok(
    qid: &str,
    doc: &str,
    known: bool,
    file: &str,
    line: u64,
    diag: &mut Diagnostics,
) -> bool {
    let problem = if !known && let Some(reason) = id_problem(qid) {
        Some(("query", reason))
    } else {
        id_problem(doc).map(|reason| ("doc", reason))
    };
    let Some((what, reason)) = problem else {
        return true;
    };
    let context = String::new();
    let at = Location::line(file, line);
    diag.problem(
        at,
        ProblemKind::InvalidId {
            what,
            context,
            reason,
        },
    );
    false
}

/// The fields of a TREC run line that ragdiff reads.
struct TrecLine<'t> {
    qid: &'t str,
    doc: &'t str,
    score: f64,
    rank: i64,
    /// More than six fields.
    extra: bool,
}

/// Stream a TREC run. Returns false when the queries turned out to be interleaved
/// (and `keep_all` was not set), in which case the caller reads again with it set.
fn read_trec(
    file: impl Read,
    display: &str,
    keep_all: bool,
    c: &mut Collector,
    diag: &mut Diagnostics,
    progress: Progress,
) -> bool {
    let mut t = TrecReading {
        keep_all,
        ..TrecReading::default()
    };
    // One entry per query read: sized for the gold's at once, not grown by rehashing.
    t.finished.reserve(c.gold.queries.len());
    // qid, docid, rank and score must be UTF-8; Q0, the tag and comments need not.
    let needed = [0, 2, 3, 4];
    let result = lines::stream_lines(
        file,
        display,
        &needed,
        diag,
        progress,
        |line_no, text, diag| {
            if diag.stop_if_full(display, line_no) {
                return false;
            }
            // Only a started query's id was checked (an empty id never is).
            let current = if t.started {
                t.current.qid.as_str()
            } else {
                ""
            };
            let Some((l, same)) = parse_trec_line(text, line_no, display, current, diag) else {
                if !text.trim().is_empty() && !text.trim_start().starts_with('#') {
                    t.any = true;
                }
                return true;
            };
            t.any = true;
            t.extra_columns += l.extra as u64;
            t.line(c, &l, same, line_no, diag)
        },
    );
    if t.interleaved {
        return false;
    }
    if let Err(e) = result {
        let (line, kind) = read_error(&e, display);
        diag.problem(Location::at(display, line), kind);
    }
    t.end(c, display, diag);
    true
}

/// The state of one pass over a TREC run: the query being read (queries grouped), or
/// every query at once (`keep_all`, the second pass over an interleaved run).
#[derive(Default)]
struct TrecReading {
    keep_all: bool,
    current: TrecQuery,
    started: bool,
    finished: FxHashSet<u64>,
    all: Vec<TrecQuery>,
    all_index: FxHashMap<String, usize>,
    /// A query came back after another began: the pass stops, to read again keeping all.
    interleaved: bool,
    extra_columns: u64,
    any: bool,
}

impl TrecReading {
    /// Take one parsed line; false stops the pass (the run is interleaved).
    fn line(
        &mut self,
        c: &mut Collector,
        l: &TrecLine,
        same: bool,
        line_no: u64,
        diag: &mut Diagnostics,
    ) -> bool {
        let (qid, doc, score, rank) = (l.qid, l.doc, l.score, l.rank);
        if self.keep_all {
            let idx = match self.all_index.get(qid) {
                Some(&i) => i,
                None => {
                    let gold = c.query(qid);
                    let mut q = TrecQuery::default();
                    q.reset(qid, line_no, gold);
                    self.all.push(q);
                    self.all_index.insert(qid.to_string(), self.all.len() - 1);
                    self.all.len() - 1
                }
            };
            let cap = self.all[idx].cap(c);
            let held = self.all[idx].push(doc, score, rank, line_no, cap);
            c.stats.max_held = c.stats.max_held.max(held);
            return true;
        }
        // `same`: this line's query is the one being read (started, same id).
        if !same {
            if self.started {
                self.current.finish(c, diag);
                self.finished
                    .insert(hash_bytes(self.current.qid.as_bytes()));
            }
            if self.finished.contains(&hash_bytes(qid.as_bytes())) {
                self.interleaved = true;
                return false;
            }
            let gold = c.query(qid);
            self.current.reset(qid, line_no, gold);
            self.started = true;
        }
        let cap = self.current.cap(c);
        let held = self.current.push(doc, score, rank, line_no, cap);
        c.stats.max_held = c.stats.max_held.max(held);
        true
    }

    /// Finish the open queries; an empty file and extra columns are said once.
    fn end(&mut self, c: &mut Collector, display: &str, diag: &mut Diagnostics) {
        if self.keep_all {
            for q in &mut self.all {
                q.finish(c, diag);
            }
        } else if self.started {
            self.current.finish(c, diag);
        }
        if !self.any && diag.problems.is_empty() {
            diag.problem(
                Location::file(display),
                ProblemKind::EmptyFile {
                    expected: "TREC run lines `qid Q0 docid rank score tag`",
                },
            );
        }
        if self.extra_columns > 0 {
            let n = self.extra_columns;
            diag.warn(format!(
                "{display}: {n} line{} more than 6 fields; the extra ones are ignored, as trec_eval does",
                if n == 1 { " has" } else { "s have" }
            ));
        }
    }
}

/// A score field: a finite number (`-0.0` as `0.0`: trec_eval ranks them as one
/// score, tie broken by doc id, and `total_cmp` would not), or why not. Inlined into
/// the per-line parsers: a call per line costs more than the check.
#[inline(always)]
pub(super) fn parse_score(field: &str) -> Result<f64, &'static str> {
    match fast_float2::parse::<f64, _>(field) {
        Ok(s) if s.is_finite() => Ok(s + 0.0),
        Ok(s) if s.is_nan() => Err("NaN"),
        Ok(_) => Err("infinite"),
        Err(_) => Err("not a number"),
    }
}
