//! Order statistics of a handful of measurements: median, quartiles, extremes.

/// The five-number summary of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// How many measurements.
    pub count: usize,
    /// Smallest.
    pub min: f64,
    /// First quartile.
    pub q1: f64,
    /// Median.
    pub median: f64,
    /// Third quartile.
    pub q3: f64,
    /// Largest.
    pub max: f64,
}

impl Summary {
    /// Summarises `values` (any order); `None` when empty or when a value is NaN.
    pub fn of(values: &[f64]) -> Option<Summary> {
        if values.is_empty() || values.iter().any(|v| v.is_nan()) {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        Some(Summary {
            count: sorted.len(),
            min: sorted[0],
            q1: quantile(&sorted, 0.25),
            median: quantile(&sorted, 0.5),
            q3: quantile(&sorted, 0.75),
            max: sorted[sorted.len() - 1],
        })
    }

    /// The interquartile range, `q3 - q1`.
    pub fn iqr(&self) -> f64 {
        self.q3 - self.q1
    }
}

/// The `p`-quantile (0 ≤ p ≤ 1) of sorted, non-empty `sorted`, interpolating linearly between
/// the closest ranks (the "type 7" definition of R and NumPy).
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let rank = p.clamp(0.0, 1.0) * (n - 1) as f64;
            let below = rank.floor() as usize;
            let above = rank.ceil() as usize;
            sorted[below] + (sorted[above] - sorted[below]) * (rank - below as f64)
        }
    }
}

/// `ours / theirs`, or `None` when `theirs` is not positive.
pub fn ratio(ours: f64, theirs: f64) -> Option<f64> {
    (theirs > 0.0).then(|| ours / theirs)
}
