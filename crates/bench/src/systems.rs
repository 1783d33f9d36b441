//! The four systems of the cold comparison and the journey files they replay.

use std::path::{Path, PathBuf};

use browserflow_steps::ToolFile;

use crate::cold::ColdSystem;
use crate::report::{BASELINE, BROWSERFLOW, FLOOR};

/// Where everything the cold systems need lives.
#[derive(Debug, Clone)]
pub struct Layout {
    /// `bench/` (package.json, node_modules, the peer scripts, `journeys/`).
    pub bench_dir: PathBuf,
    /// The `bflow` executable.
    pub bflow: PathBuf,
    /// The `bench-floor` executable.
    pub floor: PathBuf,
    /// Chromium.
    pub chrome: PathBuf,
    /// `node`.
    pub node: PathBuf,
}

/// Writes `tool` pointed at `origin` into `dir` and returns its path.
pub fn write_rebased_tool(tool: &ToolFile, origin: &str, dir: &Path) -> std::io::Result<PathBuf> {
    let rebased = tool.rebase_to(origin);
    let path = dir.join(format!(
        "{}@{}.json",
        rebased.contract.name().replace('/', "-"),
        rebased.contract.version()
    ));
    std::fs::write(&path, rebased.to_json_pretty())?;
    Ok(path)
}

/// Writes `tool` exported as a Playwright script (`bflow export playwright`, the same code)
/// into `dir` and returns its path: the benchmark always runs the current export.
pub fn write_playwright_script(tool: &ToolFile, dir: &Path) -> std::io::Result<PathBuf> {
    let path = dir.join(format!(
        "{}.playwright.js",
        tool.contract.name().replace('/', "-")
    ));
    std::fs::write(&path, browserflow_steps::export_playwright(tool))?;
    Ok(path)
}

/// The cold systems, browserflow first: browserflow (`bflow run`), @puppeteer/replay, the
/// exported Playwright script and the floor. `expect` is what each must print (the price).
pub fn cold_systems(
    layout: &Layout,
    rebased_tool: &Path,
    playwright_script: &Path,
    origin: &str,
    query: &str,
    expect: &str,
) -> Vec<ColdSystem> {
    let chrome = layout.chrome.display().to_string();
    let env = vec![("BROWSERFLOW_CHROME".to_string(), chrome.clone())];
    let journeys = layout.bench_dir.join("journeys");
    let script = |name: &str| layout.bench_dir.join(name).display().to_string();
    let system = |name: &str, program: &Path, args: Vec<String>| ColdSystem {
        name: name.into(),
        program: program.to_path_buf(),
        args,
        env: env.clone(),
        expect: expect.into(),
    };
    vec![
        system(
            BROWSERFLOW,
            &layout.bflow,
            vec![
                "run".into(),
                rebased_tool.display().to_string(),
                "--input".into(),
                format!("query={query}"),
            ],
        ),
        system(
            "@puppeteer/replay",
            &layout.node,
            vec![
                script("replay-devtools.js"),
                journeys
                    .join("search-price.devtools.json")
                    .display()
                    .to_string(),
                origin.into(),
            ],
        ),
        system(
            "playwright",
            &layout.node,
            vec![
                script("run-playwright.js"),
                playwright_script.display().to_string(),
                origin.into(),
                format!("query={query}"),
            ],
        ),
        system(
            FLOOR,
            &layout.floor,
            vec![
                "--chrome".into(),
                chrome.clone(),
                "--origin".into(),
                origin.into(),
                "--query".into(),
                query.into(),
            ],
        ),
    ]
}

/// The browserflow system run with another `bflow` binary, named [`BASELINE`]; with
/// `tool`, that binary replays this tool file instead (an older binary cannot read fields
/// added since, such as post-state checks, so it replays the same journey without them).
pub fn baseline_system(browserflow: &ColdSystem, bflow: &Path, tool: Option<&Path>) -> ColdSystem {
    let mut args = browserflow.args.clone();
    if let (Some(tool), Some(slot)) = (tool, args.get_mut(1)) {
        *slot = tool.display().to_string();
    }
    ColdSystem {
        name: BASELINE.into(),
        program: bflow.to_path_buf(),
        args,
        ..browserflow.clone()
    }
}
