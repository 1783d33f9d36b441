//! Roles and names conformance, in real Chromium: roles.ts (the one roles-and-names module the
//! recorder and the replayer share) against the expectations written into test pages in the
//! web-platform-tests style (`data-expectedlabel`, `data-expectedrole`), side by side with
//! Chromium's own accessibility tree (`Accessibility.getPartialAXTree`) on the same elements.
//!
//! Two corpora: the project's own pages (`tests/names/*.html`: every HTML-AAM implicit role,
//! the accname rule areas, generated content, shadow DOM), always run; and the real WPT
//! `accname/` and `html-aam/` files from `$BROWSERFLOW_WPT_DIR`, else `shared/conformance/wpt`
//! beside the repository, run when present and reported loudly as NOT RUN when absent.
//!
//! Each asserts: names agree with the expectations at least as often as Chromium's do, every
//! role agrees, and every disagreement is listed below with its reason (the list stays exact:
//! a fixed case must leave it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use browserflow_cdp::injected::RESOLVE_JS;
use browserflow_cdp::{Browser, BrowserConfig, Page};
use browserflow_shop::{FixtureServer, read_dir_files};
use serde_json::{Value, json};

/// The variable naming a web-platform-tests checkout (or the part of it holding `accname/`
/// and `html-aam/`).
const WPT_ENV: &str = "BROWSERFLOW_WPT_DIR";

/// Own-corpus names roles.ts computes differently from the expectation, by `page/testname`,
/// with why. Roles have no such list: every role must agree.
const KNOWN_NAME_DISAGREEMENTS: &[(&str, &str)] = &[(
    "structures/li-content",
    "a list item is named from its content (WAI-ARIA 1.2 does not list `listitem` among the \
     roles named from content): tools recorded before name list items by their text, as \
     Playwright does",
)];

/// Why roles.ts honours `aria-labeledby` although the WPT page says not to.
const LABELEDBY: &str = "Chromium honours the misspelt `aria-labeledby` (its tree names these \
    groups so, as Firefox does): roles.ts names as Chromium does, so a name recorded here and a \
    DevTools Recorder `aria/…` selector written from Chromium's tree agree";
/// Why a container is not named from its first heading.
const NAME_FROM_HEADING: &str = "tentative (a proposed ARIA name-from-heading rule, not in \
    accname 1.2); Chromium's tree leaves these unnamed too, and roles.ts names as Chromium does";
/// Why a list item's ::marker is left out of a name.
const MARKER: &str = "tentative (accname's ::marker proposal); Chromium's tree leaves the marker \
    out too, and roles.ts names as Chromium does";

/// WPT cases roles.ts knowingly computes differently, by `path#testname` (names and roles),
/// with why.
const WPT_KNOWN_DISAGREEMENTS: &[(&str, &str)] = &[
    (
        "accname/name/comp_labeledby_non_standard.html#div group with aria-labeledby",
        LABELEDBY,
    ),
    (
        "accname/name/comp_labeledby_non_standard.html#div group with aria-label and aria-labeledby",
        LABELEDBY,
    ),
    (
        "accname/name/comp_name_from_heading.tentative.html#alertdialog role, name from heading",
        NAME_FROM_HEADING,
    ),
    (
        "accname/name/comp_name_from_heading.tentative.html#article role, name from heading",
        NAME_FROM_HEADING,
    ),
    (
        "accname/name/comp_name_from_heading.tentative.html#dialog role, name from heading",
        NAME_FROM_HEADING,
    ),
    (
        "accname/name/comp_name_from_heading.tentative.html#native dialog element, name from heading",
        NAME_FROM_HEADING,
    ),
    (
        "accname/name/comp_name_from_heading.tentative.html#article role, name from DFS heading",
        NAME_FROM_HEADING,
    ),
    (
        "accname/name/comp_name_from_pseudo_content_marker.tentative.html#name from ul > listitem with default ::marker",
        MARKER,
    ),
    (
        "accname/name/comp_name_from_pseudo_content_marker.tentative.html#name from ul > listitem with custom ASCII ::marker",
        MARKER,
    ),
    (
        "accname/name/comp_name_from_pseudo_content_marker.tentative.html#name from ul > listitem with custom emoji ::marker",
        MARKER,
    ),
    (
        "accname/name/comp_name_from_pseudo_content_marker.tentative.html#name from ul > listitem with custom ::marker with explicit alt text",
        MARKER,
    ),
    (
        "accname/name/comp_name_from_pseudo_content_marker.tentative.html#name from ol > listitem with default ::marker",
        MARKER,
    ),
    (
        "accname/name/comp_name_from_pseudo_content_marker.tentative.html#name from ol > listitem with custom ASCII ::marker",
        MARKER,
    ),
    (
        "accname/name/comp_name_from_pseudo_content_marker.tentative.html#name from ol > listitem with custom emoji ::marker",
        MARKER,
    ),
    (
        "accname/name/comp_name_from_pseudo_content_marker.tentative.html#name from ol > listitem with custom ::marker with explicit alt text",
        MARKER,
    ),
    (
        "html-aam/roles-minimum.tentative.html#el-cite-draggable-attr",
        "`html-cite` is a platform role (HTML-AAM), not a WAI-ARIA role: roles.ts, like Chromium's \
         tree, has `cite` generic, and the minimum role leaves an element with a platform role \
         as it is",
    ),
    (
        "html-aam/roles.tentative.html#el-input-checkbox-switch",
        "tentative (`<input type=checkbox switch>`): Chromium's tree exposes it as a checkbox, so \
         a DevTools Recorder selector names it `checkbox`; roles.ts names roles as Chromium does",
    ),
];

