//! Per-block metadata.

/// Where a block is in its life cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BlockState {
    /// Erased, in its die's free pool.
    Free,
    /// Being filled by host writes.
    OpenHost,
    /// Being filled by garbage-collection copies.
    OpenGc,
    /// Full; a candidate victim.
    Closed,
    /// Chosen by GC, its valid data being moved.
    Victim,
}

/// Metadata of one FTL block (a multi-plane block group on one die). Its valid count lives in
/// the pool's [`crate::block_counts::BlockCounts`], the one field every overwrite changes.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    /// Slots written (programmed or queued) since the last erase.
    pub written: u32,
    /// Program/erase cycles so far in native mode.
    pub erase_count: u32,
    /// Program/erase cycles so far in pSLC mode (counted apart: pSLC cycles wear the cells far
    /// less and have their own rating).
    pub slc_erase_count: u32,
    /// Life-cycle state.
    pub state: BlockState,
    /// Value of the FTL's close sequence when this block closed (its age stamp).
    pub close_seq: u64,
    /// Programmed in pSLC mode since its last erase (an SLC cache block).
    pub slc: bool,
}

impl Block {
    pub fn erased() -> Self {
        Self { written: 0, erase_count: 0, slc_erase_count: 0, state: BlockState::Free, close_seq: 0, slc: false }
    }
}

/// A block as saved (the layout saved states have always had: the valid count with the rest).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct SavedBlock {
    pub valid: u32,
    pub written: u32,
    pub erase_count: u32,
    #[serde(default)]
    pub slc_erase_count: u32,
    pub state: BlockState,
    pub close_seq: u64,
    #[serde(default)]
    pub slc: bool,
}

impl SavedBlock {
    /// `block` with its valid count, as saved.
    pub fn of(block: &Block, valid: u32) -> Self {
        Self {
            valid,
            written: block.written,
            erase_count: block.erase_count,
            slc_erase_count: block.slc_erase_count,
            state: block.state,
            close_seq: block.close_seq,
            slc: block.slc,
        }
    }

    /// The block restored (its valid count goes to the pool's counts).
    pub fn restore(&self) -> Block {
        Block {
            written: self.written,
            erase_count: self.erase_count,
            slc_erase_count: self.slc_erase_count,
            state: self.state,
            close_seq: self.close_seq,
            slc: self.slc,
        }
    }
}
