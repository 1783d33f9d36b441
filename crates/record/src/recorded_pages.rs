//! The pages a recording ended on, kept with a draft so that marks given later (`bflow record
//! --from-draft … --extract NAME=SELECTOR`) are checked against what the person saw, not
//! trusted: a selector that matches nothing there would make a tool that fails every replay.
//!
//! A page is kept as its document's HTML at the end of the recording, scripts removed (they
//! are not needed to find an element and must not run again when it is read back). Checking
//! parses it in a real Chromium (`DOMParser`, which runs nothing), so CSS means what it means
//! in the live page.
//!
//! What a page shows is kept as it showed it: a page that displays a value the person typed
//! keeps that value. Password fields' values are properties, not attributes, and are never
//! serialised.

use browserflow_cdp::{Browser, BrowserConfig};
use serde::{Deserialize, Serialize};

use crate::{OutputBySelector, RecordError, Recorder, SelectorMarks};

/// One page as the recording left it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedPage {
    /// The page's name (`main` or a popup's).
    pub page: String,
    /// Its URL at the end of the recording.
    pub url: String,
    /// Its document, serialised, scripts removed.
    pub html: String,
}

/// The document of the page, scripts removed, with its URL.
const SERIALISE: &str = r#"(() => {
  const root = document.documentElement.cloneNode(true);
  for (const s of root.querySelectorAll('script')) s.remove();
  return { url: location.href, html: '<!DOCTYPE html>' + root.outerHTML };
})()"#;

impl Recorder {
    /// The pages of the recording as they are now (the page of the last step first), while the
    /// window is open; none once it is closed. A page that does not answer is left out.
    pub async fn recorded_pages(&self) -> Vec<RecordedPage> {
        if self.is_closed() {
            return Vec::new();
        }
        let mut names: Vec<String> = self.steps().iter().rev().map(|s| s.page.clone()).collect();
        names.push(crate::MAIN_PAGE.to_string());
        let mut seen = std::collections::BTreeSet::new();
        names.retain(|n| seen.insert(n.clone()));
        let mut pages = Vec::new();
        for name in names {
            let Some(page) = self.page_named(&name) else {
                continue;
            };
            let read = tokio::time::timeout(
                std::time::Duration::from_secs(5),
                page.evaluate_in_main_frame(SERIALISE),
            )
            .await;
            if let Ok(Ok(value)) = read
                && let (Some(url), Some(html)) = (value["url"].as_str(), value["html"].as_str())
            {
                pages.push(RecordedPage {
                    page: name,
                    url: url.to_string(),
                    html: html.to_string(),
                });
            }
        }
        pages
    }
}

/// How many elements `selector` finds in `html`, or why it cannot be used.
const COUNT: &str = r#"((html, selector) => {
  try {
    return { count: new DOMParser().parseFromString(html, 'text/html').querySelectorAll(selector).length };
  } catch (e) {
    return { invalid: String(e && e.message || e) };
  }
})"#;

impl SelectorMarks {
    /// Marks for a kept draft, each output's selector checked in `pages` (the first is the
    /// page the recording ended on, which the output reads): it resolves when it finds exactly
    /// one element there. Without a kept page, nothing can be checked and no output resolves.
    /// Chromium is launched (headless) from `config` only when there are outputs to check.
    pub async fn checked_in_pages(
        inputs: Vec<crate::InputBySelector>,
        outputs: Vec<OutputBySelector>,
        pages: &[RecordedPage],
        config: &BrowserConfig,
    ) -> Result<SelectorMarks, RecordError> {
        let Some(end) = pages.first().filter(|_| !outputs.is_empty()) else {
            let checked = outputs
                .into_iter()
                .map(|o| {
                    (
                        o,
                        Err("the draft keeps no page to check it against (the window closed before the recording ended): record again with it".to_string()),
                    )
                })
                .collect();
            return Ok(SelectorMarks::checked(inputs, checked));
        };
        let browser = Browser::launch(&BrowserConfig {
            headless: true,
            ..config.clone()
        })
        .await?;
        let result = count_in(&browser, end, &outputs).await;
        let _ = browser.close().await;
        let counts = result?;
        let checked = outputs
            .into_iter()
            .zip(counts)
            .map(|(output, count)| {
                let verdict = match count {
                    Ok(1) => Ok(()),
                    Ok(0) => Err(format!(
                        "matched nothing on the page the recording ended on ({})",
                        end.url
                    )),
                    Ok(n) => Err(format!(
                        "matched {n} elements on the page the recording ended on ({}); name one",
                        end.url
                    )),
                    Err(invalid) => Err(format!("is not a CSS selector ({invalid})")),
                };
                (output, verdict)
            })
            .collect();
        Ok(SelectorMarks::checked(inputs, checked))
    }
}

/// How many elements each output's selector finds in `page`.
async fn count_in(
    browser: &Browser,
    page: &RecordedPage,
    outputs: &[OutputBySelector],
) -> Result<Vec<Result<u64, String>>, RecordError> {
    let context = browser.new_context().await?;
    let html = serde_json::to_string(&page.html).unwrap_or_default();
    let mut counts = Vec::new();
    for output in outputs {
        let selector = serde_json::to_string(&output.selector).unwrap_or_default();
        let value = context
            .page()
            .evaluate_in_main_frame(&format!("({COUNT})({html}, {selector})"))
            .await
            // Not the evaluation's own error: it quotes the expression, the whole page.
            .map_err(|_| {
                RecordError::Browser(browserflow_cdp::BrowserError::Page(format!(
                    "reading the kept page {} failed",
                    page.url
                )))
            })?;
        counts.push(match value["count"].as_u64() {
            Some(n) => Ok(n),
            None => Err(value["invalid"].as_str().unwrap_or("refused").to_string()),
        });
    }
    let _ = context.close().await;
    Ok(counts)
}
