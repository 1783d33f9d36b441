use browserflow_browser::*;
use serde_json::json;
#[tokio::main]
async fn main() {
    let server = fixture_server::FixtureServer::shop().unwrap();
    let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
    println!("{}", browser.version().await.unwrap());
    let ctx = browser.new_context().await.unwrap();
    let page = ctx.page().clone();
    let conn_events = ();
    let _ = conn_events;
    let t = std::time::Instant::now();
    page.navigate(&server.url("/index.html"), std::time::Duration::from_secs(5)).await.unwrap();
    println!("navigated in {:?} url={}", t.elapsed(), page.url());
    println!("{:?}", page.title().await);
}
