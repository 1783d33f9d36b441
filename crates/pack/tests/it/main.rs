//! Integration tests of browserflow-pack: export, verify, tamper, store, signatures, OCI.

mod export;
mod oci;
mod sign;
mod store;
mod stream;
mod support;
mod tamper;
