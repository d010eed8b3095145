//! The drive's handle on the data region ([`DataPlane`]): storing, reading, copying, discarding.

use super::{block_pieces, Extents, FilePlane, NO_EXTENT, WAITING_LIMIT_BYTES};
use ssdlab_drive::{DataPlane, REGION_PREFIX_BYTES};
use ssdlab_reduce::{decompress_sector_into, SECTOR_BYTES};

impl Extents {
    /// The drive's handle.
    pub fn plane(&self) -> FilePlane {
        FilePlane { extents: self.clone() }
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
