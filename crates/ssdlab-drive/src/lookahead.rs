//! The commands a run or a fast-forward has generated ahead of submission, so their mapping
//! entries (and, on data-reduction drives, their fingerprints' index slots) can be prefetched
//! while earlier commands are served.
//!
//! The content of a written sector is drawn from the job's content stream in command order.
//! Drawing it ahead lets its fingerprint be prefetched, but holds about 50 bytes per sector
//! until the command is served: a 4 GiB command would hold 50 MiB, a 200 GiB one 2.5 GB. So
//! content is drawn ahead only while the look-ahead holds at most [`CONTENT_AHEAD_MAX_SECTORS`]
//! sectors of it; later commands draw theirs from the stream as they are served. Either way
//! each sector gets the content it would get in order, so the cap changes no result.

use crate::drive::Drive;
use ssdlab_nand::SECTOR_BYTES;
use ssdlab_reduce::{ContentStream, SectorContent};
use ssdlab_workload::{Io, IoGenerator, Op};
use std::collections::VecDeque;

/// Commands generated ahead of submission.
pub(crate) const LOOKAHEAD: usize = 16;
/// Position in the look-ahead at which the second prefetch stage runs.
pub(crate) const STAGE2_AT: usize = 6;
/// Position in the look-ahead at which the third prefetch stage runs.
pub(crate) const STAGE3_AT: usize = 2;
/// Most sectors whose content is drawn ahead (4 MiB of 512-byte sectors, 32 MiB of 4 KiB
/// ones): every command of up to `LOOKAHEAD` commands of 256 KiB to 2 MiB each keeps its
/// fingerprints prefetched.
pub(crate) const CONTENT_AHEAD_MAX_SECTORS: usize = 8192;

/// Commands generated ahead of submission and the content drawn ahead for them.
#[derive(Debug)]
pub(crate) struct Lookahead {
    ios: VecDeque<Io>,
    /// Most sectors of content drawn ahead.
    cap_sectors: u64,
    /// Contents of the written sectors of the first `with_content` commands of `ios`, in order.
    contents: VecDeque<SectorContent>,
    /// How many commands at the front of `ios` have their content in `contents` (a prefix:
    /// content is drawn in command order).
    with_content: usize,
}

/// Where the next command's written content comes from.
pub(crate) enum ContentFrom {
    /// Drawn ahead: in [`Lookahead::contents`].
    Ahead,
    /// Not drawn yet: from the job's content stream.
    Stream,
}

impl Lookahead {
    /// An empty look-ahead.
    pub(crate) fn new() -> Self {
        Self::with_cap(CONTENT_AHEAD_MAX_SECTORS as u64)
    }

    /// An empty look-ahead that draws at most `cap_sectors` sectors of content ahead.
    pub(crate) fn with_cap(cap_sectors: u64) -> Self {
        Self { ios: VecDeque::with_capacity(LOOKAHEAD + 1), cap_sectors, contents: VecDeque::new(), with_content: 0 }
    }

    /// Generate commands until `LOOKAHEAD` are waiting or the generator ends, prefetching each
    /// one's mapping entry and, when `needs_content`, drawing (and prefetching) its content while
    /// the cap allows.
    pub(crate) fn fill(&mut self, drive: &Drive, generator: &mut IoGenerator, content: &mut ContentStream, needs_content: bool) {
        while self.ios.len() < LOOKAHEAD {
            let Some(next) = generator.next_io() else { break };
            drive.prefetch_stage1(&next);
            if needs_content && next.op == Op::Write {
                let first = next.offset_bytes / SECTOR_BYTES;
                let last = (next.offset_bytes + next.len_bytes - 1) / SECTOR_BYTES;
                let sectors = last - first + 1;
                let in_order = self.with_content == self.ios.len();
                if in_order && self.contents.len() as u64 + sectors <= self.cap_sectors {
                    for _ in 0..sectors {
                        let sector = content.next_sector();
                        drive.prefetch_content(&sector);
                        self.contents.push_back(sector);
                    }
                    self.with_content += 1;
                }
            } else if self.with_content == self.ios.len() {
                // Nothing to draw: the prefix of commands with their content ready goes on.
                self.with_content += 1;
            }
            self.ios.push_back(next);
        }
    }

