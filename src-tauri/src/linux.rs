//! Linux workarounds applied before the webview starts.
//!
//! WebKitGTK's DMA-BUF renderer shows a blank window on many setups (NVIDIA drivers, Xvfb,
//! virtual machines); `WEBKIT_DISABLE_DMABUF_RENDERER=1` turns it off. The variable must be
//! set before WebKit reads it, and setting variables in a running process is `unsafe` (which
//! this workspace forbids), so the app re-executes itself once with the variable set.

/// The variable, and the marker that the re-exec happened.
const DMABUF: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";

/// Re-executes the app with `WEBKIT_DISABLE_DMABUF_RENDERER=1` when it is unset (Linux only;
/// elsewhere, and when the re-exec fails, nothing happens).
pub fn apply_workarounds() {
    #[cfg(target_os = "linux")]
    if std::env::var_os(DMABUF).is_none() {
        use std::os::unix::process::CommandExt;
        if let Ok(exe) = std::env::current_exe() {
            let error = std::process::Command::new(exe)
                .args(std::env::args_os().skip(1))
                .env(DMABUF, "1")
                .exec();
            eprintln!("browserflow: could not restart with {DMABUF}=1: {error}");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = DMABUF;
}
