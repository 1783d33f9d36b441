//! `bflow record URL --out FILE`: record a journey in a visible Chromium until the window
//! closes or Enter is pressed; mark inputs and outputs from flags; write the tool file.
//! Ctrl-C stops without writing the tool: the recording is kept in the app's drafts folder
//! (`browserflow_catalog::drafts_dir`) and the command that finishes it is printed.
//! A file chooser the page opens is answered by the next `--upload` path, else by a path typed
//! on the terminal. Nothing recorded is lost: when a mark does not resolve (a mistyped
//! `--input`, an `--extract` that matched nothing), the recording is written as a draft beside
//! `--out`, every such mark is named, and `--from-draft` turns the draft into the tool once the
//! marks are right.

use std::collections::VecDeque;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use browserflow_catalog::record_view::{DraftKeeper, RecordStart};
use browserflow_catalog::record_view::{RelianceName, parse_output_kind};
use browserflow_catalog::save::{Overwrite, SaveError, save_draft};
use browserflow_record::{
    Draft, InputBySelector, InputType, ListBySelector, MAIN_PAGE, MarkWatch, ModelAssist,
    OutputBySelector, RecordEvent, RecordOptions, RecordedPage, Recorder, SelectorMarks,
    TableBySelector, UnresolvedMark,
};
use browserflow_steps::ExtractListStep;
use clap::Args;

use crate::exit::Outcome;

#[derive(Args)]
pub struct RecordArgs {
    /// The page the recording starts on.
    #[arg(required_unless_present = "from_draft")]
    url: Option<String>,
    /// Make the tool from a draft a recording left (`OUT.draft.json`, written when a mark did
    /// not resolve) with the marks given now, without recording again.
    #[arg(long, value_name = "DRAFT", conflicts_with = "url")]
    from_draft: Option<PathBuf>,
    /// Where to write the tool file. An existing file is kept (and nothing is recorded)
    /// unless `--force` is given.
    #[arg(long, short, value_name = "FILE")]
    out: PathBuf,
    /// Replace `--out` when it exists.
    #[arg(long)]
    force: bool,
    /// The tool name (default: the file name before `@` or `.json`).
    #[arg(long)]
    name: Option<String>,
    /// The tool version.
    #[arg(long, default_value = "1.0.0")]
    version: String,
    /// The tool description.
    #[arg(long)]
    description: Option<String>,
    /// Turn a typed value into an input: `NAME=SELECTOR[:string|number|integer|boolean]`,
    /// SELECTOR naming the filled field (`#search`, a test id, a label), or `@prompt`
    /// (`@prompt2`, …) for the text a prompt dialog was answered with. Repeatable.
    #[arg(long = "input", value_name = "NAME=SELECTOR[:TYPE]")]
    inputs: Vec<String>,
    /// Read an element into an output field at the end:
    /// `NAME=SELECTOR[:string|number|integer|boolean]`. Repeatable.
    #[arg(long = "extract", value_name = "NAME=SELECTOR[:TYPE]")]
    extracts: Vec<String>,
    /// Read a list into an output field at the end, as an array of objects:
    /// `NAME=ITEM_SELECTOR{FIELD=SELECTOR[@ATTRIBUTE][:TYPE],…}` (types: string, number,
    /// integer, boolean, date, url; `@href` and `@src` are absolute URLs; a field missing
    /// from some items is optional). Looked up in the live page. Repeatable.
    #[arg(long = "extract-list", value_name = "NAME=ITEMS{FIELD=SELECTOR,…}")]
    lists: Vec<String>,
    /// Read a table's (or ARIA grid's) data rows into an output field at the end, as an
    /// array of objects keyed by column: `NAME=TABLE_SELECTOR` (every column, named from its
    /// header, typed by its values) or `NAME=TABLE_SELECTOR{FIELD=HEADER[:TYPE],…}` (a header
    /// under a spanning one as `Price / EUR`). Looked up in the live page. Repeatable.
    #[arg(long = "extract-table", value_name = "NAME=TABLE[{FIELD=HEADER,…}]")]
    tables: Vec<String>,
    /// Run without a window (for scripted recordings and tests). The Record screen's
    /// `headless`, same default.
    #[arg(long)]
    headless: bool,
    /// Emulate a viewport, `WIDTHxHEIGHT` (default: the window's own size). The Record
    /// screen's `viewport`.
    #[arg(long, value_name = "WxH")]
    viewport: Option<String>,
    /// The Chromium executable (default: `BROWSERFLOW_CHROME`, then the system's chromium).
    #[arg(long, value_name = "PATH")]
    chrome: Option<PathBuf>,
    /// Record in a running browser (`ws://…` CDP endpoint, or `http://host:port`) instead of launching one.
    #[arg(long, value_name = "URL")]
    browser_ws: Option<String>,
    /// Answer the next file chooser the page opens with this file (repeatable: one per
    /// chooser, in order). Without it, the path is asked for on the terminal.
    #[arg(long = "upload", value_name = "PATH")]
    uploads: Vec<PathBuf>,
    /// Make step N (as numbered in the messages) — an element of a grid, list or cards — rely
    /// on its `content` or its `position`: `N=content|position`. Repeatable.
    #[arg(long = "rely-on", value_name = "STEP=content|position")]
    rely_on: Vec<String>,
}

