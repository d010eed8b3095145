//! Block sizes: `bs`, `bsrange` and `bssplit`, one value for every direction or one per
//! direction (reads, writes, trims).

use super::{BlockSizes, JobSpec};
use ssdlab_core::{Error, Result};

/// Most block sizes a `bsrange` expands to (multiples of its smallest size).
const MAX_BSRANGE_SIZES: u64 = 65_536;

impl JobSpec {
    /// Set the block sizes from `bs`, `bsrange` or `bssplit`'s text: one value for every
    /// direction, or fio's comma-separated values for reads, writes and trims (a value not
    /// followed by a comma applies to the directions after it; an empty one keeps the
    /// direction's value so far: `bs=8k,32k` is 8k reads, 32k writes and trims; `bs=8k,32k,`
    /// leaves trims as they were).
    pub(super) fn set_block_sizes(&mut self, text: &str, at: &str, parse: impl Fn(&Self, &str, &str) -> Result<Vec<(u64, u32)>>) -> Result<()> {
        if !text.contains(',') {
            self.block_sizes = parse(self, text, at)?;
            self.block_sizes_by_op = None;
            return Ok(());
        }
        let mut fields: Vec<&str> = text.split(',').map(str::trim).collect();
        // fio strips one trailing comma after a third value (`bs=4k,8k,16k,`).
        if fields.len() == 4 && fields[3].is_empty() {
            fields.pop();
        }
        if fields.len() > 3 {
            return Err(Error::Workload(format!("{at}: `{text}`: at most three values (reads, writes, trims)")));
        }
        // An empty field keeps the direction's value so far (fio's default, 4k, or what an
        // earlier option gave, [global]'s say); a value without a comma after it goes on to the
        // directions after it.
        let mut by_op: [BlockSizes; 3] = match self.block_sizes_by_op.as_deref() {
            Some(current) => current.clone(),
            None => [self.block_sizes.clone(), self.block_sizes.clone(), self.block_sizes.clone()],
        };
        for (direction, sizes) in by_op.iter_mut().enumerate() {
            let field = match fields.get(direction) {
                Some(field) => *field,
                None => fields.last().copied().unwrap_or(""),
            };
            if !field.is_empty() {
                *sizes = parse(self, field, at)?;
            }
        }
        self.block_sizes = Self::every_size(by_op.iter());
        self.block_sizes_by_op = Some(Box::new(by_op));
        Ok(())
    }

    /// Every size of the given lists, once each (equal weights: for the span's checks).
    fn every_size<'a>(lists: impl Iterator<Item = &'a BlockSizes>) -> BlockSizes {
        let mut all: BlockSizes = lists.flatten().map(|&(bytes, _)| (bytes, 1)).collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// With sizes per direction, the sizes of the directions the job issues (fio checks and
    /// aligns each direction by its own; a read-only job's write size does not matter).
    pub(super) fn settle_block_sizes(&mut self) {
        let Some(by_op) = self.block_sizes_by_op.as_deref() else { return };
        let issued = [self.rw.reads(), self.rw.writes(), self.rw.trims()];
        self.block_sizes = Self::every_size(by_op.iter().zip(issued).filter(|(_, used)| *used).map(|(sizes, _)| sizes));
    }

    /// fio's `bsrange=MIN-MAX` (or `MIN:MAX`, as fio's range parser takes when there is no
    /// `-`): sizes between the two, multiples of the smallest, equally likely. As fio, the two
    /// are swapped when the first is the larger.
    pub(super) fn parse_bsrange(&self, t: &str, at: &str) -> Result<Vec<(u64, u32)>> {
        let (low, high) = t
            .split_once('-')
            .or_else(|| t.split_once(':'))
            .ok_or_else(|| Error::Workload(format!("{at}: bsrange: expected MIN-MAX (e.g. 4k-64k), got `{t}`")))?;
        let low = self.sector_size("bsrange", low, at)?;
        let high = self.sector_size("bsrange", high, at)?;
        let (low, high) = (low.min(high), low.max(high));
        let count = high / low;
        if count > MAX_BSRANGE_SIZES {
            return Err(Error::Workload(format!("{at}: bsrange: {low}-{high} spans more than {MAX_BSRANGE_SIZES} sizes")));
        }
        Ok((1..=count).map(|k| (k * low, 1)).collect())
    }

    pub(super) fn parse_bssplit(&self, text: &str, at: &str) -> Result<Vec<(u64, u32)>> {
        let mut out = Vec::new();
        for part in text.split(':') {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let (size_text, weight_text) = part.split_once('/').unwrap_or((part, ""));
            let bytes = self.sector_size("bssplit", size_text, at)?;
            let weight: u32 = if weight_text.trim().is_empty() {
                0
            } else {
                weight_text.trim().parse().map_err(|_| Error::Workload(format!("{at}: bssplit: `{weight_text}` is not a percentage")))?
            };
            if weight > 100 {
                return Err(Error::Workload(format!("{at}: bssplit: percentage {weight} is over 100")));
            }
            out.push((bytes, weight));
        }
        if out.is_empty() {
            return Err(Error::Workload(format!("{at}: bssplit: expected size/percent[:size/percent...]")));
        }
        // As fio: entries without a percentage share what is left.
        let given: u32 = out.iter().map(|(_, w)| *w).sum();
        if given > 100 {
            return Err(Error::Workload(format!("{at}: bssplit: percentages add up to {given}, more than 100")));
        }
        let unset = out.iter().filter(|(_, w)| *w == 0).count() as u32;
        if let Some(share) = (100 - given).checked_div(unset) {
            for entry in out.iter_mut().filter(|(_, w)| *w == 0) {
                entry.1 = share;
            }
        }
        // As fio: a share no entry claims (4k/10:64k/40, or the remainder of 100/3) goes to the
        // entry with the largest percentage (fio sorts them by percentage and an unmatched draw
        // falls through to the last), not spread over them all.
        let total: u32 = out.iter().map(|(_, w)| *w).sum();
        if total > 0 && total < 100 {
            let largest = out.iter().enumerate().max_by_key(|(i, (_, w))| (*w, *i)).map(|(i, _)| i).expect("non-empty");
            out[largest].1 += 100 - total;
        }
        Ok(out)
    }
}
