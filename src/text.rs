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

/// Natural order of ids (`docs/contract.md §19`): each id is split into maximal runs
/// of ASCII digits and of other bytes, compared part by part — digit runs by value,
/// then the shorter run first (`Q-1` before `Q-01`), other parts by bytes — so `2`
/// comes before `10` and `Q-9` before `Q-10`.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (da, db) = (a[i].is_ascii_digit(), b[j].is_ascii_digit());
        let end = |s: &[u8], from: usize, digit: bool| {
            from + s[from..]
                .iter()
                .position(|c| c.is_ascii_digit() != digit)
                .unwrap_or(s.len() - from)
        };
        let (ea, eb) = (end(a, i, da), end(b, j, db));
        let (pa, pb) = (&a[i..ea], &b[j..eb]);
        let ord = if da && db {
            let (ta, tb) = (trim_zeros(pa), trim_zeros(pb));
            ta.len()
                .cmp(&tb.len())
                .then_with(|| ta.cmp(tb))
                .then_with(|| pa.len().cmp(&pb.len()))
        } else {
            pa.cmp(pb)
        };
        if ord != Ordering::Equal {
            return ord;
        }
        (i, j) = (ea, eb);
    }
    (a.len() - i).cmp(&(b.len() - j))
}

/// A digit run without its leading zeros (its value, for comparing by length).
fn trim_zeros(digits: &[u8]) -> &[u8] {
    let start = digits
        .iter()
        .position(|&c| c != b'0')
        .unwrap_or(digits.len());
    &digits[start..]
}

/// Sort ids in natural order ([`natural_cmp`]).
pub fn sort_natural<T: AsRef<str>>(ids: &mut [T]) {
    ids.sort_unstable_by(|a, b| natural_cmp(a.as_ref(), b.as_ref()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order() {
        let mut ids = vec![
            "10", "2", "1", "Q-10", "Q-9", "Q-01", "Q-1", "a", "11", "Q-1a", "0",
        ];
        sort_natural(&mut ids);
        assert_eq!(
            ids,
            [
                "0", "1", "2", "10", "11", "Q-1", "Q-1a", "Q-01", "Q-9", "Q-10", "a"
            ]
        );
        use std::cmp::Ordering::*;
        assert_eq!(natural_cmp("Q-1", "Q-1"), Equal);
        assert_eq!(natural_cmp("Q-1", "Q-1x"), Less);
        assert_eq!(natural_cmp("x9", "x10"), Less);
        assert_eq!(natural_cmp("007", "7"), Greater);
        assert_eq!(
            natural_cmp("99999999999999999999999", "100000000000000000000000"),
            Less
        );
    }

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
