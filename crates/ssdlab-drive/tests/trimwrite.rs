//! fio's `trimwrite` and `randtrimwrite` through a run: each block trimmed, then written.

mod common;

use ssdlab_drive::Drive;

fn small_profile() -> ssdlab_profile::Profile {
    common::small_timing_profile(&[])
}

#[test]
fn trimwrite_trims_each_block_before_writing_it() {
    let mut drive = Drive::new(small_profile()).unwrap();
    let (s, _) = common::run_job(&mut drive, &["rw=trimwrite", "bs=4k", "size=16m", "iodepth=4"], 5, 0);
    assert_eq!((s.trims, s.writes, s.host_write_bytes), (4096, 4096, 16 << 20));
    let at = drive.quiesce_ns();
    let (r, _) = common::run_job(&mut drive, &["rw=randtrimwrite", "bs=4k", "size=16m", "number_ios=100"], 6, at);
    assert_eq!((r.trims, r.writes), (100, 100));
}
