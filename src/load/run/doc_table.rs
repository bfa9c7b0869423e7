//! The table that finds a ranking's duplicated docs: open addressing over the
//! positions of the docs seen so far, keyed by their hashes, cleared per ranking.
//! One probe per doc, and no allocation once it has grown to the longest ranking.

/// Positions into one ranking's docs, placed by hash (linear probing; `u32::MAX` is
/// an empty slot).
#[derive(Default)]
pub(super) struct DocTable {
    slots: Vec<u32>,
    bits: u32,
}

impl DocTable {
    /// Empty the table, sized for a ranking of `len` docs (at most half full).
    pub(super) fn reset(&mut self, len: usize) {
        self.bits = (len * 2).next_power_of_two().max(16).trailing_zeros();
        self.slots.clear();
        self.slots.resize(1 << self.bits, u32::MAX);
    }

    /// Place doc `at`, hashed `h`; when an earlier doc is the same (`same(earlier)`,
    /// asked of the docs met along `h`'s probe sequence), leave the table as it is and
    /// return true.
    #[inline]
    pub(super) fn seen_before(&mut self, h: u64, at: usize, same: impl Fn(usize) -> bool) -> bool {
        let mask = (1usize << self.bits) - 1;
        let mut slot = (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize;
        loop {
            let ti = self.slots[slot];
            if ti == u32::MAX {
                self.slots[slot] = at as u32;
                return false;
            }
            if same(ti as usize) {
                return true;
            }
            slot = (slot + 1) & mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DocTable;

    #[test]
    fn finds_each_repeat_and_only_repeats() {
        // Colliding hashes (all 0) and distinct docs: probing goes on past them.
        let docs = ["a", "b", "a", "c", "b", "a"];
        let mut t = DocTable::default();
        t.reset(docs.len());
        let repeats: Vec<bool> = (0..docs.len())
            .map(|i| t.seen_before(0, i, |j| docs[j] == docs[i]))
            .collect();
        assert_eq!(repeats, [false, false, true, false, true, true]);
        // Reset clears: the same docs are new again.
        t.reset(2);
        assert!(!t.seen_before(0, 0, |j| docs[j] == "a"));
    }
}
