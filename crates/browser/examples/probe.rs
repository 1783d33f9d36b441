use browserflow_browser::*;
use serde_json::json;
use std::time::{Duration, Instant};
#[tokio::main]
async fn main() {
    let server = fixture_server::FixtureServer::shop().unwrap();
    let t0 = Instant::now();
    let browser = Browser::launch(&BrowserConfig::default()).await.unwrap();
    println!("launch {:?} {}", t0.elapsed(), browser.version().await.unwrap());
    let t = Instant::now();
    let ctx = browser.new_context().await.unwrap();
    println!("context {:?}", t.elapsed());
    let page = ctx.page().clone();
    let t = Instant::now();
    page.navigate(&server.url("/index.html"), Duration::from_secs(5)).await.unwrap();
    println!("navigated in {:?} url={} title={:?}", t.elapsed(), page.url(), page.title().await);
    let mut ev = page.session().subscribe();
    let start = Instant::now();
    tokio::spawn(async move {
        while let Some(e) = ev.recv().await {
            if e.method.starts_with("Page.") || e.method.starts_with("Target.") {
                let extra = if e.method == "Page.lifecycleEvent" { e.params["name"].to_string() } else { String::new() };
                println!("  {:>8.2?} {} {}", start.elapsed(), e.method, extra);
            }
        }
    });
    let s = page.session();
    // Focus the search box and press Enter.
    s.call("Runtime.evaluate", json!({"expression": "document.getElementById('search-input').focus(); document.getElementById('search-input').value='keyboard'"})).await.unwrap();
    let r = s.call("Input.dispatchKeyEvent", json!({"type":"keyDown","key":"Enter","code":"Enter","windowsVirtualKeyCode":13,"text":"\r"})).await;
    println!("  {:>8.2?} keyDown answered {:?}", start.elapsed(), r.as_ref().err());
    let r = s.call("Input.dispatchKeyEvent", json!({"type":"keyUp","key":"Enter","code":"Enter","windowsVirtualKeyCode":13})).await;
    println!("  {:>8.2?} keyUp answered {:?}", start.elapsed(), r.as_ref().err());
    let r = s.call("Runtime.evaluate", json!({"expression": "1"})).await;
    println!("  {:>8.2?} eval answered {:?}", start.elapsed(), r.as_ref().err());
    tokio::time::sleep(Duration::from_millis(800)).await;
    println!("--- url {}", page.url());
    // Now click a result link via JS coordinates
    let r = s.call("Runtime.evaluate", json!({"expression": "(() => { const r = document.querySelector('a.result, [data-testid=result-link]').getBoundingClientRect(); return [r.left + r.width/2, r.top + r.height/2]; })()", "returnByValue": true})).await.unwrap();
    let x = r["result"]["value"][0].as_f64().unwrap(); let y = r["result"]["value"][1].as_f64().unwrap();
    let start2 = Instant::now();
    println!("click at {x},{y}");
    for t in ["mousePressed", "mouseReleased"] {
        let r = s.call("Input.dispatchMouseEvent", json!({"type": t, "x": x, "y": y, "button": "left", "clickCount": 1})).await;
        println!("  {:>8.2?} {t} answered {:?}", start2.elapsed(), r.as_ref().err());
    }
    let r = s.call("Runtime.evaluate", json!({"expression": "1"})).await;
    println!("  {:>8.2?} eval answered {:?}", start2.elapsed(), r.as_ref().err());
    tokio::time::sleep(Duration::from_millis(800)).await;
    println!("--- url {}", page.url());
    browser.close().await.unwrap();
}
