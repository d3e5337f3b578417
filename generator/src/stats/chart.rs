//! The SVG chart of win distances.

use super::*;

/// Draws the distribution of each stone count's win distances as an SVG
/// chart: above, the share of wins in exactly `d` plies; below, the share
/// of wins needing more than `d` plies (what a move-count limit of `d`
/// would cut). Both on a log scale, so the long tails show.
///
/// Every ply from 1 to the stone count's longest win is drawn, odd and
/// even, so the sawtooth of the parities shows; a share of zero, which a
/// log scale cannot place, sits on the bottom line marked `0`. Every value
/// is also a dot, so a series of one point (one stone) is visible.
///
/// # Errors
///
/// [`StatsError::Chart`] if the chart cannot be drawn or written.
pub fn chart(r: &Report, path: &Path) -> Result<(), StatsError> {
    use plotters::prelude::*;
    let err = |detail: String| StatsError::Chart {
        path: path.to_path_buf(),
        detail,
    };
    let series = chart_series(r);
    let max_d = series
        .iter()
        .flat_map(|s| s.exact.iter().map(|x| x.0))
        .max()
        .unwrap_or(1);
    // The smallest non-zero share sets the lowest decade; zeros go one
    // decade below it, on the line labelled 0.
    let min_y = series
        .iter()
        .flat_map(|s| s.exact.iter().chain(&s.more).map(|x| x.1))
        .filter(|&y| y > 0.0)
        .fold(100.0f64, f64::min);
    let zero = 10f64.powf(min_y.log10().floor() - 1.0);
    let placed = |y: f64| if y > 0.0 { y } else { zero };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 900)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let root = root
            .titled(
                "Distances of wins, per stones on the board",
                ("sans-serif", 22),
            )
            .map_err(|e| err(e.to_string()))?;
        let (upper, lower) = root.split_vertically(430);
        for (area, tail, desc) in [
            (&upper, false, "wins in exactly d plies (% of wins)"),
            (&lower, true, "wins needing more than d plies (% of wins)"),
        ] {
            let mut chart = ChartBuilder::on(area)
                .margin(16)
                .x_label_area_size(44)
                .y_label_area_size(70)
                .build_cartesian_2d(0u32..max_d + 1, (zero * 0.7..100.0f64).log_scale())
                .map_err(|e| err(e.to_string()))?;
            chart
                .configure_mesh()
                .x_desc(x_desc(r))
                .y_desc(desc)
                .y_label_formatter(&|y| {
                    if *y <= zero * 1.01 {
                        "0".into()
                    } else if *y >= 1.0 {
                        format!("{y:.0}")
                    } else {
                        format!("{y:.0e}")
                    }
                })
                .draw()
                .map_err(|e| err(e.to_string()))?;
            for (i, s) in series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                let pts: Vec<(u32, f64)> = if tail { &s.more } else { &s.exact }
                    .iter()
                    .map(|&(d, y)| (d, placed(y)))
                    .collect();
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(1)))
                    .map_err(|e| err(e.to_string()))?
                    .label(format!(
                        "{}{}",
                        stones(s.stones),
                        if s.dtc { " (DTC)" } else { "" }
                    ))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 2, color.filled())))
                    .map_err(|e| err(e.to_string()))?;
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperRight)
                .draw()
                .map_err(|e| err(e.to_string()))?;
        }
        root.present().map_err(|e| err(e.to_string()))?;
    }
    write_replacing(path, svg.as_bytes()).map_err(|e| err(e.to_string()))
}

/// The x axis: what `d` counts, by the levels' metrics.
fn x_desc(r: &Report) -> &'static str {
    let dtc = r.per_stones.iter().filter(|l| l.metric == "DTC").count();
    if dtc == 0 {
        "d: plies to the end of the game"
    } else if dtc == r.per_stones.len() {
        "d: plies to the next conversion"
    } else {
        "d: plies to the end of the game, or to the next conversion (DTC)"
    }
}

