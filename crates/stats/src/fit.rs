//! Least-squares line through points: the fits of Zipf's and Heaps' laws on log-log scales.

/// Slope and intercept of the least-squares line `y = intercept + slope * x` through `points`;
/// `None` with fewer than two distinct `x`.
pub fn line(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx <= f64::EPSILON {
        return None;
    }
    let slope = sxy / sxx;
    Some((slope, my - slope * mx))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_found_exactly_and_a_vertical_one_not_at_all() {
        let pts: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 3.0 - 0.5 * i as f64)).collect();
        let (s, c) = line(&pts).unwrap();
        assert!((s + 0.5).abs() < 1e-12 && (c - 3.0).abs() < 1e-12);
        assert_eq!(line(&[(1.0, 1.0), (1.0, 2.0)]), None);
        assert_eq!(line(&[(1.0, 1.0)]), None);
    }
}
