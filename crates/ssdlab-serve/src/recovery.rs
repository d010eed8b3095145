//! Checkpoints and recovery.
//!
//! A checkpoint is the whole drive state (mapping, chunk table and reference counts, block
//! metadata and free pools, wear, counters) plus the extent table and the server's clocks,
//! written after a flush. Recovery loads the newest checkpoint (or builds the factory-fresh
//! drive from the header's seed when there is none), then redoes every intact journal record
//! after it through the drive's own FTL, in sequence order, without reading data: a record
//! carries what the FTL's choices depend on. Each redone record's outcome (free blocks, GC
//! moves, live sectors) must equal what the record says; any difference stops recovery with a
//! message rather than serving a map that may not match the data. A torn batch ends the
//! journal: it is discarded and reported, and the journal continues from there (the next batch
//! overwrites it), so start-up after a cut costs only the recovery itself.

use crate::backing::BackingFile;
use crate::extents::ExtentEvent;
use crate::extents::{ExtentTable, Extents};
use crate::generated::Generated;
use crate::journal::{Check, CutReport, Op, Record};
use crate::placement::{self, DigestPlane, PlacementHash};
use serde::{Deserialize, Serialize};
use ssdlab_core::{bail, Error, Nanoseconds, Result};
use ssdlab_drive::{Drive, DriveOptions, Session};
use ssdlab_profile::Profile;
use std::time::Instant;

/// What a checkpoint holds before the drive's own state ([`Drive::save_state`], which follows
/// it in the same stream).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct CheckpointHead {
    /// The session's present.
    pub now_ns: Nanoseconds,
    /// When the last operation before the checkpoint completed.
    pub last_done_ns: Nanoseconds,
    /// Sequence number of the next record.
    pub next_seq: u64,
    /// The extent table.
    pub extents: ExtentTable,
}

/// What a recovery found and did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RecoveryReport {
    /// Bytes of the checkpoint it started from (0: the factory-fresh drive).
    pub checkpoint_bytes: u64,
    /// Journal batches read intact.
    pub batches: u64,
    /// Journal bytes read.
    pub journal_bytes_read: u64,
    /// Records redone.
    pub records_replayed: u64,
    /// 4 KiB sectors written by the redone records.
    pub sectors_recovered: u64,
    /// TRIMs redone.
    pub trims_replayed: u64,
    /// Why part of the journal was discarded (a torn or damaged batch), if it was.
    pub discarded: Option<String>,
    /// Why the header came from the other slot (one was damaged), if it did.
    pub header_fallback: Option<String>,
    /// What the drive lost at the power cut the journal records, if one does.
    pub power_cut: Option<CutReport>,
    /// Extents no recovered block uses (stale data given back).
    pub extents_released: u32,
    /// Of which: reading and loading the checkpoint, milliseconds.
    pub checkpoint_ms: f64,
    /// Of which: reading the journal, milliseconds.
    pub scan_ms: f64,
    /// Of which: redoing the records, milliseconds.
    pub replay_ms: f64,
    /// Wall time of recovery, milliseconds.
    pub wall_ms: f64,
}

impl std::fmt::Display for RecoveryReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "from a checkpoint of {} bytes and {} journal batches ({} bytes): {} records redone ({} sectors written, {} trims), {} stale extents released, in {:.0} ms (checkpoint {:.0}, journal {:.0}, redo {:.0})",
            self.checkpoint_bytes,
            self.batches,
            self.journal_bytes_read,
            self.records_replayed,
            self.sectors_recovered,
            self.trims_replayed,
            self.extents_released,
            self.wall_ms,
            self.checkpoint_ms,
            self.scan_ms,
            self.replay_ms
        )?;
        if let Some(cut) = &self.power_cut {
            write!(f, "; at the power cut: {cut}")?;
        }
        if let Some(why) = &self.header_fallback {
            write!(f, "; {why}")?;
        }
        match &self.discarded {
            Some(why) => write!(f, "; discarded the rest of the journal: {why}"),
            None => Ok(()),
        }
    }
}

