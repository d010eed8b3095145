//! The checks a request passes before the drive does anything (open, alive, in range, room).

use super::{Server, State};
use crate::{ServeError, ServeResult};
use ssdlab_core::Error;
use std::sync::atomic::Ordering;
use std::sync::MutexGuard;

impl Server {
    /// The drive's state, once the server is open and the drive alive.
    pub(super) fn lock(&self) -> ServeResult<MutexGuard<'_, State>> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.closed {
            return Err(ServeError::new(libc::ESHUTDOWN, "the server is shutting down"));
        }
        if state.dead {
            return Err(ServeError::new(
                libc::EIO,
                format!(
                    "the drive does not answer since its power cut (the dead-device fault); serve {} with --secure-erase to use it again, empty",
                    self.backing_path
                ),
            ));
        }
        Ok(state)
    }

    /// Refuse a request beyond the export or not in whole 512-byte sectors.
    pub(super) fn check_range(&self, offset: u64, len: u64) -> ServeResult<()> {
        self.check_bounds(offset, len)?;
        if !offset.is_multiple_of(512) || !len.is_multiple_of(512) {
            return Err(ServeError::new(libc::EINVAL, format!("request at byte {offset} of {len} bytes is not in whole 512-byte sectors")));
        }
        Ok(())
    }

    /// Refuse a request beyond the export.
    pub(super) fn check_bounds(&self, offset: u64, len: u64) -> ServeResult<()> {
        if offset.checked_add(len).is_none_or(|end| end > self.capacity_bytes) {
            return Err(ServeError::new(libc::EINVAL, format!("request at byte {offset} of {len} bytes is beyond the export's {} bytes", self.capacity_bytes)));
        }
        Ok(())
    }

    /// Refuse a write the backing file system may not have room for (the write itself and the
    /// GC moves it may cause), before the drive changes anything. The file system's free space
    /// is read again only when the writes since the last look could have used half of what was
    /// then to spare, or a second has passed (a `statfs` per request was 6% of a 4 KiB write's
    /// time: BENCHMARKS.md, issue 24).
    pub(super) fn check_space(&self, len: u64) -> ServeResult<()> {
        let need = len.saturating_mul(2);
        let left = self.space_budget.fetch_sub(need.min(i64::MAX as u64) as i64, Ordering::Relaxed) - need as i64;
        let now_ms = self.clock.elapsed_ms();
        if left >= 0 && now_ms < self.space_checked_ms.load(Ordering::Relaxed) + 1000 {
            return Ok(());
        }
        let Some(free) = self.read_file.free_bytes() else {
            return Ok(()); // cannot tell: let the write try
        };
        self.space_checked_ms.store(now_ms, Ordering::Relaxed);
        let spare = free.saturating_sub(need + self.gc_headroom_bytes);
        self.space_budget.store((spare / 2).min(i64::MAX as u64) as i64, Ordering::Relaxed);
        if free < need + self.gc_headroom_bytes {
            return Err(ServeError::new(
                libc::ENOSPC,
                format!("{}: the file system has {free} bytes free, too little for this write and the moves it may cause", self.backing_path),
            ));
        }
        Ok(())
    }

    /// Refuse a write once the drive stopped taking writes (a failed operation, or a data
    /// failure).
    pub(super) fn fail_if_broken(state: &State) -> ServeResult<()> {
        if let Some(why) = &state.broken {
            return Err(ServeError::new(libc::EIO, format!("the drive stopped taking writes: {why}")));
        }
        match state.session.drive().data_failure() {
            Some(failure) => Err(ServeError::new(libc::EIO, format!("the drive stopped taking writes after a data failure: {failure}"))),
            None => Ok(()),
        }
    }

    /// An operation that changed the drive failed half-way: its record cannot be written, so
    /// the drive takes no more writes (the journal would no longer describe it).
    pub(super) fn broke(state: &mut State, e: Error) -> ServeError {
        state.broken.get_or_insert_with(|| e.to_string());
        ServeError::from(e)
    }
}
