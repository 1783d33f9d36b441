//! The recorder and the replayer name elements the same way (both use roles.ts through the
//! resolver): for every element of a fixture page, the role+name candidate the recorder
//! produces is the expected one, and the replayer's resolver finds exactly that element by it.

use browserflow_record::{RecordOptions, Recorder};
use browserflow_replay::Replayer;
use browserflow_steps::{SelectorCandidate, SelectorKind, Step};
use serde_json::{Value, json};

use crate::support::Harness;

/// Element id on `names.html`, and the role and name it must be recorded under; `None` where
/// the element must get no role candidate (no role, or no name).
const TABLE: &[(&str, Option<(&str, &str)>)] = &[
    // Landmarks: header and footer only at the top level (in an article, ARIA 1.3's section
    // header and footer, as Chromium); section and form only when named.
    ("n-banner", Some(("banner", "Site"))),
    ("n-nav", Some(("navigation", "Primary"))),
    ("n-main", Some(("main", "Name checks"))),
    ("n-aside", Some(("complementary", "Filters"))),
    ("n-footer", Some(("contentinfo", "Page footer"))),
    ("n-section", Some(("region", "Deals of the day"))),
    ("n-section-unnamed", None),
    ("n-form", Some(("form", "Newsletter"))),
    ("n-form-unnamed", None),
    ("n-article", Some(("article", "Review"))),
    ("n-article-header", Some(("sectionheader", "Review header"))),
    ("n-article-footer", Some(("sectionfooter", "Review footer"))),
    // Links: content, an image's alt, hidden parts left out, blocks set apart.
    ("n-link", Some(("link", "Read more about us"))),
    ("n-link-img", Some(("link", "Home"))),
    ("n-link-icon", Some(("link", "Cart"))),
    ("n-card", Some(("link", "Mechanical Keyboard"))),
    // Headings: content, or aria-label over it.
    ("n-h1", Some(("heading", "Name checks"))),
    ("n-h2-aria", Some(("heading", "Override"))),
    ("n-section-h", Some(("heading", "Deals of the day"))),
    // Buttons.
    ("n-btn-hidden", Some(("button", "Save"))),
    ("n-btn-label", Some(("button", "Close panel"))),
    ("n-btn-self", Some(("button", "Delete report.pdf"))),
    ("n-inline", Some(("button", "Buynow"))),
    ("n-div-btn", Some(("button", "Custom action"))),
    ("n-fallback-role", Some(("link", "Fallback role"))),
    ("n-presentational", Some(("button", "Keep my role"))),
    ("n-loop", Some(("button", "Alpha"))),
    ("n-submit", Some(("button", "Submit"))),
    ("n-reset", Some(("button", "Reset"))),
    ("n-coupon", Some(("button", "Apply coupon"))),
    ("n-go", Some(("button", "Go"))),
    ("n-summary", Some(("button", "Shipping details"))),
    ("n-dialog-ok", Some(("button", "OK"))),
    ("n-tab", Some(("tab", "Reviews"))),
    // Form controls: <label for>, a wrapping <label>, several labels, labelledby (hidden
    // targets too), an embedded control's value, title before placeholder.
    ("n-email", Some(("textbox", "Email address"))),
    ("n-qty", Some(("spinbutton", "Quantity"))),
    ("n-size", Some(("combobox", "Size"))),
    ("n-colours", Some(("listbox", "Colours"))),
    ("n-opt-red", Some(("option", "Red"))),
    ("n-search", Some(("searchbox", "Search the shop"))),
    ("n-promo", Some(("textbox", "Promo code"))),
    ("n-range", Some(("slider", "Volume"))),
    ("n-gift", Some(("checkbox", "Gift wrap"))),
    ("n-express", Some(("radio", "Express shipping"))),
    ("n-notes", Some(("textbox", "Notes optional"))),
    ("n-phone", Some(("textbox", "Phone (mobile)"))),
    ("n-flash", Some(("checkbox", "Flash the screen 3 times"))),
    ("n-times", Some(("textbox", "Times"))),
    ("n-fieldset", Some(("group", "Delivery address"))),
    ("n-street", Some(("textbox", "Street"))),
    ("n-in-unnamed", Some(("textbox", "Unnamed form"))),
    ("n-hr", Some(("separator", "End of form"))),
    ("n-progress", Some(("progressbar", "Upload"))),
    ("n-meter", Some(("meter", "Battery"))),
    ("n-output", Some(("status", "Total"))),
    // Images: alt, and alt="" is presentational.
    ("n-img", Some(("img", "Company logo"))),
    ("n-img-decorative", None),
    // Tables: caption, header cells by position, rows named by their cells.
    ("n-table", Some(("table", "Order history"))),
    ("n-head-row", Some(("row", "Item Price"))),
    ("n-th-item", Some(("columnheader", "Item"))),
    ("n-tbody", Some(("rowgroup", "Orders"))),
    ("n-row", Some(("row", "Keyboard 89.99"))),
    ("n-rowheader", Some(("rowheader", "Keyboard"))),
    ("n-cell", Some(("cell", "89.99"))),
    // Lists, disclosure, tabs, dialogs.
    ("n-list", Some(("list", "Steps"))),
    ("n-li", Some(("listitem", "Pick a size"))),
    ("n-details", Some(("group", "More info"))),
    ("n-tablist", Some(("tablist", "Sections"))),
    ("n-dialog", Some(("dialog", "Confirm order"))),
    ("n-dialog-h", Some(("heading", "Confirm order"))),
    ("n-aria-dialog", Some(("dialog", "Cookie consent"))),
];