/// WPT files not run, with why.
const WPT_SKIPPED: &[(&str, &str)] = &[];

/// One element with an expectation: what the page expects, what roles.ts says, what Chromium
/// says.
#[derive(Debug)]
struct Case {
    key: String,
    expected_label: Option<String>,
    expected_role: Option<String>,
    ours: (String, String),
    chromium: (String, String),
}

/// Collapses whitespace as a computed name is compared (accname: trimmed, flattened).
fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One spelling per role: WAI-ARIA synonyms, Chromium's names (`image`), and no role at all
/// as `generic` (the computed role of a `div`).
fn canonical_role(role: &str) -> String {
    match role.trim() {
        "" | "generic" | "GenericContainer" => "generic".into(),
        "img" | "image" => "image".into(),
        "presentation" | "none" => "none".into(),
        other => other.to_string(),
    }
}

/// The elements of the page an expectation names — those the page's own
/// `verify…BySelector` calls select, else every element with an expectation — through open
/// shadow roots, with roles.ts's role and name of each; kept in `__bfCases` for Chromium.
fn collect_js(selectors: &[String]) -> String {
    let selectors = serde_json::to_string(selectors).unwrap_or_else(|_| "[]".into());
    format!(
        r#"((selectors) => {{
  const R = ({RESOLVE_JS});
  const all = R.shadow.deepElements(document);
  const expects = (e) => e.hasAttribute('data-expectedlabel') || e.hasAttribute('data-expectedrole');
  const chosen = all.filter((e) => expects(e) && (!selectors.length || selectors.some((s) => {{ try {{ return e.matches(s); }} catch (x) {{ return false; }} }})));
  globalThis.__bfCases = chosen;
  return chosen.map((e, i) => ({{
    test: e.getAttribute('data-testname') || (e.id ? '#' + e.id : e.localName + '[' + i + ']'),
    label: e.getAttribute('data-expectedlabel'),
    role: e.getAttribute('data-expectedrole'),
    ourRole: R.roles.roleOf(e) || '',
    ourName: R.roles.accessibleName(e),
  }}));
}})({selectors})"#
    )
}

/// Chromium's computed role and name of `__bfCases[index]`.
async fn chromium_of(page: &Page, index: usize) -> (String, String) {
    let session = page.session();
    let found = session
        .call(
            "Runtime.evaluate",
            json!({ "expression": format!("globalThis.__bfCases[{index}]") }),
        )
        .await
        .expect("the case element");
    let Some(object) = found["result"]["objectId"].as_str() else {
        return (String::new(), String::new());
    };
    let tree = session
        .call(
            "Accessibility.getPartialAXTree",
            json!({ "objectId": object, "fetchRelatives": false }),
        )
        .await
        .expect("Chromium's accessibility node");
    let node = &tree["nodes"][0];
    // An element Chromium leaves out of its tree as uninteresting (a span, a div) is reported
    // with role `none`; its computed role is `generic`.
    let uninteresting = node["ignored"] == true
        && node["ignoredReasons"]
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r["name"] == "uninteresting"));
    let role = if uninteresting {
        "generic"
    } else {
        node["role"]["value"].as_str().unwrap_or_default()
    };
    let name = node["name"]["value"].as_str().unwrap_or_default();
    (role.to_string(), name.to_string())
}

