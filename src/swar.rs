//! The SWAR kernels ("SIMD within a register"): byte tests on eight bytes at once in
//! a `u64`, exact per byte (no carry or borrow crosses from one byte to the next).
//! They run for every line of a run: the field splitter (`load::parse::lines`) and
//! the id check (`validate`). Checked against byte loops in their tests.

const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const HIGH: u64 = 0x8080_8080_8080_8080;
const ONES: u64 = 0x0101_0101_0101_0101;

/// The high bit of every byte of `x` below `!` (0x21) set, every other bit clear.
#[inline]
pub fn below_bang(x: u64) -> u64 {
    // 0x80 - 0x21 in every byte: a byte of seven bits reaches 0x80 when it is `!` or more.
    !(((x & LOW7) + ONES * 0x5f) | x) & HIGH
}

/// Whether every byte is printable ASCII (`!` to `~`), eight bytes at a time.
pub fn printable_ascii(b: &[u8]) -> bool {
    let words = b.chunks_exact(8);
    let tail = words.remainder();
    for w in words {
        let x = u64::from_le_bytes(w.try_into().expect("eight bytes"));
        let low = x & LOW7;
        // High bit set below 0x21, and at 0x7f or from 0x80.
        let below = !((low + ONES * 0x5f) | x);
        let above = (low + ONES) | x;
        if (below | above) & HIGH != 0 {
            return false;
        }
    }
    tail.iter().all(|&c| (0x21..0x7f).contains(&c))
}

#[cfg(test)]
mod tests {
    #[test]
    fn below_bang_matches_a_byte_loop() {
        for v in 0..=255u8 {
            for at in 0..8 {
                let mut word = [b'a'; 8];
                word[at] = v;
                let mask = super::below_bang(u64::from_le_bytes(word));
                for (i, &b) in word.iter().enumerate() {
                    let set = mask >> (8 * i + 7) & 1 == 1;
                    assert_eq!(set, b < b'!', "byte {b:#x} at {i}");
                }
            }
        }
    }

    #[test]
    fn printable_ascii_matches_a_byte_loop() {
        // Every byte value at every position of a 17-byte id (two words and a tail).
        for at in 0..17 {
            for v in 0..=255u8 {
                let mut id = vec![b'a'; 17];
                id[at] = v;
                let expected = id.iter().all(|&c| (0x21..0x7f).contains(&c));
                assert_eq!(super::printable_ascii(&id), expected, "byte {v:#x} at {at}");
                assert_eq!(
                    super::printable_ascii(&id[..at + 1]),
                    expected,
                    "prefix to {at}"
                );
            }
        }
    }
}
