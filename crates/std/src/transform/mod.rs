//! `std/transform`: pure JSON-to-JSON tools. None declares a capability, so the Rider re-runs
//! them instead of journaling them.

mod compare;
mod jq;
mod number;
mod pick;
mod slugify;
mod template;

pub use compare::{CompareOp, compare};
pub use jq::{JqError, JqProgram, jq};
pub use number::{ParsedPrice, parse_number, parse_number_text, parse_price, parse_price_text};
pub use pick::{map, pick};
pub use slugify::{slugify, slugify_text};
pub use template::{render_template, template};
