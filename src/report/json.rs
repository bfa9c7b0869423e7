//! JSON: the report models serialized as they are, numbers unrounded.

use serde::Serialize;

/// Stream pretty JSON with a final newline.
pub fn write<T: Serialize>(report: &T, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    out.write_all(b"\n")
}
