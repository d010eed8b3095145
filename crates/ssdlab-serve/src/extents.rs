//! The data region of a backing file: each erase block of the drive, while it holds data, lives
//! in one extent (a block-sized stretch of the file), found through the extent table.
//!
//! Why not at a fixed place: an erase only releases the block's extent once the journal that
//! stops referencing its old data is durable (the next synced commit). Until then the old data
//! stays where it was, and the block's next program goes to another extent. So whatever prefix
//! of the journal survives a crash, every block that prefix's map points into still holds the
//! data it had then: nothing a recovered drive reads was overwritten after the fact. (A real FTL
//! follows the same rule: a block is not erased until the map that no longer needs it is safe.)

use crate::layout::Layout;
use serde::{Deserialize, Serialize};
use ssdlab_drive::DataPlane;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

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

/// A change of the table: block `.0` now lives in extent `.1` (or [`NO_EXTENT`]: erased).
pub type ExtentEvent = (u32, u32);

/// Most contiguous bytes combined into one `pwrite`.
const COMBINE_BYTES: usize = 1 << 20;
/// Run buffers kept for reuse: as many as were ever queued at once, up to this (freeing and
/// allocating them in different threads left the allocator holding more than it kept).
const SPARE_RUNS: usize = 4096;

struct Shared {
    file: Arc<File>,
    layout: Layout,
    table: ExtentTable,
    /// Free extents; the lowest is used first.
    free: std::collections::BinaryHeap<std::cmp::Reverse<u32>>,
    /// Extents of blocks erased since the last synced commit: released (their room given back,
    /// then reused) only once the journal that no longer needs them is durable.
    releasing: Vec<u32>,
    /// Table changes since the server last took them (they go into the operation's record).
    events: Vec<ExtentEvent>,
    /// A run of contiguous physical bytes waiting to be written.
    pending_addr: u64,
    pending: Vec<u8>,
    /// Whole runs waiting to be written by a request after it leaves the drive's lock
    /// ([`Extents::drain`]), or by whatever next needs the file to hold everything.
    ready: Vec<(u64, Vec<u8>)>,
    /// Buffers of runs written, kept for the next runs (no allocation per run).
    spare: Vec<Vec<u8>>,
    /// Where the runs being drained go: (file offset, run, bytes of the run).
    drain_plan: Vec<(u64, usize, std::ops::Range<usize>)>,
    /// Power is off: nothing more reaches the file.
    dead: bool,
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
    /// Held while runs are written outside the drive's lock, and taken (before the shared
    /// state) by whatever needs the file to hold everything written so far.
    io: Arc<Mutex<()>>,
    /// The backing file, for writes and reads outside the shared state's lock.
    file: Arc<File>,
}

/// The drive's handle on the data region.
pub struct FilePlane {
    extents: Extents,
}