/// `--rely-on N=content|position`: the step's index and what it relies on.
fn reliance(text: &str) -> anyhow::Result<(usize, RelianceName)> {
    let parsed = text.split_once('=').and_then(|(n, r)| {
        let step = n.trim().parse::<usize>().ok().filter(|n| *n > 0)?;
        let reliance = serde_json::from_value(serde_json::Value::String(r.trim().into())).ok()?;
        Some((step - 1, reliance))
    });
    parsed.with_context(|| format!("--rely-on {text}: expected STEP=content|position"))
}

/// `NAME=SELECTOR[:TYPE]`: the name, the selector and the type word when there is one.
fn split_mark<'a>(
    text: &'a str,
    flag: &str,
) -> anyhow::Result<(&'a str, &'a str, Option<&'a str>)> {
    let Some((name, rest)) = text.split_once('=') else {
        bail!("{flag} {text}: expected NAME=SELECTOR[:TYPE]");
    };
    if name.trim().is_empty() || rest.trim().is_empty() {
        bail!("{flag} {text}: expected NAME=SELECTOR[:TYPE]");
    }
    // A `:word` that is not a type belongs to the selector (`a:hover`, `li:first-child`).
    match rest.rsplit_once(':') {
        Some((selector, kind)) if InputType::parse(kind).is_some() => {
            Ok((name.trim(), selector.trim(), Some(kind)))
        }
        _ => Ok((name.trim(), rest.trim(), None)),
    }
}

/// `--input NAME=SELECTOR[:TYPE]` (default type: string).
fn input_mark(text: &str) -> anyhow::Result<InputBySelector> {
    let (name, selector, kind) = split_mark(text, "--input")?;
    let kind = kind.and_then(InputType::parse).unwrap_or_default();
    Ok(InputBySelector::new(name, selector, kind))
}

/// `--extract NAME=SELECTOR[:TYPE]` (default type: string).
fn output_mark(text: &str) -> anyhow::Result<OutputBySelector> {
    let (name, selector, kind) = split_mark(text, "--extract")?;
    let kind = kind.and_then(parse_output_kind).unwrap_or_default();
    Ok(OutputBySelector::new(name, selector, kind))
}

fn default_name(out: &std::path::Path) -> String {
    let stem = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = stem.trim_end_matches(".json");
    let stem = stem.split('@').next().unwrap_or(stem);
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let name = name.trim_matches('-').to_string();
    if name.is_empty() {
        "recorded-tool".into()
    } else {
        name
    }
}

