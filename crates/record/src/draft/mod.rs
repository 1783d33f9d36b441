//! A finished recording being edited: remove and move steps, mark inputs and outputs, then
//! build the tool file (contract checked by the contract rules, steps by the step rules).
//!
//! The `Draft` type and its editing API stay in this one file (just over 800 lines): each edit
//! keeps the steps, inputs and outputs consistent with the others. The parts that stand alone
//! are submodules: `fills` (merging a field's edits), `marks`, `reliance`.

use std::collections::BTreeSet;

use browserflow_contract::ToolContract;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::model_assist::ModelCall;
use super::{MAIN_PAGE, PickedElement, RecordError, RecordedStep};
use browserflow_steps::{
    CheckedState, ExtractSource, ExtractStep, OutputKind, Selector, SelectorCandidate,
    SelectorKind, StateCheck, Step, SwitchPageStep,
};
use browserflow_steps::{
    ORIGIN_KEY, Origins, TemplatePart, ToolFile, Viewport, origin_of, template_parts, web_origin,
};

mod fills;
mod marks;
mod reliance;

pub use marks::{InputMark, InputType, OutputMark};

/// A recording: its steps and marks, editable, serializable (the app keeps it as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    /// The page the recording started on.
    pub start_url: String,
    /// The emulated viewport, when one was set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<(u32, u32)>,
    /// The top-level page's viewport as the person's first action found it (the window's
    /// size, or the emulated `viewport`): the tool's `viewport`, replayed with the same size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_viewport: Option<Viewport>,
    /// When the recording started (RFC 3339, UTC).
    pub recorded_at: String,
    /// The steps, in replay order.
    pub steps: Vec<RecordedStep>,
    /// Input slots: marked fills and the automatic secret inputs of password fields.
    #[serde(default)]
    pub inputs: Vec<InputMark>,
    /// The tool description (set by hand or from a model suggestion).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A tool name suggested by the model, if asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_name: Option<String>,
    /// Every model-assistance call made for this recording.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub model_calls: Vec<ModelCall>,
    /// The web origins the recording's pages asked for or showed (redirects included); with
    /// those of the start URL and the steps, the tool's `origins`.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub origins_seen: BTreeSet<String>,
}

/// True for names usable as `{{name}}` and as contract slot / output field names.
pub(crate) fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `@prompt` (the first prompt dialog answered with text) or `@promptN` (the Nth): which
/// answer an input given by "selector" means.
pub(crate) fn prompt_selector(selector: &str) -> Option<usize> {
    let rest = selector.trim().strip_prefix("@prompt")?;
    if rest.is_empty() {
        return Some(1);
    }
    rest.parse().ok().filter(|n| *n > 0)
}

fn reference(name: &str) -> String {
    format!("{{{{{name}}}}}")
}

/// The `{{name}}` references in `text`.
fn references(text: &str) -> Vec<String> {
    template_parts(text)
        .filter_map(|part| match part {
            TemplatePart::Input(name) => Some(name.to_string()),
            _ => None,
        })
        .collect()
}

fn step_references(step: &Step) -> Vec<String> {
    let mut out = Vec::new();
    collect_references(&serde_json::to_value(step).unwrap_or(Value::Null), &mut out);
    out
}

fn collect_references(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.extend(references(s)),
        Value::Array(items) => items.iter().for_each(|v| collect_references(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_references(v, out)),
        _ => {}
    }
}

