//! fio's steady-state rule (`steadystate=iops:10%`, `ss=bw_slope:1%`): over the last
//! `steadystate_duration` seconds of one-second samples, every sample lies within the limit of
//! the window's mean, or the least-squares slope of the samples is within the limit.

use crate::options::SteadyState;

/// The last full window of a steady-state check: its samples and what the rule measured of
/// them (as fio's JSON `steadystate` entry gives them).
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyWindow {
    /// Index of the window's first second among the per-second values.
    pub first_second: usize,
    /// The samples (one per check interval, each the mean of its seconds).
    pub samples: Vec<f64>,
    /// Their mean.
    pub mean: f64,
    /// The largest distance of a sample from the mean.
    pub max_deviation: f64,
    /// The least-squares slope of the samples, per sample.
    pub slope: f64,
    /// What the rule compares with its limit: the slope's size (`*_slope`) or the largest
    /// deviation, as a share of the mean when the limit is one.
    pub criterion: f64,
    /// Whether the criterion is within the limit.
    pub met: bool,
}

impl SteadyState {
    /// Seconds per sample (`steadystate_check_interval`).
    fn interval_seconds(&self) -> usize {
        (self.interval_ns / 1_000_000_000).max(1) as usize
    }

    /// Samples in the window (one per check interval).
    pub fn window_len(&self) -> usize {
        (self.duration_ns / self.interval_ns.max(1)).max(1) as usize
    }

    /// Whether the last window of per-second values `per_second` meets the rule (false while
    /// the window is not full). Each sample is the mean of one check interval, counted back from
    /// the newest second.
    pub fn reached(&self, per_second: &[f64]) -> bool {
        self.last_window(per_second).is_some_and(|w| w.met)
    }

    /// The last full window of per-second values `per_second` and what the rule measures of
    /// it (`None` while the window is not full).
    pub fn last_window(&self, per_second: &[f64]) -> Option<SteadyWindow> {
        let n = self.window_len();
        let k = self.interval_seconds();
        if per_second.len() < n * k || n < 2 {
            return None;
        }
        let first_second = per_second.len() - n * k;
        let samples: Vec<f64> = per_second[first_second..].chunks(k).map(|c| c.iter().sum::<f64>() / k as f64).collect();
        let mean = samples.iter().sum::<f64>() / n as f64;
        let limit = if self.percent { self.limit * mean.abs() } else { self.limit };
        let x_mean = (n as f64 - 1.0) / 2.0;
        let (mut num, mut den) = (0.0, 0.0);
        for (i, y) in samples.iter().enumerate() {
            num += (i as f64 - x_mean) * (y - mean);
            den += (i as f64 - x_mean).powi(2);
        }
        let slope = num / den;
        let max_deviation = samples.iter().map(|y| (y - mean).abs()).fold(0.0, f64::max);
        let measured = if self.slope { slope.abs() } else { max_deviation };
        // (A zero mean of samples that cannot be negative is a window of zeros: nothing moved.)
        let criterion = if self.percent && mean != 0.0 {
            measured / mean.abs()
        } else if self.percent {
            0.0
        } else {
            measured
        };
        Some(SteadyWindow { first_second, met: measured <= limit, samples, mean, max_deviation, slope, criterion })
    }
}

#[cfg(test)]
mod tests {
    use crate::options::{SteadyMetric, SteadyState};

    #[test]
    fn deviation_and_slope() {
        let ss = SteadyState {
            metric: SteadyMetric::Iops,
            slope: false,
            limit: 0.1,
            percent: true,
            duration_ns: 3_000_000_000,
            ramp_ns: 0,
            interval_ns: 1_000_000_000,
        };
        assert!(!ss.reached(&[100.0, 100.0]));
        assert!(ss.reached(&[5.0, 100.0, 105.0, 95.0]));
        assert!(!ss.reached(&[100.0, 130.0, 95.0]));
        let slope = SteadyState { slope: true, limit: 0.01, ..ss };
        assert!(slope.reached(&[100.0, 100.5, 100.0]));
        assert!(!slope.reached(&[100.0, 110.0, 120.0]));
        let coarse = SteadyState { interval_ns: 2_000_000_000, duration_ns: 4_000_000_000, ..ss };
        assert!(coarse.reached(&[50.0, 150.0, 100.0, 100.0]));
        assert!(!coarse.reached(&[100.0, 100.0, 100.0]));
    }

    #[test]
    fn the_last_window_says_what_the_rule_measured() {
        let mut ss = SteadyState {
            metric: SteadyMetric::Iops,
            slope: false,
            limit: 0.1,
            percent: true,
            duration_ns: 4_000_000_000,
            ramp_ns: 0,
            interval_ns: 1_000_000_000,
        };
        let per_second = [50.0, 100.0, 90.0, 110.0, 100.0];
        let w = ss.last_window(&per_second).unwrap();
        assert_eq!((w.first_second, w.samples.clone(), w.mean), (1, vec![100.0, 90.0, 110.0, 100.0], 100.0));
        assert_eq!((w.max_deviation, w.criterion, w.met), (10.0, 0.1, true));
        assert!((w.slope - 2.0).abs() < 1e-12, "{}", w.slope);
        ss.slope = true;
        ss.limit = 0.01;
        let w = ss.last_window(&per_second).unwrap();
        assert!((w.criterion - 0.02).abs() < 1e-12 && !w.met, "{w:?}");
        assert!(!ss.reached(&per_second) && ss.last_window(&per_second[..3]).is_none());
        // A window of zeros: nothing moved, criterion 0 (not a division by zero).
        assert_eq!(ss.last_window(&[0.0; 4]).unwrap().criterion, 0.0);
    }
}