fn punch(file: &File, offset: u64, len: u64) -> std::io::Result<()> {
    // SAFETY: fallocate on a valid, open descriptor with in-range offsets; no memory.
    let rc = unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE, offset as libc::off_t, len as libc::off_t) };
    if rc == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EOPNOTSUPP) {
        return Ok(()); // a file system without holes: the stale bytes stay until reused
    }
    Err(e)
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
        let e = match self.free.pop() {
            Some(std::cmp::Reverse(e)) => e,
            None => {
                // A new extent at the end: the file grows to hold all of it (a hole until
                // written), so a region written only in part reads the rest as zeros.
                self.table.count += 1;
                let _ = self.file.set_len(self.layout.extent_offset(self.table.count).max(self.file.metadata().map(|m| m.len()).unwrap_or(0)));
                self.table.count - 1
            }
        };
        self.table.map[block as usize] = e;
        self.events.push((block, e));
        e
    }

    /// Write the runs waiting and the pending run, block by block (the caller holds the I/O
    /// lock, so no run is being written elsewhere: the file then holds everything).
    fn write_pending(&mut self) -> std::io::Result<()> {
        let mut result = Ok(());
        for (addr, mut bytes) in std::mem::take(&mut self.ready) {
            if result.is_ok() && !self.dead {
                result = self.write_now(addr, &bytes);
            }
            bytes.clear();
            if self.spare.len() < SPARE_RUNS {
                self.spare.push(bytes);
            }
        }
        if self.pending.is_empty() || self.dead {
            self.pending.clear();
            return result;
        }
        let bytes = std::mem::take(&mut self.pending);
        let written = self.write_now(self.pending_addr, &bytes);
        self.pending = bytes;
        self.pending.clear();
        result.and(written)
    }

    /// The pending run is complete: queue it for writing and start a new one.
    fn queue_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let next = self.spare.pop().unwrap_or_default();
        let run = std::mem::replace(&mut self.pending, next);
        self.ready.push((self.pending_addr, run));
    }

    fn write_now(&mut self, addr: u64, bytes: &[u8]) -> std::io::Result<()> {
        for (block, offset, range) in block_pieces(addr, bytes.len(), self.layout.block_bytes) {
            let e = self.table.map[block];
            debug_assert_ne!(e, NO_EXTENT, "extents are assigned when a write is accepted");
            self.file.write_all_at(&bytes[range], self.layout.extent_offset(e) + offset)?;
        }
        Ok(())
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
    pub fn new(file: File, layout: Layout, table: ExtentTable) -> Self {
        let file = Arc::new(file);
        let mut shared = Shared {
            file: file.clone(),
            layout,
            table,
            free: Default::default(),
            releasing: Vec::new(),
            events: Vec::new(),
            pending_addr: 0,
            pending: Vec::new(),
            ready: Vec::new(),
            spare: Vec::new(),
            drain_plan: Vec::new(),
            dead: false,
        };
        Self::rebuild_free(&mut shared);
        Self { shared: Arc::new(Mutex::new(shared)), gate: Arc::new(RwLock::new(())), io: Arc::new(Mutex::new(())), file }
    }

    fn rebuild_free(shared: &mut Shared) {
        let mut used = vec![false; shared.table.count as usize];
        for &e in &shared.table.map {
            if e != NO_EXTENT {
                used[e as usize] = true;
            }
        }
        shared.free = (0..shared.table.count).filter(|&e| !used[e as usize]).map(std::cmp::Reverse).collect();
        shared.releasing.clear();
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The shared state once no run is being written elsewhere (the I/O lock held; the order
    /// is always I/O lock, then shared state).
    fn settled(&self) -> (MutexGuard<'_, ()>, MutexGuard<'_, Shared>) {
        let io = self.io.lock().unwrap_or_else(|p| p.into_inner());
        (io, self.lock())
    }

    /// Write the runs waiting (called by a request after it left the drive's lock, so the copy
    /// into the file does not hold up other requests' simulation).
    pub fn drain(&self) -> std::io::Result<()> {
        let _io = self.io.lock().unwrap_or_else(|p| p.into_inner());
        let (runs, mut plan) = {
            let mut shared = self.lock();
            if shared.ready.is_empty() || shared.dead {
                return Ok(());
            }
            let runs = std::mem::take(&mut shared.ready);
            let mut plan = std::mem::take(&mut shared.drain_plan);
            plan.clear();
            for (i, (addr, bytes)) in runs.iter().enumerate() {
                for (block, offset, range) in block_pieces(*addr, bytes.len(), shared.layout.block_bytes) {
                    let e = shared.table.map[block];
                    debug_assert_ne!(e, NO_EXTENT, "extents are assigned when a write is accepted");
                    plan.push((shared.layout.extent_offset(e) + offset, i, range));
                }
            }
            (runs, plan)
        };
        let file = &self.file;
        let mut result = Ok(());
        for (at, i, range) in plan.drain(..) {
            if result.is_ok() {
                result = file.write_all_at(&runs[i].1[range], at);
            }
        }
        let mut shared = self.lock();
        for (_, mut bytes) in runs {
            bytes.clear();
            if shared.spare.len() < SPARE_RUNS {
                shared.spare.push(bytes);
            }
        }
        shared.drain_plan = plan;
        result
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
    pub fn file_for_reads(&self) -> Arc<File> {
        self.file.clone()
    }

    /// Where the `len` bytes at physical address `addr` lie in the file: appended to `out` as
    /// (file offset, bytes), the offset `None` for a block holding no data (reads as zeros).
    /// Data still waiting in memory is written out first, so the file holds what is located.
    pub fn locate(&self, addr: u64, len: u64, out: &mut Vec<(Option<u64>, usize)>) -> std::io::Result<()> {
        let (_io, mut shared) = self.settled();
        shared.write_pending()?;
        for (block, offset, range) in block_pieces(addr, len as usize, shared.layout.block_bytes) {
            match shared.table.map.get(block).copied() {
                Some(e) if e != NO_EXTENT => out.push((Some(shared.layout.extent_offset(e) + offset), range.len())),
                Some(_) => out.push((None, range.len())),
                None => return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("block {block} is beyond the drive"))),
            }
        }
        Ok(())
    }

    /// After recovery: rebuild the free extents from the table, and give back the room of every
    /// extent no block uses (stale data of operations that did not survive).
    pub fn settle(&self) -> std::io::Result<u32> {
        let _gate = self.gate.write().unwrap_or_else(|p| p.into_inner());
        let mut shared = self.lock();
        Self::rebuild_free(&mut shared);
        let end = shared.layout.extent_offset(shared.table.count);
        if shared.file.metadata()?.len() < end {
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

    /// Write out what is pending (ordering: data before the records that point at it).
    pub fn write_out(&self) -> std::io::Result<()> {
        self.settled().1.write_pending()
    }

    /// Give back the room of blocks erased before the last synced commit.
    pub fn release(&self) -> std::io::Result<()> {
        let _gate = self.gate.write().unwrap_or_else(|p| p.into_inner());
        let mut shared = self.lock();
        if shared.dead {
            return Ok(());
        }
        let releasing = std::mem::take(&mut shared.releasing);
        for &e in &releasing {
            punch(&shared.file, shared.layout.extent_offset(e), shared.layout.block_bytes)?;
            shared.free.push(std::cmp::Reverse(e));
        }
        Ok(())
    }

    /// Power is off: a program in flight is torn (the first half of the pending run reaches the
    /// file, the rest does not), and nothing more is written.
    pub fn cut_power(&self) {
        let (_io, mut shared) = self.settled();
        // Runs not yet written were in the drive's volatile buffer: lost.
        shared.ready.clear();
        if !shared.pending.is_empty() {
            let half = shared.pending.len() / 2;
            let bytes = shared.pending[..half].to_vec();
            let addr = shared.pending_addr;
            let _ = shared.write_now(addr, &bytes);
        }
        shared.pending.clear();
        shared.dead = true;
    }
}

impl DataPlane for FilePlane {
    fn write_at(&mut self, addr: u64, bytes: &[u8]) -> std::io::Result<()> {
        let mut shared = self.extents.lock();
        if shared.dead {
            return Ok(());
        }
        shared.assign(addr, bytes.len() as u64);
        let continues = !shared.pending.is_empty() && shared.pending_addr + shared.pending.len() as u64 == addr;
        if !(continues && shared.pending.len() + bytes.len() <= COMBINE_BYTES) {
            shared.queue_pending();
            shared.pending_addr = addr;
        }
        shared.pending.extend_from_slice(bytes);
        Ok(())
    }

    fn read_at(&self, addr: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let (_io, mut shared) = self.extents.settled();
        shared.write_pending()?;
        for (block, offset, range) in block_pieces(addr, buf.len(), shared.layout.block_bytes) {
            match shared.table.map.get(block).copied() {
                Some(e) if e != NO_EXTENT => shared.file.read_exact_at(&mut buf[range], shared.layout.extent_offset(e) + offset)?,
                Some(_) => buf[range].fill(0),
                None => return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("block {block} is beyond the drive"))),
            }
        }
        Ok(())
    }

    fn copy(&mut self, from: u64, to: u64, len: u64) -> std::io::Result<()> {
        let mut buf = vec![0u8; len as usize];
        self.read_at(from, &mut buf)?;
        self.write_at(to, &buf)
    }

    fn discard(&mut self, addr: u64, len: u64) -> std::io::Result<()> {
        let (_io, mut shared) = self.extents.settled();
        if shared.dead {
            return Ok(());
        }
        shared.write_pending()?;
        let block_bytes = shared.layout.block_bytes;
        let (first, end) = (addr.div_ceil(block_bytes), (addr + len) / block_bytes);
        for block in first..end {
            let e = std::mem::replace(&mut shared.table.map[block as usize], NO_EXTENT);
            if e != NO_EXTENT {
                shared.releasing.push(e);
                shared.events.push((block as u32, NO_EXTENT));
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
