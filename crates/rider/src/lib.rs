//! The Rider: the browserflow runtime.
