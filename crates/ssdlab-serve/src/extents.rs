//! The data region of a backing file: each erase block of the drive, while it holds data, lives
//! in one extent (a block-sized stretch of the file), found through the extent table.
//!
//! Why not at a fixed place: an erase only releases the block's extent once the journal that
//! stops referencing its old data is durable (the next synced commit). Until then the old data
//! stays where it was, and the block's next program goes to another extent. So whatever prefix
//! of the journal survives a crash, every block that prefix's map points into still holds the
//! data it had then: nothing a recovered drive reads was overwritten after the fact. (A real FTL
//! follows the same rule: a block is not erased until the map that no longer needs it is safe.)

use crate::host::HostFile;
use crate::host::DIRECT_ALIGN_BYTES;
use crate::layout::Layout;
use crate::placement::PlacementHash;
use serde::{Deserialize, Serialize};
use ssdlab_drive::{DataPlane, REGION_PREFIX_BYTES};
use ssdlab_reduce::{decompress_sector_into, SECTOR_BYTES};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockWriteGuard};

/// Extent table entry of a block that holds no data (erased or never written).
pub const NO_EXTENT: u32 = u32::MAX;

/// Which extent holds each block, and how many extents the file has used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtentTable {
    /// Per block: its extent, or [`NO_EXTENT`].
    pub map: Vec<u32>,
    /// Extents ever used (the data region's size in extents).
    pub count: u32,
}

impl ExtentTable {
    /// A table with no block holding data.
    pub fn empty(blocks: u32) -> Self {
        Self { map: vec![NO_EXTENT; blocks as usize], count: 0 }
    }
}

/// A change of the table: block `.0` now lives in extent `.1` (or [`NO_EXTENT`]: erased, or
/// emptied and recycled).
pub type ExtentEvent = (u32, u32);

/// Bytes of freed extents kept for reuse without punching their holes (their pages stay in the
/// page cache, so a run written into one overwrites cached pages instead of taking fresh ones:
/// on a virtual machine that hands free memory back to its host, a fresh page-cache page costs
/// a host fault, BENCHMARKS.md issue 24 round four); freed extents beyond it are punched.
pub const WARM_EXTENT_BYTES: u64 = 1 << 30;

/// A run is queued for writing once it holds this many contiguous bytes (one `pwrite`; the
/// kernel takes a write of 128 KiB into fresh page-cache pages several times faster per byte
/// than 16 KiB ones: BENCHMARKS.md, issue 24).
const RUN_BYTES: usize = 128 << 10;
/// Runs kept growing at once (one per open block the drive writes: host stripe and GC); the
/// oldest is queued when another starts.
const OPEN_RUNS: usize = 64;
/// Runs a draining request takes at a time when several drain at once (direct writes: each
/// waits for the disk, so several in flight keep it busy).
const DRAIN_RUNS: usize = 2;
/// Run buffers kept for reuse (freeing and allocating them in different threads left the
/// allocator holding more than it kept).
const SPARE_RUNS: usize = 96;
/// Most bytes of data waiting in memory (runs growing, queued or being written): a write that
/// takes more writes the queued runs out itself before its reply. When the kernel slows the
/// copies into the file down (its dirty-page limit), replies wait for them, rather than the
/// queue growing without bound (a 20 GiB fill measured 934 MiB peak RSS without this bound).
const WAITING_LIMIT_BYTES: usize = 8 << 20;

/// Contiguous bytes waiting to be written at file offset `at` (resolved when the bytes were
/// stored, so a later erase or extent change does not move them). A run never crosses a
/// boundary of [`RUN_BYTES`] in the file, so a full run is one whole aligned unit, written
/// bypassing the page cache where the file offers that ([`write_run`]; the real file does only
/// when asked: `serve --direct-data`, [`crate::ServeConfig::direct_data`]).
struct Run {
    at: u64,
    /// The buffer, [`RUN_BYTES`] plus room to start at an aligned address.
    buffer: Vec<u8>,
    /// Where the aligned bytes start in `buffer`.
    start: usize,
    /// Bytes held.
    len: usize,
}

impl Run {
    fn end(&self) -> u64 {
        self.at + self.len as u64
    }

    fn bytes(&self) -> &[u8] {
        &self.buffer[self.start..self.start + self.len]
    }

    /// Room left before the next unit boundary.
    fn room(&self) -> usize {
        RUN_BYTES - (self.end() % RUN_BYTES as u64) as usize
    }
}

/// A run buffer: [`RUN_BYTES`] at an address aligned for direct writes.
fn run_buffer() -> Vec<u8> {
    vec![0u8; RUN_BYTES + DIRECT_ALIGN_BYTES]
}

/// Bytes of data the file took, by how they were written.
#[derive(Default)]
struct WriteCounts {
    /// Whole aligned units written bypassing the page cache.
    direct: AtomicU64,
    /// Runs written through the page cache (partial units at commits, reads and power cuts,
    /// or every run where the file refuses direct writes).
    buffered: AtomicU64,
}

