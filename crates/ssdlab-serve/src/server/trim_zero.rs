//! TRIM and WRITE ZEROES: whole sectors trimmed, zeros written around them or over all.

use super::{Server, State};
use crate::journal::RecordEncoder;
use crate::{ServeError, ServeResult};
use ssdlab_core::Nanoseconds;
use ssdlab_reduce::SECTOR_BYTES;

/// Bytes of zeros written per piece of a large write-zeroes.
const ZERO_PIECE_BYTES: u64 = 32 << 20;

impl Server {
    /// TRIM `len` bytes at `offset` (whole 4 KiB sectors inside the range are deallocated). Any
    /// byte range inside the export is taken, the drive given its whole 512-byte sectors: a TRIM
    /// is advisory and its partly covered sectors are kept anyway, and qemu sends the unaligned
    /// head and tail of a discard as trims of their own, failing the whole discard on EINVAL.
    pub fn trim(&self, len: u64, offset: u64, fua: bool) -> ServeResult<()> {
        let visit = self.clock.visit();
        let arrived = visit.arrived_ns();
        self.check_bounds(offset, len)?;
        let (start, end) = (offset.next_multiple_of(512), (offset + len) / 512 * 512);
        if end <= start {
            return Ok(()); // not one whole 512-byte sector: nothing to deallocate
        }
        let (offset, len) = (start, end - start);
        self.serve_request(false, |state| self.trim_in(state, offset, len, fua, arrived))
    }

    /// The TRIM of whole 512-byte sectors `[offset, offset + len)`, under the drive's lock.
    fn trim_in(&self, state: &mut State, offset: u64, len: u64, fua: bool, arrived: u64) -> ServeResult<Nanoseconds> {
        Self::fail_if_broken(state)?;
        let at = self.arrival(state, arrived);
        RecordEncoder::trim(Self::begin_record(state, at), offset, len);
        let mut done = state.session.trim_at(offset, len, at).map_err(|e| {
            state.pending.abort();
            Self::broke(state, e)
        })?;
        if let Some(g) = state.generated.as_mut() {
            g.trimmed(offset, len);
        }
        self.end_record(state, None)?;
        if fua {
            done = self.make_durable(state, done)?;
        }
        state.stats.record_trim(at, done, len);
        state.last_done_ns = state.last_done_ns.max(done);
        Ok(done)
    }

    /// WRITE ZEROES. A data-reduction drive stores nothing for zero sectors (always fast);
    /// another drive trims whole sectors when `may_trim` and writes zeros elsewhere; with
    /// `fast`, a zeroing that would write flash is refused (ENOTSUP) so the client can do it
    /// another way.
    ///
    /// The request is one operation for the durability rules: its TRIM and its writes of zeros
    /// are done under one hold of the drive's lock, and a power cut keeps all of them or none
    /// (docs/power-loss.md).
    pub fn zero(&self, len: u64, offset: u64, may_trim: bool, fast: bool, fua: bool) -> ServeResult<()> {
        let visit = self.clock.visit();
        let arrived = visit.arrived_ns();
        self.check_range(offset, len)?;
        let sector = SECTOR_BYTES as u64;
        let (inner_start, inner_end) = (offset.div_ceil(sector) * sector, (offset + len) / sector * sector);
        let trims = !self.reduction && may_trim && inner_end > inner_start;
        let written = if trims { len - (inner_end - inner_start) } else { len };
        if fast && !self.reduction && written > 0 {
            return Err(ServeError::new(libc::ENOTSUP, "this drive writes zeros to flash: not a fast zero"));
        }
        self.check_space(written)?;
        // The pieces: a TRIM of the whole sectors inside, zeros written around it; or zeros
        // written over all of it.
        let mut pieces: Vec<(u64, u64, bool)> = Vec::new();
        if trims {
            pieces.push((inner_start, inner_end - inner_start, true));
            pieces.extend([(offset, inner_start - offset, false), (inner_end, offset + len - inner_end, false)].into_iter().filter(|p| p.1 > 0));
        } else {
            pieces.push((offset, len, false));
        }
        self.serve_request(true, |state| {
            Self::begin_request(state);
            let done = (|| -> ServeResult<Nanoseconds> {
                let mut done = 0;
                for &(at, bytes, trim) in &pieces {
                    if trim {
                        done = self.trim_in(state, at, bytes, false, arrived)?;
                        continue;
                    }
                    let mut put = 0;
                    while put < bytes {
                        let piece = ZERO_PIECE_BYTES.min(bytes - put);
                        done = self.write_in(state, &vec![0u8; piece as usize], at + put, false, None, arrived)?;
                        put += piece;
                    }
                }
                Ok(done)
            })();
            let done = done.and_then(|done| {
                self.end_request(state)?;
                if fua {
                    return self.make_durable(state, done);
                }
                Ok(done)
            });
            // A part that failed leaves the request's records to the next cut or commit.
            state.request_from = None;
            done
        })
    }
}
