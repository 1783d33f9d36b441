//! The CDP engine: Chromium found, launched or connected to, isolated browser contexts, and
//! pages driven over one session multiplexer. The replayer and the recorder are built on it;
//! it knows nothing of tools, the Rider or recording.
//!
//! * [`commands`]: typed commands (parameters and answers) for the code outside the engine,
//!   sent with [`session::CdpSession::run`]: only the engine names protocol methods.
//! * [`session`]: chromiumoxide's websocket and protocol types under a small multiplexer, so
//!   every flattened session (out-of-process iframes, popups) can be addressed and its events
//!   are seen in order.
//! * [`launch`]: find system Chromium, launch it with one command line ([`launch_args`], shared
//!   with the benchmark floor) in its own process group, or connect to a running one (on this
//!   machine, or elsewhere only with `BrowserConfig::unguarded_addresses`);
//!   [`Browser::new_context`] gives one [`BrowserContext`] (own cookies and storage, and the
//!   address guard as its proxy) per replay.
//! * [`page`]: one [`Page`] of a context: frames and their navigation state, real mouse and key
//!   input, dialogs, file choosers, isolated worlds, screenshots.
//! * [`downloads`]: the download folder of a context and what a saved file is
//!   ([`DownloadRecord`]); [`thumbnail`]: small PNGs of screenshots.
//! * [`injected`]: the JavaScript both the replayer and the recorder inject: one resolver and
//!   one implementation of roles and accessible names.
//!
//! # Example
//!
//! ```no_run
//! use std::time::Duration;
//!
//! use browserflow_cdp::{Browser, BrowserConfig};
//!
//! # async fn demo() -> Result<(), browserflow_cdp::BrowserError> {
//! let browser = Browser::launch(&BrowserConfig::default()).await?;
//! let context = browser.new_context().await?;
//! let page = context.page();
//! page.navigate("http://127.0.0.1:4780/index.html", Duration::from_secs(30)).await?;
//! context.close().await?;
//! browser.close().await?;
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod address_guard;
pub mod commands;
pub mod downloads;
mod error;
mod host_rules;
pub mod injected;
pub mod launch;
pub mod page;
pub mod session;
pub mod thumbnail;

pub use downloads::DownloadRecord;
pub use error::{BrowserError, NavigationFailure};
pub use launch::{Browser, BrowserConfig, BrowserContext, find_chromium, launch_args};
pub use page::Page;
