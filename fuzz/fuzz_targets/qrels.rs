#![no_main]

use libfuzzer_sys::fuzz_target;
use ragdiff::fuzz::{Input, parse};

fuzz_target!(|data: &[u8]| {
    let _ = parse(Input::Qrels, data);
});
