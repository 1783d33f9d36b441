//! The events the app emits, by name.

/// A preview step's result ([`browserflow_catalog::preview::StepView`]).
pub const PREVIEW_STEP: &str = "preview://step";
/// A recording event ([`browserflow_catalog::record_view::RecordEventView`]).
pub const RECORD_EVENT: &str = "record://event";
