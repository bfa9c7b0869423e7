//! The CLI tests: one integration-test binary (cargo's `cli` target), one module per
//! command, run against the built `ragdiff` with fixtures from tests/fixtures.

mod catalogue;
mod common;
mod compare;
mod drift;
mod eval;
mod freeze;
mod hardening_out;
mod interrupt;
mod leak;
mod parity;
mod report;
mod review;
mod scale;
mod snapshots_all;
mod validate;
