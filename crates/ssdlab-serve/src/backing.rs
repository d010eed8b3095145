//! The backing file of a served drive: header slots, the metadata journal, two map-checkpoint
//! slots and the data extents (layout in [`crate::layout`] and docs/backing-file.md).
//!
//! The file is locked (`flock`, exclusive) while a server uses it.

mod append;
mod checkpoint;
mod identify;
mod open;
mod scan;

use crate::extents::{ExtentTable, Extents};
use crate::header::{Header, HEADER_BYTES};
use crate::host::HostFile;
use crate::journal::Record;
use crate::layout::Layout;
use ssdlab_core::{Error, Result};
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

impl BackingFile {
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

    /// The file's length in bytes.
    pub fn file_len(&self) -> Result<u64> {
        self.file.len().map_err(|e| io(&self.path, "read the backing file's size", e))
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
}
