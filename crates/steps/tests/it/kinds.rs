//! A step kind is declared once: every table answers for every kind of [`StepKind::ALL`]
//! (itself checked against the kinds serde reads, in `tool_file.rs`'s unit tests), no match
//! over step kinds outside tests has a catch-all arm, and the desktop app's screens take kind
//! names and words from the generated bindings, not from tables of their own.

use std::path::{Path, PathBuf};

use browserflow_steps::{Step, StepKind, ToolFile, export_playwright};
use serde_json::{Value, json};

/// A minimal valid step of each kind. A kind missing here fails the test below.
fn sample(kind: StepKind) -> Value {
    let element = json!({ "candidates": [{ "kind": "test_id", "value": "x" }] });
    let fields = match kind {
        StepKind::Navigate => json!({ "url": "http://127.0.0.1:8080/index.html" }),
        StepKind::Click | StepKind::Hover | StepKind::WaitForElement | StepKind::Download => {
            json!({ "selector": element })
        }
        StepKind::Fill => json!({ "selector": element, "value": "lamp" }),
        StepKind::KeyPress => json!({ "key": "Enter" }),
        StepKind::Drag => json!({ "selector": element, "by": { "x": 40.0, "y": 0.0 } }),
        StepKind::Scroll => json!({ "y": 300.0 }),
        StepKind::SetViewport => json!({ "width": 800, "height": 600 }),
        StepKind::WaitForExpression => {
            json!({ "expression": "document.readyState === 'complete'" })
        }
        StepKind::Extract => json!({ "selector": element, "field": "name" }),
        StepKind::ExtractList => {
            json!({ "items": element, "field": "results", "fields": [{ "name": "name" }] })
        }
        StepKind::Assert => json!({ "title": "Shop" }),
        StepKind::HandleDialog => json!({ "accept": true }),
        StepKind::SwitchPage => json!({ "page": "main" }),
        StepKind::ClosePage => json!({ "page": "popup" }),
        StepKind::Upload => json!({ "selector": element, "files": ["/tmp/picture.png"] }),
    };
    let mut step = json!({ "type": kind.name() });
    step.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    step
}

fn tool_file(steps: Vec<Value>) -> Value {
    json!({
        "contract": {
            "name": "every-kind", "version": "1.0.0", "kind": "browser",
            "description": "One step of each kind.", "inputs": [],
            "output": { "type": "object", "properties": {}, "additionalProperties": true },
            "capabilities": ["browser"]
        },
        "steps": steps,
    })
}

#[test]
fn every_kind_answers_in_every_table() {
    let mut labels = Vec::new();
    for kind in StepKind::ALL {
        let step: Step = serde_json::from_value(sample(kind)).unwrap();
        assert_eq!(step.kind(), kind);
        assert_eq!(StepKind::from_name(kind.name()), Some(kind));
        assert_eq!(serde_json::to_value(kind).unwrap(), json!(kind.name()));
        assert!(!kind.label().is_empty() && !labels.contains(&kind.label()));
        labels.push(kind.label());
        assert_eq!(step.validate(), Ok(()), "{kind}");
        assert_eq!(step.label(), None);
        let mut labelled = step.clone();
        *labelled.label_mut() = Some("a label".into());
        assert_eq!(labelled.label(), Some("a label"), "{kind}");
    }

    // The tool file reads every kind, and locates a problem inside each at its pointer.
    let file = tool_file(StepKind::ALL.into_iter().map(sample).collect());
    let file = ToolFile::from_json_str(&file.to_string()).unwrap();
    let script = export_playwright(&file);
    for (index, kind) in StepKind::ALL.into_iter().enumerate() {
        assert!(
            script.contains(&format!("// step {}: {kind}\n", index + 1)),
            "{kind} is not exported:\n{script}"
        );
        let mut wrong = sample(kind);
        wrong["no_such_field"] = json!(1);
        let error = ToolFile::from_json_str(&tool_file(vec![wrong]).to_string()).unwrap_err();
        let pointers: Vec<&str> = error
            .problems()
            .unwrap()
            .iter()
            .map(|p| p.pointer.as_str())
            .collect();
        assert_eq!(pointers, ["/steps/0/no_such_field"], "{kind}");
    }
}

#[test]
fn the_output_fields_of_a_step_are_its_contribution_to_the_output_schema() {
    let extract: Step = serde_json::from_value(json!({
        "type": "extract", "field": "price", "kind": "number", "currency_field": "currency",
        "selector": { "candidates": [{ "kind": "test_id", "value": "price" }] }
    }))
    .unwrap();
    let outputs: Vec<(String, Value)> = extract
        .outputs()
        .into_iter()
        .map(|o| (o.field, o.schema))
        .collect();
    assert_eq!(
        outputs,
        [
            ("price".to_string(), json!({ "type": "number" })),
            ("currency".to_string(), json!({ "type": "string" })),
        ]
    );
    let download: Step = serde_json::from_value(json!({
        "type": "download", "field": "size", "output": "size",
        "selector": { "candidates": [{ "kind": "test_id", "value": "get" }] }
    }))
    .unwrap();
    assert_eq!(download.outputs()[0].schema, json!({ "type": "integer" }));
    for kind in StepKind::ALL {
        let step: Step = serde_json::from_value(sample(kind)).unwrap();
        let expected = usize::from(matches!(kind, StepKind::Extract | StepKind::ExtractList));
        assert_eq!(step.outputs().len(), expected, "{kind}");
    }
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file under `dir` whose name ends with one of `extensions`, test folders left out.
fn files_under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "tests" && name != "node_modules" && name != "bindings" {
                    dirs.push(path);
                }
            } else if extensions.iter().any(|e| name.ends_with(e)) && name != "tests.rs" {
                files.push(path);
            }
        }
    }
    files
}

