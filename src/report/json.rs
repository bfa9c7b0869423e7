//! JSON: the report models serialized as they are, numbers unrounded.

use serde::Serialize;

/// Pretty JSON with a final newline.
pub fn render<T: Serialize>(report: &T) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("report models always serialize");
    s.push('\n');
    s
}
