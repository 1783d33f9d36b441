//! `bflow record URL --out FILE`: record a journey in a visible Chromium until the window
//! closes, Enter is pressed or Ctrl-C; mark inputs and outputs from flags; write the tool file.
//! A file chooser the page opens is answered by the next `--upload` path, else by a path typed
//! on the terminal.

use std::collections::VecDeque;
use std::io::BufRead;
use std::path::PathBuf;

use anyhow::{Context, bail};
use browserflow_catalog::record_view::parse_output_kind;
use browserflow_record::{
    InputBySelector, InputType, ModelAssist, OutputBySelector, RecordEvent, RecordOptions,
    Recorder, SelectorMarkError,
};
use clap::Args;

use crate::exit::Outcome;

#[derive(Args)]
pub struct RecordArgs {
    /// The page the recording starts on.
    url: String,
    /// Where to write the tool file.
    #[arg(long, short, value_name = "FILE")]
    out: PathBuf,
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
    /// SELECTOR naming the filled field (`#search`, a test id, a label). Repeatable.
    #[arg(long = "input", value_name = "NAME=SELECTOR[:TYPE]")]
    inputs: Vec<String>,
    /// Read an element into an output field at the end:
    /// `NAME=SELECTOR[:string|number|integer|boolean]`. Repeatable.
    #[arg(long = "extract", value_name = "NAME=SELECTOR[:TYPE]")]
    extracts: Vec<String>,
    /// Run without a window (for scripted recordings and tests).
    #[arg(long)]
    headless: bool,
    /// Emulate a viewport, `WIDTHxHEIGHT`.
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
}

/// `NAME=SELECTOR[:TYPE]`: the name, the selector and the type word when there is one.
fn split_mark<'a>(
    text: &'a str,
    flag: &str,
) -> anyhow::Result<(&'a str, &'a str, Option<&'a str>)> {
    let Some((name, rest)) = text.split_once('=') else {
        bail!("{flag} {text:?}: expected NAME=SELECTOR[:TYPE]");
    };
    if name.trim().is_empty() || rest.trim().is_empty() {
        bail!("{flag} {text:?}: expected NAME=SELECTOR[:TYPE]");
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

fn viewport(text: &Option<String>) -> anyhow::Result<Option<(u32, u32)>> {
    let Some(text) = text else { return Ok(None) };
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)));
    match parsed {
        Some((w, h)) if w > 0 && h > 0 => Ok(Some((w, h))),
        _ => bail!("--viewport {text:?}: expected WIDTHxHEIGHT, for example 1280x800"),
    }
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
    let viewport = viewport(&args.viewport)?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(record(args, inputs, extracts, viewport))
}

async fn record(
    args: RecordArgs,
    inputs: Vec<InputBySelector>,
    extracts: Vec<OutputBySelector>,
    viewport: Option<(u32, u32)>,
) -> Outcome {
    let options = RecordOptions {
        headed: !args.headless,
        chrome: args.chrome.clone(),
        browser_ws: args.browser_ws.clone(),
        viewport,
        ..RecordOptions::new(args.url.clone())
    };
    let recorder = Recorder::start(options).await?;
    let mut events = recorder.subscribe();
    eprintln!(
        "recording {} — close the window, press Enter or Ctrl-C to finish",
        args.url
    );
    let mut uploads: VecDeque<PathBuf> = args.uploads.iter().cloned().collect();
    let mut lines = stdin_lines();
    let mut stdin_open = true;
    // Choosers waiting for a path typed on the terminal.
    let mut asking = 0usize;
    {
        let ctrl_c = tokio::signal::ctrl_c();
        tokio::pin!(ctrl_c);
        let closed = recorder.wait_closed();
        tokio::pin!(closed);
        'recording: loop {
            tokio::select! {
                _ = &mut closed => break 'recording,
                _ = &mut ctrl_c => break 'recording,
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
                                print_answered(&recorder, index);
                            }
                            Err(e) => eprintln!("  {e}; type another path"),
                        }
                    }
                    Some(_) => break 'recording,
                },
                event = events.recv() => match event {
                    Ok(RecordEvent::StepAdded { index, step })
                    | Ok(RecordEvent::StepInserted { index, step }) => {
                        eprintln!("  {}. {}", index + 1, step.description);
                    }
                    Ok(RecordEvent::PageOpened { name, url }) => eprintln!("  (popup `{name}`: {url})"),
                    Ok(RecordEvent::FileChooser(_)) => match uploads.pop_front() {
                        Some(path) => {
                            match recorder.answer_file_chooser(std::slice::from_ref(&path)).await {
                                Ok(index) => print_answered(&recorder, index),
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

    // Selectors are looked up while the page is still open; the marks apply to the draft.
    let marks = recorder.resolve_marks(inputs, extracts).await;
    let mut draft = recorder.stop().await?;
    draft.apply_marks(marks).map_err(|e| match e {
        SelectorMarkError::NoFill(e) => anyhow::anyhow!("--input: {e}"),
        SelectorMarkError::Mark(e) => e.into(),
    })?;
    if let Some(assist) = ModelAssist::from_env()? {
        match assist.suggest(&mut draft).await {
            Ok(_) => eprintln!("model suggestions applied ({})", assist.endpoint()),
            Err(e) => eprintln!("warning: {e}"),
        }
    }
    let name = args
        .name
        .clone()
        .or_else(|| draft.suggested_name.clone())
        .unwrap_or_else(|| default_name(&args.out));
    let file = draft.into_tool_file(&name, &args.version, args.description.as_deref())?;
    std::fs::write(&args.out, file.to_json_pretty())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!("wrote {} ({} steps)", args.out.display(), file.steps.len());
    println!("{}", file.contract.reference());
    Ok(true)
}

/// Lists the step an answered file chooser turned into an upload.
fn print_answered(recorder: &Recorder, index: Option<usize>) {
    if let Some(step) = index.and_then(|i| recorder.steps().get(i).cloned()) {
        eprintln!("  {}. {}", index.unwrap_or_default() + 1, step.description);
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
