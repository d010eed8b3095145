//! The data-reduction engine of a SandForce-style controller as two pipelined stages, each a
//! [`Timeline`] shared by everything that passes through it:
//!
//! * the **front end** fingerprints, compresses and updates the tables for host writes (hashing,
//!   compression and table updates are themselves pipelined: the slowest sets the pace), and
//!   decompresses host reads;
//! * the **back end** encrypts and ECC-encodes the bytes actually stored (host writes and GC
//!   copies) and decodes and decrypts what comes off the flash (host reads and GC reads).
//!
//! Data streams through a stage: a command's first sector leaves after one sector's worth of
//! the stage's time, its last not before the stage has spent the whole command's time on it.

use ssdlab_core::time::transfer_ns;
use ssdlab_core::{Nanoseconds, Timeline};
use ssdlab_nand::SECTOR_BYTES;
use ssdlab_profile::ReductionSettings;

/// When a stream of sectors is available: its first sector, and all of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DataStream {
    /// The first sector is available from this time.
    pub first_ns: Nanoseconds,
    /// The last sector is available from this time.
    pub last_ns: Nanoseconds,
}

/// The front end's booking for one piece of a write: sector `i` of `sectors` leaves it at
/// [`FrontEndPass::sector_done_ns`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct FrontEndPass {
    start_ns: Nanoseconds,
    total_ns: Nanoseconds,
    sectors: u64,
}

impl FrontEndPass {
    /// When sector `index` of the piece has been fingerprinted and compressed: its share of the
    /// stage's time after the stage started, and not before it arrived plus its own share.
    #[inline]
    pub fn sector_done_ns(&self, index: u64, arrived_ns: Nanoseconds) -> Nanoseconds {
        let sectors = self.sectors.max(1);
        if sectors == 1 {
            // A one-sector piece (4 KiB writes): its whole time, no division.
            return (self.start_ns + self.total_ns).max(arrived_ns + self.total_ns);
        }
        let share = self.total_ns / sectors;
        let paced_ns = match self.total_ns.checked_mul(index + 1) {
            Some(product) => product / sectors,
            None => (self.total_ns as u128 * (index as u128 + 1) / sectors as u128) as Nanoseconds,
        };
        (self.start_ns + paced_ns).max(arrived_ns + share)
    }
}

/// Engine bytes and busy time, for reports and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineCounters {
    /// Stored bytes encoded by the back end for host writes.
    pub host_encoded_bytes: u64,
    /// Bytes decoded and re-encoded by the back end for garbage-collection copies.
    pub gc_recoded_bytes: u64,
    /// Bytes decoded by the back end for host reads.
    pub host_decoded_bytes: u64,
    /// Time booked on the back end, all causes.
    pub back_end_busy_ns: Nanoseconds,
    /// Of that, time recoding garbage-collection copies.
    pub back_end_gc_busy_ns: Nanoseconds,
    /// Time booked on the front end, all causes.
    pub front_end_busy_ns: Nanoseconds,
}

/// Sizes the back end's time tables are kept at: multiples of this many bytes (an ECC unit is
/// at least 64 bytes and divides 4096, so every stored size is one).
const TABLE_GRAIN_BYTES: u64 = 64;

/// The back end's time for the sizes it sees most, computed once: `transfer_ns` of multiples of
/// [`TABLE_GRAIN_BYTES`] up to a limit, instead of one or two 64-bit divisions per chunk
/// encoded or GC batch recoded (the same values; other sizes are computed as before).
#[derive(Debug, Clone)]
struct TimeTable {
    ns: Vec<Nanoseconds>,
}

impl TimeTable {
    /// `time(bytes)` for every multiple of the grain up to `max_bytes`.
    fn new(max_bytes: u64, time: impl Fn(u64) -> Nanoseconds) -> Self {
        Self { ns: (0..=max_bytes / TABLE_GRAIN_BYTES).map(|i| time(i * TABLE_GRAIN_BYTES)).collect() }
    }

    /// The time of `bytes`, from the table when it holds it.
    #[inline]
    fn get(&self, bytes: u64, time: impl Fn(u64) -> Nanoseconds) -> Nanoseconds {
        if bytes.is_multiple_of(TABLE_GRAIN_BYTES) {
            if let Some(&ns) = self.ns.get((bytes / TABLE_GRAIN_BYTES) as usize) {
                return ns;
            }
        }
        time(bytes)
    }
}

