//! The app's commands on Tauri's mock runtime, and the TypeScript bindings.

mod bindings;
mod commands;
mod preview;
mod record;
mod support;
