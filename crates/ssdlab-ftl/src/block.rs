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

/// Metadata of one FTL block (a multi-plane block group on one die).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Block {
    /// Slots holding the current copy of some logical sector.
    pub valid: u32,
    /// Slots written (programmed or queued) since the last erase.
    pub written: u32,
    /// Program/erase cycles so far in native mode.
    pub erase_count: u32,
    /// Program/erase cycles so far in pSLC mode (counted apart: pSLC cycles wear the cells far
    /// less and have their own rating).
    #[serde(default)]
    pub slc_erase_count: u32,
    /// Life-cycle state.
    pub state: BlockState,
    /// Value of the FTL's close sequence when this block closed (its age stamp).
    pub close_seq: u64,
    /// Programmed in pSLC mode since its last erase (an SLC cache block).
    #[serde(default)]
    pub slc: bool,
}

impl Block {
    pub fn erased() -> Self {
        Self { valid: 0, written: 0, erase_count: 0, slc_erase_count: 0, state: BlockState::Free, close_seq: 0, slc: false }
    }
}
