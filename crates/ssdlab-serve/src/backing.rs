//! The backing file of a served drive: header slots, the metadata journal, two map-checkpoint
//! slots and the data extents (layout in [`crate::layout`] and docs/backing-file.md).
//!
//! The file is locked (`flock`, exclusive) while a server uses it.

use crate::commit::BatchWrite;
use crate::extents::{ExtentTable, Extents};
use crate::header::{CheckpointRef, Header, FORMAT_VERSION, HEADER_BYTES};
use crate::host::{HostFile, OsFile};
use crate::journal::{self, BatchHead, Record, BATCH_HEADER_BYTES};
use crate::layout::{Layout, JOURNAL_BYTES, JOURNAL_OFFSET};
use ssdlab_core::{bail, Error, Result};
use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::io::AsRawFd;
use std::sync::Arc;

/// An open, locked backing file.
pub struct BackingFile {
    path: String,
    file: Arc<dyn HostFile>,
    header: Header,
    layout: Layout,
    existed: bool,
    /// Next batch index of the journal's epoch.
    next_batch: u64,
    /// Bytes of the journal written in this epoch.
    journal_tail: u64,
    /// Metadata bytes written (journal pages, checkpoints, headers) since open.
    metadata_bytes: u64,
    /// Why the header came from the other slot, when one slot was damaged.
    header_note: Option<String>,
    /// The batches of the journal's epoch: where each starts and its first record's sequence
    /// number.
    batches: Vec<(u64, u64)>,
}

/// What the drive is, for checking a file against it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriveIdentity {
    /// Profile name.
    pub profile_name: String,
    /// Hash of the effective profile text.
    pub profile_hash: u64,
    /// Raw NAND bytes.
    pub raw_bytes: u64,
    /// User capacity.
    pub capacity_bytes_user: u64,
    /// Bytes of one erase block.
    pub block_bytes: u64,
}

/// What lies where a batch of the journal would be.
enum Found {
    /// The batch, intact, and the journal bytes it takes.
    Batch { records: Vec<Record>, size: u64 },
    /// The journal's end marker: no batch follows.
    Marker,
    /// The end of the journal region.
    JournalEnd,
    /// No intact batch and no end marker: torn, damaged or cut short (why).
    Damaged(String),
}

/// What a scan of the journal found.
#[derive(Debug, Clone, Default)]
pub struct JournalScan {
    /// The records of every intact batch, in order.
    pub records: Vec<Record>,
    /// Intact batches.
    pub batches: u64,
    /// Journal bytes read.
    pub bytes_read: u64,
    /// Why the scan stopped before the end, when it met a damaged or torn batch (its bytes are
    /// discarded).
    pub discarded: Option<String>,
}

fn io(path: &str, what: &str, e: std::io::Error) -> Error {
    Error::Io(format!("{path}: cannot {what}: {e}"))
}

/// Most data read to tell that a file handed to `--secure-erase` is blank (64 MiB).
const BLANK_SCAN_BYTES: u64 = 64 << 20;

