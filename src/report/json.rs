//! JSON: the report models serialized as they are, numbers unrounded.

use std::io::Write;

use serde::Serialize;

/// Stream pretty JSON with a final newline. serde_json writes in pieces of a few
/// bytes: they are gathered here, in a buffer of a known type, so each piece costs
/// a copy rather than a call through `out`.
pub fn write<T: Serialize>(report: &T, out: &mut dyn Write) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut out, report)?;
    out.write_all(b"\n")?;
    out.flush()
}
