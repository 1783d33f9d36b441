//! Integration tests of browserflow-pack: export, verify, tamper, store, signatures, OCI.

mod export;
mod oci;
mod sign;
mod store;
mod support;
mod tamper;
