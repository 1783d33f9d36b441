//! Integration tests of browserflow-contract.

mod canonical;
mod contract;
mod digest;
mod parse_fuzz;
mod schema;
