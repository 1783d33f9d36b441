//! DevTools Recorder selectors (`aria/…`, `text/…`, `xpath/…`, `pierce/…`, CSS, shadow chains)
//! and frame index paths, as ranked candidates and frame selectors.

use serde_json::Value;

use super::ImportError;
use crate::{Selector, SelectorCandidate, SelectorKind};

/// The step's `selectors` as ranked candidates.
pub(super) fn selectors(raw: &Value, index: usize) -> Result<Selector, ImportError> {
    let at = format!("/steps/{index}/selectors");
    let list = raw
        .get("selectors")
        .and_then(Value::as_array)
        .ok_or_else(|| ImportError::Shape {
            at: at.clone(),
            message: "is missing or not a list".into(),
        })?;
    let mut candidates = Vec::new();
    let mut refused = Vec::new();
    for (i, alternative) in list.iter().enumerate() {
        let parts: Vec<&str> = match alternative {
            Value::String(s) => vec![s.as_str()],
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if parts.is_empty() {
            return Err(ImportError::Shape {
                at: format!("{at}/{i}"),
                message: "is not a selector string or a list of them".into(),
            });
        }
        match chain_candidate(&parts) {
            Ok(candidate) => candidates.push(candidate),
            Err(reason) => refused.push(format!("{}: {reason}", parts.join(" >> "))),
        }
    }
    if candidates.is_empty() {
        return Err(ImportError::Shape {
            at,
            message: format!(
                "has no selector browserflow can use ({})",
                refused.join("; ")
            ),
        });
    }
    Ok(Selector::new(candidates))
}

fn chain_candidate(parts: &[&str]) -> Result<SelectorCandidate, String> {
    let (last, hosts) = parts.split_last().ok_or("empty chain")?;
    let mut shadow = Vec::new();
    for host in hosts {
        match single_candidate(host) {
            SelectorCandidate {
                kind: SelectorKind::Css,
                value,
                ..
            } => shadow.push(value),
            _ => return Err(format!("shadow host `{host}` is not a CSS selector")),
        }
    }
    Ok(single_candidate(last).in_shadow(shadow))
}

fn single_candidate(text: &str) -> SelectorCandidate {
    if let Some(aria) = text.strip_prefix("aria/") {
        if let Some((name, role)) = parse_aria_role(aria) {
            return SelectorCandidate::role(role, name);
        }
        return SelectorCandidate::new(SelectorKind::AccessibleName, aria);
    }
    if let Some(text) = text.strip_prefix("text/") {
        return SelectorCandidate::new(SelectorKind::Xpath, innermost_containing(text));
    }
    if let Some(xpath) = text.strip_prefix("xpath/") {
        return SelectorCandidate::new(SelectorKind::Xpath, xpath);
    }
    if let Some(css) = text.strip_prefix("pierce/") {
        return SelectorCandidate::css(css);
    }
    SelectorCandidate::css(text)
}

/// `Name[role="button"]` → (`Name`, `button`), the role as roles.ts names it.
fn parse_aria_role(aria: &str) -> Option<(String, String)> {
    let open = aria.rfind("[role=")?;
    let rest = aria[open + 6..].strip_suffix(']')?;
    let role = rest.trim_matches(['"', '\'']);
    Some((aria[..open].to_string(), aria_role(role).to_string()))
}

/// A role as the DevTools Recorder writes it — Chromium's accessibility tree names — as the
/// WAI-ARIA role browserflow's resolver computes: Chromium says `image` for `img` and `none`
/// for `presentation` (the resolver takes `none` and `presentation` as one role), and names
/// two HTML elements by its own roles: a details' `summary` (`DisclosureTriangle`, a button in
/// HTML-AAM) and `math` (`MathMLMath`).
fn aria_role(chromium: &str) -> &str {
    match chromium {
        "image" => "img",
        "presentation" => "none",
        "DisclosureTriangle" => "button",
        "MathMLMath" => "math",
        other => other,
    }
}

/// An XPath for the innermost elements whose text contains `text`.
fn innermost_containing(text: &str) -> String {
    let literal = xpath_literal(text);
    format!(
        "//*[not(self::script or self::style or self::head or self::html or self::body)]\
         [contains(normalize-space(.), {literal})][not(.//*[contains(normalize-space(.), {literal})])]"
    )
}

fn xpath_literal(text: &str) -> String {
    if !text.contains('\'') {
        format!("'{text}'")
    } else if !text.contains('"') {
        format!("\"{text}\"")
    } else {
        let parts: Vec<String> = text.split('\'').map(|p| format!("'{p}'")).collect();
        format!("concat({})", parts.join(", \"'\", "))
    }
}

/// The step's `frame` index path (`[0, 1]`); `None` for an absent or empty one.
pub(super) fn frame_index_path(raw: &Value, index: usize) -> Result<Option<Vec<u32>>, ImportError> {
    let Some(frame) = raw.get("frame") else {
        return Ok(None);
    };
    let bad = || ImportError::Shape {
        at: format!("/steps/{index}/frame"),
        message: "must be an array of child-frame indexes (non-negative integers)".to_string(),
    };
    let items = frame.as_array().ok_or_else(bad)?;
    let path = items
        .iter()
        .map(|i| {
            i.as_u64()
                .and_then(|i| u32::try_from(i).ok())
                .ok_or_else(bad)
        })
        .collect::<Result<Vec<u32>, _>>()?;
    Ok((!path.is_empty()).then_some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aria_selectors_name_roles_as_the_resolver_computes_them() {
        for (selector, role) in [
            ("aria/Company logo[role=\"image\"]", "img"),
            ("aria/Spacer[role=\"presentation\"]", "none"),
            ("aria/Save[role=\"button\"]", "button"),
            (
                "aria/Shipping details[role=\"DisclosureTriangle\"]",
                "button",
            ),
            ("aria/Formula[role=\"MathMLMath\"]", "math"),
            (
                "aria/Review header[role=\"sectionheader\"]",
                "sectionheader",
            ),
        ] {
            let candidate = single_candidate(selector);
            assert_eq!(candidate.kind, SelectorKind::Role, "{selector}");
            assert_eq!(candidate.value, role, "{selector}");
        }
    }
}
