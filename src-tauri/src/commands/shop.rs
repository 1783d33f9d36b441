//! The demo shop, served on request so the app can be tried without a site of one's own
//! (the shipped `search-price` tool points at it). Where it is served and what to say when its
//! address is taken is `browserflow_catalog::shop_view`.

use browserflow_catalog::shop_view::{ShopView, serve_demo};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// Serves the shop at 127.0.0.1:4780 (or finds it already served there); when that address is
/// taken by another program, serves it elsewhere with a warning saying what will not work.
#[tauri::command]
pub async fn shop_serve(state: State<'_, AppState>) -> Result<ShopView, AppError> {
    let mut shop = state
        .shop
        .lock()
        .map_err(|_| AppError::new("internal", "the shop lock is poisoned"))?;
    serve_demo(&mut shop).map_err(|e| AppError::new("io", e))
}
