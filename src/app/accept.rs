//! `accept`: append allow-list lines for newly failed queries (docs/contract.md
//! §8.5). The comparison runs first (or a report CI exported says what newly failed);
//! ids that did not newly fail, or are already accepted for the candidate's version,
//! are refused with the file unchanged. The new lines go after the file's own bytes,
//! in its line ends, written atomically with its mode kept.

use std::path::Path;

use crate::exit;
use crate::load::{self, allow};
use crate::model::AllowEntry;
use crate::output;
use crate::report::{self, Format};
use crate::settings;
use crate::text::{name_ids, plural, safe_id};
use crate::validate::{Diagnostics, InvalidInput};

/// What newly failed, and for which candidate version.
struct Failed {
    newly: Vec<String>,
    /// The candidate's errored ones: never accepted (docs/contract.md §6.8).
    errored: Vec<String>,
    version: Option<String>,
    /// The entries already in the list.
    entries: Vec<AllowEntry>,
}

pub fn run(s: settings::Accept) -> anyhow::Result<u8> {
    let phases = crate::app::Phases::start();
    let failed = match &s.from_report {
        Some(path) => from_report(&s, path)?,
        None => {
            let report = super::compare::report(&s.compare, &phases)?;
            let mut diag = Diagnostics::default();
            let entries = existing(&s, &mut diag)?;
            Failed {
                newly: report.newly_failed.clone(),
                errored: report.candidate.errored.clone(),
                version: report.candidate.index_version.clone(),
                entries,
            }
        }
    };
    check(&s, &failed)?;
    append(&s, &failed)?;
    let version = failed.version.as_deref().unwrap_or("any version");
    crate::text::eprintln(&format!(
        "accepted {} for {}: {} appended to {}",
        name_ids(&s.ids),
        safe_id(version),
        plural(s.ids.len(), "line", "lines"),
        safe_id(&s.list.display().to_string())
    ));
    if s.from_report.is_some() {
        crate::text::eprintln(
            "the gate accepts them when this candidate is compared again (the comparison ran in CI, not here)",
        );
        return Ok(exit::SUCCESS);
    }
    // The new verdict: the comparison again, with the list as it is now.
    let mut compare = s.compare;
    compare.allow_failed.file = Some(s.list.clone());
    let report = super::compare::report(&compare, &phases)?;
    crate::app::print_warnings(&report.warnings);
    let mut out = Vec::new();
    report::write_compare(&report, Format::Table, true, &mut out)?;
    output::stdout(&String::from_utf8_lossy(&out))?;
    Ok(exit::SUCCESS)
}

/// The entries the list holds now (none when it does not exist yet).
fn existing(s: &settings::Accept, diag: &mut Diagnostics) -> anyhow::Result<Vec<AllowEntry>> {
    if !s.list.exists() {
        return Ok(Vec::new());
    }
    let entries = allow::parse(
        &read(&s.list, "allow-list")?,
        &s.list.display().to_string(),
        None,
        diag,
    );
    diag.check()?;
    Ok(entries)
}

/// `path`'s bytes: a regular file only (a FIFO or `/dev/zero` would block or fill
/// memory, docs/contract.md §12), else exit 2 as every input says it.
fn read(path: &Path, what: &'static str) -> Result<Vec<u8>, InvalidInput> {
    use crate::validate::ProblemKind as P;
    let display = path.display().to_string();
    if let Err(kind @ (P::PathIsDir { .. } | P::PathNotRegular { .. } | P::PathKernel { .. })) =
        load::fs::check_path(path, what, &display)
    {
        let mut diag = Diagnostics::default();
        diag.problem(crate::validate::Location::file(&display), kind);
        return Err(diag
            .check()
            .err()
            .unwrap_or_else(|| InvalidInput::usage(display.clone())));
    }
    std::fs::read(path).map_err(|e| {
        InvalidInput::usage(format!(
            "{}: cannot read: {e}",
            safe_id(&path.display().to_string())
        ))
    })
}

