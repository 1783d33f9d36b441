//! Integration tests of browserflow-contract.

mod assign;
mod canonical;
mod contract;
mod digest;
mod from_rust;
mod json;
mod parse_fuzz;
mod schema;