/// Every case of the page at `url` (served), keyed `{key_prefix}{testname}`.
async fn cases_of(
    browser: &Browser,
    url: &str,
    key_prefix: &str,
    selectors: &[String],
) -> Vec<Case> {
    let context = browser.new_context().await.expect("context");
    let page = context.page().clone();
    page.navigate(url, Duration::from_secs(20))
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    let answer = page
        .session()
        .call(
            "Runtime.evaluate",
            json!({ "expression": collect_js(selectors), "returnByValue": true }),
        )
        .await
        .expect("collect");
    assert!(
        answer.get("exceptionDetails").is_none(),
        "{url}: {}",
        answer["exceptionDetails"]
    );
    let rows = answer["result"]["value"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut out = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let text = |v: &Value| v.as_str().map(str::to_string);
        out.push(Case {
            key: format!("{key_prefix}{}", row["test"].as_str().unwrap_or_default()),
            expected_label: text(&row["label"]),
            expected_role: text(&row["role"]),
            ours: (
                text(&row["ourRole"]).unwrap_or_default(),
                text(&row["ourName"]).unwrap_or_default(),
            ),
            chromium: chromium_of(&page, i).await,
        });
    }
    context.close().await.expect("context closes");
    out
}

/// Agreement counts and disagreements of a corpus.
#[derive(Default)]
struct Tally {
    names: usize,
    ours_names: usize,
    chromium_names: usize,
    roles: usize,
    ours_roles: usize,
    chromium_roles: usize,
    /// `key/label` or `key/role` → what differs.
    ours_wrong: BTreeMap<String, String>,
    chromium_wrong: Vec<String>,
}

fn tally(cases: &[Case]) -> Tally {
    let mut t = Tally::default();
    for c in cases {
        if let Some(want) = &c.expected_label {
            let want = flat(want);
            t.names += 1;
            let ours = flat(&c.ours.1);
            let theirs = flat(&c.chromium.1);
            if ours == want {
                t.ours_names += 1;
            } else {
                t.ours_wrong.insert(
                    format!("{}/label", c.key),
                    format!("named {ours:?}, expected {want:?} (Chromium {theirs:?})"),
                );
            }
            if theirs == want {
                t.chromium_names += 1;
            } else {
                t.chromium_wrong.push(format!(
                    "{}: Chromium names it {theirs:?}, expected {want:?}",
                    c.key
                ));
            }
        }
        if let Some(want) = &c.expected_role {
            let want = canonical_role(want);
            t.roles += 1;
            let ours = canonical_role(&c.ours.0);
            let theirs = canonical_role(&c.chromium.0);
            if ours == want {
                t.ours_roles += 1;
            } else {
                t.ours_wrong.insert(
                    format!("{}/role", c.key),
                    format!("role {ours:?}, expected {want:?} (Chromium {theirs:?})"),
                );
            }
            if theirs == want {
                t.chromium_roles += 1;
            } else {
                t.chromium_wrong.push(format!(
                    "{}: Chromium's role {theirs:?}, expected {want:?}",
                    c.key
                ));
            }
        }
    }
    t
}

/// Prints the counts and checks the rules of the module doc against `known`.
fn judge(corpus: &str, t: &Tally, known: &[(&str, &str)], every_role: bool) -> Vec<String> {
    eprintln!(
        "names conformance ({corpus}): names {}/{} agree with the expectations (Chromium {}/{}); \
         roles {}/{} (Chromium {}/{})",
        t.ours_names,
        t.names,
        t.chromium_names,
        t.names,
        t.ours_roles,
        t.roles,
        t.chromium_roles,
        t.roles
    );
    for line in &t.chromium_wrong {
        eprintln!("  chromium differs: {line}");
    }
    let mut problems = Vec::new();
    if t.ours_names < t.chromium_names {
        problems.push(format!(
            "{corpus}: {} names agree, fewer than Chromium's {}",
            t.ours_names, t.chromium_names
        ));
    }
    for (key, what) in &t.ours_wrong {
        let listed = known.iter().any(|(k, _)| {
            key == k || key.strip_suffix("/label").or(key.strip_suffix("/role")) == Some(k)
        });
        let role = key.ends_with("/role");
        if !listed || (role && every_role) {
            problems.push(format!("{corpus}: {key}: {what}"));
        } else {
            eprintln!("  known: {key}: {what}");
        }
    }
    for (k, why) in known {
        let still = t
            .ours_wrong
            .keys()
            .any(|key| key == k || key.starts_with(&format!("{k}/")));
        if !still {
            problems.push(format!(
                "{corpus}: {k} is listed as a known disagreement ({why}) but now agrees: remove it"
            ));
        }
    }
    problems
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_and_names_agree_with_the_standard_and_at_least_as_often_as_chromium() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/names");
    let server = FixtureServer::serve_files(read_dir_files(&dir).expect("the corpus reads"))
        .expect("fixture server starts");
    let browser = Browser::launch(&BrowserConfig::default())
        .await
        .expect("Chromium launches");
    let mut pages: Vec<String> = std::fs::read_dir(&dir)
        .expect("corpus folder")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".html"))
        .collect();
    pages.sort();
    let mut cases = Vec::new();
    for name in &pages {
        let found = cases_of(
            &browser,
            &server.url(&format!("/{name}")),
            &format!("{}/", name.trim_end_matches(".html")),
            &[],
        )
        .await;
        assert!(!found.is_empty(), "{name} has no case");
        cases.extend(found);
    }
    let mut problems = Vec::new();
    let mut keys = std::collections::HashSet::new();
    for c in &cases {
        if !keys.insert(&c.key) {
            problems.push(format!("two cases are named {}", c.key));
        }
    }
    let t = tally(&cases);
    assert!(
        t.names >= 200 && t.roles >= 120,
        "{} names, {} roles",
        t.names,
        t.roles
    );
    problems.extend(judge("own corpus", &t, KNOWN_NAME_DISAGREEMENTS, true));
    browser.close().await.expect("browser closes");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Where the web-platform-tests are, if they are there. A folder named by [`WPT_ENV`] must hold
