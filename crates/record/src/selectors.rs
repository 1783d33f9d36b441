//! Ranking the candidates the recorder script found for an element (DESIGN.md §5): by kind
//! (test id, role+name, label, placeholder, text, id, structure, CSS, XPath), stable before
//! unstable, and only candidates that matched exactly the target in the live page. A candidate
//! that matched several elements is never kept: replay needs exactly one match.

use crate::protocol::{CheckedCandidate, FrameInfo};
use browserflow_steps::{FrameSelector, Selector, SelectorCandidate, SelectorKind};

fn kind_rank(kind: SelectorKind) -> u8 {
    match kind {
        SelectorKind::TestId => 0,
        SelectorKind::Role => 1,
        SelectorKind::Label => 2,
        SelectorKind::Placeholder => 3,
        SelectorKind::Text => 4,
        SelectorKind::AccessibleName => 5,
        SelectorKind::Id => 6,
        // Below every kind that names the element itself, above the positional paths: the
        // element's place in a stable structure survives a redesign that changes its id,
        // text and test id, and a CSS or XPath path does not.
        SelectorKind::Structure => 7,
        SelectorKind::Css => 8,
        SelectorKind::Xpath => 9,
    }
}

/// Keeps the candidates that found exactly the target, best first: stable ones by kind, then
/// unstable ones by kind. Duplicates are dropped.
pub(crate) fn rank(raw: Vec<CheckedCandidate>) -> Vec<SelectorCandidate> {
    let mut kept: Vec<CheckedCandidate> = raw
        .into_iter()
        .filter(|c| c.target && c.count == 1 && !c.value.trim().is_empty())
        .collect();
    kept.sort_by_key(|c| (c.unstable, kind_rank(c.kind)));
    let mut out: Vec<SelectorCandidate> = Vec::new();
    for c in kept {
        let candidate = SelectorCandidate {
            kind: c.kind,
            value: c.value,
            name: c.name.filter(|_| c.kind == SelectorKind::Role),
            structure: c.structure.filter(|_| c.kind == SelectorKind::Structure),
            shadow: c.shadow,
        };
        if !out.contains(&candidate) {
            out.push(candidate);
        }
    }
    out
}

/// Adds `candidate` where its kind ranks (before the first candidate of a lower-ranked kind);
/// returns its position (the existing one when it is already there).
pub(crate) fn insert_ranked(
    candidates: &mut Vec<SelectorCandidate>,
    candidate: SelectorCandidate,
) -> usize {
    if let Some(at) = candidates.iter().position(|c| *c == candidate) {
        return at;
    }
    let rank = kind_rank(candidate.kind);
    let at = candidates
        .iter()
        .position(|c| kind_rank(c.kind) > rank)
        .unwrap_or(candidates.len());
    candidates.insert(at, candidate);
    at
}

/// A stable identity for a child frame: its name when no other frame has it, else its URL,
/// else both; when even both are shared (two unnamed `about:blank` frames), its place among
/// its siblings too (`index_path`). `frames` are the (name, url) of every frame of the page.
pub(crate) fn frame_identity(
    frame: &FrameInfo,
    frames: &[(String, String)],
) -> Option<FrameSelector> {
    if frame.top {
        return None;
    }
    let by_name = frames.iter().filter(|(n, _)| *n == frame.name).count();
    let by_url = frames.iter().filter(|(_, u)| *u == frame.url).count();
    if !frame.name.is_empty() && by_name <= 1 {
        return Some(FrameSelector {
            url: None,
            name: Some(frame.name.clone()),
            index_path: None,
        });
    }
    if by_url <= 1 {
        return Some(FrameSelector {
            url: Some(frame.url.clone()),
            name: None,
            index_path: None,
        });
    }
    let by_both = frames
        .iter()
        .filter(|(n, u)| *n == frame.name && *u == frame.url)
        .count();
    Some(FrameSelector {
        url: Some(frame.url.clone()),
        name: (!frame.name.is_empty()).then(|| frame.name.clone()),
        // Not exactly one frame known by both (the engine may know a frame's name from its
        // element's id, where the frame's own `window.name` is empty): its place decides.
        index_path: if by_both == 1 {
            None
        } else {
            frame.path.clone()
        },
    })
}

