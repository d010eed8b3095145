//! Reads served outside the drive's lock: under the lock the server only looks up where each
//! sector's stored region lies in the backing file (a [`ReadPlan`]) and books the simulated
//! read; the bytes are then read with one `preadv` per contiguous stretch of the file (one for
//! a whole request whose regions are adjacent, as sequentially written data is) and decoded,
//! while other requests use the drive.
//!
//! A sector stored raw (a whole 4 KiB region, as incompressible data is) is read straight into
//! the client's buffer; compressed regions go to a scratch buffer and are decoded from there
//! into it. A plan is reused by the thread that serves the next request (no allocation per
//! request once it has grown), and the extent gate ([`crate::Extents::gate`]) keeps the located
//! extents from being given back until the read is done.

use crate::extents::Extents;
use crate::host::{read_iovec_exact, HostFile};
use ssdlab_drive::{decode_region_into, Translation};
use ssdlab_ftl::DataLocation;
use ssdlab_reduce::SECTOR_BYTES;

/// Stretches of the file closer than this are read in one `preadv`, the gap into a buffer of
/// its own.
const GAP_BYTES: u64 = 16 << 10;
/// Most buffers in one `preadv` (Linux's `IOV_MAX`).
const IOV_MAX: usize = 1024;

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
    /// The region is read straight into the caller's buffer.
    direct: bool,
}

/// A piece of a stored region: where it lies in the file (`None`: a block without data) and
/// where it lands (in the caller's buffer when its sector is `direct`, else in the scratch
/// buffer).
#[derive(Debug, Clone, Copy)]
struct Piece {
    file: Option<u64>,
    bytes: usize,
    to: usize,
    direct: bool,
}

/// Where a request's sectors lie, and the buffers to read them with.
#[derive(Default)]
pub struct ReadPlan {
    sectors: Vec<SectorRead>,
    pieces: Vec<Piece>,
    located: Vec<(Option<u64>, usize)>,
    scratch: Vec<u8>,
    /// The bytes of gaps read between stretches (thrown away).
    gap: Vec<u8>,
    /// Stretches of the file to read: (file offset, pieces in order, with a gap before each).
    iov: Vec<libc::iovec>,
    region: Vec<u8>,
}

impl ReadPlan {
    /// Locate the sectors of `len` bytes at byte `offset` (under the drive's lock); a sector
    /// `generated` says is (crate::generated) is not read, and reads as zeros here.
    pub fn locate(&mut self, translation: &dyn Translation, extents: &Extents, offset: u64, len: u64, generated: &dyn Fn(u64) -> bool) -> std::io::Result<()> {
        self.sectors.clear();
        self.pieces.clear();
        let sector = SECTOR_BYTES as u64;
        let mut scratch = 0usize;
        let mut locator = None;
        for lba in offset / sector..=(offset + len - 1) / sector {
            let start = lba * sector;
            let (from, to) = (offset.max(start), (offset + len).min(start + sector));
            let (buf_from, buf_to, in_sector) = ((from - offset) as usize, (to - offset) as usize, (from - start) as usize);
            let pieces_from = self.pieces.len();
            let location = if generated(lba) { DataLocation::Zeros } else { translation.data_location(lba) };
            let (region_bytes, direct) = match location {
                DataLocation::Zeros => (0, false),
                DataLocation::At { addr_bytes, region_bytes } => {
                    self.located.clear();
                    locator.get_or_insert_with(|| extents.locator()).locate(addr_bytes, region_bytes, &mut self.located)?;
                    let whole = region_bytes == sector && to - from == sector;
                    let direct = whole && matches!(self.located.as_slice(), [(Some(_), _)]);
                    for &(file, bytes) in &self.located {
                        let to = if direct { buf_from } else { scratch };
                        self.pieces.push(Piece { file, bytes, to, direct });
                        if !direct {
                            scratch += bytes;
                        }
                    }
                    (region_bytes as usize, direct)
                }
            };
            self.sectors.push(SectorRead { buf_from, buf_to, in_sector, pieces_from, pieces_to: self.pieces.len(), region_bytes, direct });
        }
        if self.scratch.len() < scratch {
            self.scratch.resize(scratch, 0);
        }
        Ok(())
    }

