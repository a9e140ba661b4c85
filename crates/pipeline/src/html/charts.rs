//! The charts of `report.html`, drawn as inline SVG: bar charts of counts (columns, or rows with
//! long labels) on a log scale, so a bin of 3 stays visible beside one of 200 (each gridline is
//! ten times the one below, every bar is labelled with its count, and the chart says it is a log
//! scale), and a log-log line chart for the Zipf curves.

use std::fmt::Write as _;

use super::text::{esc, shorten};

/// The colour of a plain bar.
pub const GREY: &str = "#5d6d7e";

/// One bar of a bar chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Its label.
    pub label: String,
    /// Its count.
    pub count: u64,
    /// Its fill colour.
    pub colour: &'static str,
    /// Whether a gap sets it apart from the bar before it.
    pub apart: bool,
}

impl Bar {
    /// A plain bar.
    pub fn new(label: impl Into<String>, count: u64) -> Self {
        Self {
            label: label.into(),
            count,
            colour: GREY,
            apart: false,
        }
    }
}

/// A log scale for counts: 0 at the axis, then one equal step per power of ten from 1 up to the
/// first power of ten at or above the largest count.
#[derive(Debug, Clone, Copy)]
pub struct LogScale {
    /// Powers of ten above 1 the axis spans.
    decades: u32,
}

impl LogScale {
    /// The scale for counts up to `max`.
    pub fn up_to(max: u64) -> Self {
        let (mut decades, mut top) = (0u32, 1u64);
        while top < max {
            top = top.saturating_mul(10);
            decades += 1;
        }
        Self { decades }
    }

    /// Share of the axis a count reaches: 0 for 0, `1 / (decades + 1)` for 1, 1 for the top.
    pub fn share(&self, n: u64) -> f64 {
        if n == 0 {
            return 0.0;
        }
        ((1.0 + (n as f64).log10()) / (1.0 + f64::from(self.decades))).min(1.0)
    }

    /// The gridlines: each power of ten from 1 to the top, with its label and share.
    fn gridlines(&self) -> impl Iterator<Item = (String, f64)> + '_ {
        (0..=self.decades).map(|e| {
            let label = if e <= 6 {
                10u64.pow(e).to_string()
            } else {
                format!("1e{e}")
            };
            (
                label,
                (1.0 + f64::from(e)) / (1.0 + f64::from(self.decades)),
            )
        })
    }
}

/// The opening of a chart: its frame, title and the line under the title.
fn open(s: &mut String, w: f64, h: f64, title: &str, note: &str) {
    let _ = write!(
        s,
        "<div class=chart><svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' role=img><title>{t}</title>\
         <text x='4' y='16' font-size='13' font-weight='bold'>{t}</text><text x='4' y='31' font-size='11' fill='#555'>{n}</text>",
        t = esc(title),
        n = esc(note)
    );
}

