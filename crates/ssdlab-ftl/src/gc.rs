//! The garbage-collection driver shared by both FTLs: one round of collection, paced
//! foreground collection, making room for a host block, and choosing the die that takes the
//! next host block. Each FTL supplies only how a victim's live data is copied
//! ([`Collector::copy_victim`]); the decisions live here and in the block pool.

use crate::block::BlockState;
use crate::config::GcSchedule;
use crate::pool::BlockPool;
use crate::sink::FlashSink;
use crate::UNMAPPED;

/// What the driver needs from an FTL.
pub(crate) trait Collector {
    /// The FTL's block pool.
    fn pool_mut(&mut self) -> &mut BlockPool;

    /// Copy live data of the die's victim until at least `quota` allocation units were copied
    /// or the victim is empty (then erase it). Returns the units copied.
    fn copy_victim<S: FlashSink + ?Sized>(&mut self, die: u32, quota: u32, sink: &mut S) -> u32;

    /// Take a free block of `die` (which has at least two) as its open host block. An FTL with
    /// an SLC cache decides here whether the block is programmed in pSLC or native mode.
    fn take_host_block<S: FlashSink + ?Sized>(&mut self, die: u32, _sink: &mut S) -> u32 {
        self.pool_mut().take_free(die, BlockState::OpenHost)
    }
}

/// One round of GC on `die`: finish the victim in progress, or choose and reclaim a new one.
/// Returns `false` when no closed block has anything to reclaim.
pub(crate) fn collect_one<C: Collector, S: FlashSink + ?Sized>(ftl: &mut C, die: u32, sink: &mut S) -> bool {
    if !ftl.pool_mut().has_victim(die) {
        return false;
    }
    ftl.copy_victim(die, u32::MAX, sink);
    true
}

/// Foreground GC after a host program unit of `units_per_program` on `die`, as the schedule
/// says: paced, a burst of whole victims up to the high mark (one after each host program on
/// the die), or bounded background copying with a foreground fallback at the low-water mark.
#[inline]
pub(crate) fn after_host_program<C: Collector, S: FlashSink + ?Sized>(
    ftl: &mut C,
    die: u32,
    units_per_program: u32,
    low_free: u32,
    schedule: GcSchedule,
    sink: &mut S,
) {
    match schedule {
        GcSchedule::Paced => paced(ftl, die, units_per_program, low_free, sink),
        GcSchedule::Burst { high_free } => {
            // From the low-water mark up to the high mark, one whole victim after each host
            // program on the die: the die is busy with a block's copies at a time, and its host
            // programs pass between victims.
            let pool = ftl.pool_mut();
            if pool.free_count(die) <= low_free as usize {
                pool.dies[die as usize].bursting = true;
            }
            if pool.dies[die as usize].bursting && (pool.free_count(die) >= high_free as usize || !collect_one(ftl, die, sink)) {
                ftl.pool_mut().dies[die as usize].bursting = false;
            }
        }
        GcSchedule::Background { start_free, units_per_host_unit } => {
            let free = ftl.pool_mut().free_count(die);
            if free <= low_free as usize {
                collect_up_to(ftl, die, low_free + 1, sink);
            } else if free <= start_free as usize && ftl.pool_mut().has_victim(die) {
                ftl.copy_victim(die, units_per_host_unit.saturating_mul(units_per_program), sink);
            }
        }
    }
}

/// Reclaim whole victims on `die` until it has `target` free blocks or nothing is left to
/// reclaim. Bounded: each round reclaims a block with at least one invalid unit.
fn collect_up_to<C: Collector, S: FlashSink + ?Sized>(ftl: &mut C, die: u32, target: u32, sink: &mut S) {
    while ftl.pool_mut().free_count(die) < target as usize {
        if !collect_one(ftl, die, sink) {
            break;
        }
    }
}

/// Paced foreground GC after a host program unit of `units_per_program` on `die`: while the die
/// is at or below `low_free` free blocks, copy as much as reclaiming the victim frees per host
/// unit, so GC interleaves with host writes instead of stalling them in bursts.
pub(crate) fn paced<C: Collector, S: FlashSink + ?Sized>(ftl: &mut C, die: u32, units_per_program: u32, low_free: u32, sink: &mut S) {
    let quota = ftl.pool_mut().paced_quota(die, units_per_program, low_free);
    if quota > 0 {
        let copied = ftl.copy_victim(die, quota, sink);
        ftl.pool_mut().paced_done(die, copied, low_free);
    }
}

/// Make room on `die` for a new host block; false if the die cannot take one. Paced GC normally
/// keeps the pool above this floor; here GC runs to completion if it has not. One free block
/// must stay for the GC copy target, so the host needs two.
pub(crate) fn make_host_room<C: Collector, S: FlashSink + ?Sized>(ftl: &mut C, die: u32, sink: &mut S) -> bool {
    // Bounded: each round reclaims a block with at least one invalid unit, and a round that
    // cannot reclaim stops the loop.
    while ftl.pool_mut().free_count(die) < 2 {
        if !collect_one(ftl, die, sink) {
            break;
        }
    }
    ftl.pool_mut().free_count(die) >= 2
}

/// The host's open block on the cursor die, opening one (after making room) if it has none.
/// A die whose every closed block is full of valid data cannot take one: the stripe skips it
/// for this unit. Returns `(die, block)`, or `None` when no die can take data (the drive holds
/// more valid data than it can store).
pub(crate) fn open_host_block<C: Collector, S: FlashSink + ?Sized>(ftl: &mut C, sink: &mut S) -> Option<(u32, u32)> {
    let dies = ftl.pool_mut().dies.len() as u32;
    for _ in 0..dies {
        let die = ftl.pool_mut().host_cursor_die;
        let open = ftl.pool_mut().dies[die as usize].host_open;
        if open != UNMAPPED {
            return Some((die, open));
        }
        if make_host_room(ftl, die, sink) {
            // GC may have run, but the cursor only moves on host programs.
            debug_assert_eq!(ftl.pool_mut().host_cursor_die, die);
            return Some((die, ftl.take_host_block(die, sink)));
        }
        ftl.pool_mut().advance_host_cursor(die);
    }
    None
}