/// The role and name in a recorder description (`button "Save"`); `None` for one without a
/// name (`banner`, `<div#x>`).
fn described(description: &str) -> Option<(String, String)> {
    let (role, name) = description.split_once(' ')?;
    let name: String = serde_json::from_str(name).ok()?;
    Some((role.to_string(), name))
}

/// A replay of `names.html` that reads the id of the element each candidate finds into the
/// field named with it.
fn lookups(url: &str, rows: &[Lookup]) -> Vec<Step> {
    let mut steps = vec![json!({ "type": "navigate", "url": url })];
    for row in rows {
        steps.push(json!({
            "type": "extract",
            "selector": { "candidates": [row.candidate] },
            "from": "attribute",
            "attribute": "id",
            "field": row.field,
            "timeout_ms": 1000,
        }));
    }
    steps
        .into_iter()
        .map(|s| serde_json::from_value(s).unwrap())
        .collect()
}

/// A candidate the recorder made for the element `id`, to be looked up by the replayer.
#[derive(Clone)]
struct Lookup {
    id: &'static str,
    field: String,
    candidate: SelectorCandidate,
}

async fn replay(h: &Harness, steps: &[Step]) -> Result<serde_json::Map<String, Value>, String> {
    let context = h.browser.new_context().await.unwrap();
    let report = Replayer::default()
        .run(&context, steps, &serde_json::Map::new())
        .await;
    context.close().await.unwrap();
    report.map(|r| r.outputs).map_err(|e| e.to_string())
}

/// Where Chromium's names differ: it names neither rows nor list items from their content
/// (WAI-ARIA 1.2 §5.2.8.4 lists `row`; `listitem` keeps its content name for the tools already
/// recorded with it).
const CHROMIUM_DIFFERS: &[&str] = &["n-head-row", "n-row", "n-li"];