/// Columns of counts on a log scale; `note` (under the title) says what the bars are.
pub fn columns(title: &str, note: &str, data: &[Bar]) -> String {
    let scale = LogScale::up_to(data.iter().map(|d| d.count).max().unwrap_or(0));
    let (w, h, left, right, top, base) = (600.0, 250.0, 48.0, 590.0, 52.0, 214.0);
    let mut s = String::new();
    open(&mut s, w, h, title, &format!("{note} (log scale)"));
    for (label, share) in scale.gridlines() {
        let y = base - share * (base - top);
        let _ = write!(s, "<line x1='{left}' y1='{y:.1}' x2='{right}' y2='{y:.1}' stroke='#e3e3e3'/><text x='{:.1}' y='{:.1}' font-size='10' text-anchor='end' fill='#777'>{label}</text>", left - 4.0, y + 3.0);
    }
    if data.is_empty() {
        let _ = write!(
            s,
            "<text x='{}' y='{:.1}' font-size='12'>none</text>",
            left + 8.0,
            base - 8.0
        );
    }
    let _ = write!(s, "<text x='{:.1}' y='{:.1}' font-size='10' text-anchor='end' fill='#777'>0</text><line x1='{left}' y1='{base}' x2='{right}' y2='{base}' stroke='#444'/>", left - 4.0, base + 3.0);
    // Width units: one per bar, half a bar more before each bar set apart.
    let units: f64 = data
        .iter()
        .map(|d| if d.apart { 1.5 } else { 1.0 })
        .sum::<f64>()
        .max(1.0);
    let cw = (right - left - 4.0) / units;
    let mut x = left + 4.0;
    for d in data {
        if d.apart {
            x += cw / 2.0;
        }
        let bh = scale.share(d.count) * (base - top);
        let mid = x + cw / 2.0 - 2.0;
        let _ = write!(s, "<rect x='{x:.1}' y='{:.1}' width='{:.1}' height='{bh:.1}' fill='{}'/><text x='{mid:.1}' y='{:.1}' font-size='10' text-anchor='middle'>{}</text><text x='{mid:.1}' y='{:.1}' font-size='10' text-anchor='middle'>{}</text>", base - bh, (cw - 4.0).max(1.0), d.colour, base - bh - 4.0, d.count, base + 14.0, esc(&d.label));
        x += cw;
    }
    s.push_str("</svg></div>");
    s
}

/// Horizontal bars of counts on a log scale, for long labels (hosts, kinds).
pub fn rows(title: &str, note: &str, data: &[Bar]) -> String {
    let scale = LogScale::up_to(data.iter().map(|d| d.count).max().unwrap_or(0));
    let (w, row, left, span, top) = (600.0, 18.0, 230.0, 300.0, 40.0);
    let h = top + row * data.len().max(1) as f64 + 18.0;
    let base = top + row * data.len().max(1) as f64;
    let mut s = String::new();
    open(&mut s, w, h, title, &format!("{note} (log scale)"));
    if data.is_empty() {
        let _ = write!(
            s,
            "<text x='4' y='{:.1}' font-size='12'>none</text>",
            top + 12.0
        );
    } else {
        for (label, share) in scale.gridlines() {
            let x = left + share * span;
            let _ = write!(s, "<line x1='{x:.1}' y1='{top}' x2='{x:.1}' y2='{base:.1}' stroke='#e3e3e3'/><text x='{x:.1}' y='{:.1}' font-size='10' text-anchor='middle' fill='#777'>{label}</text>", base + 12.0);
        }
    }
    for (i, d) in data.iter().enumerate() {
        let y = top + row * i as f64;
        let bw = scale.share(d.count) * span;
        let _ = write!(s, "<text x='{:.1}' y='{:.1}' font-size='11' text-anchor='end'>{}</text><rect x='{left}' y='{y:.1}' width='{bw:.1}' height='{:.1}' fill='{}'/><text x='{:.1}' y='{:.1}' font-size='11'>{}</text>", left - 4.0, y + 12.0, esc(&shorten(&d.label, 36)), row - 4.0, d.colour, left + 4.0 + bw, y + 12.0, d.count);
    }
    s.push_str("</svg></div>");
    s
}

/// One line of a chart: its name, colour and `(x, y)` points.
pub type Series<'a> = (&'a str, &'a str, &'a [(u64, u64)]);

