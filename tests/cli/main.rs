//! The CLI tests: one integration-test binary (cargo's `cli` target), one module per
//! command, run against the built `ragdiff` with fixtures from tests/fixtures.

mod accept;
mod action;
mod catalogue;
mod common;
mod compare;
mod cutoffs;
mod destinations;
mod doc_maps;
mod drift;
mod eval;
mod fatal_signals;
mod freeze;
mod glance;
mod holes;
mod init;
mod init_workflow;
mod injection;
mod input_limits;
mod inputs;
mod interrupt;
mod markdown_caps;
mod outputs;
mod parity;
mod policy_file;
mod promote;
mod regression;
mod report;
mod scale;
mod segments;
mod snapshots_all;
mod special_files;
mod tamper;
mod validate;
mod verdict;