/// Write `run` to `file`: directly when it is a whole aligned unit and the file allows it,
/// through the page cache otherwise.
fn write_run(file: &dyn HostFile, run: &Run, counts: &WriteCounts) -> std::io::Result<()> {
    let bytes = run.bytes();
    if run.len == RUN_BYTES && file.write_direct_at(bytes, run.at)? {
        counts.direct.fetch_add(run.len as u64, Ordering::Relaxed);
        return Ok(());
    }
    file.write_all_at(bytes, run.at)?;
    counts.buffered.fetch_add(run.len as u64, Ordering::Relaxed);
    Ok(())
}

struct Shared {
    file: Arc<dyn HostFile>,
    layout: Layout,
    table: ExtentTable,
    /// Free extents whose holes were punched (or never written); the lowest is used first,
    /// after every warm one.
    free: std::collections::BinaryHeap<std::cmp::Reverse<u32>>,
    /// Free extents not punched (their pages likely still cached), the most recently freed
    /// last and used first; at most [`WARM_EXTENT_BYTES`] of them.
    warm: Vec<u32>,
    /// Per block: emptied while programmed and its extent recycled, so it must never be read
    /// (cleared when the block gets an extent again, after its erase). A debug check.
    recycled: Vec<bool>,
    /// Counts reported by `stats`.
    tally: ExtentTally,
    /// Extents of blocks erased since the last synced commit, with the sequence number of the
    /// operation that erased them: released (their room given back, then reused) only once the
    /// journal that no longer needs them is durable.
    releasing: Vec<(u64, u32)>,
    /// Sequence number of the operation the drive is doing.
    seq: u64,
    /// Where the operation so far put data (taken per record).
    placement: PlacementHash,
    /// Table changes since the server last took them (they go into the operation's record).
    events: Vec<ExtentEvent>,
    /// Runs still growing (each continues where the drive's next program into the same block
    /// lands), oldest first.
    open: Vec<Run>,
    /// Whole runs waiting to be written by a request after it leaves the drive's lock
    /// ([`Extents::drain`]), or by whatever next needs the file to hold everything.
    ready: Vec<Run>,
    /// Buffers of runs written, kept for the next runs (no allocation per run).
    spare: Vec<Vec<u8>>,
    /// Bytes of the runs growing, queued or being written.
    waiting_bytes: usize,
    /// The most ever waiting (reported by `stats`).
    waiting_peak_bytes: usize,
    /// Power is off: nothing more reaches the file.
    dead: bool,
    /// Data bytes written directly and through the page cache.
    counts: Arc<WriteCounts>,
}

/// What happened to extents since start (`ssdlab stats`: `extents`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ExtentTally {
    /// Extents of blocks that came to hold no valid data while programmed, given up before
    /// the block's erase (recycled).
    pub recycled: u64,
    /// Extents given up at a block's erase.
    pub erased: u64,
    /// Extents taken for a block from the warm ones (not punched: pages likely cached).
    pub reused_warm: u64,
    /// Extents taken from the punched ones.
    pub reused_punched: u64,
    /// Extents added at the end of the file.
    pub grown: u64,
    /// Freed extents whose holes were punched (beyond the warm bound, or at a clean stop).
    pub punched: u64,
    /// Extents holding a block now.
    pub in_use: u64,
    /// Free extents not punched now.
    pub warm_now: u64,
}
/// The data region, shared by the drive (as its [`DataPlane`]) and the server (commits,
/// checkpoints, power cuts).
#[derive(Clone)]
pub struct Extents {
    shared: Arc<Mutex<Shared>>,
    /// Held (shared) by reads done outside the server's lock, from when they located their data
    /// until they have read it; taken (exclusive) before an extent's room is given back, so no
    /// read sees an extent punched or reused under it.
    gate: Arc<RwLock<()>>,
    /// Held shared while requests write runs outside the drive's lock ([`Extents::drain`]),
    /// and taken alone (before the shared state) by whatever needs the file to hold everything
    /// written so far.
    io: Arc<RwLock<()>>,
    /// The backing file, for writes and reads outside the shared state's lock.
    file: Arc<dyn HostFile>,
    /// Data bytes written directly and through the page cache.
    counts: Arc<WriteCounts>,
    /// Held by the one request that writes queued runs through the page cache
    /// ([`Extents::drain`]). Buffered writes to one file take its inode lock alone (ext4), so
    /// a second request writing at the same time only waits for it, spinning on the lock while
    /// the first copies: on 2 cores that spin took 11% of the machine under 4 KiB random writes
    /// (BENCHMARKS.md, issue 24 round five). Direct writes do not take it: each waits for the
    /// disk, and several in flight keep the disk busy.
    drainer: Arc<Mutex<()>>,
    /// Whether requests drain at the same time (the file takes direct writes: decided at start;
    /// a file that refuses them later keeps draining so, which is only slower).
    parallel_drains: bool,
}

/// The drive's handle on the data region.
pub struct FilePlane {
    extents: Extents,
}

fn punch(file: &Arc<dyn HostFile>, offset: u64, len: u64) -> std::io::Result<()> {
    file.punch_hole(offset, len)
}

