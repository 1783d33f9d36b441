//! Chromium over the Chrome DevTools Protocol: browser tools and their replay.

pub mod cdp;
mod error;
pub mod fixture_server;
pub mod launch;
pub mod page;

pub use error::BrowserError;
pub use launch::{Browser, BrowserConfig, BrowserContext, find_chromium};
pub use page::Page;
