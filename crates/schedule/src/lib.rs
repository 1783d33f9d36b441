//! Schedules: a flow run at the times a cron expression names, in a time zone, by any
//! number of workers, each slot once.
//!
//! ```
//! use browserflow_schedule::Timing;
//!
//! let daily = Timing::parse("0 8 * * *", "Europe/Paris").unwrap();
//! let next = daily.next_after("2026-12-02T10:00:00Z".parse().unwrap()).unwrap();
//! assert_eq!(next.to_string(), "2026-12-03T07:00:00Z");
//! ```

#![deny(missing_docs)]

mod book;
mod flow_run;
mod health;
mod queued;
mod timing;
mod worker;

pub use book::{AddError, ScheduleSpec, add};
pub use flow_run::{Compiled, FlowError, compile, compile_plan, compile_schedule};
pub use health::{HealthReport, WorkerHealth, WorkerPhase, serve_health};
pub use jiff;
pub use queued::QueuedEnd;
pub use timing::{CatchUp, Due, Overlap, Timing, TimingError, due, manual_run_id, slot_run_id};
pub use worker::{
    RunNow, SetupFactory, Worker, WorkerError, WorkerEvent, WorkerEvents, WorkerOptions,
};