/// The pieces of `len` bytes at physical address `addr`, one per erase block touched: the
/// block, the offset in it, and the range of the bytes.
fn block_pieces(addr: u64, len: usize, block_bytes: u64) -> impl Iterator<Item = (usize, u64, std::ops::Range<usize>)> {
    let mut done = 0usize;
    std::iter::from_fn(move || {
        if done >= len {
            return None;
        }
        let at = addr + done as u64;
        let (block, offset) = ((at / block_bytes) as usize, at % block_bytes);
        let n = ((block_bytes - offset) as usize).min(len - done);
        done += n;
        Some((block, offset, done - n..done))
    })
}

impl Shared {
    fn extent_of(&mut self, block: u32) -> u32 {
        let e = self.table.map[block as usize];
        if e != NO_EXTENT {
            return e;
        }
        let e = if let Some(e) = self.warm.pop() {
            self.tally.reused_warm += 1;
            e
        } else if let Some(std::cmp::Reverse(e)) = self.free.pop() {
            self.tally.reused_punched += 1;
            e
        } else {
            // A new extent at the end: the file grows to hold all of it (a hole until
            // written), so a region written only in part reads the rest as zeros.
            self.tally.grown += 1;
            self.table.count += 1;
            let _ = self.file.set_len(self.layout.extent_offset(self.table.count).max(self.file.len().unwrap_or(0)));
            self.table.count - 1
        };
        self.recycled[block as usize] = false;
        self.table.map[block as usize] = e;
        self.events.push((block, e));
        e
    }

    /// The file offset of physical byte `addr` (its block holds data), or `None`. A recycled
    /// block (emptied, its extent given up) is never read: nothing maps into it.
    fn file_offset(&self, block: usize, offset: u64) -> Option<u64> {
        debug_assert!(!self.recycled.get(block).copied().unwrap_or(false), "block {block} was emptied and its extent recycled, yet it is read");
        match self.table.map.get(block).copied() {
            Some(e) if e != NO_EXTENT => Some(self.layout.extent_offset(e) + offset),
            _ => None,
        }
    }

    /// Append `bytes` at file offset `at` to the run ending there, or start a run. A run's
    /// buffer is allocated once and never grows; a run ends at the next boundary of
    /// [`RUN_BYTES`] in the file (the bytes after it go to the next run), so buffers are all
    /// alike and reused, and a full run is one aligned unit.
    fn append(&mut self, mut at: u64, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let i = match self.open.iter().rposition(|r| r.end() == at && r.room() < RUN_BYTES) {
                Some(i) => i,
                None => {
                    if self.open.len() >= OPEN_RUNS {
                        let oldest = self.open.remove(0);
                        self.ready.push(oldest);
                    }
                    let buffer = self.spare.pop().unwrap_or_else(run_buffer);
                    let start = buffer.as_ptr().align_offset(DIRECT_ALIGN_BYTES);
                    self.open.push(Run { at, buffer, start, len: 0 });
                    self.open.len() - 1
                }
            };
            let run = &mut self.open[i];
            let n = run.room().min(bytes.len());
            let from = run.start + run.len;
            run.buffer[from..from + n].copy_from_slice(&bytes[..n]);
            run.len += n;
            let full = run.room() == RUN_BYTES;
            self.waiting_bytes += n;
            self.waiting_peak_bytes = self.waiting_peak_bytes.max(self.waiting_bytes);
            if full {
                let full = self.open.swap_remove(i);
                self.ready.push(full);
            }
            bytes = &bytes[n..];
            at += n as u64;
        }
    }

    fn recycle(&mut self, run: Run) {
        self.waiting_bytes -= run.len;
        if self.spare.len() < SPARE_RUNS {
            self.spare.push(run.buffer);
        }
    }

    /// Write every run waiting, queued or still growing (the caller holds the I/O lock, so no
    /// run is being written elsewhere: the file then holds everything).
    fn write_pending(&mut self) -> std::io::Result<()> {
        let mut result = Ok(());
        let runs: Vec<Run> = self.ready.drain(..).chain(self.open.drain(..)).collect();
        for run in runs {
            if result.is_ok() && !self.dead {
                result = write_run(&*self.file, &run, &self.counts);
            }
            self.recycle(run);
        }
        result
    }

    /// Write the runs holding any of the file's bytes `at..at + len` (the caller holds the I/O
    /// lock), so a read of those bytes from the file sees them.
    fn write_overlapping(&mut self, at: u64, len: u64) -> std::io::Result<()> {
        let end = at + len;
        let overlaps = |r: &Run| r.at < end && at < r.end();
        if !self.ready.iter().chain(&self.open).any(overlaps) {
            return Ok(());
        }
        let mut result = Ok(());
        for list in [0, 1] {
            let mut i = 0;
            loop {
                let runs = if list == 0 { &mut self.ready } else { &mut self.open };
                if i >= runs.len() {
                    break;
                }
                if !overlaps(&runs[i]) {
                    i += 1;
                    continue;
                }
                // Order among runs does not matter: no two waiting runs share a byte (flash is
                // written once between erases, and an extent is reused only after a commit
                // wrote everything out).
                let run = runs.remove(i);
                if result.is_ok() && !self.dead {
                    result = write_run(&*self.file, &run, &self.counts);
                }
                self.recycle(run);
            }
        }
        result
    }

    fn assign(&mut self, addr: u64, len: u64) {
        let block_bytes = self.layout.block_bytes;
        if len == 0 {
            return;
        }
        for block in addr / block_bytes..=(addr + len - 1) / block_bytes {
            self.extent_of(block as u32);
        }
    }
}

