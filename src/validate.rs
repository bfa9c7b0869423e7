//! Every input problem as a typed value, collected rather than stopping at the first
//! (docs/contract.md §3). Messages carry paths, lines and ids, never cell contents.

use std::fmt;

use crate::model::{GoldSet, RunMeta};

/// Where a problem sits: a file and, where it applies, a line; or the command line
/// itself (`usage`), which is shown without a place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: Option<u64>,
    pub usage: bool,
    /// The JSON pointer (RFC 6901) of the value concerned, in a JSON or JSONL input
    /// (docs/contract.md §3.1).
    pub pointer: Option<String>,
}

impl Location {
    /// The command line: a flag or argument, not a file.
    pub fn usage() -> Self {
        Self {
            file: "usage".to_string(),
            line: None,
            usage: true,
            pointer: None,
        }
    }

    pub fn file(file: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            line: None,
            usage: false,
            pointer: None,
        }
    }

    /// A file and, when known, a line.
    pub fn at(file: impl Into<String>, line: Option<u64>) -> Self {
        Self {
            file: file.into(),
            line,
            usage: false,
            pointer: None,
        }
    }

    pub fn line(file: impl Into<String>, line: u64) -> Self {
        Self {
            file: file.into(),
            line: Some(line),
            usage: false,
            pointer: None,
        }
    }

    /// The same place, at the JSON value `pointer` (already escaped as RFC 6901 asks).
    pub fn pointer(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = Some(pointer.into());
        self
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}", self.file, line)?,
            None => write!(f, "{}", self.file)?,
        }
        match &self.pointer {
            Some(p) => write!(f, ": at {p}"),
            None => Ok(()),
        }
    }
}

