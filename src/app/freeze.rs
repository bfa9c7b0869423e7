//! `freeze`: record the gold data's sha256 and frozen_version in its manifest.

use crate::exit;
use crate::load::{self, fs, gold, manifest, tags};
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
    let meta = manifest::gold(&doc, &mut diag);
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
    let bytes = diag.require(bytes)?;
    let actual = gold::sha256_hex(&bytes);
    let tags_note = tags_actual
        .as_ref()
        .map(|t| format!(", tags sha256 {}", &t[..12]))
        .unwrap_or_default();
    // A manifest without a version records a problem, so this never stops here.
    let version = diag.require(meta.version.clone())?;
    if let Some(recorded) = &meta.sha256 {
        let same = *recorded == actual && meta.tags_sha256 == tags_actual;
        if same && meta.frozen_version.as_ref() == Some(&version) {
            output::stdout(&format!(
                "{shown}: already frozen at version {version} (sha256 {}{tags_note})\n",
                &actual[..12]
            ))?;
            return Ok(exit::SUCCESS);
        }
        let raised = meta.frozen_version.as_ref().is_some_and(|f| version > *f);
        if !same && !raised {
            return Err(InvalidInput::one(
                Location::file(&display),
                ProblemKind::VersionNotRaised {
                    version: version.to_string(),
                    frozen: meta
                        .frozen_version
                        .map_or_else(|| "(none recorded)".to_string(), |v| v.to_string()),
                },
            )
            .into());
        }
    }
    let text = rewritten(doc, &actual, &version, tags_actual.as_deref(), &meta);
    // A manifest reached through a link is rewritten where it lives, the link kept.
    let target = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    output::write(&target, &text)?;
    output::stdout(&format!(
        "{shown}: frozen at version {version} (sha256 {}{tags_note})\n",
        &actual[..12]
    ))?;
    Ok(exit::SUCCESS)
}

/// The manifest with the freeze recorded: sha256, frozen_version, tags_sha256 (or
/// none), and frozen_at (a first freeze keeps a date written by hand; a new version
/// records today's). Comments and layout are kept (toml_edit).
fn rewritten(
    doc: manifest::ManifestDoc,
    actual: &str,
    version: &semver::Version,
    tags_actual: Option<&str>,
    meta: &crate::model::GoldMeta,
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
    if doc.get("frozen_at").is_none() || meta.frozen_version.is_some() {
        doc["frozen_at"] = toml_edit::value(today());
    }
    doc.to_string()
}

/// The sha256 of the tags side file the manifest names, if any (docs/contract.md §18).
fn tags_digest(meta: &crate::model::GoldMeta, diag: &mut Diagnostics) -> Option<String> {
    let file = meta.tags_file.as_ref()?;
    let display = file.path.display().to_string();
    fs::read_file(&file.path, "tags file", &display, diag).map(|b| gold::sha256_hex(&b))
}

/// Today's date (UTC) as YYYY-MM-DD, from the days since 1970-01-01.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    civil_date((secs / 86_400) as i64)
}

/// Howard Hinnant's days-to-civil algorithm.
pub fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