/// The newly failed ids and the candidate's version from a JSON report, once its
/// gold's sha256 matches the local gold's.
fn from_report(s: &settings::Accept, path: &Path) -> anyhow::Result<Failed> {
    let shown = safe_id(&path.display().to_string());
    let json: serde_json::Value = serde_json::from_slice(&read(path, "report")?)
        .map_err(|e| InvalidInput::usage(format!("{shown}: not a ragdiff JSON report: {e}")))?;
    let newly = json["newly_failed"].as_array().ok_or_else(|| {
        InvalidInput::usage(format!("{shown}: not a compare report (no `newly_failed`)"))
    })?;
    let newly: Vec<String> = newly
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    // The version goes into the list: one the list would refuse is refused here.
    let version = match json["candidate"]["index_version"].as_str() {
        Some(v) => Some(
            crate::model::IndexVersion::parse(v)
                .map_err(|why| {
                    InvalidInput::usage(format!(
                        "{shown}: the report's candidate.index_version {why}; accept from a report `compare --format json` wrote"
                    ))
                })?
                .as_str()
                .to_string(),
        ),
        None => None,
    };
    let errored: Vec<String> = json["candidate"]["errored"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let theirs = json["gold"]["sha256"].as_str();
    let mut diag = Diagnostics::default();
    let gold_path = load::gold_or_default(s.compare.gold.clone(), &mut diag);
    let gold = gold_path.and_then(|p| load::load_gold(&p, false, &[], &mut diag));
    let gold = diag.require(gold)?;
    let ours = gold.meta.sha256.as_deref();
    if theirs.is_none() || theirs != ours {
        return Err(InvalidInput::usage(format!(
            "{shown}: the report's gold (sha256 {}) is not the local gold (sha256 {}); accept against the gold the report was made with, frozen",
            theirs.map_or("none: not frozen", |t| t.get(..12).unwrap_or(t)),
            ours.map_or("none: not frozen", |t| t.get(..12).unwrap_or(t)),
        ))
        .into());
    }
    let entries = existing(s, &mut diag)?;
    Ok(Failed {
        newly,
        errored,
        version,
        entries,
    })
}

/// Refuse (exit 2, nothing written) ids that did not newly fail and ids already
/// accepted for this version; every such id at once.
fn check(s: &settings::Accept, failed: &Failed) -> Result<(), InvalidInput> {
    let mut diag = Diagnostics::default();
    let mut seen: Vec<&str> = Vec::new();
    for id in &s.ids {
        if seen.contains(&id.as_str()) {
            diag.usage(format!("{} is named twice", safe_id(id)));
            continue;
        }
        seen.push(id);
        if !failed.newly.contains(id) {
            diag.usage(format!(
                "{} did not newly fail in this comparison; only newly failed queries are accepted",
                safe_id(id)
            ));
        } else if failed.errored.contains(id) {
            diag.usage(format!(
                "{} errored on the candidate (its manifest's `errored`): its empty ranking says nothing of the index; record it again, never accept it",
                safe_id(id)
            ));
        } else if let Some(e) = failed
            .entries
            .iter()
            .find(|e| e.id == *id && e.index_version == failed.version)
        {
            let line = match e.source {
                crate::model::AllowSource::File { line } => format!(":{line}"),
                crate::model::AllowSource::Flag => String::new(),
            };
            diag.usage(format!(
                "{} is already accepted for {} ({}{line})",
                safe_id(id),
                safe_id(failed.version.as_deref().unwrap_or("any version")),
                safe_id(&s.list.display().to_string())
            ));
        }
    }
    diag.check()
}

/// Append the lines: the file's own bytes first (a missing final line end added, in
/// the file's style), then one line per id, its cells in the header's column order; a
/// missing file gets the header. A header without `index_version` and `accepted_at`
/// is refused (the lines would not fit it).
fn append(s: &settings::Accept, failed: &Failed) -> anyhow::Result<()> {
    let old = if s.list.exists() {
        read(&s.list, "allow-list")?
    } else {
        Vec::new()
    };
    let crlf = memchr::memmem::find(&old, b"\r\n").is_some();
    let end: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let mut text = old.clone();
    let columns: Vec<String> = if old.iter().all(u8::is_ascii_whitespace) {
        text.clear();
        text.extend_from_slice(allow::HEADER.as_bytes());
        text.extend_from_slice(end);
        allow::COLUMNS.iter().map(|c| c.to_string()).collect()
    } else {
        header(&old)
    };
    let missing: Vec<&str> = allow::COLUMNS
        .iter()
        .copied()
        .filter(|c| !columns.iter().any(|h| h == c))
        .collect();
    if !missing.is_empty() {
        return Err(InvalidInput::usage(format!(
            "{}: the header has no column {}; make its first line `{}` and end each line below it with `,,` (empty: any version), then accept again",
            safe_id(&s.list.display().to_string()),
            missing.join(", "),
            allow::HEADER
        ))
        .into());
    }
    if !text.ends_with(b"\n") {
        text.extend_from_slice(end);
    }
    let today = today_utc();
    let version = failed.version.as_deref().unwrap_or("");
    for id in &s.ids {
        let cell = |c: &str| match c {
            "id" => id.as_str(),
            "reason" => s.reason.as_str(),
            "index_version" => version,
            "accepted_at" => today.as_str(),
            _ => "",
        };
        let cells: Vec<&str> = columns.iter().map(|c| cell(c)).collect();
        text.extend_from_slice(allow::line(&cells).as_bytes());
        text.extend_from_slice(end);
    }
    output::write_files(&[s.list.as_path()], |_, out| out.write_all(&text))
}

/// The header's column names, trimmed (a BOM removed).
fn header(bytes: &[u8]) -> Vec<String> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut record = csv::StringRecord::new();
    match reader.read_record(&mut record) {
        Ok(true) => record.iter().map(|c| c.trim().to_string()).collect(),
        _ => Vec::new(),
    }
}

/// Today's date in UTC, `YYYY-MM-DD` ([`crate::text::now_secs`]: `SOURCE_DATE_EPOCH`
/// stands for now when set, so reports that show the date can be reproduced).
pub fn today_utc() -> String {
    let (y, m, d) = crate::text::civil_from_days((crate::text::now_secs() / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_dates() {
        assert_eq!(crate::text::civil_from_days(0), (1970, 1, 1));
        assert_eq!(crate::text::civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(crate::text::civil_from_days(20_788), (2026, 12, 1));
        assert_eq!(crate::text::civil_from_days(-1), (1969, 12, 31));
    }
}
