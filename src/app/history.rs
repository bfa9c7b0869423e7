//! `history`: the trend of every metric across promoted index versions, read from
//! `history.jsonl` (docs/contract.md §9.11). A missing or unreadable file is exit 2;
//! a line that does not parse or validate is a warning naming its line.

use crate::app::print_warnings;
use crate::cli::HistoryFormat;
use crate::exit;
use crate::output;
use crate::report::history;
use crate::settings;
use crate::validate::Diagnostics;

pub fn run(s: settings::History) -> anyhow::Result<u8> {
    let mut diag = Diagnostics::default();
    let lines = crate::load::history::read(&s.file, &mut diag);
    diag.check()?;
    print_warnings(&diag.warnings);
    let text = match s.format {
        HistoryFormat::Table => history::render_table(
            &lines,
            &s.file.display().to_string(),
            crate::report::table::target_width(),
        ),
        HistoryFormat::Markdown => history::render_markdown(&lines),
        HistoryFormat::Html => history::render_html(&lines),
        HistoryFormat::Json => format!("{}\n", serde_json::to_string_pretty(&lines)?),
    };
    output::stdout(&text)?;
    Ok(exit::SUCCESS)
}