/// A drive brought back from its backing file.
pub(crate) struct Restored {
    pub session: Session,
    pub extents: Extents,
    pub last_done_ns: Nanoseconds,
    pub next_seq: u64,
    /// The sectors a server-side precondition generated, as of the last record redone.
    pub generated: Option<Generated>,
    /// Set when the file was not shut down cleanly and the journal was redone.
    pub report: Option<RecoveryReport>,
}

/// The figures a record's check compares: the drive's counts and the placement digest of the
/// operation (the data plane's hash of it, its extent changes, where the sectors it wrote lie).
pub(crate) fn check_of(session: &Session, plane: PlacementHash, events: &[ExtentEvent], written: Option<(u64, u64)>) -> Check {
    let t = session.drive().translation();
    Check {
        free_blocks: t.free_blocks_total(),
        gc_moved: t.gc_moved(),
        live_sectors: t.live_data_sectors(),
        placement: placement::digest(plane, events, t, written),
    }
}

/// The bytes a record's operation wrote, for its placement digest.
pub(crate) fn written(op: &Op) -> Option<(u64, u64)> {
    match op {
        Op::Write { offset, len, .. } => Some((*offset, *len)),
        _ => None,
    }
}

/// Redo one record on `session` (no data plane attached). Returns its completion time.
pub(crate) fn redo(session: &mut Session, record: &Record) -> Result<Nanoseconds> {
    match &record.op {
        Op::Write { offset, len, sectors } => {
            let mut contents = sectors.iter().map(|s| s.content()).collect();
            session.write_contents_at(*offset, *len, &mut contents, record.at_ns)
        }
        Op::Trim { offset, len } => session.trim_at(*offset, *len, record.at_ns),
        Op::Flush => Ok(session.flush_at(record.at_ns)),
        Op::Cut(_) => Ok(record.at_ns),
    }
}

