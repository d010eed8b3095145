//! The figures reviews take from a whole-drive fill (128 KiB sequential writes from a
//! secure-erased drive): how much was written at the SLC cache's speed before the cliff, the
//! rate after it, and the average over the whole fill, read off the per-second series.

use crate::metrics::SeriesRow;
use serde::Serialize;

/// Figures of a whole-drive fill.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct FillFigures {
    /// Bytes written before the cliff (the first of two consecutive seconds below
    /// [`CLIFF_FRACTION`] of the opening rate), plus the share of the cliff's own second written
    /// at the opening rate (its rate is that mix of the opening and the post-cache rates).
    pub cache_bytes: f64,
    /// Median write rate before the cliff, MB/s.
    pub cache_mbps: f64,
    /// The rate the drive drops to at the cliff: the median write rate of the seconds from the
    /// cliff until [`POST_CACHE_SHARE`] of what is written after it, MB/s (0 without a cliff).
    pub post_cache_mbps: f64,
    /// Bytes written over seconds of the whole fill, MB/s.
    pub average_mbps: f64,
    /// Whether the rate fell below [`CLIFF_FRACTION`] of the opening rate at all.
    pub cliff: bool,
}

/// A second whose rate is below this fraction of the opening rate (median of the first five
/// seconds) is past the cliff.
pub const CLIFF_FRACTION: f64 = 0.85;

/// The post-cache rate is read over this share of the bytes written after the cliff (at
/// least one second): reviews give the rate the drive drops to ("once the cache is exhausted,
/// writes drop to X MB/s"), which on drives that speed up again as they fill (the Samsung
/// 980 PRO) is not the rate of the whole remainder.
pub const POST_CACHE_SHARE: f64 = 0.1;

fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

impl FillFigures {
    /// The figures of a fill's per-second series.
    pub fn from_series(rows: &[SeriesRow]) -> Self {
        let rates: Vec<f64> = rows.iter().map(|r| r.write_mbps).collect();
        let bytes: Vec<f64> = rows.iter().map(|r| r.write_mbps * 1e6 * r.span_seconds).collect();
        let opening = median(&mut rates.iter().take(5).copied().collect::<Vec<_>>());
        let below = |i: usize| rates.get(i).is_some_and(|&r| r < CLIFF_FRACTION * opening);
        let cliff_at = (0..rates.len()).find(|&i| below(i) && (below(i + 1) || i + 1 == rates.len()));
        let end = cliff_at.unwrap_or(rates.len());
        let total_bytes: f64 = bytes.iter().sum();
        let total_seconds: f64 = rows.iter().map(|r| r.span_seconds).sum();
        let after: f64 = bytes[end..].iter().sum();
        let mut through = 0.0;
        let window = bytes[end..].iter().take_while(|&&b| {
            let inside = through < POST_CACHE_SHARE * after;
            through += b;
            inside
        });
        let post_cache_mbps = median(&mut rates[end..end + window.count()].to_vec());
        // The cliff's own second is part cache, part post-cache: at the opening rate for the
        // share that makes its average.
        let cliff_second_bytes = match cliff_at {
            Some(i) if opening > post_cache_mbps => {
                ((rates[i] - post_cache_mbps) / (opening - post_cache_mbps)).clamp(0.0, 1.0) * opening * 1e6 * rows[i].span_seconds
            }
            _ => 0.0,
        };
        Self {
            cache_bytes: bytes[..end].iter().sum::<f64>() + cliff_second_bytes,
            cache_mbps: median(&mut rates[..end].to_vec()),
            post_cache_mbps,
            average_mbps: if total_seconds > 0.0 { total_bytes / 1e6 / total_seconds } else { 0.0 },
            cliff: cliff_at.is_some(),
        }
    }
}
