//! The media model of a die: its cell mode, the time of each page type's read, the program of
//! a word line, and the pseudo-SLC mode a block may be programmed in.
//!
//! A die's blocks are programmed in their *native* mode (the cells' bits per cell) or, when the
//! NAND supports it, in *pSLC* mode: one bit per cell, so a block holds a third (TLC) or a
//! quarter (QLC) of its native capacity, programs faster and reads faster. Native programs of
//! 3D TLC/QLC are one-shot: the pages of a word line (one per bit) are transferred to the die's
//! latches and programmed together in one tPROG; the FTL's native program unit is then a whole
//! word line on every plane. Profiles written before the media model (no `[media]` section) get
//! [`Media::legacy`]: one program unit per multi-plane page, `t_read_ns` for every read and
//! `t_prog_ns` for every program, exactly as before.

use crate::Timing;
use ssdlab_core::{field_ensure, FieldError, Nanoseconds};

/// Bits stored per cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CellMode {
    /// One bit per cell.
    Slc,
    /// Two bits per cell.
    Mlc,
    /// Three bits per cell.
    Tlc,
    /// Four bits per cell.
    Qlc,
}

impl CellMode {
    /// Parse the profile spelling (`slc`, `mlc`, `tlc`, `qlc`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "slc" => Some(Self::Slc),
            "mlc" => Some(Self::Mlc),
            "tlc" => Some(Self::Tlc),
            "qlc" => Some(Self::Qlc),
            _ => None,
        }
    }

    /// The profile spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::Slc => "slc",
            Self::Mlc => "mlc",
            Self::Tlc => "tlc",
            Self::Qlc => "qlc",
        }
    }

    /// Bits per cell (pages per word line).
    pub fn bits(self) -> u32 {
        match self {
            Self::Slc => 1,
            Self::Mlc => 2,
            Self::Tlc => 3,
            Self::Qlc => 4,
        }
    }
}

/// Timing and endurance of blocks programmed in pseudo-SLC mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PslcMode {
    /// Page read time of a pSLC page.
    pub t_read_ns: Nanoseconds,
    /// Program time of a pSLC page (one per plane, multi-plane).
    pub t_prog_ns: Nanoseconds,
    /// Rated program/erase cycles of a block used in pSLC mode.
    pub endurance_cycles: u32,
}

/// Suspend of a program or erase in progress by a host read (NAND that supports it): the die
/// stops the operation, serves the read, and resumes the operation, which ends later by the
/// read's time plus both latencies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Suspend {
    /// Time from the suspend command to the die being ready for the read.
    pub suspend_ns: Nanoseconds,
    /// Time the resumed operation loses on top of the read's own time.
    pub resume_ns: Nanoseconds,
    /// Most suspensions of one program or erase (then reads wait for it to end).
    pub max_per_op: u32,
}

impl Suspend {
    /// Reads go ahead of queued programs and erases but never suspend the one in progress (a
    /// firmware scheduler that puts reads first on NAND without suspend).
    pub const READS_FIRST_ONLY: Suspend = Suspend { suspend_ns: 0, resume_ns: 0, max_per_op: 0 };
}

/// The media model of every die of a drive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Media {
    /// The cells' native mode.
    pub native: CellMode,
    /// Native programs are one-shot: a word line's pages (one per bit) are programmed together
    /// in one `t_prog_ns`, and the FTL's native program unit is a word line on every plane.
    pub one_shot: bool,
    /// Sense time of a native page by its type (LSB, CSB, MSB, TSB: the page's index within its
    /// word line); only the first `native.bits()` are used.
    pub t_read_page_ns: [Nanoseconds; 4],
    /// Native program time (of a word line when one-shot, of a page otherwise).
    pub t_prog_ns: Nanoseconds,
    /// Rated program/erase cycles of a block used natively (0: not modelled).
    pub native_endurance_cycles: u32,
    /// Blocks may be programmed in pSLC mode (with these times), or not.
    pub pslc: Option<PslcMode>,
    /// A host read may suspend a program or erase in progress (up to a limit per operation), or
    /// not.
    pub suspend: Option<Suspend>,
}

impl Media {
    /// The media of a profile without a `[media]` section: every read `t_read_ns`, every
    /// program of one multi-plane page `t_prog_ns`, no pSLC mode (the model before issue 20).
    pub fn legacy(timing: &Timing) -> Self {
        Self {
            native: CellMode::Mlc,
            one_shot: false,
            t_read_page_ns: [timing.t_read_ns; 4],
            t_prog_ns: timing.t_prog_ns,
            native_endurance_cycles: 0,
            pslc: None,
            suspend: None,
        }
    }

