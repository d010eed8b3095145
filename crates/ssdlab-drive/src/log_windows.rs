//! fio's windowed logs (`write_bw_log` and the others with `log_avg_msec`) at a window that is
//! not a whole number of seconds: the measured completions summed per window of simulated time,
//! kept beside the per-second series (which the logs use when the window is whole seconds).

use ssdlab_core::time::NS_PER_MS;
use ssdlab_core::Nanoseconds;
use ssdlab_workload::Op;

/// Most windows a run keeps (1,000 s of 1 ms windows; 100,000 s of 100 ms windows); a longer run
/// stops adding windows (and says so) rather than growing without bound.
pub const MAX_LOG_WINDOWS: usize = 1_000_000;

/// The completions of one window of a run's measured part.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LogWindow {
    /// End of the window, milliseconds since the measured part began, to the nearest (fio's
    /// sample time).
    pub end_ms: u64,
    /// Length of the window in nanoseconds: the window's width, or less for the run's last,
    /// partial window (its rates are per the time it covers).
    pub span_ns: Nanoseconds,
    /// Commands completed in the window.
    pub ios: u64,
    /// Bytes read by them.
    pub read_bytes: u64,
    /// Bytes written by them.
    pub write_bytes: u64,
    /// Sum of their latencies, nanoseconds.
    pub latency_sum_ns: u128,
}

/// The windows of a run so far (see the module's text).
#[derive(Debug, Clone)]
pub(crate) struct LogWindows {
    width_ns: Nanoseconds,
    start_ns: Nanoseconds,
    /// Index of the window completions now fall in.
    index: u64,
    current: LogWindow,
    rows: Vec<LogWindow>,
    truncated: bool,
}

impl LogWindows {
    /// Windows of `width_ms` milliseconds (at least 1) from `start_ns`, the measured part's start.
    pub fn new(start_ns: Nanoseconds, width_ms: u64) -> Self {
        let width_ns = width_ms.max(1).saturating_mul(NS_PER_MS);
        Self { width_ns, start_ns, index: 0, current: LogWindow::default(), rows: Vec::new(), truncated: false }
    }

    /// Record a command completed at `at_ns` (at or after the start).
    pub fn record(&mut self, at_ns: Nanoseconds, op: Op, bytes: u64, latency_ns: Nanoseconds) {
        let index = at_ns.saturating_sub(self.start_ns) / self.width_ns;
        while self.index < index {
            if self.rows.len() >= MAX_LOG_WINDOWS {
                self.truncated = true;
                self.current = LogWindow::default();
                self.index = index;
                break;
            }
            self.close(self.width_ns);
        }
        if self.truncated {
            return;
        }
        let w = &mut self.current;
        w.ios += 1;
        match op {
            Op::Read => w.read_bytes += bytes,
            Op::Write => w.write_bytes += bytes,
            Op::Trim => {}
        }
        w.latency_sum_ns += latency_ns as u128;
    }

    /// Close the current window, `span_ns` long, and start the next.
    fn close(&mut self, span_ns: Nanoseconds) {
        let start_ns = self.index * self.width_ns;
        let end_ns = start_ns + span_ns;
        self.rows.push(LogWindow { end_ms: (end_ns + NS_PER_MS / 2) / NS_PER_MS, span_ns, ..self.current });
        self.current = LogWindow::default();
        self.index += 1;
    }

    /// Close the last, partial window when anything completed in it; the run's measured part
    /// ends at `end_ns` (as [`crate::metrics`]' last second: a window that starts at or after
    /// the end gets no row).
    pub fn finish(&mut self, end_ns: Nanoseconds) {
        let window_start = self.start_ns + self.index * self.width_ns;
        if !self.truncated && self.current.ios > 0 && end_ns > window_start && self.rows.len() < MAX_LOG_WINDOWS {
            self.close((end_ns - window_start).min(self.width_ns));
        }
    }

    /// The windows closed so far.
    pub fn rows(&self) -> &[LogWindow] {
        &self.rows
    }

    /// Whether the windows stopped at [`MAX_LOG_WINDOWS`].
    pub fn truncated(&self) -> bool {
        self.truncated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanoseconds = NS_PER_MS;

    #[test]
    fn completions_fall_in_their_window_and_empty_windows_are_kept() {
        let mut w = LogWindows::new(1_000 * MS, 250);
        w.record(1_000 * MS + 10 * MS, Op::Write, 4096, 100);
        w.record(1_000 * MS + 249 * MS, Op::Read, 8192, 300);
        // Nothing in [250, 500) ms; one write in [500, 750).
        w.record(1_000 * MS + 600 * MS, Op::Write, 4096, 50);
        w.finish(1_000 * MS + 700 * MS);
        let rows = w.rows();
        assert_eq!(rows.len(), 3, "{rows:?}");
        assert_eq!((rows[0].end_ms, rows[0].ios, rows[0].read_bytes, rows[0].write_bytes, rows[0].latency_sum_ns), (250, 2, 8192, 4096, 400));
        assert_eq!((rows[1].end_ms, rows[1].ios, rows[1].span_ns), (500, 0, 250 * MS));
        // The last window is partial: it ends with the run, 200 ms into it.
        assert_eq!((rows[2].end_ms, rows[2].ios, rows[2].span_ns), (700, 1, 200 * MS));
    }

    #[test]
    fn a_completion_on_a_boundary_opens_the_next_window() {
        let mut w = LogWindows::new(0, 100);
        w.record(100 * MS, Op::Write, 4096, 1);
        w.finish(150 * MS);
        assert_eq!(w.rows().iter().map(|r| (r.end_ms, r.ios)).collect::<Vec<_>>(), vec![(100, 0), (150, 1)]);
    }

    #[test]
    fn nothing_in_the_last_window_gives_no_row() {
        let mut w = LogWindows::new(0, 500);
        w.record(100 * MS, Op::Trim, 4096, 1);
        w.finish(100 * MS);
        assert_eq!(w.rows().len(), 1);
        let mut empty = LogWindows::new(0, 500);
        empty.finish(900 * MS);
        assert!(empty.rows().is_empty());
    }

    #[test]
    fn windows_stop_at_their_bound() {
        let mut w = LogWindows::new(0, 1);
        w.record(0, Op::Write, 4096, 1);
        w.record((MAX_LOG_WINDOWS as u64 + 10) * MS, Op::Write, 4096, 1);
        w.record((MAX_LOG_WINDOWS as u64 + 20) * MS, Op::Write, 4096, 1);
        w.finish((MAX_LOG_WINDOWS as u64 + 30) * MS);
        assert_eq!(w.rows().len(), MAX_LOG_WINDOWS);
        assert!(w.truncated());
    }
}
