//! Tests of the data region's runs: which writes go direct, and where runs end.

use super::*;
use crate::host::DIRECT_ALIGN_BYTES;
use ssdlab_drive::DataPlane;

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
