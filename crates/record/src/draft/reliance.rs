//! What a step in a repeating structure relies on (its content or its place; see
//! `browserflow_steps::Repeat`): the person's switch ([`Draft::rely_on`]), and the rule applied
//! when a fill becomes an input — a step whose structure re-rendered after that fill relies on
//! its position, since its content now depends on the tool's inputs.

use super::*;
use browserflow_steps::Reliance;

impl Draft {
    /// Makes the step at `index` rely on `reliance` — and the wait for its element before it,
    /// which must find the same element. Fails for a step whose element is not in a repeating
    /// structure.
    pub fn rely_on(&mut self, index: usize, reliance: Reliance) -> Result<(), RecordError> {
        self.check_index(index)?;
        let Some(recorded) = self.steps[index]
            .step
            .selector_mut()
            .filter(|s| s.repeat.is_some())
            .cloned()
        else {
            return Err(RecordError::Mark {
                index,
                message: "its element is not in a repeating structure (a grid, a list, cards)"
                    .into(),
            });
        };
        let wait_before = index.checked_sub(1).filter(|&i| {
            matches!(&self.steps[i].step, Step::WaitForElement(w)
                if w.selector.candidates == recorded.candidates && w.selector.frame == recorded.frame)
        });
        for i in wait_before.into_iter().chain([index]) {
            let step = &mut self.steps[i];
            if let Some(selector) = step.step.selector_mut() {
                selector.rely_on(reliance);
                step.best_selector = selector.candidates.first().map(|c| c.describe());
            }
        }
        Ok(())
    }

    /// The fill at `fill_index` became an input: every step whose structure re-rendered
    /// after it now relies on its position.
    pub(super) fn places_follow_input(&mut self, fill_index: usize) {
        let Some(fill) = self.steps[fill_index].step.selector().cloned() else {
            return;
        };
        let followers: Vec<usize> = (0..self.steps.len())
            .filter(|&i| {
                self.steps[i]
                    .step
                    .selector()
                    .is_some_and(|s| s.repeat.is_some())
                    && self.steps[i]
                        .content_follows
                        .iter()
                        .any(|c| fill.candidates.contains(c))
            })
            .collect();
        for i in followers {
            // Checked above: the step has a repeating structure.
            let _ = self.rely_on(i, Reliance::Position);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use browserflow_steps::{
        Anchor, ClickStep, FillStep, Pick, Repeat, RoleRef, Structure, WaitForElementStep,
    };

    fn recorded(step: Step, content_follows: Vec<SelectorCandidate>) -> RecordedStep {
        RecordedStep {
            step,
            description: String::new(),
            target: None,
            best_selector: None,
            page: MAIN_PAGE.into(),
            url: "http://127.0.0.1:1/".into(),
            recorded_value: Some("Rome".into()),
            secret: false,
            thumbnail_png: None,
            download: None,
            no_effect: false,
            content_follows,
        }
    }

    fn place() -> SelectorCandidate {
        SelectorCandidate::structure(
            "gridcell",
            Structure {
                within: Anchor::Region(RoleRef {
                    role: "grid".into(),
                    name: None,
                }),
                pick: Pick::cell(1.try_into().unwrap(), "Name"),
            },
        )
    }

    /// A grid filtered by the search box, its first row's cell clicked: the recording saw the
    /// rows change after the fill, so once the fill is an input the wait and the click find
    /// the cell by its place — row 1 under "Name" —, not by the text "Carla Rossi".
    fn filtered_grid() -> Draft {
        let search = SelectorCandidate::new(SelectorKind::Label, "Search people");
        let mut cell = Selector::new([
            SelectorCandidate::text("Carla Rossi"),
            place(),
            SelectorCandidate::css(".ag-row > div"),
        ]);
        cell.repeat = Some(Repeat {
            relies_on: Reliance::Content,
            place: "row 1, column \"Name\" of the grid".into(),
            content: "Carla Rossi Rome 41".into(),
        });
        let mut d = Draft::new("http://127.0.0.1:1/grid.html", None);
        d.steps.push(recorded(
            Step::Fill(FillStep {
                label: None,
                selector: Selector::new([search.clone()]),
                value: "Rome".into(),
                keys: false,
                pointer: None,
                timeout_ms: None,
                expect: Vec::new(),
                settle: None,
            }),
            Vec::new(),
        ));
        d.steps.push(recorded(
            Step::WaitForElement(WaitForElementStep {
                label: None,
                selector: cell.clone(),
                count: None,
                operator: Default::default(),
                visible: Some(true),
                properties: Default::default(),
                timeout_ms: None,
            }),
            vec![search.clone()],
        ));
        d.steps.push(recorded(
            Step::Click(ClickStep {
                label: None,
                selector: cell,
                button: Default::default(),
                click_count: 1,
                offset: None,
                navigation: None,
                opens_popup: None,
                hold_ms: None,
                timeout_ms: None,
                expect: Vec::new(),
                settle: None,
            }),
            vec![search],
        ));
        d
    }

    fn first(d: &Draft, i: usize) -> (Option<Reliance>, SelectorCandidate) {
        let s = d.steps[i].step.selector().unwrap();
        (s.reliance(), s.candidates[0].clone())
    }

    #[test]
    fn a_cell_in_a_filtered_grid_replays_by_position() {
        let mut d = filtered_grid();
        assert_eq!(first(&d, 2).0, Some(Reliance::Content));
        d.mark_input(0, InputMark::string("query")).unwrap();
        for i in [1, 2] {
            assert_eq!(
                first(&d, i),
                (Some(Reliance::Position), place()),
                "step {i}"
            );
        }
        assert_eq!(
            d.steps[2].best_selector.as_deref(),
            Some(place().describe().as_str())
        );
        // The person switches back: content first again, the wait with it.
        d.rely_on(2, Reliance::Content).unwrap();
        for i in [1, 2] {
            assert_eq!(
                first(&d, i),
                (
                    Some(Reliance::Content),
                    SelectorCandidate::text("Carla Rossi")
                )
            );
        }
        let tool = d.into_tool_file("first-row", "1.0.0", None).unwrap();
        let json = tool.to_json_pretty();
        assert!(json.contains("\"relies_on\": \"content\""), "{json}");
    }

    #[test]
    fn a_fill_that_changed_nothing_leaves_content_and_a_plain_step_cannot_switch() {
        let mut d = filtered_grid();
        for s in &mut d.steps {
            s.content_follows.clear();
        }
        d.mark_input(0, InputMark::string("query")).unwrap();
        assert_eq!(first(&d, 2).0, Some(Reliance::Content));
        assert!(matches!(
            d.rely_on(0, Reliance::Position),
            Err(RecordError::Mark { index: 0, .. })
        ));
    }
}
