//! The events the app emits, by name.

/// A preview step's result ([`browserflow_catalog::preview::StepView`]).
pub const PREVIEW_STEP: &str = "preview://step";
/// A batch row that finished ([`browserflow_catalog::batch_view::BatchRowView`]).
pub const BATCH_ROW: &str = "batch://row";
/// A recording event ([`browserflow_catalog::record_view::RecordEventView`]).
pub const RECORD_EVENT: &str = "record://event";
/// The window was asked to close while a recording or an unsaved draft is open: the screen
/// asks the person, then calls `app_close`.
pub const CLOSE_REQUESTED: &str = "app://close-requested";