impl Draft {
    /// The index of the fill step a person means by `selector` (as typed, e.g. `#search` or
    /// `[data-testid=q]`): the first fill sharing a candidate with `live` (the candidates the
    /// live page gives that selector), else the first fill with a candidate `selector` names.
    pub fn fill_step_for(
        &self,
        selector: &str,
        live: &[SelectorCandidate],
    ) -> Result<usize, RecordError> {
        if let Some(nth) = prompt_selector(selector) {
            return self.prompt_answer(nth, selector);
        }
        let fills: Vec<(usize, &[SelectorCandidate])> = self
            .steps
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let Step::Fill(f) = &s.step else {
                    return None;
                };
                Some((i, f.selector.candidates.as_slice()))
            })
            .collect();
        let found = fills
            .iter()
            .find(|(_, cs)| cs.iter().any(|c| live.contains(c)))
            .or_else(|| {
                fills
                    .iter()
                    .find(|(_, cs)| cs.iter().any(|c| names_candidate(selector, c)))
            });
        if let Some((i, _)) = found {
            return Ok(*i);
        }
        let listed: Vec<String> = fills
            .iter()
            .map(|(i, cs)| {
                let best = cs.first().map(|c| c.describe()).unwrap_or_default();
                format!("step {}: {best}", i + 1)
            })
            .collect();
        Err(RecordError::NoFill {
            selector: selector.to_owned(),
            fills: if listed.is_empty() {
                "none".to_owned()
            } else {
                listed.join("; ")
            },
        })
    }

    /// The step of the `nth` (from 1) prompt dialog answered with text.
    fn prompt_answer(&self, nth: usize, selector: &str) -> Result<usize, RecordError> {
        let answered: Vec<usize> = self
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(&s.step, Step::HandleDialog(d) if d.prompt_text.is_some()))
            .map(|(i, _)| i)
            .collect();
        answered
            .get(nth.saturating_sub(1))
            .copied()
            .ok_or_else(|| RecordError::NoPrompt {
                selector: selector.to_owned(),
                nth,
                answered: answered.len(),
            })
    }

    /// An empty draft for a recording starting at `start_url` now.
    pub fn new(start_url: impl Into<String>, viewport: Option<(u32, u32)>) -> Self {
        Self {
            start_url: start_url.into(),
            viewport,
            recorded_viewport: None,
            recorded_at: now_rfc3339(),
            steps: Vec::new(),
            inputs: Vec::new(),
            origins_seen: BTreeSet::new(),
            description: None,
            suggested_name: None,
            model_calls: Vec::new(),
        }
    }

    /// One field, one fill: each run of edits of one field becomes one fill of the value
    /// it left (see `fills.rs`). The recorder does it as it stops; marks then bind to it.
    pub fn merge_fills(&mut self) {
        fills::merge_fills(&mut self.steps);
    }

    fn check_index(&self, index: usize) -> Result<(), RecordError> {
        if index < self.steps.len() {
            Ok(())
        } else {
            Err(RecordError::NoSuchStep {
                index,
                len: self.steps.len(),
            })
        }
    }

    /// Removes the step at `index` and returns it. Inputs no longer referenced by any step
    /// are dropped with it.
    pub fn remove_step(&mut self, index: usize) -> Result<RecordedStep, RecordError> {
        self.check_index(index)?;
        let removed = self.steps.remove(index);
        let used = self.referenced_inputs();
        self.inputs.retain(|i| used.contains(&i.name));
        self.places_release_inputs();
        Ok(removed)
    }

    /// Moves the step at `from` so that it ends up at `to`.
    pub fn move_step(&mut self, from: usize, to: usize) -> Result<(), RecordError> {
        self.check_index(from)?;
        self.check_index(to)?;
        let step = self.steps.remove(from);
        self.steps.insert(to, step);
        Ok(())
    }

    /// Turns the value of the fill step at `step_index` into the input `mark.name`: the step's
    /// value becomes `{{name}}` and, unless `mark.default` is given, the recorded value
    /// (coerced to `mark.kind`) becomes the default. A password field's step is always a
    /// secret slot without default. Marking a step again renames its input.
    pub fn mark_input(&mut self, step_index: usize, mark: InputMark) -> Result<(), RecordError> {
        self.check_index(step_index)?;
        let mut mark = mark;
        if !valid_name(&mark.name) {
            return Err(RecordError::Name(format!(
                "\"{}\" is not a valid input name (use letters, digits, _ or -, starting with a letter)",
                mark.name
            )));
        }
        let recorded = &self.steps[step_index];
        let Some(value) = recorded.step.typed_text() else {
            return Err(RecordError::Mark {
                index: step_index,
                message: format!(
                    "only a fill step or a prompt dialog's answer can become an input, this is a {} step",
                    recorded.step.kind()
                ),
            });
        };
        let previous = references(value);
        if self.inputs.iter().any(|i| i.name == mark.name) && !previous.contains(&mark.name) {
            return Err(RecordError::Name(format!(
                "there is already an input named \"{}\"",
                mark.name
            )));
        }
        if recorded.secret {
            mark.secret = true;
        }
        if mark.secret {
            if mark.kind != InputType::String {
                return Err(RecordError::Mark {
                    index: step_index,
                    message: "a secret input must be a string".into(),
                });
            }
            mark.default = None;
        } else if mark.required {
            mark.default = None;
        } else if mark.default.is_none() {
            let recorded_value = recorded
                .recorded_value
                .clone()
                .unwrap_or_else(|| value.to_owned());
            mark.default =
                Some(
                    mark.kind
                        .coerce(&recorded_value)
                        .ok_or_else(|| RecordError::Mark {
                            index: step_index,
                            message: format!(
                                "the recorded value {recorded_value:?} is not a {}",
                                mark.kind.as_str()
                            ),
                        })?,
                );
        }
        let name = mark.name.clone();
        let typed = recorded.recorded_value.clone();
        if let Some(text) = self.steps[step_index].step.typed_text_mut() {
            *text = reference(&name);
        }
        if let Some(typed) = typed {
            self.checks_follow_input(step_index, &typed, &name);
        }
        self.places_follow_input(step_index);
        self.inputs.retain(|i| i.name != name);
        let used = self.referenced_inputs();
        self.inputs.retain(|i| used.contains(&i.name));
        self.inputs.push(mark);
        Ok(())
    }

    /// Takes the input mark off the fill at `step_index`: it types the value typed while
    /// recording again, its input goes (unless another step still uses it), its checks expect
    /// what the recording saw — its own the typed value, a later one that had to show the
    /// input the typed text — and a step that relied on its position only because that fill
    /// was an input relies on its content again. A password field's value was never kept: its
    /// step can be removed, not unmarked.
    pub fn unmark_input(&mut self, step_index: usize) -> Result<(), RecordError> {
        self.check_index(step_index)?;
        let recorded = &self.steps[step_index];
        let mark_error = |message: &str| RecordError::Mark {
            index: step_index,
            message: message.into(),
        };
        let Step::Fill(fill) = &recorded.step else {
            return Err(mark_error("only a fill step types an input"));
        };
        let [name]: [String; 1] = references(&fill.value)
            .try_into()
            .map_err(|_: Vec<String>| mark_error("the fill does not type exactly one input"))?;
        let typed = recorded
            .recorded_value
            .clone()
            .filter(|_| !recorded.secret)
            .ok_or_else(|| {
                mark_error("the value typed was never kept (a password field): remove the step")
            })?;
        let input = reference(&name);
        for (index, s) in self.steps.iter_mut().enumerate().skip(step_index) {
            if let Step::Fill(fill) = &mut s.step
                && index == step_index
            {
                fill.value = typed.clone();
            }
            let Some(expect) = s.step.expect_mut() else {
                continue;
            };
            for check in expect.iter_mut() {
                if index == step_index && check.equals.as_deref() == Some(input.as_str()) {
                    check.equals = Some(typed.clone());
                } else if index > step_index && check.contains.as_deref() == Some(input.as_str()) {
                    check.contains = Some(typed.trim().to_string());
                }
            }
        }
        let used = self.referenced_inputs();
        self.inputs.retain(|i| used.contains(&i.name));
        self.places_release_inputs();
        Ok(())
    }

    /// The fill at `step_index` now types the input `name` instead of `typed`: its own check
    /// expects `{{name}}`, and a later check whose recorded value shows the typed text (an
    /// autocomplete's chosen option after a typed prefix) can no longer expect that value, so
    /// it expects to show the input instead (ignoring case).
    fn checks_follow_input(&mut self, step_index: usize, typed: &str, name: &str) {
        let shows_typed = |value: &str| {
            !typed.trim().is_empty() && value.to_lowercase().contains(&typed.trim().to_lowercase())
        };
        for (index, recorded) in self.steps.iter_mut().enumerate().skip(step_index) {
            let Some(expect) = recorded.step.expect_mut() else {
                continue;
            };
            if index == step_index {
                for check in expect.iter_mut() {
                    if check.state == CheckedState::Value && check.equals.as_deref() == Some(typed)
                    {
                        check.equals = Some(reference(name));
                    }
                }
                continue;
            }
            for check in expect.iter_mut() {
                if check.state.shows_text() && check.equals.as_deref().is_some_and(shows_typed) {
                    *check = StateCheck {
                        of: check.of,
                        ..StateCheck::contains(check.state, reference(name))
                    };
                }
            }
        }
    }

    /// Removes the post-state check `check_index` of the step at `step_index` (a check the
    /// person knows depends on something else than the step).
    pub fn remove_check(
        &mut self,
        step_index: usize,
        check_index: usize,
    ) -> Result<StateCheck, RecordError> {
        self.check_index(step_index)?;
        let recorded = &mut self.steps[step_index];
        let kind = recorded.step.kind();
        let len = recorded.step.expect().len();
        match recorded.step.expect_mut() {
            Some(expect) if check_index < len => Ok(expect.remove(check_index)),
            _ => Err(RecordError::Mark {
                index: step_index,
                message: format!(
                    "the {kind} step has {len} post-state check(s), there is no check {}",
                    check_index + 1
                ),
            }),
        }
    }

    /// Removes the output field `name`: its extract step, or (for the currency read beside
    /// a price) just that currency field.
    pub fn remove_output(&mut self, name: &str) -> Result<(), RecordError> {
        for (index, s) in self.steps.iter_mut().enumerate() {
            if let Step::Extract(e) = &mut s.step {
                if e.field == name {
                    self.steps.remove(index);
                    return Ok(());
                }
                if e.currency_field.as_deref() == Some(name) {
                    e.currency_field = None;
                    return Ok(());
                }
            }
        }
        Err(RecordError::Name(format!(
            "there is no output named \"{name}\""
        )))
    }

    /// Renames the output field `from` to `to` (a currency field too).
    pub fn rename_output(&mut self, from: &str, to: &str) -> Result<(), RecordError> {
        if from == to {
            return Ok(());
        }
        if !valid_name(to) {
            return Err(RecordError::Name(format!(
                "\"{to}\" is not a valid output name (use letters, digits, _ or -, starting with a letter)"
            )));
        }
        if self.output_fields().iter().any(|f| f == to) {
            return Err(RecordError::Name(format!(
                "there is already an output named \"{to}\""
            )));
        }
        for s in &mut self.steps {
            if let Step::Extract(e) = &mut s.step {
                if e.field == from {
                    e.field = to.to_string();
                    return Ok(());
                }
                if e.currency_field.as_deref() == Some(from) {
                    e.currency_field = Some(to.to_string());
                    return Ok(());
                }
            }
        }
        Err(RecordError::Name(format!(
            "there is no output named \"{from}\""
        )))
    }

    /// Adds an output: an extract step at `mark.position` (the end by default), preceded by a
    /// `switch_page` when the element is on another page. Returns the extract step's index.
    pub fn mark_output(&mut self, mark: OutputMark) -> Result<usize, RecordError> {
        for name in std::iter::once(&mark.name).chain(mark.currency_field.as_ref()) {
            self.check_output_name(name)?;
        }
        let step = mark.extract_step();
        let best = mark.selector.candidates.first().map(|c| c.describe());
        let description = format!("Read {} into \"{}\"", mark.from.as_str(), mark.name);
        self.insert_read(mark.position, mark.page.clone(), step, description, best)
    }

    /// Adds an `extract_list` step (a list read, its candidates found on the live page: see
    /// [`crate::ListBySelector`]) at the end of the steps, on the page `page` (the current one
    /// when `None`): its field becomes an output, an array of objects.
    pub fn mark_list(
        &mut self,
        step: browserflow_steps::ExtractListStep,
        page: Option<String>,
    ) -> Result<usize, RecordError> {
        self.check_output_name(&step.field)?;
        let best = step.items.candidates.first().map(|c| c.describe());
        let items = match step.recorded_items.unwrap_or_default() {
            1 => "1 item".to_string(),
            n => format!("{n} items"),
        };
        let description = format!("Read the list of {items} into \"{}\"", step.field);
        self.insert_read(None, page, Step::ExtractList(step), description, best)
    }

    fn check_output_name(&self, name: &str) -> Result<(), RecordError> {
        if !valid_name(name) {
            return Err(RecordError::Name(format!(
                "\"{name}\" is not a valid output name (use letters, digits, _ or -, starting with a letter)"
            )));
        }
        if self.output_fields().iter().any(|f| f == name) {
            return Err(RecordError::Name(format!(
                "there is already an output named \"{name}\""
            )));
        }
        Ok(())
    }

    /// Inserts a read (`extract`, `extract_list`) at `position` (the end when `None`), on
    /// `page` (with the switches to it and back that takes).
    fn insert_read(
        &mut self,
        position: Option<usize>,
        page: Option<String>,
        step: Step,
        description: String,
        best: Option<String>,
    ) -> Result<usize, RecordError> {
        let position = position.unwrap_or(self.steps.len());
        if position > self.steps.len() {
            return Err(RecordError::NoSuchStep {
                index: position,
                len: self.steps.len(),
            });
        }
        step.validate().map_err(|message| RecordError::Mark {
            index: position,
            message,
        })?;
        let current = self.page_before(position);
        let page = page.unwrap_or_else(|| current.clone());
        let url = self
            .steps
            .get(position.saturating_sub(1))
            .map(|s| s.url.clone())
            .unwrap_or_else(|| self.start_url.clone());
        let mut at = position;
        if page != current {
            self.steps.insert(at, switch_step(&page, &url));
            at += 1;
        }
        // A read changes nothing: its thumbnail is the page as the last step on it left it.
        let thumbnail_png = self.steps[..at]
            .iter()
            .rev()
            .filter(|s| s.page == page)
            .find_map(|s| s.thumbnail_png.clone());
        self.steps.insert(
            at,
            RecordedStep {
                step,
                description,
                target: best.clone(),
                best_selector: best,
                page: page.clone(),
                url: url.clone(),
                recorded_value: None,
                secret: false,
                thumbnail_png,
                download: None,
                no_effect: false,
                content_follows: Vec::new(),
                position_follows_input: false,
            },
        );
        if page != current && at + 1 < self.steps.len() {
            // Later steps ran on the page that was current before: switch back.
            self.steps.insert(at + 1, switch_step(&current, &url));
        }
        Ok(at)
    }

    /// The page the step at `position` would run on.
    fn page_before(&self, position: usize) -> String {
        self.steps[..position]
            .iter()
            .rev()
            .find_map(|s| {
                if let Step::SwitchPage(sw) = &s.step {
                    return Some(sw.page.clone());
                }
                s.step
                    .page_effects()
                    .and_then(|effects| effects.opens_popup.map(str::to_owned))
            })
            .unwrap_or_else(|| MAIN_PAGE.to_string())
    }

    /// The output fields the steps write (an extract's currency field included).
    pub fn output_fields(&self) -> Vec<String> {
        self.steps
            .iter()
            .flat_map(|s| s.step.outputs())
            .map(|output| output.field)
            .collect()
    }

    fn referenced_inputs(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .steps
            .iter()
            .flat_map(|s| step_references(&s.step))
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The steps as the tool file stores them, each labelled with what the recorder said of
    /// it (`Click button "Search"`), so a replay's timeline and reports speak the recorder's
    /// language. A fill that types an input says which input, never the value typed while
    /// recording (it may be a secret, and it is only the default).
    pub fn labelled_steps(&self) -> Vec<Step> {
        self.steps
            .iter()
            .map(|recorded| {
                if recorded.step.label().is_some() {
                    return recorded.step.clone();
                }
                let typed_input = if let Step::Fill(fill) = &recorded.step
                    && !recorded.secret
                {
                    references(&fill.value).into_iter().next()
                } else {
                    None
                };
                let answered_input = if let Step::HandleDialog(dialog) = &recorded.step {
                    dialog
                        .prompt_text
                        .as_deref()
                        .and_then(|t| references(t).into_iter().next())
                } else {
                    None
                };
                let label = match (typed_input, answered_input) {
                    (Some(input), _) => format!(
                        "Fill {} with the input {input}",
                        recorded.target.as_deref().unwrap_or("the field")
                    ),
                    (None, Some(input)) => {
                        format!("Accept the next prompt dialog with the input {input}")
                    }
                    (None, None) => recorded.description.clone(),
                };
                with_label(&recorded.step, label)
            })
            .collect()
    }

    /// The steps alone, as recorded.
    pub fn tool_steps(&self) -> Vec<Step> {
        self.steps.iter().map(|s| s.step.clone()).collect()
    }

    /// Builds the browser tool: the contract (inputs from the marks, the output object from
    /// the extract steps, `browser` plus `secrets` when a slot is secret), the steps, and the
    /// recording metadata (start URL, origin, time, model calls). Checked like a tool file read
    /// from disk.
    pub fn into_tool_file(
        self,
        name: &str,
        version: &str,
        description: Option<&str>,
    ) -> Result<ToolFile, RecordError> {
        let used = self.referenced_inputs();
        if let Some(missing) = used
            .iter()
            .find(|n| !self.inputs.iter().any(|i| &i.name == *n))
        {
            return Err(RecordError::InvalidTool(format!(
                "a step references the input \"{missing}\", which is not marked as an input"
            )));
        }
        let inputs: Vec<Value> = self
            .inputs
            .iter()
            .filter(|i| used.contains(&i.name))
            .map(|i| {
                let mut schema = json!({ "type": i.kind.as_str() });
                if let Some(default) = i.default.as_ref().filter(|_| !i.secret) {
                    schema["default"] = default.clone();
                }
                if let Some(d) = &i.description {
                    schema["description"] = json!(d);
                }
                json!({ "name": i.name, "schema": schema, "secret": i.secret })
            })
            .collect();
        let mut properties = Map::new();
        let mut required = Vec::new();
        for output in self.steps.iter().flat_map(|s| s.step.outputs()) {
            properties.insert(output.field.clone(), output.schema);
            required.push(output.field);
        }
        let secret = self
            .inputs
            .iter()
            .any(|i| i.secret && used.contains(&i.name));
        let mut capabilities = vec!["browser"];
        if secret {
            capabilities.push("secrets");
        }
        let description = description
            .map(str::to_string)
            .or_else(|| self.description.clone())
            .unwrap_or_else(|| format!("Recorded browser journey starting at {}", self.start_url));
        let contract = json!({
            "name": name,
            "version": version,
            "kind": "browser",
            "description": description,
            "inputs": inputs,
            "output": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            },
            "capabilities": capabilities,
        });
        let contract = ToolContract::from_json(&contract)
            .map_err(|problems| RecordError::InvalidTool(problems.to_string()))?;
        let mut metadata = Map::new();
        if let Some(origin) = origin_of(&self.start_url) {
            metadata.insert(ORIGIN_KEY.into(), json!(origin));
        }
        metadata.insert("recorded_with".into(), json!("browserflow recorder"));
        metadata.insert("recorded_at".into(), json!(self.recorded_at));
        metadata.insert("start_url".into(), json!(self.start_url));
        if let Some((w, h)) = self.viewport {
            metadata.insert("viewport".into(), json!({ "width": w, "height": h }));
        }
        if !self.model_calls.is_empty() {
            metadata.insert(
                "model_calls".into(),
                serde_json::to_value(&self.model_calls).unwrap_or(Value::Null),
            );
        }
        let steps = self.labelled_steps();
        // Where the recording went is where the tool may go.
        let origins = Origins::of_steps(&steps).with(
            self.origins_seen
                .iter()
                .cloned()
                .chain(web_origin(&self.start_url)),
        );
        let file = ToolFile {
            contract,
            steps,
            metadata,
            origins: Some(origins),
            viewport: self.recorded_viewport.or(self
                .viewport
                .map(|(width, height)| Viewport { width, height })),
        };
        // The same checks as reading the file back from disk.
        ToolFile::from_json_str(&file.to_json_pretty())
            .map_err(|e| RecordError::InvalidTool(e.to_string()))
    }
}

