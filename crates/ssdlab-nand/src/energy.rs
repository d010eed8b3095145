//! Energy model of the array.

/// Energy per NAND operation and per byte on the bus, plus idle power of the array.
#[derive(Debug, Clone, PartialEq)]
pub struct Energy {
    /// Energy of reading one page into the register, nanojoules.
    pub read_nj_per_page: f64,
    /// Energy of programming one page, nanojoules.
    pub program_nj_per_page: f64,
    /// Energy of programming one page in pSLC mode, nanojoules (a pSLC program is shorter than
    /// a native one, and the array draws about the same current while programming).
    pub pslc_program_nj_per_page: f64,
    /// Energy of erasing one block on one plane, nanojoules.
    pub erase_nj_per_block: f64,
    /// Energy of moving one byte over a channel, picojoules.
    pub transfer_pj_per_byte: f64,
    /// Power of the whole array when nothing runs, milliwatts.
    pub idle_mw: f64,
}
