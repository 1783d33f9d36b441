//! The Tauri commands, one module per screen; each command is a few lines over a crate.

pub mod flows;
pub mod library;
pub mod model;
pub mod packs;
pub mod preview;
pub mod record;
pub mod shop;