impl Extents {
    /// The data region of `file` with `table` (from a checkpoint, or empty).
    pub fn new(file: Arc<dyn HostFile>, layout: Layout, table: ExtentTable) -> Self {
        let counts = Arc::new(WriteCounts::default());
        let parallel_drains = file.direct_unavailable().is_none();
        let blocks = table.map.len();
        let mut shared = Shared {
            file: file.clone(),
            layout,
            table,
            free: Default::default(),
            warm: Vec::new(),
            recycled: vec![false; blocks],
            tally: ExtentTally::default(),
            releasing: Vec::new(),
            seq: 0,
            placement: PlacementHash::default(),
            events: Vec::new(),
            open: Vec::new(),
            ready: Vec::new(),
            spare: Vec::new(),
            waiting_bytes: 0,
            waiting_peak_bytes: 0,
            dead: false,
            counts: counts.clone(),
        };
        Self::rebuild_free(&mut shared);
        Self {
            shared: Arc::new(Mutex::new(shared)),
            gate: Arc::new(RwLock::new(())),
            io: Arc::new(RwLock::new(())),
            file,
            counts,
            drainer: Arc::new(Mutex::new(())),
            parallel_drains,
        }
    }

    fn rebuild_free(shared: &mut Shared) {
        let mut used = vec![false; shared.table.count as usize];
        for &e in &shared.table.map {
            if e != NO_EXTENT {
                used[e as usize] = true;
            }
        }
        shared.free = (0..shared.table.count).filter(|&e| !used[e as usize]).map(std::cmp::Reverse).collect();
        shared.warm.clear();
        shared.releasing.clear();
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The shared state once no run is being written elsewhere (the I/O lock held; the order
    /// is always I/O lock, then shared state).
    fn settled(&self) -> (RwLockWriteGuard<'_, ()>, MutexGuard<'_, Shared>) {
        let io = self.io.write().unwrap_or_else(|p| p.into_inner());
        (io, self.lock())
    }

    /// Write the runs waiting (called by a request after it left the drive's lock, so the copy
    /// into the file does not hold up other requests' simulation). Through the page cache one
    /// request drains at a time, taking every run queued, and a request that finds another
    /// draining leaves its runs to it (the drainer goes on until the queue is empty); direct
    /// writes drain in several requests at once, each taking a few runs (disjoint bytes; the
    /// I/O lock shared), so they reach the disk several at once.
    pub fn drain(&self) -> std::io::Result<()> {
        if self.parallel_drains {
            return self.drain_runs(DRAIN_RUNS);
        }
        loop {
            let drainer = match self.drainer.try_lock() {
                Ok(guard) => guard,
                Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => return Ok(()),
            };
            self.drain_runs(usize::MAX)?;
            drop(drainer);
            // A run queued by a request that found this one draining, after its last look at
            // the queue, is still there: drain again (a request queuing later finds no drainer).
            if self.lock().ready.is_empty() {
                return Ok(());
            }
        }
    }

    /// Write the runs waiting, waiting for a request draining now to finish first (a write
    /// that found more data waiting than [`WAITING_LIMIT_BYTES`]).
    fn drain_waiting(&self) -> std::io::Result<()> {
        if self.parallel_drains {
            return self.drain_runs(DRAIN_RUNS);
        }
        let _drainer = self.drainer.lock().unwrap_or_else(|p| p.into_inner());
        self.drain_runs(usize::MAX)
    }

    /// Write queued runs, at most `batch` at a time, until none is queued.
    fn drain_runs(&self, batch: usize) -> std::io::Result<()> {
        let _io = self.io.read().unwrap_or_else(|p| p.into_inner());
        loop {
            let runs: Vec<Run> = {
                let mut shared = self.lock();
                if shared.ready.is_empty() || shared.dead {
                    return Ok(());
                }
                let n = shared.ready.len().min(batch);
                shared.ready.drain(..n).collect()
            };
            self.write_and_recycle(runs)?;
        }
    }

    /// The drive's handle.
    pub fn plane(&self) -> FilePlane {
        FilePlane { extents: self.clone() }
    }

    /// Table changes since the last call.
    pub fn take_events(&self) -> Vec<ExtentEvent> {
        std::mem::take(&mut self.lock().events)
    }

    /// Apply changes recorded in the journal (recovery; the data is in the file already).
    pub fn apply_events(&self, events: &[ExtentEvent]) -> std::result::Result<(), String> {
        let mut shared = self.lock();
        for &(block, extent) in events {
            let Some(slot) = shared.table.map.get_mut(block as usize) else {
                return Err(format!("extent change names block {block}, beyond the drive's blocks"));
            };
            *slot = extent;
            if extent != NO_EXTENT {
                if extent >= (1 << 30) {
                    return Err(format!("extent change names extent {extent}, far beyond the file's data region"));
                }
                shared.table.count = shared.table.count.max(extent + 1);
            }
        }
        Ok(())
    }

    /// The gate reads outside the server's lock hold while they read (see [`Extents`]).
    pub fn gate(&self) -> Arc<RwLock<()>> {
        self.gate.clone()
    }

    /// The backing file, for reads outside any lock.
    pub fn file_for_reads(&self) -> Arc<dyn HostFile> {
        self.file.clone()
    }

    /// A locator of a read's regions: the data region's state held (once per request) while
    /// regions are located.
    pub fn locator(&self) -> Locator<'_> {
        let (io, shared) = self.settled();
        Locator { _io: io, shared }
    }

    /// After recovery: rebuild the free extents from the table, and give back the room of every
    /// extent no block uses (stale data of operations that did not survive).
    pub fn settle(&self) -> std::io::Result<u32> {
        let _gate = self.gate.write().unwrap_or_else(|p| p.into_inner());
        let mut shared = self.lock();
        Self::rebuild_free(&mut shared);
        let end = shared.layout.extent_offset(shared.table.count);
        if shared.file.len()? < end {
            shared.file.set_len(end)?;
        }
        let free: Vec<u32> = shared.free.iter().map(|r| r.0).collect();
        for &e in &free {
            punch(&shared.file, shared.layout.extent_offset(e), shared.layout.block_bytes)?;
        }
        Ok(free.len() as u32)
    }

    /// A copy of the table (for a checkpoint).
    pub fn table(&self) -> ExtentTable {
        self.lock().table.clone()
    }

    /// Extents waiting for a synced commit before their room is given back.
    pub fn releasing(&self) -> usize {
        self.lock().releasing.len()
    }

    /// Write out what is pending (ordering: data before the records that point at it). The
    /// runs are written with only the I/O lock held, so the drive may keep storing data
    /// meanwhile (a commit outside the drive's lock calls this).
    pub fn write_out(&self) -> std::io::Result<()> {
        let _io = self.io.write().unwrap_or_else(|p| p.into_inner());
        let runs: Vec<Run> = {
            let mut shared = self.lock();
            if shared.dead {
                return Ok(());
            }
            let Shared { ready, open, .. } = &mut *shared;
            ready.drain(..).chain(open.drain(..)).collect()
        };
        self.write_and_recycle(runs)
    }

    /// Write `runs` to the file in order (stopping at the first error), then give every run's
    /// buffer back to the pool, written or not; the caller holds the I/O lock.
    fn write_and_recycle(&self, runs: Vec<Run>) -> std::io::Result<()> {
        let mut result = Ok(());
        for run in &runs {
            if result.is_ok() {
                result = write_run(&*self.file, run, &self.counts);
            }
        }
        let mut shared = self.lock();
        for run in runs {
            shared.recycle(run);
        }
        result
    }

    /// Make everything written out so far durable (`fdatasync`; the file's journal and
    /// checkpoints too).
    pub fn sync_file(&self) -> std::io::Result<()> {
        if self.lock().dead {
            return Ok(());
        }
        self.file.sync_data()
    }

    /// The drive's next erases belong to the operation with sequence number `seq`; its
    /// placement digest starts.
    pub fn set_seq(&self, seq: u64) {
        let mut shared = self.lock();
        shared.seq = seq;
        shared.placement = PlacementHash::default();
    }

    /// The hash of where the drive put data since [`Extents::set_seq`].
    pub fn placement(&self) -> PlacementHash {
        self.lock().placement
    }

    /// Extents of blocks erased since the last call: given back ([`Extents::release_list`])
    /// once the journal that no longer needs them is durable.
    pub fn take_releasing(&self) -> Vec<u32> {
        self.take_releasing_before(u64::MAX)
    }

    /// Extents of blocks erased by operations before sequence number `seq` (those committed).
    pub fn take_releasing_before(&self, seq: u64) -> Vec<u32> {
        let mut shared = self.lock();
        let mut taken = Vec::new();
        shared.releasing.retain(|&(s, e)| {
            if s < seq {
                taken.push(e);
            }
            s >= seq
        });
        taken
    }

    /// Give back the room of every block erased so far (the journal that frees them is
    /// durable).
    pub fn release(&self) -> std::io::Result<()> {
        let releasing = self.take_releasing();
        self.release_list(releasing)
    }

    /// Give back the room of `extents` (the journal that frees them is durable): their holes
    /// punched, then free for reuse. Reads outside the lock are waited for (the gate).
    pub fn release_list(&self, extents: Vec<u32>) -> std::io::Result<()> {
        if extents.is_empty() {
            return Ok(());
        }
        let _gate = self.gate.write().unwrap_or_else(|p| p.into_inner());
        let mut shared = self.lock();
        if shared.dead {
            return Ok(());
        }
        let warm_limit = (WARM_EXTENT_BYTES / shared.layout.block_bytes).max(1) as usize;
        let mut result = Ok(());
        for e in extents {
            if shared.warm.len() < warm_limit {
                shared.warm.push(e);
                continue;
            }
            if result.is_ok() {
                result = punch(&shared.file, shared.layout.extent_offset(e), shared.layout.block_bytes);
            }
            shared.tally.punched += 1;
            // Given back even when the hole could not be punched: the extent is free either way.
            shared.free.push(std::cmp::Reverse(e));
        }
        result
    }

    /// Punch the holes of the warm free extents (a clean stop: the stopped file's allocated
    /// size is what the drive stores).
    pub fn punch_warm(&self) -> std::io::Result<()> {
        let _gate = self.gate.write().unwrap_or_else(|p| p.into_inner());
        let mut shared = self.lock();
        if shared.dead {
            return Ok(());
        }
        let mut result = Ok(());
        while let Some(e) = shared.warm.pop() {
            if result.is_ok() {
                result = punch(&shared.file, shared.layout.extent_offset(e), shared.layout.block_bytes);
            }
            shared.tally.punched += 1;
            shared.free.push(std::cmp::Reverse(e));
        }
        result
    }

    /// Blocks the drive emptied while they were programmed (no valid data left, not erased:
    /// their content can never be read again) give up their extents, as an erase does: each
    /// goes into the operation's extent changes and placement digest, and its room is given
    /// back after the next synced commit (so no journal prefix recovery may replay still points
    /// into it). The block stays programmed in the drive; its erase later has nothing to give
    /// back. Called under the drive's lock at the end of each operation (and of a checkpoint's
    /// flush), with what [`ssdlab_drive::Drive::take_emptied_blocks`] listed.
    pub fn recycle_emptied(&self, blocks: &[u32]) {
        if blocks.is_empty() {
            return;
        }
        let mut shared = self.lock();
        if shared.dead {
            return;
        }
        for &block in blocks {
            shared.placement.emptied(block);
            let Some(slot) = shared.table.map.get_mut(block as usize) else { continue };
            let e = std::mem::replace(slot, NO_EXTENT);
            if e != NO_EXTENT {
                let seq = shared.seq;
                shared.releasing.push((seq, e));
                shared.events.push((block, NO_EXTENT));
                shared.recycled[block as usize] = true;
                shared.tally.recycled += 1;
            }
        }
    }

    /// Extents waiting for release that belong to operations before sequence number `seq`.
    pub fn releasing_before(&self, seq: u64) -> usize {
        self.lock().releasing.iter().filter(|r| r.0 < seq).count()
    }

    /// What happened to extents since start, and how many are in use and warm now.
    pub fn tally(&self) -> ExtentTally {
        let shared = self.lock();
        let mut tally = shared.tally;
        tally.in_use = shared.table.map.iter().filter(|&&e| e != NO_EXTENT).count() as u64;
        tally.warm_now = shared.warm.len() as u64;
        tally
    }

    /// Power is off: a program in flight is torn (the first half of the newest run reaches the
    /// file, the rest does not), runs not yet written are lost, and nothing more is written.
    pub fn cut_power(&self) {
        let (_io, mut shared) = self.settled();
        if let Some(newest) = shared.open.pop() {
            let half = newest.len / 2;
            let _ = shared.file.write_all_at(&newest.bytes()[..half], newest.at);
            shared.recycle(newest);
        }
        let lost: Vec<Run> = {
            let Shared { ready, open, .. } = &mut *shared;
            ready.drain(..).chain(open.drain(..)).collect()
        };
        for run in lost {
            shared.recycle(run);
        }
        shared.dead = true;
    }

    /// Overwrite the `len` bytes at physical address `addr` with zeros in the file, durably (a
    /// fault of the power-cut lab: a program lost after the fact).
    pub fn zero_physical(&self, addr: u64, len: u64) -> std::io::Result<()> {
        self.write_out()?;
        let (_io, shared) = self.settled();
        let zeros = vec![0u8; len as usize];
        for (block, offset, range) in block_pieces(addr, len as usize, shared.layout.block_bytes) {
            if let Some(at) = shared.file_offset(block, offset) {
                shared.file.write_all_at(&zeros[range], at)?;
            }
        }
        shared.file.sync_data()
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

/// Locates a read's regions in the file ([`Extents::locator`]).
pub struct Locator<'a> {
    _io: RwLockWriteGuard<'a, ()>,
    shared: MutexGuard<'a, Shared>,
}

impl Locator<'_> {
    /// Where the `len` bytes at physical address `addr` lie in the file: appended to `out` as
    /// (file offset, bytes), the offset `None` for a block holding no data (reads as zeros).
    /// Data still waiting in memory there is written out first, so the file holds what is
    /// located.
    pub fn locate(&mut self, addr: u64, len: u64, out: &mut Vec<(Option<u64>, usize)>) -> std::io::Result<()> {
        let shared = &mut *self.shared;
        let waiting = !shared.open.is_empty() || !shared.ready.is_empty();
        for (block, offset, range) in block_pieces(addr, len as usize, shared.layout.block_bytes) {
            if block >= shared.table.map.len() {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("block {block} is beyond the drive")));
            }
            let at = shared.file_offset(block, offset);
            if let (Some(at), true) = (at, waiting) {
                shared.write_overlapping(at, range.len() as u64)?;
            }
            out.push((at, range.len()));
        }
        Ok(())
    }
}

