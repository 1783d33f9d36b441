use browserflow_bench::stats::{Summary, quantile, ratio};

#[test]
fn median_of_an_odd_sample_is_its_middle_value_in_any_order() {
    let summary = Summary::of(&[900.0, 700.0, 800.0]).expect("non-empty");
    assert_eq!(summary.median, 800.0);
    assert_eq!((summary.min, summary.max), (700.0, 900.0));
    assert_eq!(summary.count, 3);
}

#[test]
fn median_and_quartiles_of_an_even_sample_interpolate_like_numpy() {
    // numpy.percentile([1, 2, 3, 4], [25, 50, 75]) == [1.75, 2.5, 3.25]
    let summary = Summary::of(&[4.0, 1.0, 3.0, 2.0]).expect("non-empty");
    assert_eq!(summary.q1, 1.75);
    assert_eq!(summary.median, 2.5);
    assert_eq!(summary.q3, 3.25);
    assert_eq!(summary.iqr(), 1.5);
}

#[test]
fn one_outlier_moves_the_max_but_not_the_median() {
    let summary = Summary::of(&[10.0, 11.0, 12.0, 13.0, 1000.0]).expect("non-empty");
    assert_eq!(summary.median, 12.0);
    assert_eq!(summary.max, 1000.0);
    assert_eq!(summary.q3, 13.0);
}

#[test]
fn empty_or_nan_samples_have_no_summary() {
    assert_eq!(Summary::of(&[]), None);
    assert_eq!(Summary::of(&[1.0, f64::NAN]), None);
}

#[test]
fn quantile_of_a_single_value_is_that_value() {
    assert_eq!(quantile(&[42.0], 0.25), 42.0);
    assert_eq!(quantile(&[1.0, 3.0], 1.0), 3.0);
}

#[test]
fn ratio_refuses_a_zero_denominator() {
    assert_eq!(ratio(1.0, 4.0), Some(0.25));
    assert_eq!(ratio(1.0, 0.0), None);
}