/// Largest GC batch whose recode time is tabled: a program unit of 64 KiB (larger ones, as on
/// one-shot TLC, are computed).
const RECODE_TABLE_BYTES: u64 = 64 * 1024;

/// The engine's two stages and their rates.
#[derive(Debug, Clone)]
pub(crate) struct Engine {
    front: Timeline,
    back: Timeline,
    rates: ReductionSettings,
    counters: EngineCounters,
    /// The front end's time for a one-sector piece (every 4 KiB write), computed once.
    front_one_sector_ns: Nanoseconds,
    /// The back end's time to encode a stored chunk (up to 4 KiB), and to recode a GC batch.
    encode_ns: TimeTable,
    recode_ns: TimeTable,
}

/// The front end's time for `sectors` sectors of host data at `rates`: hashing, compression
/// and table updates pipelined, the slowest setting the pace.
fn front_end_ns(rates: &ReductionSettings, sectors: u64) -> Nanoseconds {
    let bytes = sectors * SECTOR_BYTES;
    transfer_ns(bytes, rates.hash_bytes_per_second).max(transfer_ns(bytes, rates.compress_bytes_per_second)).max(transfer_ns(sectors, rates.chunks_per_second))
}

/// The back end's time to encode `bytes` of a host write.
fn encode_time_ns(rates: &ReductionSettings, bytes: u64) -> Nanoseconds {
    transfer_ns(bytes, rates.backend_write_bytes_per_second)
}

/// The back end's time to decode and encode again `bytes` of a GC copy.
fn recode_time_ns(rates: &ReductionSettings, bytes: u64) -> Nanoseconds {
    transfer_ns(bytes, rates.backend_read_bytes_per_second) + transfer_ns(bytes, rates.backend_write_bytes_per_second)
}

impl Engine {
    pub fn new(rates: ReductionSettings) -> Self {
        Self {
            front: Timeline::new(),
            back: Timeline::new(),
            front_one_sector_ns: front_end_ns(&rates, 1),
            encode_ns: TimeTable::new(SECTOR_BYTES, |bytes| encode_time_ns(&rates, bytes)),
            recode_ns: TimeTable::new(RECODE_TABLE_BYTES, |bytes| recode_time_ns(&rates, bytes)),
            rates,
            counters: EngineCounters::default(),
        }
    }

    pub fn counters(&self) -> EngineCounters {
        self.counters
    }

    /// Drop bookings that ended before `now_ns`.
    pub fn forget_before(&mut self, now_ns: Nanoseconds) {
        self.front.forget_before(now_ns);
        self.back.forget_before(now_ns);
    }

    /// Time booked on the front end and on the back end from `at_ns` on.
    pub fn busy_after(&self, at_ns: Nanoseconds) -> (Nanoseconds, Nanoseconds) {
        (self.front.busy_after(at_ns), self.back.busy_after(at_ns))
    }

    /// Future bookings held by both stages (diagnostic).
    pub fn pending_bookings(&self) -> usize {
        self.front.pending_bookings() + self.back.pending_bookings()
    }

    /// Time at which both stages have finished everything booked.
    pub fn free_from_ns(&self) -> Nanoseconds {
        self.front.free_from_ns().max(self.back.free_from_ns())
    }

    /// Both stages idle (secure erase).
    pub fn reset(&mut self) {
        self.front = Timeline::new();
        self.back = Timeline::new();
    }

    /// Book the front end for a piece of `sectors` 4 KiB sectors of host data whose first
    /// sector arrives at `first_in_ns`.
    pub fn front_end_write(&mut self, first_in_ns: Nanoseconds, sectors: u64) -> FrontEndPass {
        let total_ns = self.count_front_end_write(sectors);
        let start_ns = self.front.book(first_in_ns, total_ns);
        FrontEndPass { start_ns, total_ns, sectors }
    }

    /// The front end's work on a piece of `sectors` sectors of host data, counted; returns its
    /// time. Not booked: the untimed path (fast-forward) calls it alone.
    #[inline]
    pub fn count_front_end_write(&mut self, sectors: u64) -> Nanoseconds {
        let total_ns = if sectors == 1 { self.front_one_sector_ns } else { front_end_ns(&self.rates, sectors) };
        self.counters.front_end_busy_ns += total_ns;
        total_ns
    }

