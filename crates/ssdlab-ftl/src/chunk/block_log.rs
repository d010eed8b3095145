//! Block logs (the chunk ids written into each block): appending, and loading entries ahead of GC.

use super::Chunk;
use crate::prefetch::prefetch;

/// Entries of a block log ahead of the one read whose line is loaded in advance: the victims'
/// logs are many streams at once, more than the hardware's stream prefetcher follows.
const LOG_PREFETCH_ENTRIES: usize = 128;

/// Block-log entries (chunk ids) in one cache line.
const LOG_LINE_ENTRIES: usize = 16;

/// Start loading the chunk entries of `log[*ahead..to]` (clamped to the log), and the log's own
/// line [`LOG_PREFETCH_ENTRIES`] further on at each line boundary; `*ahead` moves to `to`.
#[inline]
pub(super) fn prefetch_log_ahead(chunks: &[Chunk], log: &[u32], ahead: &mut usize, to: usize) {
    let to = to.min(log.len());
    while *ahead < to {
        let at = *ahead;
        if at.is_multiple_of(LOG_LINE_ENTRIES) {
            if let Some(entry) = log.get(at + LOG_PREFETCH_ENTRIES) {
                prefetch(entry);
            }
        }
        if let Some(entry) = chunks.get(log[at] as usize) {
            prefetch(entry);
        }
        *ahead += 1;
    }
}

/// Append `chunk` to a block's log; at each line boundary, start loading the line
/// [`LOG_PREFETCH_ENTRIES`] further on (an open block's log is written in order, one of many
/// such streams at once).
#[inline]
pub(super) fn log_push(log: &mut Vec<u32>, chunk: u32) {
    log.push(chunk);
    if log.len().is_multiple_of(LOG_LINE_ENTRIES) {
        if let Some(slot) = log.spare_capacity_mut().get(LOG_PREFETCH_ENTRIES) {
            prefetch(slot);
        }
    }
}
