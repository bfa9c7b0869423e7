//! The CLI tests: one integration-test binary (cargo's `cli` target), one module per
//! command, run against the built `ragdiff` with fixtures from tests/fixtures.

mod accept;
mod action;
mod catalogue;
mod common;
mod compare;
mod cutoffs;
mod depth;
mod destinations;
mod doc_maps;
mod drift;
mod errored;
mod eval;
mod fatal_signals;
mod freeze;
mod gate_measures;
mod glance;
mod gold_ids;
mod history;
mod holes;
mod html;
mod inconclusive;
mod init;
mod init_workflow;
mod injection;
mod input_limits;
mod inputs;
mod interrupt;
mod label_bounds;
mod latency;
mod long_tables;
mod markdown_caps;
mod measures;
mod must_pass;
mod outputs;
mod parity;
mod policy_changed;
mod policy_file;
mod policy_rest;
mod power;
mod primary;
mod privacy;
mod promote;
mod record;
mod record_policy;
mod regression;
mod report;
mod risk;
mod scale;
mod segment_measures;
mod segments;
mod snapshots_all;
mod special_files;
mod tamper;
mod validate;
mod verdict;
mod versions;
mod width;

/// Every file in tests/cli is a module of this binary: a file left out of the list
/// above compiles nowhere and its tests never run (privacy.rs was, from its rename
/// until this test).
#[test]
fn every_test_file_is_a_module() {
    let here = common::crate_dir().join("tests/cli");
    let main = std::fs::read_to_string(here.join("main.rs")).expect("main.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&here).expect("tests/cli") {
        let name = entry.expect("an entry").file_name();
        let name = name.to_str().expect("a UTF-8 name");
        if let Some(module) = name.strip_suffix(".rs")
            && module != "main"
            && !main.lines().any(|l| l == format!("mod {module};"))
        {
            missing.push(module.to_string());
        }
    }
    assert!(missing.is_empty(), "not in tests/cli/main.rs: {missing:?}");
}
