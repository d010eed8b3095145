//! The journal's records not yet written to the backing file (the volatile part of the
//! metadata), kept encoded as they will be written ([`crate::journal::RecordEncoder`]): one
//! growing buffer, no allocation per record. Each record remembers how many host sectors had
//! entered the drive's write buffer once it was done, which says at a power cut whether its data
//! had been programmed (docs/power-loss.md, "the drive's own loss window").

use crate::extents::ExtentEvent;
use crate::journal::{Check, RecordEncoder};

/// Where a waiting record ends, and what its data needs to be programmed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    /// End of its encoding in the body.
    end: usize,
    /// Host sectors that had entered the write buffer when the operation was done.
    pub pushed: u64,
    /// 4 KiB sectors the operation wrote (0 for a TRIM or flush).
    pub sectors: u64,
}

/// Records waiting for a commit.
#[derive(Default)]
pub(crate) struct Pending {
    /// The records' encodings, one after the other.
    body: Vec<u8>,
    entries: Vec<Entry>,
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

    /// End the open record with the operation's extent changes and the drive's figures; the
    /// operation wrote `sectors` sectors and left `pushed` host sectors entered in the buffer.
    pub fn finish(&mut self, extents: &[ExtentEvent], check: &Check, pushed: u64, sectors: u64) {
        RecordEncoder::tail(&mut self.body, extents, check);
        self.open = None;
        self.entries.push(Entry { end: self.body.len(), pushed, sectors });
    }

    /// The records from `from` on are parts of one host request: a power cut keeps all of them
    /// or none. Each takes the write-buffer position of the last, so [`Pending::programmed`]
    /// counts them as programmed only once every part's data is.
    pub fn share_fate(&mut self, from: usize) {
        if let Some(last) = self.entries.last().map(|e| e.pushed) {
            for e in self.entries.iter_mut().skip(from) {
                e.pushed = last;
            }
        }
    }

    /// Drop the open record (its operation failed).
    pub fn abort(&mut self) {
        if let Some(start) = self.open.take() {
            self.body.truncate(start);
        }
    }

    /// Records waiting.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Bytes of the records waiting.
    pub fn bytes(&self) -> usize {
        self.entries.last().map_or(0, |e| e.end)
    }

    /// The waiting records, oldest first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// How many of the first records had all their data out of the write buffer once the first
    /// `left_through` host sectors had left it.
    pub fn programmed(&self, left_through: u64) -> usize {
        self.entries.partition_point(|e| e.pushed <= left_through)
    }

    /// The first `n` records (count and encodings), for a batch.
    pub fn first(&self, n: usize) -> (u64, &[u8]) {
        let end = if n == 0 { 0 } else { self.entries[n - 1].end };
        (n as u64, &self.body[..end])
    }

    /// Forget the first `n` records (written, or lost).
    pub fn drop_first(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let end = self.entries[n - 1].end;
        self.body.drain(..end);
        self.entries.drain(..n);
        for e in &mut self.entries {
            e.end -= end;
        }
    }

    /// Forget every record.
    pub fn clear(&mut self) {
        self.body.clear();
        self.entries.clear();
        self.open = None;
    }
}