    /// Encrypt and ECC-encode `stored_bytes` of a host write, ready at `ready_ns`; returns when
    /// they have left the back end.
    #[inline]
    pub fn encode(&mut self, ready_ns: Nanoseconds, stored_bytes: u64) -> Nanoseconds {
        let time = self.count_encode(stored_bytes);
        self.back.book(ready_ns, time) + time
    }

    /// The back end's encoding of `stored_bytes` of a host write, counted; returns its time
    /// (not booked; see [`Engine::count_front_end_write`]).
    #[inline]
    pub fn count_encode(&mut self, stored_bytes: u64) -> Nanoseconds {
        let rates = &self.rates;
        let time = self.encode_ns.get(stored_bytes, |bytes| encode_time_ns(rates, bytes));
        self.counters.host_encoded_bytes += stored_bytes;
        self.counters.back_end_busy_ns += time;
        time
    }

    /// A garbage-collection copy of `bytes` read off the flash at `read_ns`: decoded and
    /// decrypted, then encrypted and encoded again, on the same back end as host data. Returns
    /// when the copy may be programmed.
    #[inline]
    pub fn recode(&mut self, read_ns: Nanoseconds, bytes: u64) -> Nanoseconds {
        let time = self.count_recode(bytes);
        self.back.book(read_ns, time) + time
    }

    /// The back end's recoding of a GC copy of `bytes`, counted; returns its time (not booked).
    #[inline]
    pub fn count_recode(&mut self, bytes: u64) -> Nanoseconds {
        let rates = &self.rates;
        let time = self.recode_ns.get(bytes, |bytes| recode_time_ns(rates, bytes));
        self.counters.gc_recoded_bytes += bytes;
        self.counters.back_end_busy_ns += time;
        self.counters.back_end_gc_busy_ns += time;
        time
    }

    /// A host read's data off the flash (`bytes` through ECC decoding and decryption, then
    /// `host_bytes` through decompression), streaming as it arrives in `input`. Returns when
    /// the first and the last sector leave the engine.
    pub fn read(&mut self, input: DataStream, bytes: u64, host_bytes: u64) -> DataStream {
        let sectors = host_bytes.div_ceil(SECTOR_BYTES).max(1);
        let decode_ns = transfer_ns(bytes, self.rates.backend_read_bytes_per_second);
        self.counters.host_decoded_bytes += bytes;
        self.counters.back_end_busy_ns += decode_ns;
        let decoded = stream_through(&mut self.back, input, decode_ns, sectors);
        let decompress_ns = transfer_ns(host_bytes, self.rates.decompress_bytes_per_second);
        self.counters.front_end_busy_ns += decompress_ns;
        stream_through(&mut self.front, decoded, decompress_ns, sectors)
    }
}

/// Pass a stream of `sectors` through a stage that spends `total_ns` on all of it: the stage
/// starts with the first sector, each sector leaves after its share, the last not before it
/// arrived plus its share.
fn stream_through(stage: &mut Timeline, input: DataStream, total_ns: Nanoseconds, sectors: u64) -> DataStream {
    if total_ns == 0 {
        return input;
    }
    let share = (total_ns / sectors).max(1).min(total_ns);
    let start = stage.book(input.first_ns, total_ns);
    DataStream { first_ns: start + share, last_ns: (start + total_ns).max(input.last_ns + share) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabled_times_are_the_computed_times() {
        let profile = ssdlab_profile::load_profile("force-gs-240", &[]).unwrap();
        let rates = profile.reduction.clone().expect("force-gs-240 has an engine");
        let mut engine = Engine::new(rates.clone());
        // Every size up to past both tables' ends, on and off the grain.
        for bytes in (0..=RECODE_TABLE_BYTES + 4 * TABLE_GRAIN_BYTES).step_by(7).chain([1, 63, 64, 65, 4096, 4097, RECODE_TABLE_BYTES]) {
            assert_eq!(engine.count_encode(bytes), encode_time_ns(&rates, bytes), "encode {bytes}");
            assert_eq!(engine.count_recode(bytes), recode_time_ns(&rates, bytes), "recode {bytes}");
        }
        for sectors in 1..40 {
            let bytes = sectors * SECTOR_BYTES;
            let direct = transfer_ns(bytes, rates.hash_bytes_per_second)
                .max(transfer_ns(bytes, rates.compress_bytes_per_second))
                .max(transfer_ns(sectors, rates.chunks_per_second));
            assert_eq!(engine.count_front_end_write(sectors), direct, "{sectors} sectors");
        }
    }
}