/// Restore the drive of `backing`: from its newest checkpoint and journal, or factory-fresh.
pub(crate) fn restore(backing: &mut BackingFile, profile: Profile, options: DriveOptions) -> Result<Restored> {
    let started = Instant::now();
    let path = backing.path().to_string();
    let header = backing.header().clone();
    let blocks = backing.layout().blocks;
    let mut generated = None;
    let (mut session, table, mut last_done_ns, mut next_seq, checkpoint_bytes) = match backing.read_checkpoint()? {
        Some(bytes) => {
            let mut rest = bytes.as_slice();
            let head: CheckpointHead =
                bincode::deserialize_from(&mut rest).map_err(|e| Error::Io(format!("{path}: the checkpoint cannot be read ({e}); damaged file")))?;
            if head.extents.map.len() != blocks as usize {
                bail!(Io, "{path}: the checkpoint's extent table has {} blocks, the drive {blocks} (damaged file)", head.extents.map.len());
            }
            let drive = Drive::load(profile, options, &mut rest).map_err(|e| Error::Io(format!("{path}: {e}")))?;
            generated = Generated::read_from(&mut rest).map_err(|e| Error::Io(format!("{path}: {e}")))?;
            (Session::from_drive(drive, header.seed, head.now_ns), head.extents, head.last_done_ns, head.next_seq, bytes.len() as u64)
        }
        None => (Session::new(profile, options, header.seed)?, ExtentTable::empty(blocks), 0, 0, 0),
    };
    let checkpoint_ms = started.elapsed().as_secs_f64() * 1e3;
    let extents = backing.extents(table)?;
    let scan = backing.scan_journal()?;
    let scan_ms = started.elapsed().as_secs_f64() * 1e3 - checkpoint_ms;
    if header.clean && !scan.records.is_empty() {
        bail!(Io, "{path}: the header says the drive was shut down cleanly, yet the journal holds records after its checkpoint (damaged file)");
    }
    let mut report = RecoveryReport {
        checkpoint_bytes,
        batches: scan.batches,
        journal_bytes_read: scan.bytes_read,
        discarded: scan.discarded,
        header_fallback: backing.header_note().map(str::to_string),
        checkpoint_ms,
        scan_ms,
        ..Default::default()
    };
    let replay_started = Instant::now();
    // Redone with a data plane that only hashes where the drive puts data.
    let (plane, hash) = DigestPlane::new();
    session.drive_mut().attach_data_plane(Box::new(plane));
    // Blocks emptied while programmed are hashed after each record, as the server recycled
    // their extents at the end of each operation (crate::extents::Extents::recycle_emptied).
    session.drive_mut().track_emptied_blocks(true);
    let mut emptied = Vec::new();
    for record in &scan.records {
        *hash.lock().unwrap_or_else(|p| p.into_inner()) = PlacementHash::default();
        if record.seq != next_seq {
            bail!(Io, "{path}: journal record {} follows record {} (a gap in the sequence: damaged journal); refusing", record.seq, next_seq.wrapping_sub(1));
        }
        let done = redo(&mut session, record).map_err(|e| Error::Io(format!("{path}: recovery cannot redo record {}: {e}", record.seq)))?;
        emptied.clear();
        session.drive_mut().take_emptied_blocks(&mut emptied);
        {
            let mut hash = hash.lock().unwrap_or_else(|p| p.into_inner());
            for &block in &emptied {
                hash.emptied(block);
            }
        }
        extents.apply_events(&record.extents).map_err(|e| Error::Io(format!("{path}: record {}: {e} (damaged journal)", record.seq)))?;
        if let Some(g) = generated.as_mut() {
            match &record.op {
                Op::Write { offset, len, .. } => g.written(*offset, *len),
                Op::Trim { offset, len } => g.trimmed(*offset, *len),
                Op::Flush | Op::Cut(_) => {}
            }
        }
        if let Op::Cut(cut) = &record.op {
            // The drive lost power here; the operations it lost are not in the journal.
            report.power_cut = Some(cut.clone());
        } else {
            // Nothing is journaled after a cut until a start recovered from it: a record after
            // the cut means that start reported it, and this recovery follows a later stop.
            report.power_cut = None;
            let plane = *hash.lock().unwrap_or_else(|p| p.into_inner());
            let got = check_of(&session, plane, &record.extents, written(&record.op));
            if got.placement != record.check.placement {
                bail!(
                    Io,
                    "{path}: recovery diverged at record {}: redoing it put data elsewhere than the drive did (placement digest {:016x}, the record says {:016x}); refusing to serve a map that may not match the data",
                    record.seq,
                    got.placement,
                    record.check.placement
                );
            }
            if got != record.check {
                bail!(
                    Io,
                    "{path}: recovery diverged at record {}: the journal says {:?} after it, redoing it gives {:?}; refusing to serve a map that may not match the data",
                    record.seq,
                    record.check,
                    got
                );
            }
        }
        last_done_ns = last_done_ns.max(done);
        next_seq += 1;
        report.records_replayed += 1;
        match &record.op {
            Op::Write { sectors, .. } => report.sectors_recovered += sectors.len() as u64,
            Op::Trim { .. } => report.trims_replayed += 1,
            Op::Flush | Op::Cut(_) => {}
        }
    }
    report.replay_ms = replay_started.elapsed().as_secs_f64() * 1e3;
    // Extents are sized whole when first used and the file never shrinks: a file that ends
    // before its last extent was cut short, and what was in the missing part is gone.
    let needed = backing.layout().extent_offset(extents.table().count);
    if backing.file_len()? < needed {
        bail!(
            Io,
            "{path}: the backing file ends before its data does ({} bytes, the data region needs {needed}): it was truncated; refusing",
            backing.file_len()?
        );
    }
    session.advance_to(last_done_ns);
    report.wall_ms = started.elapsed().as_secs_f64() * 1e3;
    // A new file is not a recovery, though its header is not marked clean yet.
    let report = (!header.clean && backing.existed()).then_some(report);
    Ok(Restored { session, extents, last_done_ns, next_seq, generated, report })
}