impl FilePlane {
    /// Store `bytes` at physical address `addr` (a run waiting for its copy into the file).
    fn store_bytes(&mut self, addr: u64, bytes: &[u8]) -> std::io::Result<()> {
        {
            let mut shared = self.extents.lock();
            if shared.dead {
                return Ok(());
            }
            shared.assign(addr, bytes.len() as u64);
            for (block, offset, range) in block_pieces(addr, bytes.len(), shared.layout.block_bytes) {
                let at = shared.file_offset(block, offset).expect("extents are assigned when a write is accepted");
                shared.append(at, &bytes[range]);
            }
            if shared.waiting_bytes <= WAITING_LIMIT_BYTES {
                return Ok(());
            }
        }
        self.extents.drain_waiting()
    }
}

impl DataPlane for FilePlane {
    fn write_at(&mut self, addr: u64, bytes: &[u8]) -> std::io::Result<()> {
        self.extents.lock().placement.store(addr, bytes.len() as u64);
        self.store_bytes(addr, bytes)
    }

    fn write_region(&mut self, addr: u64, region_bytes: u64, payload: &[u8]) -> std::io::Result<()> {
        if region_bytes == SECTOR_BYTES as u64 && payload.len() == SECTOR_BYTES {
            // A sector stored raw: its bytes as they are (no region to build, and none zeroed
            // first: that memset was 1.4% of a 128 KiB sequential write's samples).
            self.extents.lock().placement.store(addr, region_bytes);
            return self.store_bytes(addr, payload);
        }
        // The region's bytes (docs: ssdlab_drive::encode_region) built on the stack: no
        // allocation per stored sector.
        let mut region = [0u8; SECTOR_BYTES];
        let bytes: &[u8] = if region_bytes == SECTOR_BYTES as u64 {
            match payload.len() {
                0 => &region,
                _ => {
                    decompress_sector_into(payload, &mut region).map_err(std::io::Error::other)?;
                    &region
                }
            }
        } else {
            let n = REGION_PREFIX_BYTES + payload.len();
            if n as u64 > region_bytes || region_bytes > SECTOR_BYTES as u64 {
                return Err(std::io::Error::other(format!(
                    "a {}-byte compressed sector and its {REGION_PREFIX_BYTES}-byte length do not fit its {region_bytes}-byte region",
                    payload.len()
                )));
            }
            region[..REGION_PREFIX_BYTES].copy_from_slice(&(payload.len() as u32).to_le_bytes());
            region[REGION_PREFIX_BYTES..n].copy_from_slice(payload);
            // The whole region, its unused tail as zeros: the next region starts where this
            // one ends, so the run of data goes on unbroken into whole units.
            &region[..region_bytes as usize]
        };
        self.extents.lock().placement.store(addr, region_bytes);
        self.store_bytes(addr, bytes)
    }

