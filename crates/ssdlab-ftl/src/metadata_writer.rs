//! The loop both FTLs use to write the metadata due now through their host stream; each FTL
//! says only how it reads a map page's old copy and how it stores one metadata sector.

use crate::metadata::{MetaWrite, Metadata};
use crate::sink::FlashSink;
use ssdlab_core::Result;

/// An FTL that writes firmware metadata (journal sectors, map pages) as pseudo-sectors of its
/// host stream.
pub(crate) trait MetadataWriter {
    /// The metadata model (`None`: metadata not modelled) and the flag that says its loop is
    /// running (the GC a metadata write starts notes further changes; they are written by the
    /// loop already running, never from inside it).
    fn metadata_and_busy(&mut self) -> (&mut Option<Metadata>, &mut bool);

    /// Read the old copy of metadata pseudo-sector `sector` (a map page updated in place), if
    /// it is on the flash.
    fn read_metadata_sector<S: FlashSink + ?Sized>(&self, sector: u64, sink: &mut S);

    /// Store metadata pseudo-sector `sector` in the host stream (its old copy, if any, becomes
    /// stale).
    fn write_metadata_sector<S: FlashSink + ?Sized>(&mut self, sector: u64, sink: &mut S) -> Result<()>;
}

/// Write the metadata sectors due now (full journal sectors, a checkpoint's dirty map pages)
/// through `ftl`'s host stream, until none is due. Does nothing when metadata is not modelled
/// or when called from inside the loop itself.
#[inline]
pub(crate) fn write_due_metadata<F: MetadataWriter, S: FlashSink + ?Sized>(ftl: &mut F, sink: &mut S) -> Result<()> {
    {
        let (meta, busy) = ftl.metadata_and_busy();
        if meta.is_none() || *busy {
            return Ok(());
        }
        *busy = true;
    }
    let result = write_until_done(ftl, sink);
    *ftl.metadata_and_busy().1 = false;
    result
}

/// The loop of [`write_due_metadata`], with its busy flag set.
fn write_until_done<F: MetadataWriter, S: FlashSink + ?Sized>(ftl: &mut F, sink: &mut S) -> Result<()> {
    while let Some(work) = ftl.metadata_and_busy().0.as_mut().and_then(Metadata::next_write) {
        match work {
            MetaWrite::Journal { sector } => ftl.write_metadata_sector(sector, sink)?,
            MetaWrite::MapPage { first, sectors, read } => {
                for sector in first..first + sectors {
                    if read {
                        ftl.read_metadata_sector(sector, sink);
                    }
                    ftl.write_metadata_sector(sector, sink)?;
                }
            }
        }
    }
    Ok(())
}
