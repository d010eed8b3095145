//! The data region of a backing file: each erase block of the drive, while it holds data, lives
//! in one extent (a block-sized stretch of the file), found through the extent table.
//!
//! Why not at a fixed place: an erase only releases the block's extent once the journal that
//! stops referencing its old data is durable (the next synced commit). Until then the old data
//! stays where it was, and the block's next program goes to another extent. So whatever prefix
//! of the journal survives a crash, every block that prefix's map points into still holds the
//! data it had then: nothing a recovered drive reads was overwritten after the fact. (A real FTL
//! follows the same rule: a block is not erased until the map that no longer needs it is safe.)

mod drain;
mod faults;
mod plane;
mod reads;
mod release;
mod report;
mod runs;
mod table;
#[cfg(test)]
mod tests;

use crate::host::HostFile;
use crate::layout::Layout;
use crate::placement::PlacementHash;
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicU64;
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
/// bypassing the page cache where the file offers that ([`runs::write_run`]; the real file does only
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

/// Bytes of data the file took, by how they were written.
#[derive(Default)]
struct WriteCounts {
    /// Whole aligned units written bypassing the page cache.
    direct: AtomicU64,
    /// Runs written through the page cache (partial units at commits, reads and power cuts,
    /// or every run where the file refuses direct writes).
    buffered: AtomicU64,
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
/// The data region, shared by the drive (as its [`DataPlane`](ssdlab_drive::DataPlane)) and the server (commits,
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
}