/// What is wrong with an input. Each variant's message says what to do when that is
/// not obvious.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProblemKind {
    #[error(
        "query {query} appears more than once (first at line {first}); each query id must be unique"
    )]
    DuplicateQuery { query: String, first: u64 },
    #[error("query {query} lists doc {doc} twice: a duplicate takes the place of another result")]
    DuplicateDocInRanking { query: String, doc: String },
    #[error("query {query} lists expected doc {doc} twice")]
    DuplicateDocInGold { query: String, doc: String },
    #[error("query {query} lists non-relevant doc {doc} twice")]
    DuplicateNonRelevant { query: String, doc: String },
    #[error(
        "query {query} lists doc {doc} both in expected_doc_ids and in non_relevant_doc_ids; a doc is judged one way: keep it in one column"
    )]
    JudgedBothWays { query: String, doc: String },
    #[error(
        "query {query} returned {len} docs, more than the run's depth {depth}; a list may be shorter than depth, never longer: fix the export or the manifest's depth"
    )]
    RankingTooLong { query: String, len: u64, depth: u32 },
    #[error(
        "gold query {query} is missing from the run; add a row for it (an empty cell when nothing was retrieved)"
    )]
    GoldQueryMissing { query: String },
    #[error("k = {k} is larger than the run's depth {depth}; k must lie in 1..=depth")]
    KAboveDepth { k: u32, depth: u32 },
    #[error("{key} must be at least 1")]
    Zero { key: &'static str },
    #[error(
        "min_grade = {value} is below 0; min_grade is the lowest grade that counts as relevant, a whole number >= 0 (min_grade = 0 counts every doc judged 0 or above)"
    )]
    NegativeMinGrade { value: i64 },
    #[error(
        "--k is not allowed: the gold manifest pins k = {k} so nobody picks k after seeing results"
    )]
    KPinned { k: u32 },
    #[error("{key} = {value:?} is not a semantic version (like \"1.2.0\")")]
    InvalidSemver { key: &'static str, value: String },
    #[error("index_version {reason}")]
    BadIndexVersion { reason: String },
    #[error("{key} has {chars} characters, more than {max}")]
    TooLong {
        key: String,
        chars: usize,
        max: usize,
    },
    #[error("[meta] has {count} keys, more than 64; keep the team's own metadata to 64 keys")]
    MetaTooMany { count: usize },
    #[error("frozen_at = {value:?} is not a date like \"2026-09-19\"")]
    InvalidDate { value: String },
    #[error("sha256 = {value:?} is not 64 hex digits; run `ragdiff freeze` to record it")]
    InvalidSha { value: String },
    #[error("missing key `{key}`")]
    MissingKey { key: &'static str },
    #[error("unknown key `{key}`; known keys: {known}")]
    UnknownKey { key: String, known: &'static str },
    #[error("`{key}` must be {expected}")]
    WrongType { key: String, expected: &'static str },
    #[error("not valid TOML: {message}")]
    Toml { message: String },
    #[error("{what} {path} does not exist")]
    PathMissing { what: &'static str, path: String },
    #[error("{what} {path} is a directory, not a file")]
    PathIsDir { what: &'static str, path: String },
    #[error(
        "{what} {path} is not a regular file (a device, FIFO or socket); ragdiff reads regular files only (a symbolic link to one is fine)"
    )]
    PathNotRegular { what: &'static str, path: String },
    #[error(
        "{what} {path} is a kernel file (on /proc or /sys), whose reads can block or never end; copy what you need into a regular file"
    )]
    PathKernel { what: &'static str, path: String },
    #[error(
        "line longer than 1 MiB (the limit for a line or a CSV row); reading stopped here: is this the right file?"
    )]
    LineTooLong,
    #[error("lines end in CR only; save the file with LF or CRLF line ends")]
    CrOnly,
    #[error(
        "a CR not followed by LF inside the line: CSV readers take it as a row break that git and GitHub do not show; remove it"
    )]
    BareCr,
    #[error(
        "unterminated quote: the quoted cell that starts on this line never closes, so it would take in the rest of the file; close the quote"
    )]
    UnterminatedQuote,
    #[error(
        "{what} {path} cannot be read: {reason}; check the path, its links and its permissions"
    )]
    PathUnreadable {
        what: &'static str,
        path: String,
        reason: String,
    },
    #[error("the file is empty; expected {expected}")]
    EmptyFile { expected: &'static str },
    #[error("the file has a header but no rows; add one row per query")]
    HeaderOnly,
    #[error(
        "column `{column}` appears more than once in the header (ragdiff would read only the first); keep one"
    )]
    DuplicateColumn { column: String },
    #[error("missing required column `{column}` (the header must contain {required})")]
    MissingColumn {
        column: &'static str,
        required: &'static str,
    },
    #[error(
        "the manifest names column `{name}` for `{key}` (`columns.{key}`), and the header has no such column"
    )]
    NamedColumnMissing { key: &'static str, name: String },
    #[error(
        "the manifest says this is a long table (format = \"csv-long\" or `columns`), and its header has no query column and doc column: name them with `columns.query` and `columns.doc`"
    )]
    NotALongTable,
    #[error("malformed CSV: {reason}")]
    MalformedCsv { reason: String },
    #[error("malformed TREC {kind} line: expected {expected}, found {found} fields")]
    MalformedTrec {
        kind: &'static str,
        expected: &'static str,
        found: usize,
    },
    #[error("query {query}: latency_ms is {value}; a latency is a number of milliseconds >= 0")]
    BadLatency { query: String, value: String },
    #[error("query {query}, doc {doc}: score is {reason}; scores must be finite numbers")]
    BadScore {
        query: String,
        doc: String,
        reason: &'static str,
    },
    #[error("query {query}, doc {doc}: the rank column is not a whole number")]
    BadRank { query: String, doc: String },
    #[error("query {query}, doc {doc}: the grade is not a whole number")]
    BadGrade { query: String, doc: String },
    #[error("the line is not valid UTF-8; save the file as UTF-8")]
    NotUtf8,
    #[error("invalid {what} id{context}: {reason}")]
    InvalidId {
        what: &'static str,
        context: String,
        reason: &'static str,
    },
    #[error(
        "gold changed since it was frozen: sha256 is {}…, the manifest records {}…; restore the data or raise `version` and run `ragdiff freeze`",
        sha_prefix(actual),
        sha_prefix(recorded)
    )]
    GoldChanged { recorded: String, actual: String },
    #[error(
        "the gold set is not frozen and --require-frozen is set; run `ragdiff freeze {path}` and commit the manifest"
    )]
    NotFrozen { path: String },
    #[error(
        "the gold changed but `version` {version} is not higher than frozen_version {frozen}; raise `version` to freeze the new labels"
    )]
    VersionNotRaised { version: String, frozen: String },
    #[error(
        "{key} is {now} but the gold was frozen with {key} {frozen} (frozen_{key}); restore it, or raise `version` and run `ragdiff freeze`"
    )]
    FrozenMeaningChanged {
        key: &'static str,
        frozen: String,
        now: String,
    },
    #[error(
        "{what} changed since the gold was frozen but `version` {version} is not higher than frozen_version {frozen}; raise `version` to freeze the new meaning"
    )]
    MeaningNotRaised {
        what: String,
        version: String,
        frozen: String,
    },
    #[error(
        "the file changed while ragdiff read it (an interleaved TREC run is read again for drift); run again once nothing writes it"
    )]
    ChangedWhileRead,
    #[error(
        "allow-listed query {query} is not in the gold set; check the id or remove it from the allow-list"
    )]
    AllowedNotInGold { query: String },
    #[error("allow-listed query {query} has no reason; say why its failure is accepted")]
    AllowNoReason { query: String },
    #[error(
        "none of the run's doc ids is judged anywhere in the gold, which judges docs for {queries} of it: run ids look like {run}, gold ids like {gold}; write the run's ids as the gold does (a prefix? another scheme?) or map them with `doc_map`"
    )]
    IdsNeverMeetGold {
        queries: String,
        run: String,
        gold: String,
    },
    #[error(
        "query {query}: the doc id `{}` holds a list ({why}); {expected}",
        crate::text::safe_id(cell)
    )]
    ListCell {
        query: String,
        cell: String,
        why: &'static str,
        expected: &'static str,
    },
    #[error("{}", unknown_block_tag(unknown, known))]
    UnknownBlockTag {
        unknown: Vec<String>,
        known: Vec<String>,
    },
    #[error("`{key}`: {value} is not {expected}")]
    PolicyValue {
        key: String,
        value: String,
        expected: String,
    },
    #[error(
        "query {query} is accepted twice for index_version {version} (first on line {first}); keep one line"
    )]
    AllowDuplicate {
        query: String,
        version: String,
        first: u64,
    },
    #[error(
        "the `{column}` cell holds a control character (a newline, tab or similar); write it on one line"
    )]
    AllowControl { column: String },
    #[error("doc {doc} has a title already (line {first}); give each doc one title")]
    TitleTwice { doc: String, first: u64 },
    #[error("accepted_at = {value:?} is not a date like \"2026-09-19\"")]
    AllowBadDate { value: String },
    #[error(
        "no query has a relevant doc (grade >= min_grade {min_grade}), so there is nothing to evaluate; check min_grade and the labels"
    )]
    NothingToEvaluate { min_grade: i64 },
    #[error(
        "version {version} is lower than frozen_version {frozen}; a gold set's version only goes up"
    )]
    VersionBelowFrozen { version: String, frozen: String },
    #[error("{message}")]
    Usage { message: String },
    #[error(
        "run results are the {what} {input} (the same file or the same bytes); a run's results are never one of the gate's own files"
    )]
    ResultsAreInput { what: &'static str, input: String },
    #[error(
        "query {query}: chunk {chunk} is not in the doc map {map}; every retrieved id must be a `chunk_id` of the map"
    )]
    UnmappedChunk {
        query: String,
        chunk: String,
        map: String,
    },
    #[error(
        "doc {chunk} is judged by the gold, but the map sends it to {doc}; a doc the gold judges keeps its id: map it to itself"
    )]
    JudgedDocRemapped { chunk: String, doc: String },
    #[error(
        "chunk {chunk} is mapped twice (first at line {first}); a chunk belongs to one document"
    )]
    ChunkMappedTwice { chunk: String, first: u64 },
    #[error(
        "a CSV gold keeps its tags in its `tags` column; remove `tags` from the manifest (a side file is for TREC qrels)"
    )]
    TagsFileForCsv,
    #[error(
        "lines carry `tags` and the manifest names a tags file; keep one source of tags (remove the arrays or `tags` from the manifest)"
    )]
    TagsTwice,
    #[error(
        "tags_sha256 is recorded but no `tags` file is named; restore `tags` or raise `version` and run `ragdiff freeze`"
    )]
    TagsShaWithoutFile,
    #[error("query {query}: {reason}")]
    BadTag { query: String, reason: String },
    #[error("query {query} is not in the gold set; every id in a tags file must be a gold query")]
    TagsQueryNotInGold { query: String },
    #[error(
        "gold query {query} has no row in the tags file; add a row for it (an empty `tags` cell when it has none)"
    )]
    TagsQueryMissing { query: String },
    #[error(
        "tags changed since the gold was frozen: sha256 is {actual}, the manifest records {recorded}; restore the tags file or raise `version` and run `ragdiff freeze`"
    )]
    TagsChanged { recorded: String, actual: String },
    #[error(
        "tags changed since the gold was frozen: the manifest records no tags_sha256 for {path}; raise `version` and run `ragdiff freeze`"
    )]
    TagsNotFrozen { path: String },
    #[error("cannot write {path}: {reason}")]
    Write { path: String, reason: String },
    #[error(
        "the first line has key `{found}` where a JSONL run has `{expected}`: rename it (a JSONL run line is {{\"id\": …, \"retrieved_doc_ids\": […]}}, optionally \"scores\"); nothing else was read"
    )]
    NearMiss {
        found: String,
        expected: &'static str,
    },
    #[error("malformed JSON: {reason}")]
    MalformedJson { reason: String },
    #[error(
        "looks like {looks}: set format = \"{format}\" in the manifest (or name the file .{format}); it was read as {read_as}"
    )]
    FormatMismatch {
        looks: &'static str,
        format: &'static str,
        read_as: &'static str,
    },
    #[error("at {pointer}: expected {expected}")]
    JsonShape {
        pointer: String,
        expected: &'static str,
    },
    #[error(
        "query {query}: {scores} scores for {docs} retrieved docs; `scores` must be as long as `retrieved_doc_ids`"
    )]
    ScoresLength {
        query: String,
        scores: usize,
        docs: usize,
    },
    #[error("`results` is an empty array; give at least one results file")]
    EmptyResults,
    #[error("`results` lists {path} twice; each repeat is a results file of its own")]
    RepeatTwice { path: String },
    #[error(
        "repeat {path} is {format} but the first repeat {first} is {first_format}; the repeats of a run share one format"
    )]
    RepeatFormat {
        path: String,
        format: &'static str,
        first: String,
        first_format: &'static str,
    },
    #[error(
        "gold query {query} is missing from this repeat although another repeat of the run lists it; every repeat answers the same queries"
    )]
    RepeatMissingQuery { query: String },
    #[error("expected {expected}")]
    QueriesLine { expected: &'static str },
    #[error(
        "gold query {query} has no question text; give it one in {from}: record cannot ask the retriever an empty question"
    )]
    NoQuestion { query: String, from: String },
    #[error(
        "the gold has no questions: name a queries file in its manifest (`queries = \"queries.tsv\"`) or give a CSV gold a `question` column"
    )]
    NoQuestions,
    #[error(
        "unlabelled query {query} is also a gold query; --include-unlabelled adds questions the gold does not label"
    )]
    UnlabelledInGold { query: String },
    #[error(
        "queries changed since the gold was frozen: sha256 is {}…, the manifest records {}…; restore the queries file or raise `version` and run `ragdiff freeze`",
        sha_prefix(actual),
        sha_prefix(recorded)
    )]
    QueriesChanged { recorded: String, actual: String },
}