    /// Multi-plane pages in one native program unit (the bits of a word line when one-shot).
    #[inline]
    pub fn native_pages_per_program(&self) -> u32 {
        if self.one_shot {
            self.native.bits()
        } else {
            1
        }
    }

    /// How many times more data a native block holds than the same block in pSLC mode.
    #[inline]
    pub fn pslc_ratio(&self) -> u32 {
        self.native.bits()
    }

    /// Program time of one program unit of a block in pSLC mode (`slc`) or native mode.
    #[inline]
    pub fn program_ns(&self, slc: bool) -> Nanoseconds {
        match (&self.pslc, slc) {
            (Some(p), true) => p.t_prog_ns,
            _ => self.t_prog_ns,
        }
    }

    /// Sense time of multi-plane page `unit` of a block in pSLC mode (`slc`) or native mode (its
    /// page type is its index within the word line).
    #[inline]
    pub fn read_ns(&self, slc: bool, unit: u32) -> Nanoseconds {
        match (&self.pslc, slc) {
            (Some(p), true) => p.t_read_ns,
            _ => self.t_read_page_ns[(unit % self.native.bits()) as usize],
        }
    }

    /// Check the times are usable and the modes consistent.
    pub fn validate(&self) -> Result<(), FieldError> {
        let max = crate::timing::MAX_OPERATION_NS;
        field_ensure!((1..=max).contains(&self.t_prog_ns), "media", "t_prog_ns", "must be 1 to {max} ns (got {})", self.t_prog_ns);
        for (i, &t) in self.t_read_page_ns.iter().take(self.native.bits() as usize).enumerate() {
            field_ensure!((1..=max).contains(&t), "media", "t_read_page_ns", "page type {i}: must be 1 to {max} ns (got {t})");
        }
        if let Some(sp) = &self.suspend {
            field_ensure!(sp.suspend_ns <= max, "media", "suspend_latency_ns", "must be at most {max} ns (got {})", sp.suspend_ns);
            field_ensure!(sp.resume_ns <= max, "media", "resume_latency_ns", "must be at most {max} ns (got {})", sp.resume_ns);
        }
        if let Some(p) = &self.pslc {
            field_ensure!(self.native != CellMode::Slc, "media", "pslc_t_prog_ns", "native SLC NAND has no pSLC mode");
            field_ensure!((1..=max).contains(&p.t_prog_ns), "media", "pslc_t_prog_ns", "must be 1 to {max} ns (got {})", p.t_prog_ns);
            field_ensure!((1..=max).contains(&p.t_read_ns), "media", "pslc_t_read_ns", "must be 1 to {max} ns (got {})", p.t_read_ns);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BusKind;

    fn timing() -> Timing {
        Timing {
            t_read_ns: 50_000,
            t_prog_ns: 900_000,
            t_erase_ns: 3_000_000,
            command_overhead_ns: 0,
            bus: BusKind::Toggle2,
            bus_bytes_per_second: 400_000_000,
        }
    }

    #[test]
    fn legacy_media_times_every_page_alike() {
        let m = Media::legacy(&timing());
        assert_eq!(m.native_pages_per_program(), 1);
        assert_eq!((m.read_ns(false, 0), m.read_ns(false, 1), m.read_ns(true, 1)), (50_000, 50_000, 50_000));
        assert_eq!((m.program_ns(false), m.program_ns(true)), (900_000, 900_000));
    }

    #[test]
    fn tlc_pages_read_by_type_and_pslc_is_faster() {
        let mut m = Media::legacy(&timing());
        m.native = CellMode::Tlc;
        m.one_shot = true;
        m.t_read_page_ns = [40_000, 60_000, 80_000, 0];
        m.pslc = Some(PslcMode { t_read_ns: 30_000, t_prog_ns: 200_000, endurance_cycles: 30_000 });
        m.validate().unwrap();
        assert_eq!(m.native_pages_per_program(), 3);
        assert_eq!([m.read_ns(false, 3), m.read_ns(false, 4), m.read_ns(false, 5)], [40_000, 60_000, 80_000]);
        assert_eq!(m.read_ns(true, 5), 30_000);
        assert_eq!(m.program_ns(true), 200_000);
        m.t_read_page_ns[2] = 0;
        assert_eq!(m.validate().unwrap_err().key, "t_read_page_ns");
    }
}