/// One stone count's curves: `(d, share of wins in percent)` for every
/// `d` from 1 to its longest win, zeros included.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct ChartSeries {
    pub stones: u32,
    /// Whether the distances are to the next conversion.
    pub dtc: bool,
    /// Wins in exactly `d` plies.
    pub exact: Vec<(u32, f64)>,
    /// Wins needing more than `d` plies.
    pub more: Vec<(u32, f64)>,
}

/// The curves of every stone count that has wins.
pub(super) fn chart_series(r: &Report) -> Vec<ChartSeries> {
    r.per_stones
        .iter()
        .filter(|l| l.all.wins > 0)
        .map(|l| ChartSeries {
            dtc: l.metric == "DTC",
            ..curves(l.stones, l.all.wins, &l.all.win_distances)
        })
        .collect()
}

/// The curves of one stone count with `wins` wins, `distances[d]` of them
/// in exactly `d` plies.
fn curves(stones: u32, wins: u64, distances: &BTreeMap<u32, u64>) -> ChartSeries {
    let total = wins as f64;
    let longest = distances.keys().copied().max().unwrap_or(0);
    let mut left = wins;
    let mut exact = Vec::new();
    let mut more = Vec::new();
    for d in 1..=longest {
        let k = distances.get(&d).copied().unwrap_or(0);
        left -= k;
        exact.push((d, 100.0 * k as f64 / total));
        more.push((d, 100.0 * left as f64 / total));
    }
    ChartSeries {
        stones,
        dtc: false,
        exact,
        more,
    }
}

/// Checks before any work that the chart can be written at `path`: its
/// folder exists and `path` is not a folder.
///
/// # Errors
///
/// [`StatsError::Chart`] naming the path and the problem.
pub fn check_chart_path(path: &Path) -> Result<(), StatsError> {
    let err = |detail: &str| StatsError::Chart {
        path: path.to_path_buf(),
        detail: detail.into(),
    };
    if path.is_dir() {
        return Err(err(
            "it is a folder; give a file name such as distances.svg",
        ));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match std::fs::metadata(parent) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(err(&format!("{} is not a folder", parent.display()))),
        Err(e) => return Err(err(&format!("its folder {}: {e}", parent.display()))),
    }
    if std::fs::metadata(parent).is_ok_and(|m| m.permissions().readonly()) {
        return Err(err(&format!(
            "its folder {} is read-only",
            parent.display()
        )));
    }
    Ok(())
}

/// Writes `bytes` to a temporary file next to `path` and renames it over
/// `path`, so a failed write leaves the old file as it was.
fn write_replacing(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curves_keep_every_ply_and_the_zeros() {
        let distances = BTreeMap::from([(1, 3), (3, 1)]);
        let c = curves(2, 4, &distances);
        assert_eq!(c.exact, [(1, 75.0), (2, 0.0), (3, 25.0)]);
        assert_eq!(c.more, [(1, 25.0), (2, 25.0), (3, 0.0)]);
        // One stone: a single point, still a series.
        let one = curves(1, 5, &BTreeMap::from([(1, 5)]));
        assert_eq!(one.exact, [(1, 100.0)]);
        assert_eq!(one.more, [(1, 0.0)]);
    }

    #[test]
    fn chart_paths_are_checked_before_any_work() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_chart_path(&dir.path().join("c.svg")).is_ok());
        let missing = dir.path().join("no/such/dir/c.svg");
        let e = check_chart_path(&missing).unwrap_err().to_string();
        assert!(e.contains("no/such/dir"), "{e}");
        let e = check_chart_path(dir.path()).unwrap_err().to_string();
        assert!(e.contains("folder"), "{e}");
    }

    #[test]
    fn a_written_chart_replaces_the_old_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.svg");
        std::fs::write(&path, "old").unwrap();
        write_replacing(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
