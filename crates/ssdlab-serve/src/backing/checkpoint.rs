//! The map checkpoints: read from, and written into, the slot not in use.

use super::{io, BackingFile};
use crate::header::CheckpointRef;
use crate::host::HostFile;
use ssdlab_core::{bail, Error, Result};
use std::io::Write;

impl BackingFile {
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
