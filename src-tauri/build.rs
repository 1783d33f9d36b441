//! Tauri's build step. `tauri::generate_context!` embeds `ui/dist`, which only exists once the
//! UI is built (`npm run build` in `ui/`, done by `scripts/app` and `scripts/test-app`). So
//! that `cargo build`, `clippy` and the command tests work on a fresh clone, a missing
//! `ui/dist` is replaced by a one-page placeholder telling how to build the UI.

use std::path::Path;

const PLACEHOLDER: &str = "<!doctype html><html><head><meta charset=\"utf-8\"><title>browserflow</title></head>\
<body style=\"font-family: sans-serif; padding: 2em\"><h1>browserflow</h1>\
<p>The UI is not built. Run <code>scripts/app</code> (or <code>npm ci &amp;&amp; npm run build</code> in <code>ui/</code>) and rebuild.</p>\
</body></html>\n";

fn main() {
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/dist");
    if !dist.join("index.html").exists() {
        let written = std::fs::create_dir_all(&dist)
            .and_then(|()| std::fs::write(dist.join("index.html"), PLACEHOLDER));
        if let Err(e) = written {
            println!("cargo:warning=cannot write a placeholder ui/dist: {e}");
        }
    }
    println!("cargo:rerun-if-changed=../ui/dist");
    tauri_build::build();
}
