//! The journal's records not yet written to the backing file (the volatile part of the
//! metadata), kept encoded as they will be written ([`crate::journal::RecordEncoder`]): one
//! growing buffer, no allocation per record.

use crate::extents::ExtentEvent;
use crate::journal::{Check, RecordEncoder};

/// Records waiting for a commit.
#[derive(Default)]
pub(crate) struct Pending {
    /// The records' encodings, one after the other.
    body: Vec<u8>,
    /// Where each record's encoding ends in `body`.
    ends: Vec<usize>,
    /// Where the record being written starts, while one is.
    open: Option<usize>,
}

impl Pending {
    /// Start record `seq`, arriving at `at_ns`; its operation is written next into
    /// [`Pending::body`].
    pub fn begin(&mut self, seq: u64, at_ns: u64) {
        debug_assert!(self.open.is_none(), "a record is already open");
        self.open = Some(self.body.len());
        RecordEncoder::head(&mut self.body, seq, at_ns);
    }

    /// The buffer the open record's operation is written into.
    pub fn body(&mut self) -> &mut Vec<u8> {
        &mut self.body
    }

    /// End the open record with the operation's extent changes and the drive's figures.
    pub fn finish(&mut self, extents: &[ExtentEvent], check: &Check) {
        RecordEncoder::tail(&mut self.body, extents, check);
        self.open = None;
        self.ends.push(self.body.len());
    }

    /// Drop the open record (its operation failed).
    pub fn abort(&mut self) {
        if let Some(start) = self.open.take() {
            self.body.truncate(start);
        }
    }

    /// Records waiting.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether none is waiting.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Bytes of the records waiting.
    pub fn bytes(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }

    /// The first `n` records (count and encodings), for a batch.
    pub fn first(&self, n: usize) -> (u64, &[u8]) {
        let end = if n == 0 { 0 } else { self.ends[n - 1] };
        (n as u64, &self.body[..end])
    }

    /// Forget every record.
    pub fn clear(&mut self) {
        self.body.clear();
        self.ends.clear();
        self.open = None;
    }
}