/// A problem at a place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub location: Location,
    pub kind: ProblemKind,
}

impl fmt::Display for Problem {
    /// One line: every value from an input in it (path, id, key, value) is shown
    /// escaped ([`crate::text::shown`]); the fixed text has nothing to escape.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // each part bounded on its own, a long path by its middle, so the file name,
        // line and message survive (docs/contract.md §11)
        let at = crate::text::shown(&self.location.to_string()).into_owned();
        let at = crate::text::cut_middle(&at, crate::text::MESSAGE_COLUMNS / 2);
        let what = crate::text::shown(&self.kind.to_string()).into_owned();
        let what = crate::text::cut_to(
            &what,
            crate::text::MESSAGE_COLUMNS.saturating_sub(at.chars().count() + 2),
        );
        write!(f, "{at}: {what}")
    }
}

/// The first 12 characters of a sha256: enough to tell two apart, without printing
/// the whole hash of a file that may not be the gold (`data = "/etc/passwd"`).
fn sha_prefix(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}

/// At most this many problems are kept per file; the rest are counted.
pub const MAX_PROBLEMS_PER_FILE: usize = 200;

/// Problems and warnings gathered across every input of one command.
#[derive(Debug, Default)]
pub struct Diagnostics {
    pub problems: Vec<Problem>,
    pub warnings: Vec<String>,
    /// Findings worth knowing that are not warnings (never a `::warning`).
    pub notes: Vec<String>,
    /// Problems not kept because a file already had [`MAX_PROBLEMS_PER_FILE`], by file.
    pub dropped: Vec<(String, u64)>,
    /// Files whose reading stopped at a line because they had as many problems as
    /// are kept.
    pub stopped: Vec<(String, u64)>,
}

