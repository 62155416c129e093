//! The soak's chart: resident memory over time, as a self-contained SVG.

use std::fmt::Write as _;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 320.0;
const MARGIN: f64 = 50.0;

/// A line chart of `(seconds, bytes)` samples, in MiB over minutes, from zero.
pub(super) fn rss_svg(samples: &[(f64, u64)]) -> String {
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    let max_t = samples.last().map_or(1.0, |s| s.0).max(1.0);
    let max_m = samples.iter().map(|s| mib(s.1)).fold(1.0, f64::max) * 1.1;
    let x = |t: f64| MARGIN + t / max_t * (WIDTH - 2.0 * MARGIN);
    let y = |m: f64| HEIGHT - MARGIN - m / max_m * (HEIGHT - 2.0 * MARGIN);
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = write!(
        svg,
        r#"<rect width="100%" height="100%" fill="white"/><text x="{MARGIN}" y="24" font-size="14">kinformer mirror: resident memory under churn and faults</text>"#
    );
    // Axes, with the top of each labelled.
    let (x0, y0, x1, y1) = (x(0.0), y(0.0), x(max_t), y(max_m));
    let _ = write!(
        svg,
        r#"<path d="M{x0} {y1} L{x0} {y0} L{x1} {y0}" stroke="black" fill="none"/><text x="{x0}" y="{}" text-anchor="middle">0</text><text x="{x1}" y="{}" text-anchor="end">{:.1} min</text><text x="{}" y="{y1}" text-anchor="end">{max_m:.0} MiB</text><text x="{}" y="{y0}" text-anchor="end">0</text>"#,
        y0 + 16.0,
        y0 + 16.0,
        max_t / 60.0,
        x0 - 4.0,
        x0 - 4.0,
    );
    let points: Vec<String> = samples
        .iter()
        .map(|&(t, b)| format!("{:.1},{:.1}", x(t), y(mib(b))))
        .collect();
    let _ = write!(
        svg,
        r##"<polyline points="{}" fill="none" stroke="#1f77b4" stroke-width="2"/></svg>"##,
        points.join(" ")
    );
    svg
}

#[cfg(test)]
mod tests {
    #[test]
    fn draws_one_point_per_sample() {
        let svg = super::rss_svg(&[(0.0, 10 << 20), (60.0, 12 << 20), (120.0, 11 << 20)]);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        let points = svg
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(points.split(' ').count(), 3);
        assert!(svg.contains("2.0 min"));
    }
}
