//! The measured part after `ramp_time` counts commands as fio does: each command completed
//! after the ramp's end, in its direction and in the total, including those in flight then.

mod common;

use ssdlab_drive::Drive;

#[test]
fn commands_in_flight_at_the_ramps_end_count_in_every_figure() {
    for (items, depth) in [(&["rw=randwrite", "iodepth=32"][..], 32), (&["rw=randrw", "iodepth=8"][..], 8), (&["rw=write", "iodepth=1"][..], 1)] {
        let mut drive = Drive::new(common::small_timing_profile(&[])).unwrap();
        let mut job = vec!["bs=4k", "size=64m", "ramp_time=200ms", "runtime=300ms", "time_based"];
        job.extend_from_slice(items);
        let (s, _) = common::run_job(&mut drive, &job, 3, 0);
        // Every completion counted in the total is counted in its direction and its bytes
        // (before, the commands in flight at the ramp's end were in the total only: `depth`
        // more than the directions).
        assert_eq!(s.ios, s.reads + s.writes + s.trims, "{items:?}: {} ios, {} reads, {} writes", s.ios, s.reads, s.writes);
        assert_eq!(s.host_read_bytes + s.host_write_bytes, s.ios * 4096, "{items:?}");
        assert!(s.ios > 10 * depth, "{items:?}: {} ios", s.ios);
    }
}
