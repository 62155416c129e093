//! A horizontal bar chart as a standalone SVG, so a reader sees the comparison at a glance.

use std::fmt::Write as _;

/// One bar per `(label, value)`, scaled to the largest value.
pub(crate) fn bar_chart(title: &str, bars: &[(String, f64)]) -> String {
    const LABEL: f64 = 150.0;
    const WIDTH: f64 = 420.0;
    const ROW: f64 = 26.0;
    let max = bars
        .iter()
        .map(|(_, v)| *v)
        .fold(0.0_f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let height = 40.0 + ROW * bars.len() as f64;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"8\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
        LABEL + WIDTH + 90.0,
        escape(title)
    );
    for (i, (label, value)) in bars.iter().enumerate() {
        let y = 32.0 + ROW * i as f64;
        let w = (value / max * WIDTH).max(1.0);
        let color = if label.starts_with("kinformer") {
            "#2b7bb9"
        } else if label.starts_with("kube") {
            "#d9822b"
        } else {
            "#8a8a8a"
        };
        let _ = writeln!(
            svg,
            "<text x=\"8\" y=\"{}\">{}</text><rect x=\"{LABEL}\" y=\"{y}\" width=\"{w:.1}\" height=\"18\" fill=\"{color}\"/><text x=\"{:.1}\" y=\"{}\">{}</text>",
            y + 13.0,
            escape(label),
            LABEL + w + 6.0,
            y + 13.0,
            format_value(*value)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn format_value(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    #[test]
    fn bars_scale_to_the_largest_value() {
        let svg = super::bar_chart(
            "sync <s>",
            &[("kinformer".into(), 1.0), ("kube".into(), 2.0)],
        );
        assert!(
            svg.contains("width=\"420.0\"") && svg.contains("width=\"210.0\""),
            "{svg}"
        );
        assert!(svg.contains("sync &lt;s&gt;"));
    }
}