    fn read_at(&self, addr: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let (_io, mut shared) = self.extents.settled();
        for (block, offset, range) in block_pieces(addr, buf.len(), shared.layout.block_bytes) {
            if block >= shared.table.map.len() {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("block {block} is beyond the drive")));
            }
            match shared.file_offset(block, offset) {
                Some(at) => {
                    shared.write_overlapping(at, range.len() as u64)?;
                    shared.file.read_exact_at(&mut buf[range], at)?
                }
                None => buf[range].fill(0),
            }
        }
        Ok(())
    }

    fn copy(&mut self, from: u64, to: u64, len: u64) -> std::io::Result<()> {
        {
            // A region in blocks without an extent was never stored in the file (what a
            // server-side precondition wrote: crate::generated): its copy stores nothing either.
            let mut shared = self.extents.lock();
            let block_bytes = shared.layout.block_bytes;
            if block_pieces(from, len as usize, block_bytes).all(|(block, offset, _)| shared.file_offset(block, offset).is_none()) {
                shared.placement.copy(from, to, len);
                return Ok(());
            }
        }
        let mut buf = vec![0u8; len as usize];
        self.read_at(from, &mut buf)?;
        self.extents.lock().placement.copy(from, to, len);
        self.store_bytes(to, &buf)
    }

    fn discard(&mut self, addr: u64, len: u64) -> std::io::Result<()> {
        // Runs waiting for this block keep their file offsets in its old extent, which is
        // released only after a commit has written everything out.
        let mut shared = self.extents.lock();
        if shared.dead {
            return Ok(());
        }
        shared.placement.discard(addr, len);
        let block_bytes = shared.layout.block_bytes;
        let (first, end) = (addr.div_ceil(block_bytes), (addr + len) / block_bytes);
        for block in first..end {
            shared.recycled[block as usize] = false;
            let e = std::mem::replace(&mut shared.table.map[block as usize], NO_EXTENT);
            if e != NO_EXTENT {
                let seq = shared.seq;
                shared.releasing.push((seq, e));
                shared.events.push((block as u32, NO_EXTENT));
                shared.tally.erased += 1;
            }
        }
        Ok(())
    }

    fn sync(&mut self) -> std::io::Result<()> {
        let (_io, mut shared) = self.extents.settled();
        shared.write_pending()?;
        if shared.dead {
            return Ok(());
        }
        shared.file.sync_data()
    }
}