/// them: a wrong path fails, never skips. Without the variable an absent default folder means
/// a fresh clone: reported as NOT RUN, loudly (and again in `scripts/test`'s summary).
fn wpt_dir() -> Option<PathBuf> {
    let holds = |d: &Path| d.join("accname").is_dir() || d.join("html-aam").is_dir();
    if let Some(named) = std::env::var_os(WPT_ENV) {
        let dir = PathBuf::from(named);
        assert!(
            holds(&dir),
            "{WPT_ENV}={} holds neither accname/ nor html-aam/: not the web-platform-tests",
            dir.display()
        );
        return Some(dir);
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/wpt");
    if holds(&dir) {
        return Some(dir);
    }
    eprintln!(
        "\n!!!! web-platform-tests accname/html-aam conformance NOT RUN: not found at {} and {WPT_ENV} is unset !!!!\n",
        dir.display()
    );
    None
}

/// The selectors a WPT page verifies: the arguments of its `AriaUtils.verifyLabelsBySelector`
/// and `verifyRolesBySelector` calls.
fn verified_selectors(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    for call in ["verifyLabelsBySelector(", "verifyRolesBySelector("] {
        for (at, _) in source.match_indices(call) {
            let rest = &source[at + call.len()..];
            let Some(quote) = rest
                .chars()
                .next()
                .filter(|c| matches!(c, '"' | '\'' | '`'))
            else {
                continue;
            };
            if let Some(end) = rest[1..].find(quote) {
                out.push(rest[1..1 + end].to_string());
            }
        }
    }
    out
}

fn html_files(dir: &Path, into: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        if path.is_dir() {
            html_files(&path, into);
        } else if path.extension().is_some_and(|x| x == "html") {
            into.push(path);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_platform_tests_accname_and_html_aam_files_pass_as_in_chromium() {
    let Some(root) = wpt_dir() else { return };
    let mut files = Vec::new();
    for part in ["accname", "html-aam"] {
        html_files(&root.join(part), &mut files);
    }
    files.sort();
    let server = FixtureServer::serve_files(read_dir_files(&root).expect("the WPT files read"))
        .expect("fixture server starts");
    let browser = Browser::launch(&BrowserConfig::default())
        .await
        .expect("Chromium launches");
    let mut cases = Vec::new();
    let mut run = 0;
    for file in &files {
        let relative = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .to_string_lossy()
            .replace('\\', "/");
        if let Some((_, why)) = WPT_SKIPPED.iter().find(|(f, _)| *f == relative) {
            eprintln!("  skipped {relative}: {why}");
            continue;
        }
        let source = std::fs::read_to_string(file).unwrap_or_default();
        if !source.contains("data-expected") && !source.contains("BySelector") {
            continue;
        }
        run += 1;
        let found = cases_of(
            &browser,
            &server.url(&format!("/{relative}")),
            &format!("{relative}#"),
            &verified_selectors(&source),
        )
        .await;
        cases.extend(found);
    }
    browser.close().await.expect("browser closes");
    eprintln!("web-platform-tests: {run} files from {}", root.display());
    let t = tally(&cases);
    let problems = judge("web-platform-tests", &t, WPT_KNOWN_DISAGREEMENTS, false);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_verified_selectors_of_a_wpt_page_are_read_from_its_calls() {
    let source = r#"<script>AriaUtils.verifyRolesBySelector(".ex");
        AriaUtils.verifyLabelsBySelector('.ex-label');</script>"#;
    assert_eq!(verified_selectors(source), [".ex-label", ".ex"]);
    assert_eq!(canonical_role("img"), canonical_role("image"));
    assert_eq!(canonical_role(""), "generic");
}