    /// The next command to submit, and where its written content comes from.
    pub(crate) fn pop(&mut self) -> Option<(Io, ContentFrom)> {
        let io = self.ios.pop_front()?;
        if self.with_content > 0 {
            self.with_content -= 1;
            Some((io, ContentFrom::Ahead))
        } else {
            Some((io, ContentFrom::Stream))
        }
    }

    /// The command `index` places after the next one to submit.
    pub(crate) fn get(&self, index: usize) -> Option<&Io> {
        self.ios.get(index)
    }

    /// Content drawn ahead, for the command [`Lookahead::pop`] said takes it from here.
    pub(crate) fn contents(&mut self) -> &mut VecDeque<SectorContent> {
        &mut self.contents
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_reduce::ContentSource;
    use ssdlab_workload::parse_options;

    /// Every command and the fingerprints of the content its sectors take, as a run consumes
    /// them through a look-ahead capped at `cap_sectors`; also the most content held at once.
    fn consumed(drive: &Drive, options: &str, cap_sectors: u64) -> (Vec<(Io, Vec<u128>)>, usize) {
        let job = parse_options("t", &options.split(' ').map(str::to_string).collect::<Vec<_>>()).unwrap();
        let mut generator = IoGenerator::new(&job, drive.usable_bytes(), 5).unwrap();
        let mut content = ContentStream::new(job.pattern, drive.options().content, 5);
        let mut lookahead = Lookahead::with_cap(cap_sectors);
        let (mut out, mut most) = (Vec::new(), 0);
        loop {
            lookahead.fill(drive, &mut generator, &mut content, true);
            most = most.max(lookahead.contents.len());
            let Some((io, from)) = lookahead.pop() else { break };
            let sectors = if io.op == Op::Write { io.len_bytes.div_ceil(SECTOR_BYTES) } else { 0 };
            let fingerprints = (0..sectors)
                .map(|_| match from {
                    ContentFrom::Ahead => lookahead.contents().next_content().fingerprint,
                    ContentFrom::Stream => content.next_content().fingerprint,
                })
                .collect();
            out.push((io, fingerprints));
        }
        assert!(lookahead.contents.is_empty(), "content drawn for no command");
        (out, most)
    }

    #[test]
    fn the_cap_changes_no_sectors_content_and_bounds_what_is_held() {
        let profile = ssdlab_profile::load_profile("force-gs-240", &["nand.blocks_per_plane=16".into(), "drive.capacity_bytes_user=999997440".into()]).unwrap();
        let drive = Drive::new(profile).unwrap();
        for options in [
            "--rw=randrw --bsrange=4k-4m --size=200m",
            "--rw=write --bs=4m --size=100m",
            "--rw=randwrite --bs=4k --size=8m",
            "--rw=randwrite --bs=64m --size=512m",
        ] {
            let (unlimited, most_unlimited) = consumed(&drive, options, u64::MAX);
            for cap in [0, 1, 100, CONTENT_AHEAD_MAX_SECTORS as u64] {
                let (capped, most) = consumed(&drive, options, cap);
                assert_eq!(capped, unlimited, "{options}: a cap of {cap} sectors changed a sector's content");
                assert!(most as u64 <= cap, "{options}: {most} sectors held under a cap of {cap}");
            }
            assert!(!unlimited.is_empty(), "{options}: no commands");
            if options.contains("64m") {
                assert!(most_unlimited as u64 > CONTENT_AHEAD_MAX_SECTORS as u64, "{options}: the uncapped look-ahead held only {most_unlimited}");
            }
        }
    }
}
