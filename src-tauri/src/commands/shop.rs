//! The fixture shop, served on request so the app can be tried without a site of one's own
//! (the shipped `search-price` tool points at it).

use browserflow_catalog::run_tool::DEMO_ADDR;
use browserflow_shop::{FixtureServer, serve_shop};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// Serves the shop (at 127.0.0.1:4780 when free) and returns its origin.
#[tauri::command]
pub async fn shop_serve(state: State<'_, AppState>) -> Result<String, AppError> {
    let mut shop = state
        .shop
        .lock()
        .map_err(|_| AppError::new("internal", "the shop lock is poisoned"))?;
    if let Some(server) = shop.as_ref() {
        return Ok(server.origin());
    }
    let server = match DEMO_ADDR.parse().ok().and_then(|a| serve_shop(a).ok()) {
        Some(server) => server,
        None => FixtureServer::shop().map_err(|e| AppError::new("io", e))?,
    };
    let origin = server.origin();
    *shop = Some(server);
    Ok(origin)
}
