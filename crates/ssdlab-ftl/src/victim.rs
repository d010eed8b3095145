//! Victim selection for garbage collection.

use crate::block::{Block, BlockState};
use crate::block_counts::BlockCounts;
use crate::config::GcPolicy;
use crate::die::DieState;

/// Pick the block to reclaim on a die, or `None` when no closed block has an invalid slot.
///
/// Ties go to the block that closed first (lowest close sequence), never to memory order.
pub(crate) fn select_victim(
    policy: GcPolicy,
    die: &mut DieState,
    blocks: &[Block],
    counts: &BlockCounts,
    slots_per_block: u32,
    close_seq_now: u64,
) -> Option<u32> {
    match policy {
        GcPolicy::Greedy => greedy(die, blocks, counts, slots_per_block),
        GcPolicy::CostBenefit => cost_benefit(die, blocks, counts, slots_per_block, close_seq_now),
        GcPolicy::WindowedGreedy { window } => windowed(die, blocks, counts, slots_per_block, window),
    }
}

/// The closed block of the die with the fewest valid slots, the oldest among equals (found from
/// the GC keys' group minima, see [`BlockCounts::least`]).
fn greedy(die: &DieState, blocks: &[Block], counts: &BlockCounts, slots_per_block: u32) -> Option<u32> {
    counts.least(die.first_block, die.blocks, slots_per_block, |b| blocks[b as usize].close_seq)
}

/// Rosenblum and Ousterhout's cost-benefit score `(1 - u) * age / (2 u)`, with `u = valid /
/// capacity`, compared exactly in integers: `(capacity - valid) * age / valid`, cross-multiplied
/// (the common factors cancel), so no floating-point rounding decides a victim.
fn cost_benefit(die: &DieState, blocks: &[Block], counts: &BlockCounts, slots_per_block: u32, close_seq_now: u64) -> Option<u32> {
    // (numerator, denominator, close sequence, block) of the best so far.
    let mut best: Option<(u128, u128, u64, u32)> = None;
    for &(b, seq) in die.closed_order.iter() {
        let block = &blocks[b as usize];
        let valid = counts.valid(b);
        if block.state != BlockState::Closed || block.close_seq != seq || valid >= slots_per_block {
            continue;
        }
        if valid == 0 {
            return Some(b);
        }
        let age = (close_seq_now - seq + 1) as u128;
        let numerator = (slots_per_block - valid) as u128 * age;
        let denominator = valid as u128;
        let better = match best {
            None => true,
            Some((n, d, best_seq, _)) => {
                let (left, right) = (numerator * d, n * denominator);
                left > right || (left == right && seq < best_seq)
            }
        };
        if better {
            best = Some((numerator, denominator, seq, b));
        }
    }
    best.map(|(_, _, _, b)| b)
}

fn windowed(die: &mut DieState, blocks: &[Block], counts: &BlockCounts, slots_per_block: u32, window: u32) -> Option<u32> {
    while let Some(&(b, seq)) = die.closed_order.front() {
        let block = &blocks[b as usize];
        if block.state == BlockState::Closed && block.close_seq == seq {
            break;
        }
        die.closed_order.pop_front();
    }
    let mut best: Option<(u32, u32)> = None;
    let mut seen = 0;
    for &(b, seq) in die.closed_order.iter() {
        let block = &blocks[b as usize];
        if block.state != BlockState::Closed || block.close_seq != seq {
            continue;
        }
        seen += 1;
        let valid = counts.valid(b);
        if valid < slots_per_block && best.is_none_or(|(v, _)| valid < v) {
            best = Some((valid, b));
        }
        if seen >= window {
            break;
        }
    }
    match best {
        Some((_, b)) => Some(b),
        // Every block in the window is full of valid data: fall back to greedy over the die.
        None => greedy(die, blocks, counts, slots_per_block),
    }
}
