//! `freeze`: record the gold data's sha256 and frozen_version in its manifest.

use crate::exit;
use crate::load::{self, fs, gold, manifest, tags};
use crate::model::FrozenMeaning;
use crate::output;
use crate::settings;
use crate::validate::{Diagnostics, InvalidInput, Location, ProblemKind};

pub fn run(s: settings::Freeze) -> anyhow::Result<u8> {
    let mut diag = Diagnostics::default();
    let path = load::gold_or_default(s.gold, &mut diag);
    let path = diag.require(path)?;
    if !manifest::is_manifest(&path) {
        return Err(InvalidInput::usage(format!(
            "freeze needs a gold manifest (.toml), not {}",
            path.display()
        ))
        .into());
    }
    let doc = manifest::read(&path, &mut diag);
    let doc = diag.require(doc)?;
    let meta = manifest::gold_unchecked(&doc, &mut diag);
    let meta = diag.require(meta)?;
    let display = path.display().to_string();
    let shown = crate::text::shown_string(&display);
    let bytes = fs::read_file(
        &meta.data,
        "gold data",
        &meta.data.display().to_string(),
        &mut diag,
    );
    let mut unchecked = meta.clone();
    unchecked.sha256 = None;
    unchecked.tags_sha256 = None;
    if let Some(mut g) = gold::load(unchecked, &[], &mut diag) {
        tags::from_side_file(&mut g, &mut diag);
    }
    let tags_actual = tags_digest(&meta, &mut diag);
    let queries = QueriesSha::of(&doc, &mut diag);
    let bytes = diag.require(bytes)?;
    let actual = gold::sha256_hex(&bytes);
    let tags_note = tags_actual
        .as_ref()
        .map(|t| format!(", tags sha256 {}", &t[..12]))
        .unwrap_or_default();
    // A manifest without a version records a problem, so this never stops here.
    let version = diag.require(meta.version.clone())?;
    let meaning = FrozenMeaning::of(&meta);
    // docs/contract.md §4.4: a gold frozen before k, min_grade and tags were recorded
    // gets them without a version raise; once recorded, a change needs one.
    let unrecorded = meta.frozen_meaning.is_unrecorded();
    let meaning_changes = meta.frozen_meaning.changes(&meaning);
    if let Some(recorded) = &meta.sha256 {
        let same = *recorded == actual && meta.tags_sha256 == tags_actual && queries.same();
        if same && meaning_changes.is_empty() && meta.frozen_version.as_ref() == Some(&version) {
            output::stdout(&format!(
                "{shown}: already frozen at version {version} (sha256 {}{tags_note})\n",
                &actual[..12]
            ))?;
            return Ok(exit::SUCCESS);
        }
        let changed = (!same).then_some(Changed::Data).or_else(|| {
            (!unrecorded && !meaning_changes.is_empty())
                .then_some(Changed::Meaning(&meaning_changes))
        });
        if let Some(changed) = changed {
            check_raised(&meta, &version, changed, &display)?;
        }
    }
    let text = rewritten(
        doc,
        &actual,
        &version,
        tags_actual.as_deref(),
        &meta,
        &meaning,
    );
    let text = with_queries_sha(&text, queries.actual.as_deref());
    // A manifest reached through a link is rewritten where it lives, the link kept.
    let target = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    output::write(&target, &text)?;
    output::stdout(&format!(
        "{shown}: frozen at version {version} (sha256 {}{tags_note})\n",
        &actual[..12]
    ))?;
    Ok(exit::SUCCESS)
}

/// The queries file's sha256 now and as recorded: it is frozen with the data
/// (docs/contract.md §4.8).
struct QueriesSha {
    actual: Option<String>,
    recorded: Option<String>,
}

impl QueriesSha {
    fn of(doc: &manifest::ManifestDoc, diag: &mut Diagnostics) -> Self {
        let actual = load::queries::named_checked(&doc.path, false, diag)
            .map(|q| gold::sha256_hex(&q.bytes));
        let recorded = doc
            .doc
            .get("queries_sha256")
            .and_then(|v| v.as_str())
            .map(str::to_ascii_lowercase);
        Self { actual, recorded }
    }

    fn same(&self) -> bool {
        self.actual == self.recorded
    }
}