impl Diagnostics {
    pub fn problem(&mut self, location: Location, kind: ProblemKind) {
        let in_file = self
            .problems
            .iter()
            .filter(|p| p.location.file == location.file)
            .count();
        if in_file >= MAX_PROBLEMS_PER_FILE {
            match self.dropped.iter_mut().find(|(f, _)| *f == location.file) {
                Some((_, n)) => *n += 1,
                None => self.dropped.push((location.file.clone(), 1)),
            }
            return;
        }
        self.problems.push(Problem { location, kind });
    }

    /// True (and the file recorded as stopped at `line`) when `file` has as many
    /// problems as are kept: a reader then stops, so an endless or huge broken file
    /// is not read to its end.
    #[inline]
    pub fn stop_if_full(&mut self, file: &str, line: u64) -> bool {
        // Asked for every line of a run: the common answer without a call.
        self.problems.len() >= MAX_PROBLEMS_PER_FILE && self.stop_if_full_slow(file, line)
    }

    #[cold]
    fn stop_if_full_slow(&mut self, file: &str, line: u64) -> bool {
        let in_file = self
            .problems
            .iter()
            .filter(|p| p.location.file == file)
            .count();
        if in_file < MAX_PROBLEMS_PER_FILE {
            return false;
        }
        if !self.stopped.iter().any(|(f, _)| f == file) {
            self.stopped.push((file.to_string(), line));
        }
        true
    }

