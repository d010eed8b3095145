//! Reads served outside the drive's lock: under the lock the server only looks up where each
//! sector's stored region lies in the backing file (a [`ReadPlan`]) and books the simulated
//! read; the bytes are then read with one `pread` per contiguous stretch of the file (one for a
//! whole request whose regions are adjacent, as sequentially written data is) and decoded,
//! while other requests use the drive.
//!
//! A plan is reused by the thread that serves the next request (no allocation per request once
//! it has grown), and the extent gate ([`crate::Extents::gate`]) keeps the located extents from
//! being given back until the read is done.

use crate::extents::Extents;
use ssdlab_drive::{decode_region, Translation};
use ssdlab_ftl::DataLocation;
use ssdlab_reduce::SECTOR_BYTES;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// Stretches of the file closer than this are read in one `pread`, the gap with them.
const GAP_BYTES: u64 = 16 << 10;

/// One sector of a read: the part of the caller's buffer it fills, and where its region lies.
#[derive(Debug, Clone, Copy)]
struct SectorRead {
    /// Bytes of the caller's buffer this sector fills.
    buf_from: usize,
    buf_to: usize,
    /// Offset of the first of them within the 4 KiB sector.
    in_sector: usize,
    /// Pieces of the region in [`ReadPlan::pieces`] (none: the sector reads as zeros).
    pieces_from: usize,
    pieces_to: usize,
    /// Bytes of the stored region.
    region_bytes: usize,
}

/// A piece of a stored region: where it lies in the file (`None`: a block without data) and
/// where it lands in the scratch buffer.
#[derive(Debug, Clone, Copy)]
struct Piece {
    file: Option<u64>,
    bytes: usize,
    scratch: usize,
}

/// Where a request's sectors lie, and the buffers to read them with.
#[derive(Default)]
pub struct ReadPlan {
    sectors: Vec<SectorRead>,
    pieces: Vec<Piece>,
    located: Vec<(Option<u64>, usize)>,
    scratch: Vec<u8>,
    /// Runs of the file to read: (file offset, bytes, scratch offset).
    runs: Vec<(u64, usize, usize)>,
}

impl ReadPlan {
    /// Locate the sectors of `len` bytes at byte `offset` (under the drive's lock).
    pub fn locate(&mut self, translation: &dyn Translation, extents: &Extents, offset: u64, len: u64) -> std::io::Result<()> {
        self.sectors.clear();
        self.pieces.clear();
        let sector = SECTOR_BYTES as u64;
        let mut scratch = 0usize;
        for lba in offset / sector..=(offset + len - 1) / sector {
            let start = lba * sector;
            let (from, to) = (offset.max(start), (offset + len).min(start + sector));
            let pieces_from = self.pieces.len();
            let region_bytes = match translation.data_location(lba) {
                DataLocation::Zeros => 0,
                DataLocation::At { addr_bytes, region_bytes } => {
                    self.located.clear();
                    extents.locate(addr_bytes, region_bytes, &mut self.located)?;
                    for &(file, bytes) in &self.located {
                        self.pieces.push(Piece { file, bytes, scratch });
                        scratch += bytes;
                    }
                    region_bytes as usize
                }
            };
            self.sectors.push(SectorRead {
                buf_from: (from - offset) as usize,
                buf_to: (to - offset) as usize,
                in_sector: (from - start) as usize,
                pieces_from,
                pieces_to: self.pieces.len(),
                region_bytes,
            });
        }
        Ok(())
    }

    /// Read the located regions from `file` and decode them into `buf` (outside the lock, the
    /// extent gate held).
    pub fn read_into(&mut self, file: &File, buf: &mut [u8]) -> std::io::Result<()> {
        // Runs: pieces in file order as located, joined when they follow each other closely;
        // each piece's scratch offset is moved to its place within its run.
        self.runs.clear();
        let mut scratch_len = 0usize;
        for piece in self.pieces.iter_mut() {
            let Some(at) = piece.file else { continue };
            match self.runs.last_mut() {
                Some((run_at, run_bytes, run_scratch)) if at >= *run_at + *run_bytes as u64 && at - (*run_at + *run_bytes as u64) <= GAP_BYTES => {
                    let end = at + piece.bytes as u64;
                    piece.scratch = *run_scratch + (at - *run_at) as usize;
                    *run_bytes = (end - *run_at) as usize;
                    scratch_len = *run_scratch + *run_bytes;
                }
                _ => {
                    piece.scratch = scratch_len;
                    self.runs.push((at, piece.bytes, scratch_len));
                    scratch_len += piece.bytes;
                }
            }
        }
        if self.scratch.len() < scratch_len {
            self.scratch.resize(scratch_len, 0);
        }
        for &(at, bytes, into) in &self.runs {
            file.read_exact_at(&mut self.scratch[into..into + bytes], at)?;
        }
        let mut region = Vec::new();
        for s in &self.sectors {
            let out = &mut buf[s.buf_from..s.buf_to];
            if s.region_bytes == 0 {
                out.fill(0);
                continue;
            }
            // The region's bytes, in one piece of the scratch buffer when it lies in one block.
            let pieces = &self.pieces[s.pieces_from..s.pieces_to];
            let bytes: &[u8] = if let [p] = pieces {
                match p.file {
                    Some(_) => &self.scratch[p.scratch..p.scratch + p.bytes],
                    None => {
                        region.clear();
                        region.resize(p.bytes, 0);
                        &region
                    }
                }
            } else {
                region.clear();
                for p in pieces {
                    match p.file {
                        Some(_) => region.extend_from_slice(&self.scratch[p.scratch..p.scratch + p.bytes]),
                        None => region.resize(region.len() + p.bytes, 0),
                    }
                }
                &region
            };
            if bytes.len() == SECTOR_BYTES {
                out.copy_from_slice(&bytes[s.in_sector..s.in_sector + out.len()]);
            } else {
                let sector = decode_region(bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
                out.copy_from_slice(&sector[s.in_sector..s.in_sector + out.len()]);
            }
        }
        Ok(())
    }
}
