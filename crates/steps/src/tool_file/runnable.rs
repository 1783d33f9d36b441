//! What a run refuses before it starts, checked when a tool file is read: so `bflow contract
//! check`, `bflow check`, every importer and the recorder's draft refuse exactly what `bflow
//! run` would (one rule, here). A step string's `{{name}}` must name an input of the contract
//! and be closed (the run expands every string of every step, and stops at either); a
//! `navigate` URL must be one the navigation guard lets through (a scheme on the web, an
//! origin the tool may go to, no loopback or link-local address it does not name, and
//! absolute: Page.navigate refuses any other); an expected navigation's URL must be on the
//! web.

use browserflow_contract::{Problem, Rule, ToolContract, push_pointer};
use serde_json::Value;

use crate::Step;
use crate::interpolate::{TemplatePart, template_parts};
use crate::origins::{NavigationRefusal, Origins, check_navigation};

/// Every problem `steps` would stop a run at before it acts, each at its JSON pointer.
pub(super) fn problems(
    contract: &ToolContract,
    steps: &[Step],
    origins: &Origins,
    out: &mut Vec<Problem>,
) {
    let inputs: Vec<&str> = contract.inputs().iter().map(|i| i.name.as_str()).collect();
    for (index, step) in steps.iter().enumerate() {
        let at = format!("/steps/{index}");
        let Ok(value) = serde_json::to_value(step) else {
            continue;
        };
        placeholders(&value, &at, &inputs, out);
        if value["type"] == "navigate"
            && let Some(url) = value["url"].as_str()
        {
            urls(url, true, true, origins, &push_pointer(&at, "url"), out);
        }
        if let Some(url) = value["navigation"]["url"].as_str() {
            // A pattern: only its scheme is decided, as `Run::act_and_follow` does (a
            // main-frame one's, or a frame's when the step acts in a frame).
            let main_frame = value["selector"]["frame"].is_null();
            let at = format!("{at}/navigation/url");
            urls(url, main_frame, false, &Origins::Any, &at, out);
        }
    }
}

/// `{{name}}` references in every string of `value` (not in keys, as the run expands them).
fn placeholders(value: &Value, at: &str, inputs: &[&str], out: &mut Vec<Problem>) {
    match value {
        Value::String(text) if text.contains("{{") => {
            for part in template_parts(text) {
                match part {
                    TemplatePart::Input(name) if !inputs.contains(&name) => {
                        out.push(Problem::new(
                            at,
                            Rule::InvalidValue,
                            format!(
                                "`{{{{{name}}}}}` names no input of the tool (its inputs: {})",
                                if inputs.is_empty() {
                                    "none".to_string()
                                } else {
                                    inputs.join(", ")
                                }
                            ),
                        ));
                    }
                    TemplatePart::Unclosed(rest) => out.push(Problem::new(
                        at,
                        Rule::InvalidValue,
                        format!("unclosed `{{{{` in {rest:?}: a reference is `{{{{name}}}}`"),
                    )),
                    _ => {}
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                placeholders(item, &format!("{at}/{i}"), inputs, out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                placeholders(item, &push_pointer(at, key), inputs, out);
            }
        }
        _ => {}
    }
}

/// A URL the run would refuse: decided on the URL as written, or — when it holds a
/// reference — on the literal part before it, for its scheme only (the rest is the input's).
/// `decides_origins`: a `navigate` URL, held to `origins` too; otherwise (an expected
/// navigation's pattern) only schemes off the web count.
fn urls(
    url: &str,
    top_level: bool,
    decides_origins: bool,
    origins: &Origins,
    at: &str,
    out: &mut Vec<Problem>,
) {
    let mut parts = template_parts(url);
    let literal = match parts.next() {
        Some(TemplatePart::Text(text)) if parts.next().is_none() => Some(text),
        Some(TemplatePart::Text(prefix)) => {
            if let Err(refusal @ NavigationRefusal::Scheme { .. }) =
                check_navigation(prefix, top_level, &Origins::Any)
            {
                // Name the URL as written, not the prefix.
                out.push(Problem::new(
                    at,
                    Rule::InvalidValue,
                    format!("{refusal}").replace(&format!("{prefix:?}"), &format!("{url:?}")),
                ));
            }
            None
        }
        _ => None,
    };
    let Some(literal) = literal else {
        return;
    };
    // The browser resolves nothing against a `navigate` step: a URL that is not absolute
    // (`//host/`, `/path`, `shop.test`) is refused by Page.navigate when the step runs.
    if decides_origins && url::Url::parse(literal.trim()).is_err() {
        out.push(Problem::new(
            at,
            Rule::InvalidValue,
            format!(
                "navigating to {literal:?} would fail: a navigate step's URL is absolute (`https://host/path`)"
            ),
        ));
        return;
    }
    match check_navigation(literal, top_level, origins) {
        Ok(()) => {}
        Err(refusal @ NavigationRefusal::Scheme { .. }) => {
            out.push(Problem::new(at, Rule::InvalidValue, refusal.to_string()));
        }
        Err(refusal) if decides_origins => {
            out.push(Problem::new(at, Rule::InvalidValue, refusal.to_string()));
        }
        Err(_) => {}
    }
}
