//! Integration tests of browserflow-catalog.