/// `queries_sha256` recorded (or removed when no queries file is named).
fn with_queries_sha(text: &str, sha: Option<&str>) -> String {
    let Ok(mut doc) = text.parse::<toml_edit::DocumentMut>() else {
        return text.to_string();
    };
    match sha {
        Some(sha) => doc["queries_sha256"] = toml_edit::value(sha),
        None => {
            doc.remove("queries_sha256");
        }
    }
    doc.to_string()
}

/// What changed since the last freeze.
enum Changed<'a> {
    /// The data or the tags file.
    Data,
    /// `k`, `min_grade` or `tags` (docs/contract.md §4.4): (key, recorded, now).
    Meaning(&'a [(&'static str, String, String)]),
}

/// A changed gold is frozen again only under a raised `version`.
fn check_raised(
    meta: &crate::model::GoldMeta,
    version: &semver::Version,
    changed: Changed,
    display: &str,
) -> Result<(), InvalidInput> {
    if meta.frozen_version.as_ref().is_some_and(|f| version > f) {
        return Ok(());
    }
    let frozen = meta
        .frozen_version
        .as_ref()
        .map_or_else(|| "(none recorded)".to_string(), ToString::to_string);
    let version = version.to_string();
    let kind = match changed {
        Changed::Data => ProblemKind::VersionNotRaised { version, frozen },
        Changed::Meaning(changes) => {
            let what: Vec<String> = changes
                .iter()
                .map(|(key, was, now)| format!("{key} ({was} -> {now})"))
                .collect();
            ProblemKind::MeaningNotRaised {
                what: what.join(", "),
                version,
                frozen,
            }
        }
    };
    Err(InvalidInput::one(Location::file(display), kind))
}

/// The manifest with the freeze recorded: sha256, frozen_version, tags_sha256 (or
/// none), frozen_k, frozen_min_grade and frozen_tags ("none" for no pinned k, no tags
/// file; docs/contract.md §4.4), and frozen_at (a first freeze keeps a date written by hand; a new version
/// records today's). Comments and layout are kept (toml_edit).
fn rewritten(
    doc: manifest::ManifestDoc,
    actual: &str,
    version: &semver::Version,
    tags_actual: Option<&str>,
    meta: &crate::model::GoldMeta,
    meaning: &FrozenMeaning,
) -> String {
    let mut doc = doc.doc.into_mut();
    doc["sha256"] = toml_edit::value(actual);
    doc["frozen_version"] = toml_edit::value(version.to_string());
    match tags_actual {
        Some(t) => doc["tags_sha256"] = toml_edit::value(t),
        None => {
            doc.remove("tags_sha256");
        }
    }
    doc["frozen_k"] = match meaning.k.flatten() {
        Some(k) => toml_edit::value(i64::from(k)),
        None => toml_edit::value("none"),
    };
    doc["frozen_min_grade"] = toml_edit::value(meaning.min_grade.unwrap_or(1));
    doc["frozen_tags"] = toml_edit::value(
        meaning
            .tags
            .clone()
            .flatten()
            .unwrap_or_else(|| "none".into()),
    );
    // Recording the meaning of a gold frozen before it was recorded keeps its date.
    let new_version = meta.frozen_version.as_ref().is_some_and(|f| f != version);
    if doc.get("frozen_at").is_none() || new_version {
        doc["frozen_at"] = toml_edit::value(today());
    }
    doc.to_string()
}

/// The sha256 of the tags side file the manifest names, if any (docs/contract.md §2.13).
fn tags_digest(meta: &crate::model::GoldMeta, diag: &mut Diagnostics) -> Option<String> {
    let file = meta.tags_file.as_ref()?;
    let display = file.path.display().to_string();
    fs::read_file(&file.path, "tags file", &display, diag).map(|b| gold::sha256_hex(&b))
}

/// Today's date (UTC) as YYYY-MM-DD: `SOURCE_DATE_EPOCH` stands for now when set
/// (the reproducible-builds convention), as for every date ragdiff writes.
fn today() -> String {
    civil_date((crate::text::now_secs() / 86_400) as i64)
}

/// The civil date of the days since 1970-01-01, `YYYY-MM-DD`.
pub fn civil_date(days: i64) -> String {
    let (year, month, day) = crate::text::civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}