pub fn run(args: RecordArgs) -> Outcome {
    // Check every flag before a browser opens.
    let inputs = args
        .inputs
        .iter()
        .map(|m| input_mark(m))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let extracts = args
        .extracts
        .iter()
        .map(|m| output_mark(m))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut lists = args
        .lists
        .iter()
        .map(|l| {
            ListBySelector::parse(l)
                .map(ListMark::List)
                .map_err(|e| anyhow::anyhow!("--extract-list {e}"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    for table in &args.tables {
        let table =
            TableBySelector::parse(table).map_err(|e| anyhow::anyhow!("--extract-table {e}"))?;
        lists.push(ListMark::Table(table));
    }
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    if let Some(draft) = args.from_draft.clone() {
        if !lists.is_empty() {
            bail!(
                "--extract-list and --extract-table need the live page to find the items' candidates: record again with them"
            );
        }
        return runtime.block_on(from_draft(&args, &draft, inputs, extracts));
    }
    // The Record screen's options by the same names, read by the same rule.
    let start = RecordStart {
        url: args.url.clone().unwrap_or_default(),
        browser_ws: args.browser_ws.clone(),
        headless: args.headless,
        viewport: args.viewport.clone(),
    };
    let options = RecordOptions {
        chrome: args.chrome.clone(),
        ..start.options().map_err(|e| anyhow::anyhow!("{e}"))?
    };
    runtime.block_on(record(args, inputs, extracts, lists, options))
}

/// The draft file a recording whose marks did not all resolve is kept in:
/// `tools/search@1.0.0.json` → `tools/search@1.0.0.draft.json`.
fn draft_path(out: &Path) -> PathBuf {
    out.with_extension("draft.json")
}

/// A kept recording: the draft and why it is not a tool yet.
#[derive(serde::Serialize, serde::Deserialize)]
struct DraftFile {
    /// What did not resolve, in words.
    unresolved: Vec<String>,
    /// The recording, without the marks given by flags (the fix command gives them again).
    draft: Draft,
    /// The pages the recording ended on, where later `--extract` marks are checked.
    #[serde(default)]
    pages: Vec<RecordedPage>,
}

/// The largest draft file read back: drafts hold steps and marks, no screenshots.
const MAX_DRAFT_FILE: u64 = 64 * 1024 * 1024;

/// An `--extract-list` or an `--extract-table`.
enum ListMark {
    List(ListBySelector),
    Table(TableBySelector),
}

impl ListMark {
    /// The flag, the output's name and the selector, as given.
    fn said(&self) -> (&'static str, &str, &str) {
        match self {
            ListMark::List(l) => ("--extract-list", &l.name, &l.items),
            ListMark::Table(t) => ("--extract-table", &t.name, &t.table),
        }
    }

    /// Looks the list up on `page` of the live recording.
    async fn look_up(&self, recorder: &Recorder, page: &str) -> Result<ExtractListStep, String> {
        let found = match self {
            ListMark::List(list) => recorder.describe_list(page, list).await,
            ListMark::Table(table) => recorder.describe_table(page, table).await,
        };
        found.map_err(|e| e.to_string())
    }
}

/// A list looked up in the live page: its step and the page it is on, or why it has none.
type LookedUpList = (ListMark, Result<(ExtractListStep, String), String>);

/// Applies `marks` to `draft` and writes the tool to `--out`; when a mark does not resolve,
/// writes the draft (with `pages`) beside it instead, names every such mark, and prints the
/// command that finishes it, prefilled with the marks that did resolve. The outcome is
/// success only when the tool was written.
async fn finish(
    args: &RecordArgs,
    mut draft: Draft,
    marks: SelectorMarks,
    lists: Vec<LookedUpList>,
    pages: Vec<RecordedPage>,
) -> Outcome {
    for name in marks.unchecked_outputs() {
        eprintln!(
            "warning: --extract {name}: the window closed before its element could be looked up; it is kept unchecked"
        );
    }
    // What a kept draft holds: the recording and the lists read from its live page (a draft
    // cannot read them again); the fix command gives the other marks again.
    let mut kept = draft.clone();
    let mut unresolved = draft.apply_marks(marks).err().unwrap_or_default();
    for (list, looked_up) in lists {
        if let Ok((step, page)) = &looked_up {
            let _ = kept.mark_list(step.clone(), Some(page.clone()));
        }
        let added = looked_up.and_then(|(step, page)| {
            let count = step.recorded_items.unwrap_or_default();
            let optional: Vec<String> = step
                .fields
                .iter()
                .filter(|f| f.optional)
                .map(|f| f.name.clone())
                .collect();
            draft
                .mark_list(step, Some(page))
                .map(|_| (count, optional.join(", ")))
                .map_err(|e| e.to_string())
        });
        match added {
            Ok((count, optional)) => eprintln!(
                "list {}: {} on the page{}",
                list.said().1,
                crate::words::count(count as usize, "item"),
                if optional.is_empty() {
                    String::new()
                } else {
                    format!(" (optional, missing from some: {optional})")
                }
            ),
            Err(why) => {
                let (flag, name, selector) = list.said();
                unresolved.push(UnresolvedMark {
                    flag,
                    name: name.to_owned(),
                    selector: selector.to_owned(),
                    why,
                });
            }
        }
    }
    if !unresolved.is_empty() {
        return keep_draft(args, &kept, &pages, &unresolved);
    }
    for text in &args.rely_on {
        let (index, relies_on) = reliance(text)?;
        draft.rely_on(index, relies_on.into())?;
    }
    for (index, step) in draft.steps.iter().enumerate() {
        if let Some(repeat) = step.step.selector().and_then(|s| s.repeat.as_ref()) {
            eprintln!(
                "step {} ({}) is {}: it relies on its {} (--rely-on {}=… to switch)",
                index + 1,
                step.description,
                repeat.place,
                repeat.relies_on.as_str(),
                index + 1
            );
        }
    }
    if let Some(assist) = ModelAssist::from_env()? {
        match assist.suggest(&mut draft).await {
            Ok(_) => eprintln!("model suggestions applied ({})", assist.endpoint()),
            Err(e) => eprintln!("warning: {e}"),
        }
    }
    // Kept, not dropped: the person decides (the app asks "no effect — remove?").
    for (index, step) in draft.steps.iter().enumerate().filter(|(_, s)| s.no_effect) {
        eprintln!(
            "warning: step {} ({}) changed nothing on the page; it is kept — remove it from the tool file if it is not needed",
            index + 1,
            step.description
        );
    }
    let name = args
        .name
        .clone()
        .or_else(|| draft.suggested_name.clone())
        .unwrap_or_else(|| default_name(&args.out));
    let overwrite = if args.force {
        Overwrite::Replace
    } else {
        Overwrite::Refuse
    };
    let file = match save_draft(
        draft,
        &name,
        &args.version,
        args.description.as_deref(),
        &args.out,
        overwrite,
    ) {
        Ok(file) => file,
        // Made while recording: the recording is kept as a draft, not lost.
        Err(SaveError::Exists(path)) => {
            eprintln!(
                "error: {} appeared while recording; it was kept (pass --force to replace it)",
                path.display()
            );
            return keep_draft(args, &kept, &pages, &[]);
        }
        Err(e) => return Err(e.into()),
    };
    let checks: usize = file.steps.iter().map(|s| s.expect().len()).sum();
    eprintln!(
        "wrote {} ({}, {})",
        args.out.display(),
        crate::words::count(file.steps.len(), "step"),
        crate::words::count(checks, "post-state check")
    );
    // Numbered as in the file (typing merged into one fill per field), with what was typed:
    // the live list above numbers keystrokes' steps before they merge.
    for (index, step) in file.steps.iter().enumerate() {
        eprintln!(
            "  {}. {}",
            index + 1,
            step.label().unwrap_or(step.kind().label())
        );
    }
    for input in file.contract.inputs() {
        match &input.schema.default {
            Some(default) if !input.secret => eprintln!(
                "input {} defaults to {}, the value given while recording: a run without {} replays it",
                input.name,
                as_said(default),
                input.name
            ),
            _ => eprintln!(
                "input {} has no default: every run gives it{}",
                input.name,
                if input.secret { " (a secret)" } else { "" }
            ),
        }
    }
    println!("{}", file.contract.reference());
    Ok(true)
}

/// A value as people read it: a string in quotes as it is (no JSON escapes), anything else as
/// JSON.
fn as_said(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => format!("\"{text}\""),
        other => other.to_string(),
    }
}

/// Writes the recording as a draft beside `--out`, naming each unresolved mark, and prints the
/// command that makes the tool from it with the marks that resolved.
fn keep_draft(
    args: &RecordArgs,
    draft: &Draft,
    pages: &[RecordedPage],
    unresolved: &[UnresolvedMark],
) -> Outcome {
    let path = draft_path(&args.out);
    let kept = DraftFile {
        unresolved: unresolved.iter().map(ToString::to_string).collect(),
        draft: draft.clone(),
        pages: pages.to_vec(),
    };
    let json = serde_json::to_string_pretty(&kept).context("cannot serialise the draft")?;
    crate::words::write_file(&path, json)?;
    for mark in unresolved {
        eprintln!("error: {mark}");
    }
    eprintln!(
        "no tool written: the recording ({}) is kept in {}",
        crate::words::count(draft.steps.len(), "step"),
        path.display()
    );
    eprintln!(
        "fix the marks and make the tool from it: {}",
        fix_command(args, &path, unresolved)
    );
    Ok(false)
}

/// `bflow record --from-draft DRAFT --out OUT` with every `--input` and `--extract` that
/// resolved, as given, and a placeholder for each that did not (quoted for a POSIX shell).
fn fix_command(args: &RecordArgs, draft: &Path, unresolved: &[UnresolvedMark]) -> String {
    let quote =
        |text: &str| shlex::try_quote(text).map_or_else(|_| text.to_string(), |q| q.into_owned());
    let mut words = vec![
        "bflow record --from-draft".to_string(),
        quote(&draft.to_string_lossy()),
        "--out".into(),
        quote(&args.out.to_string_lossy()),
    ];
    let marks = [("--input", &args.inputs), ("--extract", &args.extracts)];
    for (flag, given) in marks {
        for mark in given.iter() {
            let name = mark
                .split_once('=')
                .map_or(mark.as_str(), |(n, _)| n)
                .trim();
            let failed = unresolved.iter().any(|u| u.flag == flag && u.name == name);
            words.push(flag.to_string());
            words.push(if failed {
                format!("{name}=SELECTOR")
            } else {
                quote(mark)
            });
        }
    }
    for (flag, name) in unresolved
        .iter()
        .filter(|u| u.flag != "--input" && u.flag != "--extract")
        .map(|u| (u.flag, &u.name))
    {
        // A list is read from the live page only: the draft cannot take it.
        words.push(format!("(record again for {flag} {name})"));
    }
    words.join(" ")
}

/// Ctrl-C: the recording is stopped, not finished: it is kept in the drafts folder the app
/// uses (where the app offers it at start), no tool is written, and the way back is said.
fn keep_cut_short(args: &RecordArgs, draft: &Draft, pages: &[RecordedPage]) -> Outcome {
    let keeper = DraftKeeper::in_dir(browserflow_catalog::drafts_dir());
    let path = keeper.keep_cut_short(draft, pages)?;
    eprintln!(
        "stopped by Ctrl-C: no tool written; the recording ({}) is kept in {}",
        crate::words::count(draft.steps.len(), "step"),
        path.display()
    );
    if path == keeper.path() {
        eprintln!("the app offers it on its Record screen when it starts");
    }
    eprintln!("make the tool from it: {}", fix_command(args, &path, &[]));
    Ok(false)
}

/// `--from-draft`: the tool from a kept draft, with the marks given now (nothing live to look
/// them up in: inputs find their fill by the selector's words, outputs keep their selector).
async fn from_draft(
    args: &RecordArgs,
    path: &Path,
    inputs: Vec<InputBySelector>,
    extracts: Vec<OutputBySelector>,
) -> Outcome {
    check_out(args)?;
    // The project's strict reader (size and depth limits, repeated keys refused), with room
    // for a long recording.
    let limits = browserflow_contract::JsonLimits {
        max_bytes: MAX_DRAFT_FILE,
        ..browserflow_contract::JsonLimits::DOCUMENT
    };
    let value = browserflow_contract::read_json_file_with(path, limits)?;
    // A recording kept in the drafts folder (Ctrl-C, or the app's unsaved one) has a format.
    let kept = if value.get("format").is_some() {
        let kept = DraftKeeper::read_file(path)?;
        DraftFile {
            unresolved: Vec::new(),
            draft: kept.draft,
            pages: kept.pages,
        }
    } else {
        serde_json::from_value(value)
            .with_context(|| format!("{} is not a draft written by bflow record", path.display()))?
    };
    // Outputs are checked in the pages the recording ended on, as a live recording checks
    // them: a selector that matches nothing there is not written into a tool.
    let config = browserflow_cdp::BrowserConfig {
        chrome_path: args.chrome.clone(),
        ws_endpoint: args.browser_ws.clone(),
        // The recording's browser, as `bflow record` connects to it (see the recorder).
        unguarded_addresses: true,
        ..browserflow_cdp::BrowserConfig::default()
    };
    let marks = SelectorMarks::checked_in_pages(inputs, extracts, &kept.pages, &config).await?;
    finish(args, kept.draft, marks, Vec::new(), kept.pages).await
}

/// Refuses before anything is recorded when `--out` exists and `--force` is not given: the
/// tool file would not be written over, and the person would have recorded for nothing.
fn check_out(args: &RecordArgs) -> anyhow::Result<()> {
    if !args.force && args.out.exists() {
        bail!(
            "{} exists; it is kept (pass --force to replace it, or choose another --out)",
            args.out.display()
        );
    }
    Ok(())
}

async fn record(
    args: RecordArgs,
    inputs: Vec<InputBySelector>,
    extracts: Vec<OutputBySelector>,
    lists: Vec<ListMark>,
    options: RecordOptions,
) -> Outcome {
    check_out(&args)?;
    if draft_path(&args.out).exists() {
        eprintln!(
            "note: {} exists from an earlier recording; it is replaced only if this one's marks do not resolve",
            draft_path(&args.out).display()
        );
    }
    if !args.headless && args.browser_ws.is_none() && !has_display() {
        bail!(
            "there is no display to open the browser window on (DISPLAY and WAYLAND_DISPLAY are unset): \
             record with --headless and drive the browser over CDP (its endpoint is printed), \
             or run where a display is available"
        );
    }
    let url = options.start_url.clone();
    let recorder = Recorder::start(options).await?;
    let mut events = recorder.subscribe();
    let watch_outputs = !extracts.is_empty();
    let mut watch = MarkWatch::new(inputs, extracts);
    match recorder.browser_endpoint() {
        Some(endpoint) if args.headless => eprintln!(
            "recording {url} headless — drive the browser over CDP at {endpoint}; press Enter to finish (Ctrl-C keeps it as a draft)"
        ),
        _ => eprintln!(
            "recording {url} — close the window, press Enter to finish (Ctrl-C keeps it as a draft)"
        ),
    }
    // Numbered as the file will be: the steps recorded before the subscription (the start
    // page), then each step as it is added, and again when it changes its words (a click
    // that became a fill says what was typed; a secret's is never shown).
    let mut listed = Listed::default();
    for (index, step) in recorder.steps().iter().enumerate() {
        listed.added(index, step);
    }
    let mut uploads: VecDeque<PathBuf> = args.uploads.iter().cloned().collect();
    let mut lines = stdin_lines();
    let mut stdin_open = true;
    // Choosers waiting for a path typed on the terminal.
    let mut asking = 0usize;
    let mut interrupted = false;
    {
        let ctrl_c = tokio::signal::ctrl_c();
        tokio::pin!(ctrl_c);
        let closed = recorder.wait_closed();
        tokio::pin!(closed);
        let mut look_due = false;
        'recording: loop {
            tokio::select! {
                // Outputs are looked up once the page has been quiet for a moment, never
                // in the way of the person's next step.
                _ = tokio::time::sleep(LOOK_AFTER_QUIET), if look_due => {
                    look_due = false;
                    watch.look(&recorder, OUTPUT_LOOK).await;
                }
                _ = &mut closed => break 'recording,
                _ = &mut ctrl_c => {
                    interrupted = true;
                    break 'recording;
                }
                line = lines.recv(), if stdin_open => match line {
                    // Closed stdin: keep waiting for the window or Ctrl-C.
                    None => stdin_open = false,
                    Some(line) if asking > 0 => {
                        let path = line.trim();
                        if path.is_empty() {
                            eprintln!("  (type the path of the file to upload)");
                            continue;
                        }
                        match recorder.answer_file_chooser(&[PathBuf::from(path)]).await {
                            Ok(index) => {
                                asking -= 1;
                                print_answered(&recorder, index, &mut listed);
                            }
                            Err(e) => eprintln!("  {e}; type another path"),
                        }
                    }
                    Some(_) => break 'recording,
                },
                event = events.recv() => match event {
                    Ok(RecordEvent::StepAdded { index, step }) => {
                        listed.added(index, &step);
                        // Each page the journey reaches may be the last one seen.
                        look_due = watch_outputs;
                    }
                    Ok(RecordEvent::StepInserted { index, step }) => {
                        listed.inserted(index, &step);
                        look_due = watch_outputs;
                    }
                    Ok(RecordEvent::StepUpdated { index, step }) => listed.updated(index, &step),
                    Ok(RecordEvent::PageOpened { name, url }) => eprintln!("  (popup {name}: {url})"),
                    Ok(RecordEvent::ProtocolError(error)) => eprintln!("  warning: {error}"),
                    Ok(RecordEvent::FileChooser(_)) => match uploads.pop_front() {
                        Some(path) => {
                            match recorder.answer_file_chooser(std::slice::from_ref(&path)).await {
                                Ok(index) => print_answered(&recorder, index, &mut listed),
                                Err(e) => eprintln!("  --upload {}: {e}", path.display()),
                            }
                        }
                        None => {
                            asking += 1;
                            eprintln!("  the page opened a file chooser: type the path of the file to upload and press Enter");
                        }
                    },
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break 'recording,
                },
            }
        }
    }

    // Steps recorded just before the end are listed too.
    while let Ok(event) = events.try_recv() {
        match event {
            RecordEvent::StepAdded { index, step } => listed.added(index, &step),
            RecordEvent::StepInserted { index, step } => listed.inserted(index, &step),
            RecordEvent::StepUpdated { index, step } => listed.updated(index, &step),
            _ => {}
        }
    }
    if interrupted {
        let pages = recorder.recorded_pages().await;
        let draft = recorder.stop().await?;
        return keep_cut_short(&args, &draft, &pages);
    }
    // Selectors are looked up once more while the page is still open; the marks apply to the
    // draft, and a recording whose marks do not all resolve is kept as a draft.
    let marks = watch.look_last(&recorder).await;
    // Lists are read on the page the journey ends on, while it is still open.
    let page = recorder
        .steps()
        .last()
        .map_or_else(|| MAIN_PAGE.to_string(), |s| s.page.clone());
    let mut looked_up = Vec::new();
    for list in lists {
        let found = if recorder.is_closed() {
            Err("the window closed before the list could be looked up".to_string())
        } else {
            list.look_up(&recorder, &page)
                .await
                .map(|step| (step, page.clone()))
        };
        looked_up.push((list, found));
    }
    // Kept with a draft, should a mark not resolve: later marks are checked there.
    let pages = recorder.recorded_pages().await;
    let draft = recorder.stop().await?;
    finish(&args, draft, marks, looked_up, pages).await
}

/// The steps as listed on the terminal so far, by index: a step is listed again only when
/// its words change.
#[derive(Default)]
struct Listed(Vec<String>);

impl Listed {
    fn added(&mut self, index: usize, step: &browserflow_record::RecordedStep) {
        if index < self.0.len() {
            return self.updated(index, step);
        }
        self.0.resize(index, String::new());
        self.0.push(step.description.clone());
        eprintln!("  {}. {}", index + 1, step.description);
    }

    fn inserted(&mut self, index: usize, step: &browserflow_record::RecordedStep) {
        self.0
            .insert(index.min(self.0.len()), step.description.clone());
        eprintln!("  {}. {}", index + 1, step.description);
    }

    fn updated(&mut self, index: usize, step: &browserflow_record::RecordedStep) {
        match self.0.get_mut(index) {
            Some(said) if *said == step.description => {}
            Some(said) => {
                said.clone_from(&step.description);
                eprintln!("  {}. {}", index + 1, step.description);
            }
            None => self.added(index, step),
        }
    }
}

/// Whether a window can be shown: an X11 or Wayland display is named.
fn has_display() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|d| !d.is_empty()))
}

/// How quiet the page must be (no new step) before the `--extract` elements are looked up.
const LOOK_AFTER_QUIET: std::time::Duration = std::time::Duration::from_millis(150);

/// How long one look for an `--extract` element may take after each recorded step.
const OUTPUT_LOOK: std::time::Duration = std::time::Duration::from_millis(400);

/// Lists the step an answered file chooser turned into an upload.
fn print_answered(recorder: &Recorder, index: Option<usize>, listed: &mut Listed) {
    if let Some((index, step)) = index.and_then(|i| Some((i, recorder.steps().get(i).cloned()?))) {
        listed.updated(index, &step);
    }
}

/// The lines of stdin, read on a thread; the channel closes at EOF or on a read error.
fn stdin_lines() -> tokio::sync::mpsc::UnboundedReceiver<String> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}
