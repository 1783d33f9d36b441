//! Export of a tool as a standalone Playwright script (`playwright-core`, CommonJS).
//!
//! The script takes the tool's inputs as `name=value` arguments, launches Chromium
//! (`BROWSERFLOW_CHROME` or `/usr/bin/chromium`), replays the steps with the same ranked
//! selector candidates (the first candidate that matches exactly one element wins), and
//! prints the extracted output as JSON: `node search-price.js query=keyboard`.

use serde_json::Value;

use crate::{
    CountOperator, DownloadOutput, ExtractSource, Modifier, MouseButton, OutputKind, Selector,
    SelectorCandidate, SelectorKind, Step,
};
use crate::{TemplatePart, ToolFile, template_parts};

/// Helpers every exported script starts with.
const PRELUDE: &str = include_str!("js/playwright_prelude.js");

/// The tool as a Playwright script.
pub fn export_playwright(file: &ToolFile) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "// {} — exported by browserflow from {}.\n// Usage: node {}.js{}\n",
        file.contract.reference(),
        file.contract.reference(),
        file.contract.name().replace('/', "-"),
        file.contract
            .inputs()
            .iter()
            .map(|i| format!(" {}=…", i.name))
            .collect::<String>()
    ));
    out.push_str(PRELUDE);
    out.push_str("\nasync function replay(page, inputs) {\n");
    out.push_str("  const pages = { main: page };\n  const output = {};\n");
    for (index, step) in file.steps.iter().enumerate() {
        out.push_str(&format!(
            "\n  // step {}: {}{}\n",
            index + 1,
            step.kind(),
            step.label()
                .map(|l| format!(" — {}", one_line(l)))
                .unwrap_or_default()
        ));
        out.push_str(&step_code(step));
    }
    out.push_str("  return output;\n}\n\nmain(replay);\n");
    out
}

fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// A JavaScript expression for `text`, with `{{name}}` references read from `inputs`.
fn js_string(text: &str) -> String {
    let parts: Vec<String> = template_parts(text)
        .map(|part| match part {
            TemplatePart::Input(name) => format!("input(inputs, {})", js_literal(name)),
            TemplatePart::Text(t) | TemplatePart::Unclosed(t) => js_literal(t),
        })
        .collect();
    if parts.is_empty() {
        return js_literal("");
    }
    parts.join(" + ")
}

