//! A host that can crash: a [`HostFile`] in memory that keeps every change since the last
//! `fdatasync` in a volatile layer, as a page cache does, and at a simulated host crash
//! ([`CrashFile::crash`]) leaves any of the states a real page cache and disk may leave: any
//! subset of those changes, applied in order or reordered, the last one torn at a 512-byte
//! sector boundary (the CrashMonkey / dm-log-writes model). The host-crash swarm
//! (`tests/host_crash.rs`) runs the real server over it.

use crate::host::HostFile;
use ssdlab_core::SimRng;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Bytes of a page of the in-memory file.
const PAGE: u64 = 4096;
/// A write torn by a crash keeps a prefix of whole sectors of this size.
pub const TORN_SECTOR_BYTES: u64 = 512;

/// A change to the file not yet made durable.
#[derive(Debug, Clone)]
enum Change {
    Write { at: u64, bytes: Vec<u8> },
    SetLen(u64),
    Punch { at: u64, len: u64 },
}

/// The file's bytes: sparse pages (a missing page reads as zeros) and a length.
#[derive(Debug, Clone, Default)]
struct Image {
    pages: BTreeMap<u64, Box<[u8]>>,
    len: u64,
}

impl Image {
    fn write(&mut self, at: u64, bytes: &[u8]) {
        let mut done = 0usize;
        while done < bytes.len() {
            let pos = at + done as u64;
            let (page, offset) = (pos / PAGE, (pos % PAGE) as usize);
            let n = (PAGE as usize - offset).min(bytes.len() - done);
            let p = self.pages.entry(page).or_insert_with(|| vec![0u8; PAGE as usize].into_boxed_slice());
            p[offset..offset + n].copy_from_slice(&bytes[done..done + n]);
            done += n;
        }
        self.len = self.len.max(at + bytes.len() as u64);
    }

    fn read(&self, at: u64, buf: &mut [u8]) {
        let mut done = 0usize;
        while done < buf.len() {
            let pos = at + done as u64;
            let (page, offset) = (pos / PAGE, (pos % PAGE) as usize);
            let n = (PAGE as usize - offset).min(buf.len() - done);
            match self.pages.get(&page) {
                Some(p) => buf[done..done + n].copy_from_slice(&p[offset..offset + n]),
                None => buf[done..done + n].fill(0),
            }
            done += n;
        }
    }

    fn zero(&mut self, at: u64, len: u64) {
        let end = at + len;
        let mut pos = at;
        while pos < end {
            let (page, offset) = (pos / PAGE, pos % PAGE);
            let n = (PAGE - offset).min(end - pos);
            if offset == 0 && n == PAGE {
                self.pages.remove(&page);
            } else if let Some(p) = self.pages.get_mut(&page) {
                p[offset as usize..(offset + n) as usize].fill(0);
            }
            pos += n;
        }
    }

    fn set_len(&mut self, len: u64) {
        if len < self.len {
            self.zero(len, self.len - len);
        }
        self.len = len;
    }

    fn apply(&mut self, change: &Change) {
        match change {
            Change::Write { at, bytes } => self.write(*at, bytes),
            Change::SetLen(len) => self.set_len(*len),
            Change::Punch { at, len } => self.zero(*at, *len),
        }
    }
}

#[derive(Debug, Default)]
struct Inner {
    /// What reads see (the page cache).
    current: Image,
    /// What is on the disk.
    durable: Image,
    /// Changes since the last sync, in order.
    volatile: Vec<Change>,
    /// Syncs so far (reported by tests).
    syncs: u64,
    /// Changes and syncs so far.
    events: u64,
    /// The host crashes right after this event: the disk and the volatile layer are frozen
    /// then (the server goes on, its later writes go nowhere).
    crash_at: Option<u64>,
    frozen: Option<(Image, Vec<Change>)>,
}

impl Inner {
    fn event(&mut self) {
        self.events += 1;
        if self.frozen.is_none() && self.crash_at == Some(self.events) {
            self.frozen = Some((self.durable.clone(), self.volatile.clone()));
        }
    }
}

/// An in-memory backing file whose host can crash.
#[derive(Debug, Default)]
pub struct CrashFile {
    inner: Mutex<Inner>,
}

/// How a crash treated the changes since the last sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashMode {
    /// Every change since the last sync is lost.
    LoseAll,
    /// The first changes reached the disk, in order; the rest did not.
    Prefix,
    /// Any subset reached the disk, in order.
    Subset,
    /// Any subset reached the disk, in any order.
    Reordered,
}

