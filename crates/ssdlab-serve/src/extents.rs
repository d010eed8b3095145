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
use std::sync::{Arc, Mutex, MutexGuard};

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

struct Shared {
    file: File,
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
    /// Power is off: nothing more reaches the file.
    dead: bool,
}

/// The data region, shared by the drive (as its [`DataPlane`]) and the server (commits,
/// checkpoints, power cuts).
#[derive(Clone)]
pub struct Extents {
    shared: Arc<Mutex<Shared>>,
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

    /// Write the pending run, block by block.
    fn write_pending(&mut self) -> std::io::Result<()> {
        if self.pending.is_empty() || self.dead {
            self.pending.clear();
            return Ok(());
        }
        let bytes = std::mem::take(&mut self.pending);
        let result = self.write_now(self.pending_addr, &bytes);
        self.pending = bytes;
        self.pending.clear();
        result
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
        let mut shared = Shared {
            file,
            layout,
            table,
            free: Default::default(),
            releasing: Vec::new(),
            events: Vec::new(),
            pending_addr: 0,
            pending: Vec::new(),
            dead: false,
        };
        Self::rebuild_free(&mut shared);
        Self { shared: Arc::new(Mutex::new(shared)) }
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

    /// After recovery: rebuild the free extents from the table, and give back the room of every
    /// extent no block uses (stale data of operations that did not survive).
    pub fn settle(&self) -> std::io::Result<u32> {
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
        self.lock().write_pending()
    }

    /// Give back the room of blocks erased before the last synced commit.
    pub fn release(&self) -> std::io::Result<()> {
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
        let mut shared = self.lock();
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
            shared.write_pending()?;
            shared.pending_addr = addr;
        }
        shared.pending.extend_from_slice(bytes);
        Ok(())
    }

    fn read_at(&self, addr: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let mut shared = self.extents.lock();
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
        let mut shared = self.extents.lock();
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
        let mut shared = self.extents.lock();
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