/// A log-log line chart of `(x, y)` series.
pub fn loglog(title: &str, series: &[Series<'_>]) -> String {
    let (w, h, l, b, t, r) = (600.0, 300.0, 50.0, 260.0, 30.0, 580.0);
    let pts = series
        .iter()
        .flat_map(|s| s.2.iter())
        .filter(|p| p.0 > 0 && p.1 > 0);
    let xmax = pts.clone().map(|p| p.0).max().unwrap_or(10).max(10) as f64;
    let ymax = pts.map(|p| p.1).max().unwrap_or(10).max(10) as f64;
    let (lx, ly) = (xmax.log10().ceil(), ymax.log10().ceil());
    let px = |x: f64| l + x.log10() / lx * (r - l);
    let py = |y: f64| b - y.log10() / ly * (b - t);
    let mut s = String::new();
    let _ = write!(s, "<div class=chart><svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' role=img><title>{tt}</title><text x='4' y='16' font-size='13' font-weight='bold'>{tt}</text><rect x='{l}' y='{t}' width='{}' height='{}' fill='none' stroke='#444'/>", r - l, b - t, tt = esc(title));
    for e in 0..=lx as i32 {
        let x = px(10f64.powi(e));
        let _ = write!(s, "<line x1='{x:.1}' y1='{t}' x2='{x:.1}' y2='{b}' stroke='#ddd'/><text x='{x:.1}' y='{:.1}' font-size='10' text-anchor='middle'>1e{e}</text>", b + 13.0);
    }
    for e in 0..=ly as i32 {
        let y = py(10f64.powi(e));
        let _ = write!(s, "<line x1='{l}' y1='{y:.1}' x2='{r}' y2='{y:.1}' stroke='#ddd'/><text x='{:.1}' y='{:.1}' font-size='10' text-anchor='end'>1e{e}</text>", l - 4.0, y + 3.0);
    }
    let _ = write!(s, "<text x='{:.1}' y='{:.1}' font-size='11' text-anchor='middle'>rank</text><text x='12' y='{:.1}' font-size='11' transform='rotate(-90 12 {:.1})' text-anchor='middle'>frequency</text>", (l + r) / 2.0, b + 28.0, (t + b) / 2.0, (t + b) / 2.0);
    for (i, (name, color, data)) in series.iter().enumerate() {
        let path: Vec<String> = data
            .iter()
            .filter(|p| p.0 > 0 && p.1 > 0)
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x as f64), py(y as f64)))
            .collect();
        let _ = write!(s, "<polyline fill='none' stroke='{color}' stroke-width='1.8' points='{}'/><text x='{:.1}' y='{:.1}' font-size='11' fill='{color}'>{}</text>", path.join(" "), r - 120.0, t + 16.0 + 14.0 * i as f64, esc(name));
    }
    s.push_str("</svg></div>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_bin_stays_visible_beside_a_large_one() {
        // 195 clusters of size 2 against 3 of size 3: on a linear scale the 3 is 1.5% of the
        // axis; on the log scale a bar of 1 is a third of it, and 3 about half.
        let s = LogScale::up_to(195);
        assert_eq!(s.decades, 3);
        assert_eq!(s.share(0), 0.0);
        assert!((s.share(1) - 0.25).abs() < 1e-9);
        assert!(s.share(3) > 0.36 && s.share(3) < s.share(195));
        assert!((s.share(1000) - 1.0).abs() < 1e-9);
        assert_eq!(LogScale::up_to(0).share(1), 1.0);
        let huge = LogScale::up_to(u64::MAX).share(u64::MAX);
        assert!(huge > 0.9 && huge <= 1.0, "{huge}");
        let svg = columns(
            "Sizes",
            "clusters per size",
            &[Bar::new("2", 195), Bar::new("3", 3)],
        );
        assert!(svg.contains("(log scale)") && svg.contains(">195<") && svg.contains(">3<"));
        let heights: Vec<f64> = svg
            .match_indices(" height='")
            .skip(1) // the svg's own height
            .map(|(i, _)| {
                let rest = &svg[i + 9..];
                rest[..rest.find('\'').unwrap()].parse().unwrap()
            })
            .collect();
        assert_eq!(heights.len(), 2);
        assert!(heights[1] > heights[0] * 0.4, "{heights:?}");
    }

    #[test]
    fn labels_are_escaped_and_a_bar_set_apart_is_coloured_as_asked() {
        let mut exact = Bar::new("exact", 7);
        exact.colour = "#c0392b";
        exact.apart = true;
        let svg = columns("T", "n", &[Bar::new("<b>", 1), exact]);
        assert!(svg.contains("&lt;b&gt;") && !svg.contains("<b>"));
        assert!(svg.contains("fill='#c0392b'"));
        let empty = rows("T", "n", &[]);
        assert!(empty.contains(">none<"));
    }
}