impl BackingFile {
    /// Open `path` for the drive `identity` describes, creating it (with `seed`) when it does
    /// not exist, and lock it. A file in use by another server, made for another drive or in
    /// another format, or with no intact header, is refused with a message naming both sides.
    /// With `erase`, whatever the file held is dropped first: the drive starts secure-erased.
    /// With `direct`, whole 128 KiB units of data are written bypassing the page cache
    /// (`O_DIRECT`) where the file system allows it (`serve --direct-data`). Off by default:
    /// measured on this project's VM, it doubles sequential-write throughput but cuts reads to
    /// a third or a half, which then come from the disk instead of the page cache
    /// (BENCHMARKS.md, issue 24 round three).
    pub fn open(path: &str, identity: &DriveIdentity, seed: u64, erase: bool, direct: bool) -> Result<Self> {
        let parent = std::path::Path::new(path).parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        if !parent.is_dir() {
            bail!(Io, "{path}: folder {} does not exist", parent.display());
        }
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).map_err(|e| io(path, "open the backing file", e))?;
        // SAFETY: flock on a valid, open descriptor; no memory is involved.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                let holder =
                    lock_holder(&file).map(|(pid, name)| format!(": process {pid} ({name}) holds its lock")).unwrap_or_else(|| " (it is locked)".into());
                bail!(
                    Io,
                    "{path}: the backing file is in use by another ssdlab server{holder}; stop that server first (a server saving its state at a stop, even after its `ssdlab serve` was killed, ends by itself)"
                );
            }
            return Err(io(path, "lock the backing file", e));
        }
        if erase {
            Self::check_erasable(path, &file)?;
            file.set_len(0).map_err(|e| io(path, "secure-erase (empty) the backing file", e))?;
        }
        let host = if direct { OsFile::with_direct(file, path) } else { OsFile::new(file) };
        Self::on(Arc::new(host), path, identity, seed)
    }

    /// `--secure-erase` empties only what is a drive: an empty file, an ssdlab backing file (of
    /// any version, damaged or dead: either header slot starts with the magic) or one whose
    /// header slots are blank (made by `truncate` or `qemu-img create`). Any other file holds
    /// someone's data: refused, never overwritten.
    fn check_erasable(path: &str, file: &std::fs::File) -> Result<()> {
        use std::os::unix::fs::FileExt as _;
        let len = file.metadata().map_err(|e| io(path, "read the backing file's size", e))?.len();
        if len == 0 {
            return Ok(());
        }
        let mut head = vec![0u8; (2 * HEADER_BYTES).min(len) as usize];
        file.read_exact_at(&mut head, 0).map_err(|e| io(path, "read the header", e))?;
        let slots: Vec<&[u8]> = head.chunks(HEADER_BYTES as usize).collect();
        if slots.iter().any(|slot| slot.starts_with(crate::header::MAGIC)) {
            return Ok(());
        }
        match Self::all_zeros(file, len) {
            Some(true) => Ok(()),
            Some(false) => bail!(
                Config,
                "{path}: not an ssdlab backing file (it holds other data: no ssdlab header, not blank); --secure-erase empties only ssdlab drives and blank files, never another file: give a new file name (created by serve)"
            ),
            None => bail!(
                Config,
                "{path}: not an ssdlab backing file, and more than {} MiB of it would have to be read to tell it is blank; --secure-erase empties only ssdlab drives and blank files: give a new file name (created by serve)",
                BLANK_SCAN_BYTES >> 20
            ),
        }
    }

    /// Whether every byte of the file is zero, reading only its data (holes skipped with
    /// `SEEK_DATA`/`SEEK_HOLE`, so a sparse file from `truncate` or `qemu-img create` costs
    /// nothing); `None` when more than [`BLANK_SCAN_BYTES`] of data would have to be read.
    fn all_zeros(file: &std::fs::File, len: u64) -> Option<bool> {
        use std::os::unix::fs::FileExt as _;
        let fd = file.as_raw_fd();
        let mut at: u64 = 0;
        let mut read_total: u64 = 0;
        let mut buffer = vec![0u8; 1 << 20];
        while at < len {
            // SAFETY: lseek on a valid descriptor; no memory is involved.
            let data = unsafe { libc::lseek(fd, at as libc::off_t, libc::SEEK_DATA) };
            if data >= 0 {
                at = data as u64;
            } else if std::io::Error::last_os_error().raw_os_error() == Some(libc::ENXIO) {
                // No data after `at`.
                return Some(true);
            }
            // (Another error: no SEEK_DATA here; the rest is read from `at`.)
            // SAFETY: as above.
            let hole = unsafe { libc::lseek(fd, at as libc::off_t, libc::SEEK_HOLE) };
            let end = if hole < 0 { len } else { (hole as u64).min(len) };
            if end <= at {
                // Data with no hole after it where one must be: do not guess.
                return None;
            }
            while at < end {
                let n = ((end - at) as usize).min(buffer.len());
                read_total += n as u64;
                if read_total > BLANK_SCAN_BYTES {
                    return None;
                }
                if file.read_exact_at(&mut buffer[..n], at).is_err() {
                    return Some(false);
                }
                if buffer[..n].iter().any(|&b| b != 0) {
                    return Some(false);
                }
                at += n as u64;
            }
        }
        Some(true)
    }

    /// [`BackingFile::open`] on a file the host already opened (and locked): a real one, or a
    /// [`crate::CrashFile`] in the host-crash tests. `path` names it in messages.
    pub fn on(file: Arc<dyn HostFile>, path: &str, identity: &DriveIdentity, seed: u64) -> Result<Self> {
        let len = file.len().map_err(|e| io(path, "read the backing file's size", e))?;
        let layout = Layout::new(identity.raw_bytes, identity.block_bytes);
        if len == 0 {
            let header = Header {
                format_version: FORMAT_VERSION,
                profile_name: identity.profile_name.clone(),
                profile_hash: identity.profile_hash,
                raw_bytes: identity.raw_bytes,
                capacity_bytes_user: identity.capacity_bytes_user,
                block_bytes: identity.block_bytes,
                seed,
                generation: 0,
                checkpoint: None,
                clean: false,
                dead: false,
            };
            let mut backing = Self {
                path: path.to_string(),
                file,
                header,
                layout,
                existed: false,
                next_batch: 0,
                journal_tail: 0,
                metadata_bytes: 0,
                header_note: None,
                batches: Vec::new(),
            };
            backing.file.set_len(layout.data_offset()).map_err(|e| io(path, "size the backing file", e))?;
            // Both slots from the start: from then on an empty slot can only mean damage.
            backing.write_header()?;
            backing.header.generation = 1;
            backing.write_header()?;
            backing.write_end_marker()?;
            return Ok(backing);
        }
        let (mut header, note) = Self::read_header(path, &*file, len)?;
        if let Some(note) = &note {
            Self::check_fallback(path, &*file, &header, note)?;
            // Whatever the damaged slot said, the drive is recovered from its journal.
            header.clean = false;
        }
        if header.profile_hash != identity.profile_hash
            || header.raw_bytes != identity.raw_bytes
            || header.capacity_bytes_user != identity.capacity_bytes_user
            || header.block_bytes != identity.block_bytes
        {
            // The same name with another hash: the profile as given now differs from the one the
            // file was made with (other `--set` values, or an edited profile file).
            let hint = if header.profile_name == identity.profile_name {
                "; the name is the same, so the settings differ: give the --set values it was served with (or the profile file as it was then)"
            } else {
                ""
            };
            bail!(
                Config,
                "{path}: the backing file was made for profile `{}` (hash {:016x}, {} raw bytes, {} user bytes), not for `{}` (hash {:016x}, {} raw bytes, {} user bytes){hint}; serve it with its own profile or use another file",
                header.profile_name,
                header.profile_hash,
                header.raw_bytes,
                header.capacity_bytes_user,
                identity.profile_name,
                identity.profile_hash,
                identity.raw_bytes,
                identity.capacity_bytes_user
            );
        }
        Ok(Self {
            path: path.to_string(),
            file,
            header,
            layout,
            existed: true,
            next_batch: 0,
            journal_tail: 0,
            metadata_bytes: 0,
            header_note: note,
            batches: Vec::new(),
        })
    }

    /// The current header: the intact slot with the higher generation. Headers are written
    /// alternately (a new file gets both at once), so two intact slots are one generation
    /// apart; two that are not were tampered with, and the file is refused. One damaged slot
    /// (a write torn inside its sector by the host, or bit rot) leaves the other: it is the
    /// header to use if the journal still belongs to its epoch (checked by the caller), and the
    /// note says so.
    fn read_header(path: &str, file: &dyn HostFile, len: u64) -> Result<(Header, Option<String>)> {
        let mut slots: Vec<Result<Header>> = Vec::new();
        let mut blank = 0;
        for slot in 0..2u64 {
            let mut block = vec![0u8; HEADER_BYTES as usize];
            let start = slot * HEADER_BYTES;
            if start < len {
                let n = (len - start).min(HEADER_BYTES) as usize;
                file.read_exact_at(&mut block[..n], start).map_err(|e| io(path, "read the header", e))?;
            }
            let decoded = if block.iter().all(|&b| b == 0) {
                blank += 1;
                Err(Error::Io(format!("{path}: header slot {slot} is blank")))
            } else {
                Header::decode(path, &block).and_then(|h| {
                    if h.generation % 2 == slot {
                        Ok(h)
                    } else {
                        Err(Error::Io(format!("{path}: header slot {slot} holds generation {} (damaged header)", h.generation)))
                    }
                })
            };
            slots.push(decoded);
        }
        let second = slots.pop().expect("two slots");
        let first = slots.pop().expect("two slots");
        let another_version = |e: &Error| e.to_string().contains("format version");
        match (first, second) {
            (Ok(a), Ok(b)) if a.generation.abs_diff(b.generation) == 1 => Ok((if a.generation > b.generation { a } else { b }, None)),
            (Ok(a), Ok(b)) => {
                bail!(Io, "{path}: the header slots hold generations {} and {}, not consecutive (damaged header)", a.generation, b.generation)
            }
            (Err(e), _) | (_, Err(e)) if another_version(&e) => Err(e),
            (Ok(h), Err(e)) | (Err(e), Ok(h)) => {
                let note = format!("{e}; the other header slot (generation {}) was used", h.generation);
                Ok((h, Some(note.trim_start_matches(&format!("{path}: ")).to_string())))
            }
            // Blank where a header belongs: a file made by `truncate` or `qemu-img create`,
            // say (or one whose headers were wiped).
            (Err(_), Err(_)) if blank == 2 => bail!(
                Config,
                "{path}: not an ssdlab backing file (its header slots are blank: made by truncate or qemu-img create?); refusing to use it: give a new file name (created by serve), or --secure-erase to serve this file as an empty drive"
            ),
            (Err(e), Err(_)) => Err(e),
        }
    }

    /// After a fallback to the other header slot: that header is usable only if the journal
    /// still belongs to its epoch (its first page is that epoch's first batch or its end marker).
    /// A damaged newest slot whose drive went on to a later checkpoint (whose journal then
    /// started over) would otherwise bring back an old map of blocks reused since.
    fn check_fallback(path: &str, file: &dyn HostFile, header: &Header, note: &str) -> Result<()> {
        let mut head = [0u8; BATCH_HEADER_BYTES];
        let readable = file.read_exact_at(&mut head, JOURNAL_OFFSET).is_ok();
        let epoch = header.epoch();
        let belongs = readable && (journal::is_end(&head, epoch, 0) || matches!(journal::read_head(&head, epoch, 0), BatchHead::Batch { .. }));
        if !belongs {
            bail!(Io, "{path}: {note}, but the journal no longer belongs to that header's checkpoint (the drive went on after it): refusing, since its map may point at blocks reused since");
        }
        Ok(())
    }

    /// Why the header was read from the other slot, when one slot was damaged.
    pub fn header_note(&self) -> Option<&str> {
        self.header_note.as_deref()
    }

    /// The file's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The header as read or last written.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Where each part of the file lives.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Whether the file existed before (a restart) rather than being created now.
    pub fn existed(&self) -> bool {
        self.existed
    }

    /// Metadata bytes written since open (journal pages, checkpoints, headers).
    pub fn metadata_bytes(&self) -> u64 {
        self.metadata_bytes
    }

    /// Journal bytes written in the current epoch.
    pub fn journal_bytes(&self) -> u64 {
        self.journal_tail
    }

    /// The data region over `table`.
    pub fn extents(&self, table: ExtentTable) -> Result<Extents> {
        Ok(Extents::new(self.file.clone(), self.layout, table))
    }

    fn write_header(&mut self) -> Result<()> {
        let block = self.header.encode()?;
        let slot = self.header.generation % 2;
        self.file.write_all_at(&block, slot * HEADER_BYTES).map_err(|e| io(&self.path, "write the header", e))?;
        self.metadata_bytes += HEADER_BYTES;
        self.sync()
    }

    fn sync(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| io(&self.path, "sync the backing file", e))
    }

    /// Whether the drive died at its last power cut (the dead-device fault).
    pub fn is_dead(&self) -> bool {
        self.header.dead
    }

    /// The drive dies (the dead-device fault at a power cut): durable when this returns.
    pub fn mark_dead(&mut self) -> Result<()> {
        self.header.dead = true;
        self.header.generation += 1;
        self.write_header()
    }

    /// Mark the file in use (not cleanly shut down) until the next clean checkpoint.
    pub fn mark_in_use(&mut self) -> Result<()> {
        self.header.clean = false;
        self.header.generation += 1;
        self.write_header()
    }

    /// The newest checkpoint's bytes, checked against its checksum (`None` before the first).
    pub fn read_checkpoint(&self) -> Result<Option<Vec<u8>>> {
        let Some(c) = self.header.checkpoint else { return Ok(None) };
        if c.slot > 1 || c.len > self.layout.checkpoint_slot_bytes {
            bail!(Io, "{}: the header names a checkpoint of {} bytes in slot {} (damaged header)", self.path, c.len, c.slot);
        }
        let mut bytes = vec![0u8; c.len as usize];
        self.file.read_exact_at(&mut bytes, self.layout.checkpoint_offset(c.slot)).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                Error::Io(format!("{}: the checkpoint is cut short (the file was truncated)", self.path))
            } else {
                io(&self.path, "read the checkpoint", e)
            }
        })?;
        if crc32fast::hash(&bytes) != c.crc32 {
            bail!(Io, "{}: the checkpoint is damaged (checksum mismatch); the drive cannot be recovered from this file", self.path);
        }
        Ok(Some(bytes))
    }

    /// Write a checkpoint (what `write` streams) into the slot not in use, then the header
    /// naming it (with `clean`), each durable before the next; the journal starts a new epoch
    /// after it.
    pub fn write_checkpoint(&mut self, write: &mut dyn FnMut(&mut dyn Write) -> Result<()>, clean: bool) -> Result<()> {
        let slot = self.header.checkpoint.map_or(0, |c| 1 - c.slot);
        let mut out = SlotWriter {
            file: &*self.file,
            offset: self.layout.checkpoint_offset(slot),
            room: self.layout.checkpoint_slot_bytes,
            written: 0,
            hasher: crc32fast::Hasher::new(),
            buffer: Vec::with_capacity(1 << 20),
        };
        write(&mut out)?;
        out.flush().map_err(|e| io(&self.path, "write the checkpoint", e))?;
        let (len, crc32) = (out.written, out.hasher.clone().finalize());
        self.metadata_bytes += len;
        self.sync()?;
        let epoch = self.header.epoch() + 1;
        self.header.checkpoint = Some(CheckpointRef { slot, len, crc32, epoch });
        self.header.clean = clean;
        self.header.generation += 1;
        self.write_header()?;
        self.next_batch = 0;
        self.journal_tail = 0;
        self.batches.clear();
        // Only now: until the header names the new checkpoint, the old epoch's journal at the
        // same place is still the one recovery would read. (A crash between the two leaves a
        // new epoch without its marker, which recovery reports as a possibly lost last batch.)
        self.write_end_marker()
    }

    /// Write the end marker at the journal's tail (after recovery, the journal continues there).
    pub fn write_end_marker(&mut self) -> Result<()> {
        let marker = journal::encode_end(self.header.epoch(), self.next_batch);
        self.file.write_all_at(&marker, JOURNAL_OFFSET + self.journal_tail).map_err(|e| io(&self.path, "write the journal's end marker", e))?;
        self.metadata_bytes += marker.len() as u64;
        Ok(())
    }

    /// Whether a batch of records encoded in `record_bytes` bytes still fits the journal.
    pub fn journal_has_room(&self, record_bytes: usize) -> bool {
        self.journal_tail + journal::batch_bytes(8 + record_bytes as u32) + journal::PAGE_BYTES <= JOURNAL_BYTES
    }

    /// Append the `count` records encoded in `records` as the next batch (durable when `sync`).
    pub fn append_batch(&mut self, count: u64, records: &[u8], sync: bool) -> Result<()> {
        let batch = self.reserve_batch(count, records)?;
        self.file.write_all_at(&batch.bytes, batch.at).map_err(|e| io(&self.path, "write the journal", e))?;
        if sync {
            self.sync()?;
        }
        Ok(())
    }

    /// Take the journal's room for the next batch, of the `count` records encoded in
    /// `records`: its bytes (with the end marker after it) and where they go, written by the
    /// caller (a commit outside the drive's lock), in the order reserved.
    pub(crate) fn reserve_batch(&mut self, count: u64, records: &[u8]) -> Result<BatchWrite> {
        let mut bytes = Vec::new();
        journal::encode_batch_into(&mut bytes, self.header.epoch(), self.next_batch, count, records);
        let size = bytes.len() as u64;
        if self.journal_tail + size + journal::PAGE_BYTES > JOURNAL_BYTES {
            bail!(Io, "{}: the journal is full (a checkpoint should have started it again)", self.path);
        }
        bytes.extend_from_slice(&journal::encode_end(self.header.epoch(), self.next_batch + 1));
        let at = JOURNAL_OFFSET + self.journal_tail;
        if records.len() >= 8 {
            self.batches.push((self.journal_tail, u64::from_le_bytes(records[..8].try_into().expect("8 bytes"))));
        }
        self.journal_tail += size;
        self.metadata_bytes += size + journal::PAGE_BYTES;
        self.next_batch += 1;
        Ok(BatchWrite { at, bytes })
    }

    /// The metadata-corruption fault: the journal goes back to the start of one of its batches
    /// (drawn by `rng`; the first: back to the checkpoint), durably, as a drive whose map
    /// write-back was lost comes back with older mappings. Returns the sequence number the
    /// journal continues with, or `None` when it holds no batch.
    pub fn roll_back_journal(&mut self, rng: &mut ssdlab_core::SimRng) -> Result<Option<u64>> {
        if self.batches.is_empty() {
            return Ok(None);
        }
        let k = rng.below(self.batches.len() as u64) as usize;
        let (offset, first_seq) = self.batches[k];
        // The batches from k on are gone, not only cut off by the end marker: an intact batch
        // after the marker would look like later damage (not a torn tail) and recovery would
        // refuse the file.
        let old_tail = self.journal_tail.min(JOURNAL_BYTES);
        let zeros = vec![0u8; (old_tail - offset) as usize];
        self.file.write_all_at(&zeros, JOURNAL_OFFSET + offset).map_err(|e| io(&self.path, "roll back the journal", e))?;
        self.batches.truncate(k);
        self.journal_tail = offset;
        self.next_batch = k as u64;
        self.write_end_marker()?;
        self.sync()?;
        Ok(Some(first_seq))
    }

    /// Power is cut while the `count` records encoded in `records` are being written: the first
    /// half of their batch reaches the file (a torn metadata page), the rest does not.
    pub fn write_torn_batch(&mut self, count: u64, records: &[u8]) {
        let mut batch = Vec::new();
        journal::encode_batch_into(&mut batch, self.header.epoch(), self.next_batch, count, records);
        // Half of the header and body (not of the padded page, whose first half may hold all of
        // a short body).
        let body = u32::from_le_bytes(batch[24..28].try_into().expect("4 bytes")) as usize;
        let torn = &batch[..(BATCH_HEADER_BYTES + body) / 2];
        if self.journal_tail + batch.len() as u64 <= JOURNAL_BYTES {
            let _ = self.file.write_all_at(torn, JOURNAL_OFFSET + self.journal_tail);
        }
    }

    /// What lies at journal byte `offset` where batch `index` of `epoch` would be.
    fn batch_at(&self, offset: u64, epoch: u64, index: u64, file_len: u64) -> Result<Found> {
        let at = JOURNAL_OFFSET + offset;
        if offset + BATCH_HEADER_BYTES as u64 > JOURNAL_BYTES {
            return Ok(Found::JournalEnd);
        }
        if at + BATCH_HEADER_BYTES as u64 > file_len {
            return Ok(Found::Damaged(format!("the file ends inside the journal, at its byte {offset} (truncated)")));
        }
        let mut head = [0u8; BATCH_HEADER_BYTES];
        self.file.read_exact_at(&mut head, at).map_err(|e| io(&self.path, "read the journal", e))?;
        let (body_bytes, crc32) = match journal::read_head(&head, epoch, index) {
            BatchHead::End if journal::is_end(&head, epoch, index) => return Ok(Found::Marker),
            BatchHead::End => {
                return Ok(Found::Damaged(format!(
                    "the journal stops at batch {index} (byte {offset}) without its end marker (its last batch was torn or lost)"
                )))
            }
            BatchHead::Batch { body_bytes, crc32 } => (body_bytes, crc32),
        };
        let size = journal::batch_bytes(body_bytes);
        if offset + size > JOURNAL_BYTES || at + BATCH_HEADER_BYTES as u64 + body_bytes as u64 > file_len {
            return Ok(Found::Damaged(format!("batch {index} claims {body_bytes} bytes, past the end of the journal or the file (torn or damaged)")));
        }
        let mut body = vec![0u8; body_bytes as usize];
        self.file.read_exact_at(&mut body, at + BATCH_HEADER_BYTES as u64).map_err(|e| io(&self.path, "read the journal", e))?;
        Ok(match journal::decode_body(&head, &body, crc32) {
            None => Found::Damaged(format!("batch {index} at journal byte {offset} fails its checksum (torn or damaged)")),
            Some(records) if records.is_empty() => Found::Damaged(format!("batch {index} at journal byte {offset} holds no records (damaged)")),
            Some(records) => Found::Batch { records, size },
        })
    }

    /// Read the journal of the current epoch from its start: every intact batch, in order,
    /// until its end marker, or until a batch that is missing or damaged (discarded, and named).
    pub fn scan_journal(&mut self) -> Result<JournalScan> {
        let epoch = self.header.epoch();
        let mut scan = JournalScan::default();
        let mut offset = 0u64;
        let file_len = self.file_len()?;
        loop {
            match self.batch_at(offset, epoch, scan.batches, file_len)? {
                Found::Batch { records, size } => {
                    self.batches.push((offset, records[0].seq));
                    scan.records.extend(records);
                    scan.batches += 1;
                    offset += size;
                }
                Found::Marker | Found::JournalEnd => break,
                Found::Damaged(why) => {
                    scan.discarded = Some(why);
                    break;
                }
            }
        }
        // A torn batch is the last one written. An intact batch of this epoch after where the
        // scan stopped (a damaged batch, or what looks like the end) means the damage is not a
        // torn tail: later operations were acknowledged as durable and blocks were released
        // after them, so the shorter journal no longer matches the data.
        if let Some(later) = self.later_batch(epoch, scan.batches, offset, file_len)? {
            let stop = match &scan.discarded {
                Some(_) => format!("journal batch {} is damaged", scan.batches),
                None => format!("the journal ends before batch {}", scan.batches),
            };
            bail!(Io, "{}: {stop} but batch {later} after it is intact (not a torn tail); the journal cannot be replayed consistently, refusing", self.path);
        }
        scan.bytes_read = offset;
        self.next_batch = scan.batches;
        self.journal_tail = offset;
        Ok(scan)
    }

    /// The index of an intact batch of `epoch` with an index of at least `after`, page-aligned
    /// somewhere from journal byte `from` on, if there is one.
    fn later_batch(&self, epoch: u64, after: u64, from: u64, file_len: u64) -> Result<Option<u64>> {
        let mut offset = from;
        while offset + BATCH_HEADER_BYTES as u64 <= JOURNAL_BYTES && JOURNAL_OFFSET + offset + (BATCH_HEADER_BYTES as u64) <= file_len {
            let mut head = [0u8; BATCH_HEADER_BYTES];
            self.file.read_exact_at(&mut head, JOURNAL_OFFSET + offset).map_err(|e| io(&self.path, "read the journal", e))?;
            let index = u64::from_le_bytes(head[16..24].try_into().expect("8 bytes"));
            if &head[..8] == journal::BATCH_MAGIC && index >= after {
                if let Found::Batch { .. } = self.batch_at(offset, epoch, index, file_len)? {
                    return Ok(Some(index));
                }
            }
            offset += journal::PAGE_BYTES;
        }
        Ok(None)
    }

    /// The file's length in bytes.
    pub fn file_len(&self) -> Result<u64> {
        self.file.len().map_err(|e| io(&self.path, "read the backing file's size", e))
    }
}