impl Drop for FilePlane {
    fn drop(&mut self) {
        // Best effort (a clean shutdown has synced already; after a power cut nothing is
        // written).
        let _ = self.extents.write_out();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An in-memory file that records each data write and whether it went direct.
    struct Recorder {
        bytes: Mutex<Vec<u8>>,
        writes: Mutex<Vec<(u64, usize, bool)>>,
        direct: bool,
    }

    impl Recorder {
        fn new(direct: bool) -> Arc<Self> {
            Arc::new(Self { bytes: Mutex::new(Vec::new()), writes: Mutex::new(Vec::new()), direct })
        }

        fn put(&self, bytes: &[u8], at: u64, direct: bool) {
            let mut file = self.bytes.lock().unwrap();
            let end = at as usize + bytes.len();
            if file.len() < end {
                file.resize(end, 0);
            }
            file[at as usize..end].copy_from_slice(bytes);
            self.writes.lock().unwrap().push((at, bytes.len(), direct));
        }
    }

    impl HostFile for Recorder {
        fn read_exact_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()> {
            let file = self.bytes.lock().unwrap();
            buf.copy_from_slice(&file[at as usize..at as usize + buf.len()]);
            Ok(())
        }
        unsafe fn read_iovec_at(&self, _iov: &[libc::iovec], _at: u64) -> std::io::Result<usize> {
            unimplemented!("not used here")
        }
        fn write_all_at(&self, bytes: &[u8], at: u64) -> std::io::Result<()> {
            self.put(bytes, at, false);
            Ok(())
        }
        fn write_direct_at(&self, bytes: &[u8], at: u64) -> std::io::Result<bool> {
            if !self.direct {
                return Ok(false);
            }
            assert!((bytes.as_ptr() as usize).is_multiple_of(DIRECT_ALIGN_BYTES), "direct write from unaligned memory");
            assert!(at.is_multiple_of(DIRECT_ALIGN_BYTES as u64) && bytes.len().is_multiple_of(DIRECT_ALIGN_BYTES), "unaligned direct write");
            self.put(bytes, at, true);
            Ok(true)
        }
        fn sync_data(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn len(&self) -> std::io::Result<u64> {
            Ok(self.bytes.lock().unwrap().len() as u64)
        }
        fn set_len(&self, len: u64) -> std::io::Result<()> {
            self.bytes.lock().unwrap().resize(len as usize, 0);
            Ok(())
        }
        fn punch_hole(&self, at: u64, len: u64) -> std::io::Result<()> {
            self.bytes.lock().unwrap()[at as usize..(at + len) as usize].fill(0);
            Ok(())
        }
        fn free_bytes(&self) -> Option<u64> {
            None
        }
    }

    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
    }

    /// 300 KiB stored in 8 KiB programs from the start of a block, then a commit's write-out:
    /// the two whole 128 KiB units go direct, the 44 KiB tail through the page cache, and the
    /// file holds every byte where the block's extent puts it.
    fn store_and_check(direct: bool) -> Vec<(u64, usize, bool)> {
        let file = Recorder::new(direct);
        let layout = Layout::new(64 << 20, 1 << 20);
        let extents = Extents::new(file.clone(), layout, ExtentTable::empty(layout.blocks));
        let mut plane = extents.plane();
        let data = pattern(300 << 10, 7);
        for (i, piece) in data.chunks(8 << 10).enumerate() {
            plane.write_at(3 * layout.block_bytes + (i as u64) * (8 << 10), piece).unwrap();
        }
        extents.drain().unwrap();
        extents.write_out().unwrap();
        let mut back = vec![0u8; data.len()];
        plane.read_at(3 * layout.block_bytes, &mut back).unwrap();
        assert!(back == data, "the data read back differs from what was stored");
        let (d, b) = extents.written_bytes();
        assert_eq!(d + b, data.len() as u64);
        let writes = file.writes.lock().unwrap().clone();
        writes
    }

    #[test]
    fn whole_units_are_written_direct_and_the_tail_through_the_page_cache() {
        let at = Layout::new(64 << 20, 1 << 20).extent_offset(0);
        let writes = store_and_check(true);
        assert_eq!(writes, vec![(at, 128 << 10, true), (at + (128 << 10), 128 << 10, true), (at + (256 << 10), 44 << 10, false)]);
    }

    #[test]
    fn a_file_without_direct_writes_takes_every_run_through_the_page_cache() {
        let writes = store_and_check(false);
        assert_eq!(writes.len(), 3);
        assert!(writes.iter().all(|w| !w.2));
    }

    /// A run that starts inside a unit (after a write-out took the unit's first part) ends at
    /// the unit's boundary, and the next unit is whole again.
    #[test]
    fn a_run_started_inside_a_unit_stops_at_its_boundary() {
        let file = Recorder::new(true);
        let layout = Layout::new(64 << 20, 1 << 20);
        let extents = Extents::new(file.clone(), layout, ExtentTable::empty(layout.blocks));
        let mut plane = extents.plane();
        let data = pattern(300 << 10, 3);
        plane.write_at(0, &data[..5000]).unwrap();
        extents.write_out().unwrap();
        plane.write_at(5000, &data[5000..]).unwrap();
        extents.write_out().unwrap();
        let at = layout.extent_offset(0);
        let writes = file.writes.lock().unwrap().clone();
        assert_eq!(
            writes,
            vec![(at, 5000, false), (at + 5000, (128 << 10) - 5000, false), (at + (128 << 10), 128 << 10, true), (at + (256 << 10), 44 << 10, false)]
        );
        let mut back = vec![0u8; data.len()];
        plane.read_at(0, &mut back).unwrap();
        assert!(back == data);
    }
}
