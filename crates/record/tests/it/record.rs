//! The recorder, driven without a person: trusted CDP input (`Input.dispatchMouseEvent`,
//! `Input.insertText`, `Input.dispatchKeyEvent`) against the fixture shop in headless Chromium;
//! the recorded tool is saved, read back and replayed.

pub(crate) mod driver;
mod editable;
mod effects;
mod frames;
pub(crate) mod gestures;
mod html5_dnd;
mod journeys;
mod keys;
mod late_reads;
mod live;
mod misplaced;
mod model;
mod origins;
pub(crate) mod place;
mod popups;
mod redesign;
mod repeat;
mod shadow;
mod thumbnails;