    /// Read the located regions from `file` into `buf` and decode those that need it (outside
    /// the lock, the extent gate held).
    pub fn read_into(&mut self, file: &dyn HostFile, buf: &mut [u8]) -> std::io::Result<()> {
        self.read_stretches(file, buf)?;
        for s in &self.sectors {
            let out = &mut buf[s.buf_from..s.buf_to];
            if s.region_bytes == 0 {
                out.fill(0);
                continue;
            }
            if s.direct {
                continue;
            }
            // The region's bytes, in one piece of the scratch buffer when it lies in one block
            // (a block holding no data reads as zeros).
            let pieces = &self.pieces[s.pieces_from..s.pieces_to];
            let bytes: &[u8] = match pieces {
                [p] if p.file.is_some() => &self.scratch[p.to..p.to + p.bytes],
                _ => {
                    self.region.clear();
                    for p in pieces {
                        match p.file {
                            Some(_) => self.region.extend_from_slice(&self.scratch[p.to..p.to + p.bytes]),
                            None => self.region.resize(self.region.len() + p.bytes, 0),
                        }
                    }
                    &self.region
                }
            };
            if out.len() == SECTOR_BYTES {
                decode_region_into(bytes, out).map_err(|e| std::io::Error::other(e.to_string()))?;
            } else {
                let mut sector = [0u8; SECTOR_BYTES];
                decode_region_into(bytes, &mut sector).map_err(|e| std::io::Error::other(e.to_string()))?;
                out.copy_from_slice(&sector[s.in_sector..s.in_sector + out.len()]);
            }
        }
        Ok(())
    }

    /// Read every piece with a file offset, one `preadv` per stretch of the file (pieces in the
    /// order located, joined when each starts where the last ended or a short gap after it).
    fn read_stretches(&mut self, file: &dyn HostFile, buf: &mut [u8]) -> std::io::Result<()> {
        let (buf_ptr, scratch_ptr) = (buf.as_mut_ptr(), self.scratch.as_mut_ptr());
        if self.gap.len() < GAP_BYTES as usize {
            self.gap.resize(GAP_BYTES as usize, 0);
        }
        let gap_ptr = self.gap.as_mut_ptr();
        let mut start = 0u64;
        let mut end = 0u64;
        self.iov.clear();
        let mut i = 0;
        while i <= self.pieces.len() {
            let piece = self.pieces.get(i).copied();
            i += 1;
            if let Some(Piece { file: None, .. }) = piece {
                continue;
            }
            // Join this piece to the stretch, or read the stretch and start another.
            let joins = match piece {
                Some(Piece { file: Some(at), .. }) => !self.iov.is_empty() && at >= end && at - end <= GAP_BYTES && self.iov.len() + 2 <= IOV_MAX,
                _ => false,
            };
            if !joins && !self.iov.is_empty() {
                // SAFETY: each iovec points into the caller's buffer (a direct sector's 4 KiB),
                // the scratch buffer or the gap buffer, all borrowed for this call.
                unsafe { read_iovec_exact(file, &self.iov, start)? };
                self.iov.clear();
            }
            let Some(Piece { file: Some(at), bytes, to, direct }) = piece else { continue };
            if self.iov.is_empty() {
                start = at;
            } else if at > end {
                self.iov.push(libc::iovec { iov_base: gap_ptr.cast(), iov_len: (at - end) as usize });
            }
            // SAFETY: `to..to + bytes` lies inside the caller's buffer (a direct sector's whole
            // 4 KiB) or inside the scratch buffer sized for every scratch piece in `locate`.
            let base = unsafe {
                if direct {
                    buf_ptr.add(to)
                } else {
                    scratch_ptr.add(to)
                }
            };
            self.iov.push(libc::iovec { iov_base: base.cast(), iov_len: bytes });
            end = at + bytes as u64;
        }
        Ok(())
    }
}
