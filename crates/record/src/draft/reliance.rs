//! What a step in a repeating structure relies on (its content or its place; see
//! `browserflow_steps::Repeat`): the person's switch ([`Draft::rely_on`]), and the rule applied
//! when a fill becomes an input — a step whose structure re-rendered after that fill relies on
//! its position, since its content now depends on the tool's inputs.

use super::*;
use browserflow_steps::Reliance;

impl Draft {
    /// Makes the step at `index` rely on `reliance` — and the wait for its element before it,
    /// which must find the same element. Fails for a step whose element is not in a repeating
    /// structure. The person's choice: no input mark or removal switches it again.
    pub fn rely_on(&mut self, index: usize, reliance: Reliance) -> Result<(), RecordError> {
        for i in self.switch_reliance(index, reliance)? {
            self.steps[i].position_follows_input = false;
        }
        Ok(())
    }

    /// Switches the step at `index` and the wait for its element before it; returns their
    /// indexes.
    fn switch_reliance(
        &mut self,
        index: usize,
        reliance: Reliance,
    ) -> Result<Vec<usize>, RecordError> {
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
        let switched: Vec<usize> = wait_before.into_iter().chain([index]).collect();
        for &i in &switched {
            let step = &mut self.steps[i];
            if let Some(selector) = step.step.selector_mut() {
                selector.rely_on(reliance);
                step.best_selector = selector.candidates.first().map(|c| c.describe());
            }
        }
        Ok(switched)
    }

    /// The steps in a repeating structure whose content the recording saw follow the fill
    /// `fill` (one of its candidates).
    fn followers_of(&self, fill: &Selector) -> Vec<usize> {
        (0..self.steps.len())
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
            .collect()
    }

    /// The fill at `fill_index` became an input: every step whose structure re-rendered
    /// after it now relies on its position.
    pub(super) fn places_follow_input(&mut self, fill_index: usize) {
        let Some(fill) = self.steps[fill_index].step.selector().cloned() else {
            return;
        };
        for i in self.followers_of(&fill) {
            if self.steps[i].step.selector().and_then(Selector::reliance) != Some(Reliance::Content)
            {
                continue;
            }
            // Checked by `followers_of`: the step has a repeating structure.
            for j in self
                .switch_reliance(i, Reliance::Position)
                .unwrap_or_default()
            {
                self.steps[j].position_follows_input = true;
            }
        }
    }

    /// An input mark went (its mark or its fill removed): a step that relies on its position
    /// only because a fill it follows was an input relies on its content again once none of
    /// the fills it follows is one.
    pub(super) fn places_release_inputs(&mut self) {
        let inputs: Vec<Selector> = self
            .steps
            .iter()
            .filter(|s| matches!(&s.step, Step::Fill(f) if !references(&f.value).is_empty()))
            .filter_map(|s| s.step.selector().cloned())
            .collect();
        let released: Vec<usize> = (0..self.steps.len())
            .filter(|&i| {
                let step = &self.steps[i];
                step.position_follows_input
                    && !inputs.iter().any(|fill| {
                        step.content_follows
                            .iter()
                            .any(|c| fill.candidates.contains(c))
                    })
            })
            .collect();
        for i in released {
            for j in self
                .switch_reliance(i, Reliance::Content)
                .unwrap_or_default()
            {
                self.steps[j].position_follows_input = false;
            }
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
            position_follows_input: false,
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
                of: None,
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

    /// The input mark goes — unmarked, or its fill removed —: the steps that relied on their
    /// place because of it rely on their content again; a step the person switched keeps
    /// the person's choice.
    #[test]
    fn a_step_switched_by_an_input_switches_back_when_the_input_goes() {
        let recorded = filtered_grid();
        let content = |d: &Draft| {
            [1, 2].map(|i| first(d, i)) == [1, 2].map(|i| first(&recorded, i))
                && [1, 2].map(|i| first(d, i).0) == [Some(Reliance::Content); 2]
        };
        let mut d = recorded.clone();
        d.mark_input(0, InputMark::string("query")).unwrap();
        assert_eq!(first(&d, 2).0, Some(Reliance::Position));
        d.unmark_input(0).unwrap();
        assert!(content(&d), "{:#?}", d.steps);
        let Step::Fill(fill) = &d.steps[0].step else {
            panic!("a fill")
        };
        assert_eq!(fill.value, "Rome");
        assert!(d.inputs.is_empty());
        assert!(matches!(
            d.unmark_input(0),
            Err(RecordError::Mark { index: 0, .. })
        ));

        // Another fill that re-rendered the grid is still an input: position stays until
        // it goes too.
        let mut d = recorded.clone();
        let mut other = d.steps[0].clone();
        let city = SelectorCandidate::new(SelectorKind::Label, "City");
        if let Step::Fill(f) = &mut other.step {
            f.selector = Selector::new([city.clone()]);
        }
        d.steps.insert(1, other);
        for i in [2, 3] {
            d.steps[i].content_follows.push(city.clone());
        }
        d.mark_input(0, InputMark::string("query")).unwrap();
        d.mark_input(1, InputMark::string("city")).unwrap();
        d.unmark_input(0).unwrap();
        assert_eq!(first(&d, 3).0, Some(Reliance::Position));
        d.remove_step(1).unwrap();
        assert_eq!(first(&d, 2).0, Some(Reliance::Content));
        assert!(d.inputs.is_empty());

        // The person chose position after the mark: unmarking keeps it.
        let mut d = recorded.clone();
        d.mark_input(0, InputMark::string("query")).unwrap();
        d.rely_on(2, Reliance::Position).unwrap();
        d.unmark_input(0).unwrap();
        assert_eq!(first(&d, 2).0, Some(Reliance::Position));
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