/// The library and binary sources of the crates and the app, without their test modules
/// (a `#[cfg(test)] mod` runs to the end of its file in this code base).
fn rust_sources() -> Vec<(String, String)> {
    let root = repo_root();
    let mut roots: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("src"))
        .collect();
    roots.push(root.join("src-tauri/src"));
    roots
        .iter()
        .flat_map(|dir| files_under(dir, &[".rs"]))
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let end = lines
                .windows(2)
                .position(|w| {
                    w[0].trim() == "#[cfg(test)]" && w[1].trim_start().starts_with("mod ")
                })
                .unwrap_or(lines.len());
            let name = path.strip_prefix(&root).unwrap().display().to_string();
            (name, lines[..end].join("\n"))
        })
        .collect()
}

/// The catch-all arms (`_ =>`, `other =>`, `_ if …`) of the matches in `text` that have an
/// arm over step kinds (`Step::…`, `StepKind::…`): an arm at the same indentation in the same
/// block, as rustfmt lays them out.
fn catch_alls_over_kinds(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let indent = |line: &str| line.len() - line.trim_start().len();
    let is_kind_arm = |line: &str| {
        let arm = line.trim_start().trim_start_matches("| ");
        (arm.starts_with("Step::") || arm.starts_with("StepKind::"))
            && (line.contains("=>") || arm.ends_with('|') || !arm.contains(' '))
    };
    let is_catch_all = |line: &str| {
        let arm = line.trim_start();
        let pattern = arm.split([' ', '=']).next().unwrap_or("");
        let binding = !pattern.is_empty()
            && pattern
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            && !["if", "let", "match", "return", "else"].contains(&pattern);
        binding
            && (arm[pattern.len()..].trim_start().starts_with("=>")
                || arm[pattern.len()..].trim_start().starts_with("if "))
    };
    let mut found = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        if !is_kind_arm(line) {
            continue;
        }
        let arms = indent(line);
        for (offset, later) in lines[at + 1..].iter().enumerate() {
            if later.trim().is_empty() {
                continue;
            }
            if indent(later) < arms {
                break;
            }
            if indent(later) == arms && is_catch_all(later) {
                found.push((at + offset + 2, later.trim().to_string()));
                break;
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

#[test]
fn the_scan_finds_a_catch_all_over_kinds() {
    let text = "match step {\n    Step::Click(c) => 1,\n    Step::Fill(f)\n        if f.keys =>\n    {\n        2\n    }\n    _ => 0,\n}\nmatch kind {\n    StepKind::Click => 1,\n    other => 2,\n}\nmatch effects {\n    Some(e) => 1,\n    _ => 0,\n}\n";
    assert_eq!(
        catch_alls_over_kinds(text),
        [(8, "_ => 0,".to_string()), (12, "other => 2,".to_string())]
    );
}

#[test]
fn no_match_over_step_kinds_has_a_catch_all_arm_outside_tests() {
    let sources = rust_sources();
    assert!(
        sources.len() > 100,
        "the sources were found: {}",
        sources.len()
    );
    let found: Vec<String> = sources
        .iter()
        .flat_map(|(name, text)| {
            catch_alls_over_kinds(text)
                .into_iter()
                .map(move |(line, arm)| format!("{name}:{line}: {arm}"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "a match over step kinds decides with a catch-all arm; name every kind, or ask the \
         step model (`crates/steps/src/kind.rs`):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_screens_take_kind_names_and_words_from_the_bindings() {
    let root = repo_root();
    let binding = std::fs::read_to_string(root.join("ui/src/bindings/StepKind.ts")).unwrap();
    for kind in StepKind::ALL {
        assert!(
            binding.contains(&format!("\"{}\"", kind.name())),
            "ui/src/bindings/StepKind.ts lacks `{kind}`: regenerate the bindings"
        );
    }
    let screens = files_under(&root.join("ui/src"), &[".svelte", ".ts"]);
    assert!(!screens.is_empty());
    for path in screens {
        let text = std::fs::read_to_string(&path).unwrap();
        for kind in StepKind::ALL {
            // A kind's name of two words, or its label of two, in a screen's own source is a
            // table of kinds beside the step model's.
            for words in [kind.name(), kind.label()] {
                if words.contains(['_', ' ']) {
                    assert!(
                        !text.contains(&format!("'{words}'"))
                            && !text.contains(&format!("{words}:"))
                            && !text.contains(&format!("\"{words}\"")),
                        "{} names the step kind `{words}`",
                        path.display()
                    );
                }
            }
        }
    }
}