/// `step` with `label` (a label never references inputs: its braces are taken out).
fn with_label(step: &Step, label: String) -> Step {
    let mut step = step.clone();
    *step.label_mut() = Some(label.replace("{{", "{ {").replace("}}", "} }"));
    step
}

fn switch_step(page: &str, url: &str) -> RecordedStep {
    RecordedStep {
        step: Step::SwitchPage(SwitchPageStep {
            label: None,
            page: page.to_string(),
        }),
        description: format!("Switch to the {page} page"),
        target: None,
        best_selector: None,
        page: page.to_string(),
        url: url.to_string(),
        recorded_value: None,
        secret: false,
        thumbnail_png: None,
        download: None,
        no_effect: false,
        content_follows: Vec::new(),
        position_follows_input: false,
    }
}

/// The current time as `2026-11-30T05:21:55Z`.
pub(crate) fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    browserflow_rider::clock::rfc3339_utc_seconds(i64::try_from(secs).unwrap_or(i64::MAX))
}

/// Whether `selector` (as a person typed it) names `candidate`.
fn names_candidate(selector: &str, candidate: &SelectorCandidate) -> bool {
    let v = candidate.value.as_str();
    match candidate.kind {
        SelectorKind::Css | SelectorKind::Xpath => selector == v,
        SelectorKind::Id => selector == v || selector == format!("#{v}"),
        SelectorKind::TestId => {
            selector == v
                || selector == format!("[data-testid={v}]")
                || selector == format!("[data-testid=\"{v}\"]")
        }
        SelectorKind::Label | SelectorKind::Placeholder | SelectorKind::Text => selector == v,
        SelectorKind::Role | SelectorKind::AccessibleName => {
            candidate.name.as_deref() == Some(selector)
        }
        // A place in a structure is not something a person types.
        SelectorKind::Structure => false,
    }
}

#[cfg(test)]
mod tests;
