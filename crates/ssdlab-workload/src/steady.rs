//! fio's steady-state rule (`steadystate=iops:10%`, `ss=bw_slope:1%`): over the last
//! `steadystate_duration` seconds of one-second samples, every sample lies within the limit of
//! the window's mean, or the least-squares slope of the samples is within the limit.

use crate::options::SteadyState;

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
        let n = self.window_len();
        let k = self.interval_seconds();
        if per_second.len() < n * k || n < 2 {
            return false;
        }
        let recent = &per_second[per_second.len() - n * k..];
        let window: Vec<f64> = recent.chunks(k).map(|c| c.iter().sum::<f64>() / k as f64).collect();
        let mean = window.iter().sum::<f64>() / n as f64;
        let limit = if self.percent { self.limit * mean.abs() } else { self.limit };
        if self.slope {
            let x_mean = (n as f64 - 1.0) / 2.0;
            let (mut num, mut den) = (0.0, 0.0);
            for (i, y) in window.iter().enumerate() {
                num += (i as f64 - x_mean) * (y - mean);
                den += (i as f64 - x_mean).powi(2);
            }
            (num / den).abs() <= limit
        } else {
            window.iter().all(|y| (y - mean).abs() <= limit)
        }
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
}