#[cfg(test)]
mod tests {
    use crate::journal::{self, BatchHead, BATCH_HEADER_BYTES};
    use crate::layout::JOURNAL_OFFSET;
    use crate::{ServeConfig, Server};
    use std::os::unix::fs::FileExt;

    fn tiny(path: &std::path::Path, reduction: bool) -> ServeConfig {
        ServeConfig {
            overrides: [
                "nand.channels=1",
                "nand.packages_per_channel=1",
                "nand.dies_per_package=2",
                "nand.blocks_per_plane=24",
                "nand.pages_per_block=16",
                "drive.capacity_bytes_user=8388608",
                "controller.map_cache_bytes=0",
                "reduction.dedup_index_entries=65536",
            ]
            .iter()
            .map(|s| s.to_string())
            .chain([format!("reduction.enabled={reduction}")])
            .collect(),
            ..ServeConfig::new("force-gs-240", &path.to_string_lossy())
        }
    }

    /// Rewrite the first journal batch of `path` with `change` applied to its records, with a
    /// valid checksum.
    fn alter_first_batch(path: &std::path::Path, epoch: u64, change: impl FnOnce(&mut Vec<crate::Record>)) {
        let file = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
        let mut head = [0u8; BATCH_HEADER_BYTES];
        file.read_exact_at(&mut head, JOURNAL_OFFSET).unwrap();
        let BatchHead::Batch { body_bytes, crc32 } = journal::read_head(&head, epoch, 0) else { panic!("no first batch") };
        let mut body = vec![0u8; body_bytes as usize];
        file.read_exact_at(&mut body, JOURNAL_OFFSET + BATCH_HEADER_BYTES as u64).unwrap();
        let mut records = journal::decode_body(&head, &body, crc32).unwrap();
        change(&mut records);
        let batch = journal::encode_batch(epoch, 0, &records);
        assert_eq!(batch.len() as u64, journal::batch_bytes(body_bytes), "the altered batch keeps its size");
        file.write_all_at(&batch, JOURNAL_OFFSET).unwrap();
    }

    #[test]
    fn a_record_whose_placement_was_altered_is_refused_by_name() {
        for reduction in [false, true] {
            let dir = std::env::temp_dir().join(format!("ssdlab-placement-{}-{reduction}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("drive.img");
            let cfg = tiny(&path, reduction);
            let server = Server::start(&cfg).unwrap();
            for i in 0..64u64 {
                let data: Vec<u8> = (0..4096u64).map(|b| (b * 31 + i * 7 + (b >> 5) * i) as u8).collect();
                server.write(&data, (i * 13 % 2000) * 4096, false).unwrap();
            }
            server.flush().unwrap();
            drop(server); // killed: the journal is redone at the next start
                          // An intact journal recovers.
            let server = Server::start(&cfg).unwrap();
            assert!(server.recovery().is_some());
            drop(server);
            // One extent change of one record moved to another extent: the counts it checks are
            // the same, its place is not.
            let mut altered = None;
            alter_first_batch(&path, 0, |records| {
                let r = records.iter_mut().find(|r| !r.extents.is_empty()).expect("a record assigning an extent");
                r.extents[0].1 += 7;
                altered = Some(r.seq);
            });
            let seq = altered.unwrap();
            let refused = Server::start(&cfg).err().unwrap_or_else(|| panic!("reduction {reduction}: an altered placement was served"));
            let message = refused.to_string();
            assert!(message.contains(&format!("record {seq}")) && message.contains("placement"), "{message}");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