/// What a crash kept of the changes since the last sync.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashOutcome {
    /// How the changes were treated.
    pub mode: CrashMode,
    /// Changes since the last sync.
    pub volatile: usize,
    /// Of which reached the disk.
    pub kept: usize,
    /// Whether the last change kept was a write cut short at a sector boundary.
    pub torn: bool,
    /// File offsets of the writes waiting for a sync that did not reach the disk whole (lost,
    /// or torn).
    pub not_whole: Vec<u64>,
}

impl CrashFile {
    /// An empty file.
    pub fn new() -> Self {
        Self::default()
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn change(&self, change: Change) {
        let mut inner = self.inner();
        inner.current.apply(&change);
        inner.volatile.push(change);
        inner.event();
    }

    /// Changes and syncs so far.
    pub fn events(&self) -> u64 {
        self.inner().events
    }

    /// The host crashes right after event `n` (a change or a sync, counted from the file's
    /// start): what the disk and the volatile layer hold then is what [`CrashFile::crash`]
    /// works from; the server goes on meanwhile, unaware.
    pub fn crash_after_event(&self, n: u64) {
        let mut inner = self.inner();
        inner.crash_at = Some(n);
        if n <= inner.events && inner.frozen.is_none() {
            inner.frozen = Some((inner.durable.clone(), inner.volatile.clone()));
        }
    }

    /// Whether the host has crashed (the armed event has passed).
    pub fn crashed(&self) -> bool {
        self.inner().frozen.is_some()
    }

    /// Changes waiting for a sync.
    pub fn volatile_changes(&self) -> usize {
        self.inner().volatile.len()
    }

    /// Syncs so far.
    pub fn syncs(&self) -> u64 {
        self.inner().syncs
    }

    /// The host crashes: the file as a disk could hold it afterwards, a new file (the volatile
    /// layer decided by `rng`: which changes reached the disk, in what order, and whether the
    /// last of them was torn).
    pub fn crash(&self, rng: &mut SimRng) -> (CrashFile, CrashOutcome) {
        let inner = self.inner();
        let (durable, volatile) = match &inner.frozen {
            Some((durable, volatile)) => (durable, volatile),
            None => (&inner.durable, &inner.volatile),
        };
        let n = volatile.len();
        let mode = match rng.below(8) {
            0 => CrashMode::LoseAll,
            1..=3 => CrashMode::Prefix,
            4..=5 => CrashMode::Subset,
            _ => CrashMode::Reordered,
        };
        let mut chosen: Vec<usize> = match mode {
            CrashMode::LoseAll => Vec::new(),
            CrashMode::Prefix => (0..rng.below(n as u64 + 1) as usize).collect(),
            CrashMode::Subset | CrashMode::Reordered => {
                let keep = rng.below(101);
                (0..n).filter(|_| rng.below(100) < keep).collect()
            }
        };
        if mode == CrashMode::Reordered {
            for i in (1..chosen.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                chosen.swap(i, j);
            }
        }
        let mut disk = durable.clone();
        let mut torn = false;
        let mut whole = vec![false; n];
        let last = chosen.len().checked_sub(1);
        for (k, &i) in chosen.iter().enumerate() {
            whole[i] = true;
            match &volatile[i] {
                Change::Write { at, bytes } if Some(k) == last && bytes.len() as u64 > TORN_SECTOR_BYTES && rng.below(2) == 0 => {
                    // Torn: the first sectors reached the disk.
                    // At least one sector kept, at least one (whole or part) lost.
                    let sectors = (bytes.len() as u64).div_ceil(TORN_SECTOR_BYTES);
                    let keep = ((1 + rng.below(sectors - 1)) * TORN_SECTOR_BYTES) as usize;
                    disk.write(*at, &bytes[..keep]);
                    torn = true;
                    whole[i] = false;
                }
                change => disk.apply(change),
            }
        }
        let not_whole = (0..n)
            .filter(|&i| !whole[i])
            .filter_map(|i| match &volatile[i] {
                Change::Write { at, .. } => Some(*at),
                _ => None,
            })
            .collect();
        let outcome = CrashOutcome { mode, volatile: n, kept: chosen.len(), torn, not_whole };
        let file = CrashFile { inner: Mutex::new(Inner { current: disk.clone(), durable: disk, ..Default::default() }) };
        (file, outcome)
    }

    /// The file as it stands (all changes, durable or not): a copy, as a clean restart sees it.
    pub fn snapshot(&self) -> CrashFile {
        let inner = self.inner();
        CrashFile { inner: Mutex::new(Inner { current: inner.current.clone(), durable: inner.current.clone(), ..Default::default() }) }
    }
}

impl HostFile for CrashFile {
    fn read_exact_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()> {
        let inner = self.inner();
        if at + buf.len() as u64 > inner.current.len {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "read past the end of the file"));
        }
        inner.current.read(at, buf);
        Ok(())
    }

    unsafe fn read_iovec_at(&self, iov: &[libc::iovec], at: u64) -> std::io::Result<usize> {
        let inner = self.inner();
        let mut pos = at;
        for v in iov {
            let available = inner.current.len.saturating_sub(pos) as usize;
            let n = v.iov_len.min(available);
            // SAFETY: the caller guarantees each iovec is writable for its length.
            let buf = unsafe { std::slice::from_raw_parts_mut(v.iov_base as *mut u8, n) };
            inner.current.read(pos, buf);
            pos += n as u64;
            if n < v.iov_len {
                break;
            }
        }
        Ok((pos - at) as usize)
    }

    fn write_all_at(&self, bytes: &[u8], at: u64) -> std::io::Result<()> {
        self.change(Change::Write { at, bytes: bytes.to_vec() });
        Ok(())
    }

    /// A direct write is volatile until `fdatasync` like any other (the drive's cache, the
    /// file system's block allocation): the same change, so the crash tests cover the data path
    /// that writes whole units directly.
    fn write_direct_at(&self, bytes: &[u8], at: u64) -> std::io::Result<bool> {
        let align = crate::host::DIRECT_ALIGN_BYTES;
        if !(bytes.as_ptr() as usize).is_multiple_of(align) || !at.is_multiple_of(align as u64) || !bytes.len().is_multiple_of(align) {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "a direct write that is not aligned"));
        }
        self.change(Change::Write { at, bytes: bytes.to_vec() });
        Ok(true)
    }

    fn direct_unavailable(&self) -> Option<String> {
        None
    }

    fn sync_data(&self) -> std::io::Result<()> {
        let mut inner = self.inner();
        let Inner { durable, volatile, .. } = &mut *inner;
        for change in volatile.drain(..) {
            durable.apply(&change);
        }
        inner.syncs += 1;
        inner.event();
        Ok(())
    }

    fn len(&self) -> std::io::Result<u64> {
        Ok(self.inner().current.len)
    }

    fn set_len(&self, len: u64) -> std::io::Result<()> {
        self.change(Change::SetLen(len));
        Ok(())
    }

    fn punch_hole(&self, at: u64, len: u64) -> std::io::Result<()> {
        self.change(Change::Punch { at, len });
        Ok(())
    }

    fn free_bytes(&self) -> Option<u64> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crash_keeps_what_was_synced_and_some_of_what_was_not() {
        let file = CrashFile::new();
        file.write_all_at(&[1; 1000], 0).unwrap();
        file.sync_data().unwrap();
        file.write_all_at(&[2; 1000], 0).unwrap();
        file.write_all_at(&[3; 600], 5000).unwrap();
        let mut buf = [0u8; 1000];
        file.read_exact_at(&mut buf, 0).unwrap();
        assert_eq!(buf, [2; 1000], "reads see the page cache");
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..400 {
            let (after, outcome) = file.crash(&mut SimRng::new(seed));
            let mut first = [0u8; 1000];
            after.read_exact_at(&mut first, 0).unwrap_or_else(|_| first.fill(9));
            let first_kind = if first == [1; 1000] {
                "old"
            } else if first == [2; 1000] {
                "new"
            } else {
                assert!(outcome.torn, "seed {seed}: a mixed sector only when torn");
                // Torn at a sector boundary: new bytes up to it, old bytes after.
                let cut = first.iter().position(|&b| b != 2).unwrap();
                assert_eq!(cut % 512, 0, "seed {seed}");
                assert!(first[cut..].iter().all(|&b| b == 1), "seed {seed}");
                "torn"
            };
            seen.insert((first_kind, after.len().unwrap() > 1000, outcome.mode as u8));
        }
        // Every combination of the two unsynced writes reaching the disk or not happened.
        for kind in ["old", "new", "torn"] {
            assert!(seen.iter().any(|s| s.0 == kind), "{kind} never seen: {seen:?}");
        }
        assert!(seen.iter().any(|s| s.1) && seen.iter().any(|s| !s.1));
    }
}
