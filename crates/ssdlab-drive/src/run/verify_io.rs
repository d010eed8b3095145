//! A run's commands in groups with fio's `verify`: writes noted in the host's record, reads
//! checked, and each job's verify phase started once its writes have completed.

use super::*;

impl Run {
    /// Submit stream `index`'s command `io` in a group with verify: a write notes what it put
    /// in its sectors in the host's record (and, for a job with a verify phase, its block in
    /// the job's list); a read-only job with verify checks the block it reads.
    pub(super) fn submit_verified(&mut self, drive: &mut Drive, index: usize, io: &Io, from: ContentFrom, at_ns: Nanoseconds) -> Result<Nanoseconds> {
        let needs_content = self.needs_content;
        let stream = &mut self.streams[index];
        self.written_ids.clear();
        let done_ns = match (from, stream.verify.is_some() && io.op == Op::Write && needs_content) {
            (ContentFrom::Ahead, true) if needs_content => {
                drive.submit_with(io, at_ns, &mut Recording { inner: stream.lookahead.contents(), ids: &mut self.written_ids })?
            }
            (_, true) => drive.submit_with(io, at_ns, &mut Recording { inner: &mut stream.content, ids: &mut self.written_ids })?,
            (ContentFrom::Ahead, false) if needs_content => drive.submit_with(io, at_ns, stream.lookahead.contents())?,
            (_, false) => drive.submit_with(io, at_ns, &mut stream.content)?,
        };
        match (stream.verify.as_mut(), io.op) {
            (Some(v), Op::Write) => {
                if !needs_content {
                    // The page FTL keeps the drive's tag of each sector: sector i of this write
                    // has the first tag plus i.
                    let first = drive.last_write_first_tag();
                    self.written_ids.extend((0..crate::drive::SectorSpan::of(io).sectors()).map(|i| first + i));
                }
                crate::verify::record_write(drive, io, Some(&self.written_ids));
                v.wrote(io.offset_bytes, io.len_bytes);
            }
            (Some(v), Op::Read) if v.checks_reads() => {
                // verify_fatal: the job issues nothing after its first failed block.
                let failed = v.check(drive, io);
                stream.stopped |= failed && v.counts.stopped_at_failure;
            }
            (None, Op::Write) => crate::verify::record_write(drive, io, None),
            _ => {}
        }
        if let Some(v) = stream.verify.as_mut() {
            v.outstanding += 1;
        }
        Ok(done_ns)
    }

    /// Submit the next block of stream `index`'s verify phase (lowest offset first) and check
    /// it. Returns whether there was one; the job ends after its last.
    pub(super) fn submit_verify_read(&mut self, drive: &mut Drive, index: usize, arrival_ns: Nanoseconds, at_ns: Nanoseconds) -> Result<bool> {
        let stream = &mut self.streams[index];
        let Some(v) = stream.verify.as_mut() else { return Ok(false) };
        let Some((offset, len)) = v.next_block().filter(|_| v.phase == Phase::Reading) else {
            v.phase = Phase::Done;
            stream.stopped = true;
            if stream.job.exitall {
                self.stop_issuing(at_ns);
            }
            return Ok(false);
        };
        self.submit_check_read(drive, index, arrival_ns, at_ns, Io { op: Op::Read, offset_bytes: offset, len_bytes: len })
    }

    /// Check and submit `io`, a read of a block stream `index` wrote (its verify phase, or its
    /// verify_backlog); with verify_fatal, the job stops at its first failed block.
    pub(super) fn submit_check_read(&mut self, drive: &mut Drive, index: usize, arrival_ns: Nanoseconds, at_ns: Nanoseconds, io: Io) -> Result<bool> {
        let stream = &mut self.streams[index];
        let Some(v) = stream.verify.as_mut() else { return Ok(false) };
        if v.check(drive, &io) && v.counts.stopped_at_failure {
            v.phase = Phase::Done;
            stream.stopped = true;
        }
        v.outstanding += 1;
        let done_ns = drive.submit_with(&io, at_ns, &mut stream.content)?;
        self.note_in_flight(index, &io, at_ns, arrival_ns, done_ns);
        Ok(true)
    }

    /// A command completed (groups with verify): once a job's writes have all completed, its
    /// verify phase starts at `at_ns` with `iodepth` reads (fio's `do_verify`
    /// after `do_io`). A job whose write phase ended at its runtime has none (fio ends it).
    pub(super) fn start_verify_phases(&mut self, drive: &mut Drive, at_ns: Nanoseconds) -> Result<()> {
        for index in 0..self.streams.len() {
            let stream = &self.streams[index];
            let Some(v) = stream.verify.as_ref() else { continue };
            if v.phase != Phase::Draining || v.outstanding > 0 || stream.stopped || self.stopped_issuing {
                continue;
            }
            // Commands of the job still held by the host come first.
            if self.host_queue.iter().any(|&(_, i, _)| i == index) || self.pending.iter().any(|Reverse((_, _, i, _))| *i == index) {
                continue;
            }
            let depth = stream.job.iodepth;
            if let Some(v) = self.streams[index].verify.as_mut() {
                v.phase = Phase::Reading;
                v.counts.phase_ran = true;
            }
            for _ in 0..depth {
                self.issue(drive, index, at_ns)?;
            }
        }
        Ok(())
    }
}
