//! The demo shop as the app offers it: served where the shipped tools point
//! ([`DEMO_ADDR`](crate::run_tool::DEMO_ADDR)), or a plain warning that they will not find it.

use std::net::SocketAddr;

use browserflow_shop::{DemoShop, serve_demo_shop};
use serde::Serialize;

use crate::run_tool::DEMO_ADDR;

/// Where the demo shop is, as the screen shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ShopView {
    /// The shop's origin, `http://127.0.0.1:<port>`.
    pub origin: String,
    /// Set when the shop is not where the shipped tools point: what is wrong and what will
    /// not work.
    pub warning: Option<String>,
}

/// Serves the demo shop at [`DEMO_ADDR`], keeping the server (if this process serves it) in
/// `slot`; a shop already in `slot` is reused.
pub fn serve_demo(slot: &mut Option<DemoShop>) -> std::io::Result<ShopView> {
    let addr: SocketAddr = DEMO_ADDR.parse().map_err(std::io::Error::other)?;
    serve_demo_at(slot, addr)
}

/// [`serve_demo`] at another demo address (tests).
pub fn serve_demo_at(slot: &mut Option<DemoShop>, addr: SocketAddr) -> std::io::Result<ShopView> {
    if slot.is_none() {
        *slot = Some(serve_demo_shop(addr)?);
    }
    let shop = slot.as_ref().expect("set above");
    Ok(shop_view(shop))
}

/// What the screen says about `shop`.
pub fn shop_view(shop: &DemoShop) -> ShopView {
    let warning = match shop {
        DemoShop::Served(_) | DemoShop::AlreadyServed { .. } => None,
        DemoShop::Elsewhere { server, taken } => Some(format!(
            "{taken} is taken by another program, so the demo shop is served at {} instead. \
             The shipped tools (search-price@1.2.0 and the flows using it) point at {taken} and \
             will fail there; record a tool against this shop, or free {taken} and restart the app.",
            server.origin()
        )),
    };
    ShopView {
        origin: shop.origin(),
        warning,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn a_taken_demo_address_is_a_warning_naming_it_and_what_fails() {
        let stranger = TcpListener::bind("127.0.0.1:0").expect("bound");
        let addr = stranger.local_addr().expect("address");
        // Accepts and closes: not the shop.
        std::thread::spawn(move || for _ in stranger.incoming() {});
        let mut slot = None;
        let view = serve_demo_at(&mut slot, addr).expect("served elsewhere");
        assert_ne!(view.origin, format!("http://{addr}"));
        let warning = view.warning.expect("a warning");
        assert!(warning.contains(&addr.to_string()), "{warning}");
        assert!(warning.contains("search-price@1.2.0"), "{warning}");
        // Asked again: the same shop, not a second one.
        assert_eq!(
            serve_demo_at(&mut slot, addr).expect("again").origin,
            view.origin
        );
    }

    #[test]
    fn a_free_demo_address_serves_the_shop_there_without_a_warning() {
        let addr = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port");
        let mut slot = None;
        let view = serve_demo_at(&mut slot, addr).expect("served");
        assert_eq!(
            view,
            ShopView {
                origin: format!("http://{addr}"),
                warning: None
            }
        );
    }
}
