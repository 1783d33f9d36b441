//! Step order: a topological sort that keeps the author's order where it can, and the
//! cycles that prevent one.

use std::collections::BTreeSet;

/// A dependency: step `from` reads step `to`, at `pointer` in the document.
#[derive(Debug, Clone)]
pub(crate) struct Edge {
    pub from: usize,
    pub to: usize,
    pub pointer: String,
}

/// The steps in an order where each comes after what it reads (ties keep the author's
/// order), or every cycle found: each as the steps around it, starting with the lowest index,
/// with the edge that leaves the first one.
pub(crate) fn order(count: usize, edges: &[Edge]) -> Result<Vec<usize>, Vec<(Vec<usize>, Edge)>> {
    let mut waiting: Vec<usize> = vec![0; count];
    for e in edges {
        waiting[e.from] += 1;
    }
    let mut ready: BTreeSet<usize> = (0..count).filter(|i| waiting[*i] == 0).collect();
    let mut sorted = Vec::with_capacity(count);
    while let Some(next) = ready.pop_first() {
        sorted.push(next);
        for e in edges.iter().filter(|e| e.to == next) {
            waiting[e.from] -= 1;
            if waiting[e.from] == 0 {
                ready.insert(e.from);
            }
        }
    }
    if sorted.len() == count {
        return Ok(sorted);
    }
    // Every step left over reads at least one other left-over step, so following those
    // reads from any of them must come round to a step already visited.
    let left: BTreeSet<usize> = (0..count).filter(|i| waiting[*i] > 0).collect();
    let mut reported: BTreeSet<usize> = BTreeSet::new();
    let mut cycles = Vec::new();
    // Each round reports at least one step (a stuck one, or a whole loop), so this ends.
    while let Some(&start) = left.iter().find(|s| !reported.contains(s)) {
        let mut walk: Vec<usize> = vec![start];
        let cycle = loop {
            let current = walk[walk.len() - 1];
            let step = edges
                .iter()
                .find(|e| e.from == current && left.contains(&e.to) && !reported.contains(&e.to));
            let Some(edge) = step else {
                // Every way on leads into a loop already reported: this step only waits on it.
                reported.insert(current);
                break None;
            };
            if let Some(pos) = walk.iter().position(|s| *s == edge.to) {
                break Some(walk[pos..].to_vec());
            }
            walk.push(edge.to);
        };
        let Some(mut cycle) = cycle else { continue };
        let lowest = cycle
            .iter()
            .enumerate()
            .min_by_key(|(_, s)| **s)
            .map_or(0, |(i, _)| i);
        cycle.rotate_left(lowest);
        reported.extend(cycle.iter().copied());
        let next = cycle.get(1).copied().unwrap_or(cycle[0]);
        if let Some(edge) = edges.iter().find(|e| e.from == cycle[0] && e.to == next) {
            cycles.push((cycle, edge.clone()));
        }
    }
    Err(cycles)
}
