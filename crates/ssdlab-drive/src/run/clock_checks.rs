//! Jobs refused before they run because their rate limit or thinktime alone would carry the
//! simulated clock past its limit.

use super::*;

/// The most commands a job bounded by its size or `number_ios` issues (at its smallest block
/// size); `u64::MAX` when neither bounds it.
fn most_ios(job: &JobSpec, generator: &IoGenerator) -> u64 {
    // fio's trimwrite issues two commands (a trim, then a write) per number_ios.
    let number_ios = job.number_ios.map(|n| if job.rw.trims_then_writes() { n.saturating_mul(2) } else { n });
    match (number_ios, generator.limit_bytes()) {
        (Some(n), Some(bytes)) => n.min(bytes.div_ceil(job.min_block_bytes())),
        (Some(n), None) => n,
        (None, Some(bytes)) => bytes.div_ceil(job.min_block_bytes()),
        (None, None) => u64::MAX,
    }
}

/// Refuse a job whose rate limit alone would carry the simulated clock past its limit (a job
/// bounded by its size or number_ios, without a runtime).
pub(super) fn check_rate(job: &JobSpec, generator: &IoGenerator, from_ns: Nanoseconds) -> Result<()> {
    let Some(rate) = &job.rate else { return Ok(()) };
    if job.runtime_ns.is_some() {
        return Ok(());
    }
    let ios = most_ios(job, generator);
    let room_ns = crate::session::MAX_SIMULATED_NS - from_ns.min(crate::session::MAX_SIMULATED_NS);
    // Linear spacing; a Poisson process takes as long on average. A job paced by bytes moves
    // its bytes no faster than its directions' rates together (none when a direction it issues
    // has no limit).
    let needed = match rate.linear_offset_ns(ios) {
        Some(ns) => ns,
        None => {
            let mut bytes_per_second = 0u128;
            for (direction, issued) in rate.directions.iter().zip(rate.issued) {
                match direction {
                    Some(d) if issued => bytes_per_second += d.bytes_per_second as u128,
                    None if issued => return Ok(()),
                    _ => {}
                }
            }
            // (At least its IOs of the smallest size.)
            ios as u128 * job.min_block_bytes() as u128 * 1_000_000_000 / bytes_per_second.max(1)
        }
    };
    if needed > room_ns as u128 {
        bail!(
            Workload,
            "job {}: {}={} over its {} IOs takes {:.0} s of simulated time, past the simulated clock's limit of {:.0} s (set a runtime or io_size)",
            job.name,
            rate.given.0,
            rate.given.1,
            ios,
            needed as f64 / 1e9,
            seconds(crate::session::MAX_SIMULATED_NS)
        );
    }
    Ok(())
}

/// Refuse a job whose thinktime (or ssdlab's host_time) alone would carry the simulated clock
/// past its limit.
pub(super) fn check_thinktime(job: &JobSpec, generator: &IoGenerator, from_ns: Nanoseconds) -> Result<()> {
    if job.thinktime_ns == 0 && job.host_time_ns == 0 {
        return Ok(());
    }
    let (name, wait_ns) = if job.thinktime_ns >= job.host_time_ns { ("thinktime", job.thinktime_ns) } else { ("host_time", job.host_time_ns) };
    let room_ns = crate::session::MAX_SIMULATED_NS - from_ns.min(crate::session::MAX_SIMULATED_NS);
    let horizon_ns = match job.runtime_ns {
        Some(runtime) => runtime.min(room_ns),
        None => {
            let ios = most_ios(job, generator);
            // fio's thinktime pauses the whole job after every thinktime_blocks completions;
            // host_time is per slot.
            let thinks = ios.div_ceil(job.thinktime_blocks.max(1)) as u128 * job.thinktime_ns as u128;
            let hosts = ios.div_ceil(job.iodepth.max(1) as u64) as u128 * job.host_time_ns as u128;
            let needed = thinks + hosts;
            if needed > room_ns as u128 {
                bail!(
                    Workload,
                    "job {}: {name} {} us over its {} IOs adds {:.0} s of simulated time, past the simulated clock's limit of {:.0} s (set a runtime or io_size)",
                    job.name,
                    wait_ns / 1000,
                    ios,
                    needed as f64 / 1e9,
                    seconds(crate::session::MAX_SIMULATED_NS)
                );
            }
            return Ok(());
        }
    };
    if wait_ns > horizon_ns {
        bail!(
            Workload,
            "job {}: {name} {} us is longer than the whole run ({:.0} s): no command after the first would be issued",
            job.name,
            wait_ns / 1000,
            seconds(horizon_ns)
        );
    }
    Ok(())
}