/// Streams a checkpoint into its slot, hashing it; refuses to run past the slot.
struct SlotWriter<'a> {
    file: &'a dyn HostFile,
    offset: u64,
    room: u64,
    written: u64,
    hasher: crc32fast::Hasher,
    buffer: Vec<u8>,
}

impl Write for SlotWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= 1 << 20 {
            self.flush()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.written + self.buffer.len() as u64 > self.room {
            return Err(std::io::Error::other(format!("the checkpoint does not fit its slot of {} bytes", self.room)));
        }
        self.file.write_all_at(&self.buffer, self.offset + self.written)?;
        self.hasher.update(&self.buffer);
        self.written += self.buffer.len() as u64;
        self.buffer.clear();
        Ok(())
    }
}

/// The process holding an exclusive `flock` on `file`, with its name, from `/proc/locks` (Linux):
/// a second `serve` of a file in use names the server that has it, which may be an nbdkit still
/// saving its state after its `ssdlab serve` was killed. `None` when it cannot be told.
fn lock_holder(file: &std::fs::File) -> Option<(u32, String)> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata().ok()?;
    let (major, minor) = (libc::major(meta.dev()), libc::minor(meta.dev()));
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|line| {
        // "1: FLOCK  ADVISORY  WRITE 24007 fd:00:1234 0 EOF" (major and minor in hex).
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.get(1) != Some(&"FLOCK") || fields.get(3) != Some(&"WRITE") {
            return None;
        }
        let mut id = fields.get(5)?.split(':');
        let (maj, min, ino) = (u32::from_str_radix(id.next()?, 16).ok()?, u32::from_str_radix(id.next()?, 16).ok()?, id.next()?.parse::<u64>().ok()?);
        if (maj, min, ino) != (major, minor, meta.ino()) {
            return None;
        }
        let pid: u32 = fields.get(4)?.parse().ok()?;
        let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).map(|n| n.trim().to_string()).unwrap_or_else(|_| "gone".into());
        Some((pid, name))
    })
}
