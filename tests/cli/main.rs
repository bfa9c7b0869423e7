//! The CLI tests: one integration-test binary (cargo's `cli` target), one module per
//! command, run against the built `ragdiff` with fixtures from tests/fixtures.

mod accept;
mod action;
mod catalogue;
mod common;
mod compare;
mod destinations;
mod drift;
mod eval;
mod fatal_signals;
mod freeze;
mod hardening_load;
mod hardening_out;
mod hardening_rep;
mod holes;
mod init_workflow;
mod inputs;
mod interrupt;
mod leak;
mod markdown_caps;
mod parity;
mod policy_file;
mod record;
mod report;
mod rest14;
mod review;
mod review2;
mod scale;
mod segments;
mod ship;
mod snapshots_all;
mod special_files;
mod tamper;
mod validate;
mod verdict;
