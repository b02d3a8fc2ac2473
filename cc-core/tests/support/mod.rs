//! Shared by cc-core's integration tests.

pub mod reference_ledger;
