//! JSON: the report models serialized as they are, numbers unrounded.

use serde::Serialize;

/// Pretty JSON with a final newline.
pub fn render<T: Serialize>(report: &T) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("report models always serialize");
    s.push('\n');
    s
}

/// Stream pretty JSON with a final newline.
pub fn write<T: Serialize>(report: &T, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    out.write_all(b"\n")
}