/// Chromium's own computed name of each element of the table (its accessibility tree).
async fn chromium_names(page: &browserflow_cdp::Page) -> Vec<(String, String)> {
    let session = page.session();
    let mut out = Vec::new();
    for (id, _) in TABLE {
        let found = session
            .call(
                "Runtime.evaluate",
                json!({ "expression": format!("document.getElementById('{id}')") }),
            )
            .await
            .unwrap();
        let object = found["result"]["objectId"].as_str().unwrap().to_string();
        let tree = session
            .call(
                "Accessibility.getPartialAXTree",
                json!({ "objectId": object, "fetchRelatives": false }),
            )
            .await
            .unwrap();
        let node = &tree["nodes"][0];
        out.push((
            node["role"]["value"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            node["name"]["value"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        ));
    }
    out
}

#[tokio::test]
async fn recorder_and_replayer_give_every_element_the_expected_role_and_name() {
    assert!(TABLE.len() >= 30);
    let h = Harness::start().await;
    let url = h.url("/names.html");
    let recorder = Recorder::start_on(
        &h.browser,
        &RecordOptions {
            headed: false,
            ..RecordOptions::new(url.clone())
        },
    )
    .await
    .unwrap();
    let mut problems = Vec::new();

    // (a) What the recorder makes of each element: its description is the role and name it
    // records candidates from (`button "Save"`); a role candidate it kept must say the same.
    let mut rows = Vec::new();
    for (id, expected) in TABLE {
        let picked = recorder
            .element("main", &format!("#{id}"))
            .await
            .unwrap_or_else(|e| panic!("#{id}: {e}"));
        let role = described(&picked.description);
        if let Some(c) = picked
            .selector
            .candidates
            .iter()
            .find(|c| c.kind == SelectorKind::Role)
        {
            let candidate = Some((c.value.clone(), c.name.clone().unwrap_or_default()));
            if candidate != role {
                problems.push(format!(
                    "#{id}: role candidate {candidate:?} but described as {role:?}"
                ));
            }
        }
        // (c) Against the table.
        let want = expected.map(|(r, n)| (r.to_string(), n.to_string()));
        if role != want {
            problems.push(format!("#{id}: recorded {role:?}, expected {want:?}"));
        }
        if let Some((role, name)) = role {
            let candidate = SelectorCandidate::role(role, name);
            rows.push(Lookup {
                id,
                field: format!("{id}/role"),
                candidate,
            });
        }
        // The label candidate (aria-labelledby, aria-label, <label>) goes through the same
        // names, by the resolver's `label` kind.
        if let Some(c) = picked
            .selector
            .candidates
            .iter()
            .find(|c| c.kind == SelectorKind::Label)
        {
            rows.push(Lookup {
                id,
                field: format!("{id}/label"),
                candidate: c.clone(),
            });
        }
    }
    let chromium = chromium_names(recorder.page()).await;
    recorder.stop().await.unwrap();

    let labels = rows.iter().filter(|r| r.field.ends_with("/label")).count();
    assert!(labels >= 30, "only {labels} label candidates were recorded");
    // (b) The replayer finds exactly that element by the recorded role and name.
    let found = match replay(&h, &lookups(&url, &rows)).await {
        Ok(outputs) => outputs,
        // One lookup failed: look each up alone to name every one that fails.
        Err(_) => {
            let mut outputs = serde_json::Map::new();
            for row in &rows {
                match replay(&h, &lookups(&url, std::slice::from_ref(row))).await {
                    Ok(o) => outputs.extend(o),
                    Err(e) => problems.push(format!(
                        "#{}: the replayer did not find it by {:?}: {e}",
                        row.id, row.candidate
                    )),
                }
            }
            outputs
        }
    };
    for row in &rows {
        if let Some(got) = found.get(&row.field)
            && got != row.id
        {
            problems.push(format!("{:?} found #{got}, not #{}", row.candidate, row.id));
        }
    }
    // And Chromium's own accessibility tree gives the same names, but where it knowingly
    // departs from the specs followed here.
    for ((id, expected), (role, name)) in TABLE.iter().zip(&chromium) {
        let ours = expected.map_or("", |(_, n)| n);
        let theirs = name.split_whitespace().collect::<Vec<_>>().join(" ");
        if ours != theirs && !CHROMIUM_DIFFERS.contains(id) {
            problems.push(format!(
                "#{id}: named {ours:?}, Chromium names it {role} {theirs:?}"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} elements disagree:\n{}",
        problems.len(),
        TABLE.len(),
        problems.join("\n")
    );
    h.close().await;
}
