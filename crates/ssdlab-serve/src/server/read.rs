//! READ (the data located under the drive's lock, read after it) and the extents query.

use super::preconditioning;
use super::{Server, State};
use crate::journal::RecordEncoder;
use crate::read_plan::ReadPlan;
use crate::ServeError;
use crate::ServeResult;
use ssdlab_ftl::DataLocation;
use ssdlab_reduce::SECTOR_BYTES;
use ssdlab_workload::{Io, Op as IoOp};
use std::cell::RefCell;

thread_local! {
    /// Each serving thread's read plan, reused from one request to the next.
    static READ_PLAN: RefCell<ReadPlan> = RefCell::new(ReadPlan::default());
}

/// The kind of an extent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtentKind {
    /// Holds data.
    Data,
    /// Never written, trimmed or zeros: a hole that reads as zeros.
    HoleZero,
}

impl Server {
    /// Read `buf.len()` bytes at `offset`. Under the drive's lock only the simulated read is
    /// booked and the data located; the bytes are read and decoded after it (crate::read_plan).
    pub fn read(&self, buf: &mut [u8], offset: u64) -> ServeResult<()> {
        let visit = self.clock.visit();
        let arrived = visit.arrived_ns();
        self.check_range(offset, buf.len() as u64)?;
        if buf.is_empty() {
            return Ok(());
        }
        READ_PLAN.with(|plan| {
            let mut plan = plan.borrow_mut();
            loop {
                let located = {
                    let mut state = self.lock()?;
                    let at = self.arrival(&mut state, arrived);
                    if state.session.drive().read_needs_program(offset, buf.len() as u64) {
                        // Data still in a partly filled unit is programmed before it is read
                        // (no read completes before its data's program): a flush, journaled so
                        // that recovery redoes it. Its commit is done outside the lock and
                        // before the extent gate is taken (a commit may release extents, which
                        // waits for the gate's readers), then the read starts again.
                        Self::fail_if_broken(&state)?;
                        RecordEncoder::flush(Self::begin_record(&mut state, at));
                        state.session.flush_at(at);
                        self.end_record(&mut state, None)?;
                        Err(std::mem::take(&mut state.jobs))
                    } else {
                        let State { session, extents, generated, .. } = &mut *state;
                        let generated = generated.as_ref().filter(|g| g.any_in(offset, buf.len() as u64));
                        plan.locate(session.drive().translation(), extents, offset, buf.len() as u64, &|lba| generated.is_some_and(|g| g.contains(lba)))
                            .map_err(|e| ServeError::new(libc::EIO, format!("cannot locate the data of a read at byte {offset}: {e}")))?;
                        let fill = generated.map(|g| preconditioning::generated_in(g, offset, buf.len() as u64));
                        let io = Io { op: IoOp::Read, offset_bytes: offset, len_bytes: buf.len() as u64 };
                        let now = session.now_ns();
                        let done = session.drive_mut().submit(&io, at.max(now))?;
                        state.stats.record_read(at, done, buf.len() as u64);
                        state.last_done_ns = state.last_done_ns.max(done);
                        Ok((done, fill, self.gate.read().unwrap_or_else(|p| p.into_inner())))
                    }
                };
                match located {
                    Err(jobs) => self.finish_jobs(jobs)?,
                    Ok((done, fill, gate)) => {
                        plan.read_into(&*self.read_file, buf).map_err(|e| ServeError::new(libc::EIO, format!("cannot read the data at byte {offset}: {e}")))?;
                        drop(gate);
                        if let Some(fill) = fill {
                            preconditioning::fill(&fill, offset, buf);
                        }
                        self.wait_until(done);
                        return Ok(());
                    }
                }
            }
        })
    }

    /// The extents of `[offset, offset + len)`: runs of data and of holes that read as zeros.
    pub fn extents(&self, len: u64, offset: u64) -> ServeResult<Vec<(u64, u64, ExtentKind)>> {
        let end = offset.saturating_add(len).min(self.capacity_bytes);
        if offset >= end {
            return Err(ServeError::new(libc::EINVAL, format!("extents at byte {offset} beyond the export")));
        }
        let state = self.lock()?;
        let translation = state.session.drive().translation();
        let sector = SECTOR_BYTES as u64;
        let mut out: Vec<(u64, u64, ExtentKind)> = Vec::new();
        let mut lba = offset / sector;
        while lba * sector < end {
            let kind = match translation.data_location(lba) {
                DataLocation::Zeros => ExtentKind::HoleZero,
                DataLocation::At { .. } => ExtentKind::Data,
            };
            let from = (lba * sector).max(offset);
            let to = ((lba + 1) * sector).min(end);
            match out.last_mut() {
                Some(last) if last.2 == kind => last.1 += to - from,
                _ => out.push((from, to - from, kind)),
            }
            lba += 1;
        }
        Ok(out)
    }
}
