//! Leaf text helpers shared by every layer: input text made safe to show, plurals,
//! "… and N more", and GitHub workflow-command escaping. Nothing here knows a report
//! format; Markdown's own escaping lives in `report::markdown`.

/// At most this many ids are named in one sentence.
pub const NAMED: usize = 10;

/// An id (or any text from an input) made safe for a message or a terminal:
/// control characters shown escaped.
pub fn safe_id(id: &str) -> String {
    if id.chars().any(char::is_control) {
        id.escape_default().to_string()
    } else {
        id.to_string()
    }
}

/// `1 query`, `2 queries`: the count and the noun that fits it.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// ` … and N more` when `total` exceeds `shown`, else nothing.
pub fn and_more(total: usize, shown: usize) -> String {
    match total.saturating_sub(shown) {
        0 => String::new(),
        more => format!(" … and {more} more"),
    }
}

/// Name up to [`NAMED`] ids (each written by `id`), then how many more.
pub fn name_ids_with(ids: &[impl AsRef<str>], id: &dyn Fn(&str) -> String) -> String {
    let mut s = ids
        .iter()
        .take(NAMED)
        .map(|x| id(x.as_ref()))
        .collect::<Vec<_>>()
        .join(", ");
    s.push_str(&and_more(ids.len(), NAMED));
    s
}

/// Name up to [`NAMED`] ids, then how many more.
pub fn name_ids(ids: &[impl AsRef<str>]) -> String {
    name_ids_with(ids, &safe_id)
}

/// Escape a workflow command's message (GitHub's rules).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow command's property, such as its title.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Whether GitHub Actions reads workflow commands from this process's output.
pub fn under_github_actions() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plural_and_more() {
        assert_eq!(plural(1, "query", "queries"), "1 query");
        assert_eq!(plural(0, "query", "queries"), "0 queries");
        assert_eq!(and_more(12, 10), " … and 2 more");
        assert_eq!(and_more(10, 10), "");
        assert_eq!(and_more(3, 10), "");
    }

    #[test]
    fn names_at_most_ten() {
        let ids: Vec<String> = (1..=12).map(|i| format!("Q{i}")).collect();
        let s = name_ids(&ids);
        assert!(s.starts_with("Q1, Q2"));
        assert!(s.ends_with("Q10 … and 2 more"));
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(safe_id("a\nb"), "a\\nb");
        assert_eq!(safe_id("plain"), "plain");
        assert_eq!(escape_property("a:b,c\n"), "a%3Ab%2Cc%0A");
    }
}