fn js_literal(text: &str) -> String {
    // JSON string syntax is valid JavaScript; U+2028/9 are escaped for older parsers.
    serde_json::to_string(text)
        .unwrap_or_else(|_| "\"\"".into())
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

fn candidate_js(candidate: &SelectorCandidate) -> String {
    let value = js_string(&candidate.value);
    let name = candidate.name.as_deref().map(js_string);
    let kind = match candidate.kind {
        SelectorKind::TestId => "test_id",
        SelectorKind::Role => "role",
        SelectorKind::Label => "label",
        SelectorKind::Placeholder => "placeholder",
        SelectorKind::Text => "text",
        SelectorKind::Id => "id",
        SelectorKind::Css => "css",
        SelectorKind::Xpath => "xpath",
        SelectorKind::AccessibleName => "accessible_name",
        // Left out by `selector_js`: Playwright has no locator for "the form holding a field".
        SelectorKind::Structure => "structure",
    };
    let shadow: Vec<String> = candidate.shadow.iter().map(|s| js_string(s)).collect();
    format!(
        "{{ kind: \"{kind}\", value: {value}{}{} }}",
        name.map(|n| format!(", name: {n}")).unwrap_or_default(),
        if shadow.is_empty() {
            String::new()
        } else {
            format!(", shadow: [{}]", shadow.join(", "))
        }
    )
}

fn selector_js(selector: &Selector) -> String {
    let (structural, exported): (Vec<&SelectorCandidate>, Vec<&SelectorCandidate>) = selector
        .candidates
        .iter()
        .partition(|c| c.kind == SelectorKind::Structure);
    let candidates: Vec<String> = exported.into_iter().map(candidate_js).collect();
    // A structure candidate has no Playwright locator: it is named in a comment instead.
    let left_out: String = structural
        .iter()
        .map(|c| format!(" /* not exported: {} */", c.describe().replace("*/", "* /")))
        .collect();
    let frame = match &selector.frame {
        Some(frame) => format!(
            ", frame: {{ url: {}, name: {}, indexPath: {} }}",
            frame.url.as_deref().map(js_string).unwrap_or("null".into()),
            frame
                .name
                .as_deref()
                .map(js_string)
                .unwrap_or("null".into()),
            frame
                .index_path
                .as_ref()
                .map_or("null".into(), |path| format!("{path:?}")),
        ),
        None => String::new(),
    };
    format!(
        "{{ candidates: [{}]{left_out}{frame} }}",
        candidates.join(", ")
    )
}

fn timeout_js(timeout: Option<u64>) -> String {
    timeout.map_or("undefined".into(), |t| t.to_string())
}

fn navigation_js(nav: Option<&crate::ExpectedNavigation>) -> String {
    match nav {
        Some(nav) => format!(
            "  await expectNavigation(page, {}, {});\n",
            nav.url.as_deref().map(js_string).unwrap_or("null".into()),
            nav.title.as_deref().map(js_string).unwrap_or("null".into())
        ),
        None => String::new(),
    }
}

fn modifiers_prefix(modifiers: &[Modifier]) -> String {
    modifiers
        .iter()
        .map(|m| match m {
            Modifier::Alt => "Alt+",
            Modifier::Control => "Control+",
            Modifier::Meta => "Meta+",
            Modifier::Shift => "Shift+",
        })
        .collect()
}

/// Runs `action` (JS statements using `el`), following a popup when the step opens one.
fn with_popup(opens_popup: Option<&str>, action: &str) -> String {
    match opens_popup {
        Some(name) => format!(
            "  {{\n    const [popup] = await Promise.all([page.waitForEvent('popup'), (async () => {{ {action} }})()]);\n    await popup.waitForLoadState();\n    pages[{}] = popup;\n    page = popup;\n  }}\n",
            js_literal(name)
        ),
        None => format!("  {action}\n"),
    }
}

fn step_code(step: &Step) -> String {
    match step {
        Step::Navigate(s) => format!(
            "  await page.goto({}, {{ timeout: {} }});\n{}",
            js_string(&s.url),
            s.timeout_ms.unwrap_or(30_000),
            navigation_js(s.navigation.as_ref())
        ),
        Step::Click(s) => {
            let button = match s.button {
                MouseButton::Left => "left",
                MouseButton::Middle => "middle",
                MouseButton::Right => "right",
                // Playwright clicks only these three; back/forward are sent as raw mouse events.
                MouseButton::Back => "back",
                MouseButton::Forward => "forward",
            };
            let position = s
                .offset
                .map(|o| format!(", position: {{ x: {}, y: {} }}", o.x, o.y))
                .unwrap_or_default();
            // A long press: Playwright's `delay` is the time between the press and the release.
            let position = match s.hold_ms {
                Some(ms) => format!("{position}, delay: {ms}"),
                None => position,
            };
            let action = format!(
                "const el = await find(page, {}, {}); await clickWith(page, el, {{ button: \"{button}\", clickCount: {}{position} }});",
                selector_js(&s.selector),
                timeout_js(s.timeout_ms),
                s.click_count
            );
            with_popup(s.opens_popup.as_deref(), &action) + &navigation_js(s.navigation.as_ref())
        }
        Step::Fill(s) => format!(
            "  await fillAny(await find(page, {}, {}), {});\n",
            selector_js(&s.selector),
            timeout_js(s.timeout_ms),
            js_string(&s.value)
        ),
        Step::KeyPress(s) => {
            let key = format!("{}{}", modifiers_prefix(&s.modifiers), s.key);
            let action = match &s.selector {
                Some(selector) => format!(
                    "await (await find(page, {}, {})).press({});",
                    selector_js(selector),
                    timeout_js(s.timeout_ms),
                    js_literal(&key)
                ),
                None => format!("await page.keyboard.press({});", js_literal(&key)),
            };
            with_popup(s.opens_popup.as_deref(), &action) + &navigation_js(s.navigation.as_ref())
        }
        Step::Hover(s) => format!(
            "  await (await find(page, {}, {})).hover({});\n",
            selector_js(&s.selector),
            timeout_js(s.timeout_ms),
            s.offset
                .map(|o| format!("{{ position: {{ x: {}, y: {} }} }}", o.x, o.y))
                .unwrap_or_default()
        ),
        Step::Drag(s) => {
            let at = |offset: Option<crate::Offset>, b: &str| match offset {
                Some(o) => format!("{b}.x + {}, {b}.y + {}", o.x, o.y),
                None => format!("{b}.x + {b}.width / 2, {b}.y + {b}.height / 2"),
            };
            let release = match &s.target {
                Some(target) => format!(
                    "const to = await (await find(page, {}, {})).boundingBox(); await page.mouse.move({}, {{ steps: 10 }});",
                    selector_js(target),
                    timeout_js(s.timeout_ms),
                    at(s.target_offset, "to")
                ),
                None => format!(
                    "await page.mouse.move(x + {}, y + {}, {{ steps: 10 }});",
                    s.by.x, s.by.y
                ),
            };
            format!(
                "  {{ const from = await (await find(page, {}, {})).boundingBox(); const [x, y] = [{}]; await page.mouse.move(x, y); await page.mouse.down(); {release} await page.mouse.up(); }}\n",
                selector_js(&s.selector),
                timeout_js(s.timeout_ms),
                at(s.offset, "from")
            )
        }
        Step::Scroll(s) => match &s.selector {
            Some(selector) => format!(
                "  await (await find(page, {}, {})).evaluate((el, [x, y]) => {{ el.scrollLeft = x; el.scrollTop = y; }}, [{}, {}]);\n",
                selector_js(selector),
                timeout_js(s.timeout_ms),
                s.x,
                s.y
            ),
            None => format!(
                "  await page.evaluate(([x, y]) => window.scrollTo(x, y), [{}, {}]);\n",
                s.x, s.y
            ),
        },
        Step::SetViewport(s) => format!(
            "  await page.setViewportSize({{ width: {}, height: {} }});{}\n",
            s.width,
            s.height,
            if s.device_scale_factor != 1.0 || s.mobile {
                " // device scale factor and mobile emulation need a new context in Playwright"
            } else {
                ""
            }
        ),
        Step::WaitForElement(s) => {
            let operator = match s.operator {
                CountOperator::Equal => "==",
                CountOperator::AtLeast => ">=",
                CountOperator::AtMost => "<=",
            };
            format!(
                "  await waitForElements(page, {}, {{ count: {}, operator: \"{operator}\", visible: {}, properties: {} }}, {});\n",
                selector_js(&s.selector),
                s.count.map_or("null".into(), |c| c.to_string()),
                s.visible.map_or("null".into(), |v| v.to_string()),
                Value::Object(s.properties.clone()),
                timeout_js(s.timeout_ms)
            )
        }
        Step::WaitForExpression(s) => format!(
            "  await page.waitForFunction({}, undefined, {{ timeout: {} }});\n",
            js_string(&s.expression),
            s.timeout_ms.unwrap_or(5_000)
        ),
        Step::Extract(s) => {
            let read = match s.from {
                ExtractSource::Text => "normalize(await el.innerText())".to_string(),
                ExtractSource::Value => "await el.inputValue()".to_string(),
                ExtractSource::Attribute => format!(
                    "(await el.getAttribute({})) ?? ''",
                    js_literal(s.attribute.as_deref().unwrap_or_default())
                ),
            };
            let kind = match s.kind {
                OutputKind::String => "string",
                OutputKind::Number => "number",
                OutputKind::Integer => "integer",
                OutputKind::Boolean => "boolean",
            };
            let currency = s
                .currency_field
                .as_deref()
                .map(|f| format!("\n    output[{}] = currencyOf(raw);", js_literal(f)))
                .unwrap_or_default();
            format!(
                "  {{\n    const el = await find(page, {}, {});\n    const raw = {read};\n    output[{}] = coerce(raw, \"{kind}\");{currency}\n  }}\n",
                selector_js(&s.selector),
                timeout_js(s.timeout_ms),
                js_literal(&s.field)
            )
        }
        Step::ExtractList(s) => {
            let fields: Vec<String> = s
                .fields
                .iter()
                .map(|f| {
                    format!(
                        "{{ name: {}, candidates: {}.candidates, column: {}, from: \"{}\", attribute: {}, kind: \"{}\", optional: {} }}",
                        js_literal(&f.name),
                        selector_js(&Selector::new(f.candidates.iter().cloned())),
                        f.column.as_deref().map_or("null".into(), js_literal),
                        f.from.as_str(),
                        f.attribute.as_deref().map_or("null".into(), js_literal),
                        f.kind.as_str(),
                        f.optional
                    )
                })
                .collect();
            let limit = s.limit.map_or("null".into(), |l| l.to_string());
            match &s.paginate {
                None => format!(
                    "  output[{}] = await extractList(page, {}, [\n    {},\n  ], {limit}, {});\n",
                    js_literal(&s.field),
                    selector_js(&s.items),
                    fields.join(",\n    "),
                    timeout_js(s.timeout_ms)
                ),
                Some(paginate) => format!(
                    "  output[{}] = await extractPages(page, {}, [\n    {},\n  ], {limit}, {{ by: \"{}\", control: {}, maxPages: {}, key: {} }}, {});\n",
                    js_literal(&s.field),
                    selector_js(&s.items),
                    fields.join(",\n    "),
                    paginate.by.as_str(),
                    paginate.control.as_ref().map_or("null".into(), selector_js),
                    paginate.max_pages(),
                    paginate.key.as_deref().map_or("null".into(), js_literal),
                    timeout_js(s.timeout_ms)
                ),
            }
        }
        Step::Assert(s) => {
            let opt = |v: Option<&str>| v.map(js_string).unwrap_or("null".into());
            format!(
                "  await check(page, {}, {{ textEquals: {}, textContains: {}, valueEquals: {}, url: {}, title: {} }}, {});\n",
                s.selector
                    .as_ref()
                    .map(selector_js)
                    .unwrap_or("null".into()),
                opt(s.text_equals.as_deref()),
                opt(s.text_contains.as_deref()),
                opt(s.value_equals.as_deref()),
                opt(s.url.as_deref()),
                opt(s.title.as_deref()),
                timeout_js(s.timeout_ms)
            )
        }
        Step::HandleDialog(s) => format!(
            "  page.once('dialog', (dialog) => {});\n",
            if s.accept {
                format!(
                    "dialog.accept({})",
                    s.prompt_text.as_deref().map(js_string).unwrap_or_default()
                )
            } else {
                "dialog.dismiss()".into()
            }
        ),
        Step::SwitchPage(s) => format!(
            "  page = pages[{}];\n  await page.bringToFront();\n",
            js_literal(&s.page)
        ),
        Step::ClosePage(s) => format!(
            "  await pages[{0}].close();\n  delete pages[{0}];\n  page = pages.main;\n",
            js_literal(&s.page)
        ),
        Step::Download(s) => {
            let position = s
                .offset
                .map(|o| format!("{{ x: {}, y: {} }}", o.x, o.y))
                .unwrap_or("undefined".into());
            let store = match (&s.field, s.output) {
                (None, _) => String::new(),
                (Some(field), output) => {
                    let part = match output {
                        DownloadOutput::File => "",
                        DownloadOutput::Path => ".path",
                        DownloadOutput::Name => ".name",
                        DownloadOutput::Size => ".size",
                        DownloadOutput::Sha256 => ".sha256",
                    };
                    format!("\n    output[{}] = file{part};", js_literal(field))
                }
            };
            format!(
                "  {{\n    const el = await find(page, {}, {});\n    const file = await download(page, el, {{ position: {position}, filename: {}, timeout: {} }});{store}\n  }}\n",
                selector_js(&s.selector),
                timeout_js(s.timeout_ms),
                s.filename
                    .as_deref()
                    .map(js_string)
                    .unwrap_or("null".into()),
                s.timeout_ms.unwrap_or(30_000),
            )
        }
        Step::Upload(s) => format!(
            "  await uploadTo(page, {}, [{}], {});\n",
            selector_js(&s.selector),
            s.files
                .iter()
                .map(|f| js_string(f))
                .collect::<Vec<_>>()
                .join(", "),
            timeout_js(s.timeout_ms)
        ),
    }
}
