//! The bytes a sequential job will move, as the generator states them ahead
//! (`IoGenerator::limit_bytes`, which progress bars and the fast-forward use), against the bytes
//! its passes really move: two statements of fio's pass rules (whole blocks, forward steps,
//! `loops`, `io_size`, `cut_last_block`) that must agree.
//!
//! Every case draws a sequential job from one seed; a failure names the seed and the job. Rerun
//! one case with `SSDLAB_SEED=<seed> cargo test -p ssdlab-workload --test generator_expected_bytes`.

use ssdlab_core::SimRng;
use ssdlab_workload::{parse_options, IoGenerator};

/// A sequential job's options drawn from `rng`: a direction with or without a forward step, a
/// block size, a span that is often not a whole number of blocks, an offset, `loops`, sometimes
/// `io_size` or a fill's cut last block.
fn draw_job(rng: &mut SimRng) -> (Vec<String>, bool) {
    let bs = [512u64, 4096, 8192, 65536, 131072][rng.below(5) as usize];
    let blocks = 1 + rng.below(40);
    let size = blocks * bs + if rng.below(2) == 0 { 0 } else { 512 * rng.below(bs / 512) };
    let rw = ["read", "write", "trim"][rng.below(3) as usize];
    let rw = match rng.below(3) {
        0 => format!("{rw}:{}", bs * rng.below(3)),
        _ => rw.to_string(),
    };
    let mut options = vec![format!("rw={rw}"), format!("bs={bs}"), format!("size={size}"), format!("offset={}", 4096 * rng.below(16))];
    if rng.below(2) == 0 {
        options.push(format!("loops={}", 1 + rng.below(4)));
    }
    // `cut_last_block` is ssdlab's own fills' flag (no job option sets it), and they give no
    // io_size.
    let cut = rng.below(4) == 0;
    if !cut && rng.below(3) == 0 {
        options.push(format!("io_size={}", 512 * (1 + rng.below(3 * size / 512))));
    }
    (options, cut)
}

fn check(seed: u64) {
    let mut rng = SimRng::new(seed);
    let (options, cut) = draw_job(&mut rng);
    let mut job = parse_options("t", &options).unwrap_or_else(|e| panic!("seed {seed}: {options:?}: {e}"));
    job.cut_last_block = cut;
    let mut generator = IoGenerator::new(&job, 1 << 30, seed).unwrap_or_else(|e| panic!("seed {seed}: {options:?}: {e}"));
    let stated = generator.limit_bytes();
    let mut moved = 0u64;
    let mut ios = 0u64;
    while let Some(io) = generator.next_io() {
        moved += io.len_bytes;
        ios += 1;
        assert!(ios <= 1_000_000, "seed {seed}: {options:?} (cut {cut}): more than a million IOs");
    }
    assert_eq!(
        stated,
        Some(moved),
        "seed {seed}: {options:?} (cut {cut}): the generator said it would move {stated:?} bytes, its passes moved {moved} in {ios} IOs"
    );
}

#[test]
fn stated_bytes_are_the_bytes_the_passes_move() {
    if let Ok(seed) = std::env::var("SSDLAB_SEED") {
        check(seed.parse().expect("SSDLAB_SEED is a number"));
        return;
    }
    for seed in 0..3_000 {
        check(seed);
    }
}
