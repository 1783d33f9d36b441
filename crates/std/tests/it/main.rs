//! Integration tests of the standard pack: real servers on 127.0.0.1, real processes, the
//! real QuickJS sandbox.

mod code;
mod http;
mod model;
mod registry;
mod shell;
mod support;
mod transform;
