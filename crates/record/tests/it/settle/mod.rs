//! A step waits for what its gesture started: journeys on frameworks that re-render after a
//! server round trip, recorded with trusted input, replayed with other inputs, the outputs
//! compared with what the server computes; and the same journey against a server that stops
//! answering, which must fail at the step that waited, naming what it waited for.

mod htmx;
mod nicegui;
mod python;
mod server;
mod shiny;