    /// A warning; input values in it are shown escaped ([`crate::text::shown`]).
    pub fn warn(&mut self, message: impl Into<String>) {
        let message = message.into();
        self.warnings
            .push(crate::text::shown(&message).into_owned());
    }

    /// A note; input values in it are shown escaped ([`crate::text::shown`]).
    pub fn note(&mut self, message: impl Into<String>) {
        let message = message.into();
        self.notes.push(crate::text::shown(&message).into_owned());
    }

    /// Record a usage problem (a flag or argument, not a file).
    pub fn usage(&mut self, message: impl Into<String>) {
        self.problem(
            Location::usage(),
            ProblemKind::Usage {
                message: message.into(),
            },
        );
    }

    /// The value a step produced, or the problems that stopped it (exit 2). A step
    /// that yields nothing always records why, so `None` with no problem recorded is
    /// a bug in ragdiff, reported as such rather than as a panic.
    pub fn require<T>(&mut self, value: Option<T>) -> Result<T, InvalidInput> {
        self.check()?;
        value.ok_or_else(|| {
            InvalidInput::usage("internal error: an input was not loaded and no problem was recorded; please report this")
        })
    }

    pub fn has_problems(&self) -> bool {
        !self.problems.is_empty()
    }

    /// Turn collected problems into an error (exit 2), or Ok when there are none.
    pub fn check(&mut self) -> Result<(), InvalidInput> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            // Files in the order they were met; within a file, by line.
            let mut files: Vec<String> = Vec::new();
            for p in &self.problems {
                if !files.contains(&p.location.file) {
                    files.push(p.location.file.clone());
                }
            }
            self.problems.sort_by_key(|p| {
                let file = files.iter().position(|f| *f == p.location.file);
                (file, p.location.line)
            });
            Err(InvalidInput {
                problems: std::mem::take(&mut self.problems),
                dropped: std::mem::take(&mut self.dropped),
                stopped: std::mem::take(&mut self.stopped),
            })
        }
    }
}

/// Invalid input: every problem found, printed together (exit 2).
#[derive(Debug)]
pub struct InvalidInput {
    pub problems: Vec<Problem>,
    pub dropped: Vec<(String, u64)>,
    pub stopped: Vec<(String, u64)>,
}

