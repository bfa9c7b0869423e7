//! The CLI tests: one integration-test binary (cargo's `cli` target), one module per
//! command, run against the built `ragdiff` with fixtures from tests/fixtures.

mod common;
mod compare;
mod eval;
mod freeze;
mod parity;
mod report;
mod validate;
