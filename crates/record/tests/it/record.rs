//! The recorder, driven without a person: trusted CDP input (`Input.dispatchMouseEvent`,
//! `Input.insertText`, `Input.dispatchKeyEvent`) against the fixture shop in headless Chromium;
//! the recorded tool is saved, read back and replayed.

pub(crate) mod driver;
mod effects;
mod frames;
mod gestures;
mod journeys;
mod keys;
mod live;
mod model;
mod origins;
mod thumbnails;
