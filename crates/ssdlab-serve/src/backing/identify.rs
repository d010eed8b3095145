//! Taking a file for a drive: a new one laid out, or an existing one's header checked against it.

use super::{io, BackingFile, DriveIdentity};
use crate::header::{Header, FORMAT_VERSION, HEADER_BYTES};
use crate::host::HostFile;
use crate::journal::{self, BatchHead, BATCH_HEADER_BYTES};
use crate::layout::{Layout, JOURNAL_OFFSET};
use ssdlab_core::{bail, Error, Result};
use std::sync::Arc;

impl BackingFile {
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
}