/// A selector from ranked candidates in a frame.
pub(crate) fn selector(
    candidates: Vec<SelectorCandidate>,
    frame: Option<FrameSelector>,
) -> Selector {
    Selector {
        candidates,
        frame,
        repeat: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use browserflow_steps::Structure;

    fn raw(
        kind: SelectorKind,
        value: &str,
        count: u32,
        target: bool,
        unstable: bool,
    ) -> CheckedCandidate {
        CheckedCandidate {
            kind,
            value: value.into(),
            name: None,
            structure: None,
            place: false,
            shadow: Vec::new(),
            count,
            target,
            unstable,
        }
    }

    #[test]
    fn generated_ids_rank_below_role_and_text_and_non_unique_ones_are_dropped() {
        let ranked = rank(vec![
            raw(SelectorKind::Id, "ember123", 1, true, true),
            raw(SelectorKind::Css, "#ember123", 1, true, true),
            raw(SelectorKind::Text, "Save", 1, true, false),
            raw(SelectorKind::TestId, "save", 2, true, false),
            raw(SelectorKind::Role, "button", 1, true, false),
            raw(SelectorKind::Xpath, "/html/body/button", 1, true, false),
            raw(SelectorKind::Label, "Other", 1, false, false),
        ]);
        let kinds: Vec<(SelectorKind, &str)> =
            ranked.iter().map(|c| (c.kind, c.value.as_str())).collect();
        assert_eq!(
            kinds,
            vec![
                (SelectorKind::Role, "button"),
                (SelectorKind::Text, "Save"),
                (SelectorKind::Xpath, "/html/body/button"),
                (SelectorKind::Id, "ember123"),
                (SelectorKind::Css, "#ember123"),
            ]
        );
    }

    #[test]
    fn a_structure_candidate_ranks_below_the_element_s_own_names_and_above_the_paths() {
        let structure = Structure {
            within: browserflow_steps::Anchor::FormWithField(browserflow_steps::FieldRef::Label(
                "Query".into(),
            )),
            pick: browserflow_steps::Pick::DefaultButton,
            of: None,
        };
        let mut anchored = raw(SelectorKind::Structure, "button", 1, true, false);
        anchored.structure = Some(structure.clone());
        let mut ambiguous = raw(SelectorKind::Structure, "button", 2, true, false);
        ambiguous.structure = Some(Structure {
            pick: browserflow_steps::Pick::Only,
            ..structure.clone()
        });
        let ranked = rank(vec![
            raw(
                SelectorKind::Xpath,
                "//*[@id=\"finder\"]/button",
                1,
                true,
                false,
            ),
            raw(SelectorKind::Css, "#finder > button", 1, true, false),
            ambiguous,
            anchored,
            raw(SelectorKind::Id, "go", 1, true, false),
            raw(SelectorKind::Text, "Search", 1, true, false),
        ]);
        let kinds: Vec<SelectorKind> = ranked.iter().map(|c| c.kind).collect();
        assert_eq!(
            kinds,
            [
                SelectorKind::Text,
                SelectorKind::Id,
                SelectorKind::Structure,
                SelectorKind::Css,
                SelectorKind::Xpath
            ]
        );
        assert_eq!(ranked[2].structure, Some(structure));
        let mut cs = ranked[3..].to_vec();
        assert_eq!(insert_ranked(&mut cs, ranked[2].clone()), 0);
    }

    #[test]
    fn a_suggested_candidate_goes_where_its_kind_ranks() {
        let mut cs = vec![
            SelectorCandidate::role("button", "Save"),
            SelectorCandidate::css("#a > b"),
        ];
        assert_eq!(insert_ranked(&mut cs, SelectorCandidate::text("Save")), 1);
        assert_eq!(
            insert_ranked(&mut cs, SelectorCandidate::test_id("save")),
            0
        );
        assert_eq!(insert_ranked(&mut cs, SelectorCandidate::text("Save")), 2);
        assert_eq!(cs.len(), 4);
    }

    #[test]
    fn frames_are_named_when_the_name_is_unique_else_by_url() {
        let frames = vec![
            ("".to_string(), "http://a/".to_string()),
            ("promo".to_string(), "http://a/promo.html".to_string()),
            ("".to_string(), "http://b/partner.html".to_string()),
        ];
        let promo = FrameInfo {
            top: false,
            url: "http://a/promo.html".into(),
            name: "promo".into(),
            ..FrameInfo::default()
        };
        assert_eq!(
            frame_identity(&promo, &frames).unwrap().name.as_deref(),
            Some("promo")
        );
        let partner = FrameInfo {
            top: false,
            url: "http://b/partner.html".into(),
            name: String::new(),
            ..FrameInfo::default()
        };
        let id = frame_identity(&partner, &frames).unwrap();
        assert_eq!(id.url.as_deref(), Some("http://b/partner.html"));
        assert!(id.name.is_none());
        assert!(
            frame_identity(
                &FrameInfo {
                    top: true,
                    ..partner
                },
                &frames
            )
            .is_none()
        );
    }

    #[test]
    fn frames_sharing_url_and_name_are_told_apart_by_their_place() {
        let frames = vec![
            ("".to_string(), "http://a/".to_string()),
            ("".to_string(), "about:blank".to_string()),
            ("".to_string(), "about:blank".to_string()),
        ];
        let second = FrameInfo {
            url: "about:blank".into(),
            path: Some(vec![1]),
            ..FrameInfo::default()
        };
        let id = frame_identity(&second, &frames).unwrap();
        assert_eq!(id.url.as_deref(), Some("about:blank"));
        assert_eq!(id.name, None);
        assert_eq!(id.index_path, Some(vec![1]));
        // One blank frame: its URL is enough, its place is not kept (a new frame would shift it).
        let id = frame_identity(&second, &frames[..2]).unwrap();
        assert_eq!(id.index_path, None);
    }
}