impl InvalidInput {
    pub fn one(location: Location, kind: ProblemKind) -> Self {
        Self {
            problems: vec![Problem { location, kind }],
            dropped: Vec::new(),
            stopped: Vec::new(),
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Self::one(
            Location::usage(),
            ProblemKind::Usage {
                message: message.into(),
            },
        )
    }
}

impl fmt::Display for InvalidInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len() as u64 + self.dropped.iter().map(|(_, n)| n).sum::<u64>();
        write!(
            f,
            "invalid input: {n} problem{}",
            if n == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            if p.location.usage {
                write!(f, "\n  {}", crate::text::shown(&p.kind.to_string()))?;
            } else {
                write!(f, "\n  {p}")?;
            }
        }
        for (file, n) in &self.dropped {
            let file = crate::text::shown(file);
            write!(f, "\n  {file}: … and {n} more problems not shown")?;
        }
        for (file, line) in &self.stopped {
            write!(
                f,
                "\n  {file}: reading stopped at line {line} after {MAX_PROBLEMS_PER_FILE} problems"
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for InvalidInput {}

/// Resolve k: the gold's pinned k, else `--k`, else the depth; check 1 <= k <= depth
/// when the depth was declared.
pub fn resolve_k(
    gold: &GoldSet,
    cli_k: Option<u32>,
    run: &RunMeta,
    location: &str,
    diag: &mut Diagnostics,
) -> Option<u32> {
    let k = match (gold.meta.k, cli_k) {
        (Some(pinned), Some(_)) => {
            diag.problem(Location::usage(), ProblemKind::KPinned { k: pinned });
            return None;
        }
        (Some(k), None) | (None, Some(k)) => k,
        (None, None) => run.compared_depth().max(1),
    };
    if run.depth_declared && k > run.compared_depth() {
        diag.problem(
            Location::file(location),
            ProblemKind::KAboveDepth {
                k,
                depth: run.compared_depth(),
            },
        );
        return None;
    }
    Some(k)
}

/// Why an id is invalid, if it is (docs/contract.md §2): empty after trimming, or with a
/// control character. (`;` cannot occur inside a list item: it separates them.)
pub fn id_problem(id: &str) -> Option<&'static str> {
    if id.is_empty() {
        Some("it is empty or only white space")
    } else if has_control(id) {
        Some("it contains a control character (a newline, tab or similar)")
    } else {
        None
    }
}

/// Whether `s` holds a control character (Unicode category Cc: U+0000-U+001F and
/// U+007F-U+009F), checked on bytes: this runs for every line of a run.
pub fn has_control(s: &str) -> bool {
    let b = s.as_bytes();
    // The common case, printable ASCII, eight bytes at a time.
    if crate::swar::printable_ascii(b) {
        return false;
    }
    b.iter().enumerate().any(|(i, &c)| {
        c < 0x20
            || c == 0x7f
            || (c == 0xc2 && b.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)))
    })
}

/// `[gate] block` names tags no gold query carries (docs/contract.md §8.7).
fn unknown_block_tag(unknown: &[String], known: &[String]) -> String {
    let tags: Vec<String> = unknown
        .iter()
        .map(|t| format!("`tag:{}`", crate::text::safe_id(t)))
        .collect();
    let known = if known.is_empty() {
        "the gold has no tags".to_string()
    } else {
        format!("the gold's tags: {}", crate::text::name_ids(known))
    };
    format!(
        "`block` names {} that no gold query carries ({known}); fix the tag or tag the queries",
        tags.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path longer than the bound is cut by its middle: the file name, the line
    /// and the message survive, in at most 2,000 columns.
    #[test]
    fn a_long_path_keeps_its_end_and_the_message() {
        let path = format!("{}/demo.csv", "a".repeat(3_000));
        let p = Problem {
            location: Location::line(&path, 7),
            kind: ProblemKind::NotUtf8,
        };
        let shown = p.to_string();
        assert!(shown.chars().count() <= 2_000, "{}", shown.chars().count());
        assert!(shown.starts_with("aaa"), "{shown}");
        assert!(shown.contains("…"), "{shown}");
        assert!(
            shown.ends_with(&format!("a/demo.csv:7: {}", ProblemKind::NotUtf8)),
            "{shown}"
        );
    }
}
