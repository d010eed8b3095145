use ssdlab_core::SimRng;
use ssdlab_ftl::{Ftl, FtlConfig, GcPolicy, NullSink};
use ssdlab_nand::Geometry;
fn main() {
    let g = Geometry { channels: 8, packages_per_channel: 2, dies_per_package: 2, planes_per_die: 2, blocks_per_plane: 2048, pages_per_block: 256, page_bytes: 8192, spare_bytes_per_page: 0 };
    let u = 240_000_000_000u64 / 4096;
    let cfg = FtlConfig { geometry: g, user_sectors: u, gc_policy: GcPolicy::Greedy, gc_low_free_blocks_per_die: 2, gc_idle_target_free_blocks_per_die: 2, track_tags: false };
    let mut f = Ftl::new(cfg, "p").unwrap();
    let mut s = NullSink;
    for l in 0..u { f.write(l, 0, &mut s).unwrap(); }
    let mut r = SimRng::new(1);
    for _ in 0..u { f.write(r.below(u), 0, &mut s).unwrap(); }
    let t = std::time::Instant::now();
    let (m0, h0) = (f.stats().gc_sectors_moved, f.stats().host_sectors_written);
    for _ in 0..20_000_000u64 { f.write(r.below(u), 0, &mut s).unwrap(); }
    let wa = 1.0 + (f.stats().gc_sectors_moved - m0) as f64 / (f.stats().host_sectors_written - h0) as f64;
    println!("FTL only: WA {wa:.3}, {:.2} M writes/s", 20.0 / t.elapsed().as_secs_f64());
}
