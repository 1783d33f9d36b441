use std::path::Path;

use browserflow_cdp::{Browser, BrowserConfig, BrowserError, find_chromium};

#[test]
fn a_missing_chromium_is_a_clear_error() {
    let err = find_chromium(Some(Path::new("/nonexistent/chromium"))).unwrap_err();
    assert!(matches!(err, BrowserError::ChromiumNotFound { .. }));
    let message = err.to_string();
    assert!(message.contains("/nonexistent/chromium"), "{message}");
    assert!(message.contains("apt-get install chromium"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn launching_a_missing_path_fails_before_spawning() {
    let config = BrowserConfig {
        chrome_path: Some("/nonexistent/chromium".into()),
        ..BrowserConfig::default()
    };
    let err = Browser::launch(&config).await.unwrap_err();
    assert!(
        err.to_string().contains("apt-get install chromium"),
        "{err}"
    );
}
