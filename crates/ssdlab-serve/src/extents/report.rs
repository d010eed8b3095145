//! What the data region reports to `stats`: extent counts, data waiting, and how data was written.

use super::{ExtentTally, Extents, NO_EXTENT};
use std::sync::atomic::Ordering;

impl Extents {
    /// What happened to extents since start, and how many are in use and warm now.
    pub fn tally(&self) -> ExtentTally {
        let shared = self.lock();
        let mut tally = shared.tally;
        tally.in_use = shared.table.map.iter().filter(|&&e| e != NO_EXTENT).count() as u64;
        tally.warm_now = shared.warm.len() as u64;
        tally
    }

    /// The most bytes of data ever waiting in memory for their copy into the file.
    pub fn waiting_peak_bytes(&self) -> usize {
        self.lock().waiting_peak_bytes
    }

    /// Data bytes written to the file bypassing the page cache (whole aligned units) and
    /// through it, since start.
    pub fn written_bytes(&self) -> (u64, u64) {
        (self.counts.direct.load(Ordering::Relaxed), self.counts.buffered.load(Ordering::Relaxed))
    }

    /// Why data writes do not bypass the page cache (`None`: whole units do).
    pub fn direct_unavailable(&self) -> Option<String> {
        self.file.direct_unavailable()
    }
}
