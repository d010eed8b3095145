//! The IO generator: spans, alignment, limits, mixes and determinism.

use ssdlab_workload::{parse_options, Io, IoGenerator, Op};

fn job(items: &[&str]) -> ssdlab_workload::JobSpec {
    parse_options("t", &items.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
}

#[test]
fn random_offsets_stay_in_span_and_aligned() {
    let j = job(&["rw=randwrite", "bs=4k", "offset=1m", "size=8m", "io_size=1g", "number_ios=10000"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 7).unwrap();
    let mut n = 0;
    while let Some(io) = g.next_io() {
        assert_eq!(io.op, Op::Write);
        assert!(io.offset_bytes >= 1 << 20 && io.offset_bytes + io.len_bytes <= 9 << 20);
        assert_eq!(io.offset_bytes % 4096, 0);
        n += 1;
    }
    assert_eq!(n, 10000);
}

#[test]
fn unaligned_variant_uses_blockalign() {
    let j = job(&["rw=randread", "bs=4k", "blockalign=512", "size=1m", "io_size=1g", "number_ios=2000"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 1).unwrap();
    let odd = std::iter::from_fn(|| g.next_io()).filter(|io| io.offset_bytes % 4096 != 0).count();
    assert!(odd > 1500, "{odd}");
}

#[test]
fn sequential_covers_span_once_by_default() {
    let j = job(&["rw=write", "bs=128k", "size=1m"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 1).unwrap();
    let offsets: Vec<u64> = std::iter::from_fn(|| g.next_io()).map(|io| io.offset_bytes).collect();
    assert_eq!(offsets, (0..8).map(|i| i * 131072).collect::<Vec<_>>());
}

#[test]
fn a_sequential_pass_issues_no_partial_block_as_fio() {
    // fio 3.33 (null engine, write_iolog) issues a block whole or not at all (io_u_fits):
    // rw=write bs=64k size=1000k writes 15 blocks (983,040 B; ssdlab wrote a 16th of 40 KiB),
    // rw=trim bs=1m size=2560k trims 2 MiB, rw=read bs=48k size=1m io_size=3m reads 64 blocks
    // of 48 KiB in passes of 21 from the span's start (ssdlab: 66, one of 16 KiB per pass).
    let ios = |items: &[&str]| -> Vec<Io> {
        let mut g = IoGenerator::new(&job(items), 1 << 30, 1).unwrap();
        std::iter::from_fn(|| g.next_io()).collect()
    };
    let w = ios(&["rw=write", "bs=64k", "size=1000k"]);
    assert_eq!(w.iter().map(|io| (io.offset_bytes, io.len_bytes)).collect::<Vec<_>>(), (0..15).map(|k| (k * 65536, 65536)).collect::<Vec<_>>());
    let t = ios(&["rw=trim", "bs=1m", "size=2560k"]);
    assert_eq!(t.iter().map(|io| (io.offset_bytes, io.len_bytes)).collect::<Vec<_>>(), vec![(0, 1 << 20), (1 << 20, 1 << 20)]);
    let r = ios(&["rw=read", "bs=48k", "size=1m", "io_size=3m"]);
    assert_eq!(r.len(), 64);
    assert!(r.iter().all(|io| io.len_bytes == 49152));
    assert_eq!((r[20].offset_bytes, r[21].offset_bytes, r[63].offset_bytes), (20 * 49152, 0, 0));
    // Several sizes: only those that fit, down to the smallest (fio: 1,015,808 B of
    // bssplit=64k/50:16k/50 over 1000k; with io_size=3000k three such passes, 3,047,424 B).
    for (io_size, total) in [("io_size=0", 1_015_808), ("io_size=3000k", 3_047_424)] {
        let b = ios(&["rw=write", "bssplit=64k/50:16k/50", "size=1000k", io_size]);
        assert!(b.iter().all(|io| io.offset_bytes + io.len_bytes <= 1000 << 10), "{io_size}");
        assert_eq!(b.iter().map(|io| io.len_bytes).sum::<u64>(), total, "{io_size}");
    }
    // ssdlab's own preconditioning steps (seq-fill, trim-all) cover every byte of the span:
    // their last block is cut to its end.
    let mut fill = job(&["rw=write", "bs=128k", "size=1000k"]);
    fill.cut_last_block = true;
    let mut g = IoGenerator::new(&fill, 1 << 30, 1).unwrap();
    let placed: Vec<(u64, u64)> = std::iter::from_fn(|| g.next_io()).map(|io| (io.offset_bytes >> 10, io.len_bytes >> 10)).collect();
    assert_eq!(placed, (0..7).map(|k| (k * 128, 128)).chain([(896, 104)]).collect::<Vec<_>>());
    // trimwrite: 15 trims and 15 writes of 64 KiB (fio 3.33: 30 commands).
    let tw = ios(&["rw=trimwrite", "bs=64k", "size=1000k"]);
    assert_eq!(tw.len(), 30);
    assert!(tw.iter().all(|io| io.len_bytes == 65536 && io.offset_bytes + io.len_bytes <= 1000 << 10));
    // time_based: from the start again after the 15th block (fio: 0, 64k, ..., 896k, 0).
    let mut g = IoGenerator::new(&job(&["rw=read", "bs=64k", "size=1000k", "runtime=1", "time_based"]), 1 << 30, 1).unwrap();
    let offsets: Vec<u64> = (0..17).map(|_| g.next_io().unwrap().offset_bytes >> 10).collect();
    assert_eq!(offsets[14..], [896, 0, 64]);
}

#[test]
fn time_based_sequential_wraps() {
    let j = job(&["rw=read", "bs=512k", "size=1m", "runtime=1", "time_based"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 1).unwrap();
    let offsets: Vec<u64> = (0..5).map(|_| g.next_io().unwrap().offset_bytes).collect();
    assert_eq!(offsets, vec![0, 524288, 0, 524288, 0]);
    assert_eq!(g.limit_bytes(), None);
}

#[test]
fn mix_and_zipf_and_determinism() {
    let j = job(&["rw=randrw", "rwmixread=70", "bs=4k", "size=64m", "io_size=1g", "number_ios=20000", "random_distribution=zipf:1.1"]);
    let a: Vec<_> = {
        let mut g = IoGenerator::new(&j, 1 << 30, 3).unwrap();
        std::iter::from_fn(|| g.next_io()).collect()
    };
    let b: Vec<_> = {
        let mut g = IoGenerator::new(&j, 1 << 30, 3).unwrap();
        std::iter::from_fn(|| g.next_io()).collect()
    };
    assert_eq!(a, b);
    let reads = a.iter().filter(|io| io.op == Op::Read).count();
    assert!((13_000..15_000).contains(&reads), "{reads}");
    // Zipf: the most popular block takes a large share.
    let mut counts = std::collections::BTreeMap::new();
    for io in &a {
        *counts.entry(io.offset_bytes).or_insert(0u32) += 1;
    }
    let top = counts.values().max().unwrap();
    assert!(*top > 1000, "{top}");
}

#[test]
fn span_beyond_capacity_is_refused() {
    let j = job(&["rw=write", "size=2g"]);
    let err = IoGenerator::new(&j, 1 << 30, 1).unwrap_err().to_string();
    assert!(err.contains("beyond the usable capacity"), "{err}");
    let j = job(&["rw=write", "offset=2g"]);
    assert!(IoGenerator::new(&j, 1 << 30, 1).is_err());
}

#[test]
fn a_span_beyond_capacity_is_named_where_its_options_stand() {
    // The third copy of a numjobs group is placed past the end by offset_increment: the message
    // names that option's line and the copy (it named only the job).
    let text = "[w]\nrw=write\nsize=1m\noffset_increment=600m\noffset=4k\nnumjobs=3\n";
    let groups = ssdlab_workload::parse_job_text("stripes.fio", text).unwrap();
    let third = &groups[0].concurrent[1];
    let err = IoGenerator::new(third, 1 << 30, 1).unwrap_err().to_string();
    assert!(err.contains("stripes.fio:4: offset_increment: job w (copy 3 of numjobs)") && err.contains("beyond the usable capacity"), "{err}");
    // The job itself past the end by its size: the size's line.
    let groups = ssdlab_workload::parse_job_text("big.fio", "[w]\nrw=write\noffset=512m\nsize=768m\n").unwrap();
    let err = IoGenerator::new(&groups[0], 1 << 30, 1).unwrap_err().to_string();
    assert!(err.contains("big.fio:4: size: job w: offset 536870912 + size 805306368"), "{err}");
    // A span set by filesize is filesize's, even with a size after it (fio's enospc-pressure
    // example: `filesize=128G` then `size=999G`; the size only says how much the job moves).
    let text = "[global]\nfilesize=1536m\nsize=999g\n[w]\nrw=write\n";
    let groups = ssdlab_workload::parse_job_text("files.fio", text).unwrap();
    let err = IoGenerator::new(&groups[0], 1 << 30, 1).unwrap_err().to_string();
    assert!(err.contains("files.fio:2: filesize: job w: offset 0 + size 1610612736"), "{err}");
}

#[test]
fn number_ios_stops_at_the_size_as_fio_does() {
    // Regression: number_ios replaced the byte limit, so a job ran past its size. fio: number_ios
    // "does not extend the amount of I/O that will be done".
    let job = parse_options("t", &["rw=write".into(), "bs=4k".into(), "size=1m".into(), "number_ios=1000".into()]).unwrap();
    let mut g = IoGenerator::new(&job, 1 << 30, 1).unwrap();
    let n = std::iter::from_fn(|| g.next_io()).count();
    assert_eq!(n, 256, "1 MiB in 4 KiB blocks");
    // A smaller number_ios still stops first.
    let job = parse_options("t", &["rw=randwrite".into(), "bs=4k".into(), "size=1m".into(), "number_ios=10".into()]).unwrap();
    let mut g = IoGenerator::new(&job, 1 << 30, 1).unwrap();
    assert_eq!(std::iter::from_fn(|| g.next_io()).count(), 10);
}

#[test]
fn percentage_offsets_and_increments_as_fio_places_them() {
    // fio 3.33 on a 1 MiB file, bs=4k (its write_iolog): offset=33% starts at 348160 (33% is
    // 346030.08, rounded up to the block size: it was rounded down to 344064), and
    // offset_increment=10% with numjobs=3 starts the copies at 0, 106496 and 212992 (the
    // percentage was refused as an unknown size suffix).
    let start = |j: &ssdlab_workload::JobSpec| IoGenerator::new(j, 1 << 20, 1).unwrap().span_start_bytes();
    assert_eq!(start(&job(&["rw=write", "bs=4k", "offset=33%", "size=4k"])), 348160);
    let group = job(&["rw=write", "bs=4k", "offset_increment=10%", "numjobs=3", "size=4k"]);
    assert_eq!(group.group().map(start).collect::<Vec<_>>(), vec![0, 106496, 212992]);
    let group = job(&["rw=write", "bs=4k", "offset=8k", "offset_increment=64k", "numjobs=2", "size=4k"]);
    assert_eq!(group.group().map(start).collect::<Vec<_>>(), vec![8192, 73728]);
}

#[test]
fn sequential_mixed_reads_and_writes_each_go_on_from_their_own_position() {
    // fio's rw=rw keeps a position per direction (its write_iolog for bs=4k size=64k: reads at
    // 0, 4096, 8192, writes at 0, 4096, ...); one shared position put the reads where nothing
    // was written and the writes where nothing was read.
    let j = job(&["rw=rw", "bs=4k", "size=64k"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 3).unwrap();
    let ios: Vec<_> = std::iter::from_fn(|| g.next_io()).collect();
    assert_eq!(ios.len(), 16);
    for op in [Op::Read, Op::Write] {
        let offsets: Vec<u64> = ios.iter().filter(|io| io.op == op).map(|io| io.offset_bytes).collect();
        assert!(!offsets.is_empty());
        assert_eq!(offsets, (0..offsets.len() as u64).map(|i| i * 4096).collect::<Vec<_>>(), "{op:?}");
    }
}

#[test]
fn percentage_random_mixes_sequential_and_random_offsets_as_fio() {
    // fio: each IO of a random job is random with probability percentage_random/100, else it
    // goes on from the previous one (it was refused).
    let follows = |pct: &str| {
        let j = job(&["rw=randwrite", "bs=4k", "size=64m", "number_ios=10000", &format!("percentage_random={pct}")]);
        let mut g = IoGenerator::new(&j, 1 << 30, 5).unwrap();
        let ios: Vec<_> = std::iter::from_fn(|| g.next_io()).collect();
        ios.windows(2).filter(|w| w[1].offset_bytes == w[0].offset_bytes + w[0].len_bytes).count()
    };
    assert_eq!(follows("0"), 9999);
    let half = follows("50");
    assert!((4700..5300).contains(&half), "{half}");
    assert!(follows("100") < 10);
    let err = parse_options("t", &["percentage_random=50,100".to_string()]).unwrap_err().to_string();
    assert!(err.contains("separate read,write values"), "{err}");
}

#[test]
fn pareto_puts_its_share_of_accesses_on_its_share_of_blocks_as_fio() {
    // fio's pareto:h (it was refused as unknown): rank (blocks-1) * U^(ln h / ln(1-h)); with
    // h = 0.2, 80% of the accesses go to 20% of the blocks.
    let j = job(&["rw=randread", "bs=4k", "size=400k", "io_size=1g", "number_ios=20000", "random_distribution=pareto:0.2"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 9).unwrap();
    let mut counts = std::collections::HashMap::new();
    for io in std::iter::from_fn(|| g.next_io()) {
        assert!(io.offset_bytes + io.len_bytes <= 400 * 1024 && io.offset_bytes % 4096 == 0);
        *counts.entry(io.offset_bytes).or_insert(0u64) += 1;
    }
    let mut hits: Vec<u64> = counts.into_values().collect();
    hits.sort_unstable_by(|a, b| b.cmp(a));
    let top: u64 = hits.iter().take(20).sum();
    assert!((15_000..17_000).contains(&top), "{top}");
    for bad in ["pareto:1.5", "pareto:0", "pareto:x"] {
        let err = parse_options("t", &[format!("random_distribution={bad}")]).unwrap_err().to_string();
        assert!(err.contains("random_distribution"), "{err}");
    }
}

#[test]
fn io_size_as_a_percentage_of_the_size_as_fio() {
    // fio 3.33 wrote 256 4k blocks for size=2m io_size=50% (it was refused: unknown suffix %).
    let j = job(&["rw=write", "bs=4k", "size=2m", "io_size=50%"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 1).unwrap();
    assert_eq!(std::iter::from_fn(|| g.next_io()).count(), 256);
}

#[test]
fn io_size_zero_is_fios_default_not_nothing() {
    // fio 3.33 wrote 16 4k blocks for size=64k io_size=0; the job moved nothing (0 IOs, exit 0).
    let j = job(&["rw=write", "bs=4k", "size=64k", "io_size=0"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 1).unwrap();
    assert_eq!(std::iter::from_fn(|| g.next_io()).count(), 16);
}

#[test]
fn runtime_and_number_ios_zero_are_fios_defaults() {
    // fio 3.33 wrote 16 4k blocks for size=64k with runtime=0 (its default: no limit), which was
    // refused as "must be positive"; loops=0 too (one pass). number_ios=0 stays refused, saying
    // that it is fio's "no limit".
    let err = parse_options("t", &["number_ios=0".to_string()]).unwrap_err().to_string();
    assert!(err.contains("fio's 0 means no limit"), "{err}");
    for zero in ["runtime=0", "loops=0"] {
        let j = job(&["rw=write", "bs=4k", "size=64k", zero]);
        assert_eq!((j.number_ios, j.runtime_ns), (None, None), "{zero}");
        let mut g = IoGenerator::new(&j, 1 << 30, 1).unwrap();
        assert_eq!(std::iter::from_fn(|| g.next_io()).count(), 16, "{zero}");
    }
    let err = parse_options("t", &["time_based".to_string(), "runtime=0".to_string()]).unwrap_err().to_string();
    assert!(err.contains("time_based needs a runtime"), "{err}");
}

#[test]
fn trimwrite_trims_each_block_then_writes_it_and_moves_every_byte_twice() {
    let job = parse_options("t", &["rw=trimwrite".into(), "bs=4k".into(), "size=64k".into()]).unwrap();
    let mut g = IoGenerator::new(&job, 1 << 30, 1).unwrap();
    let ios: Vec<Io> = std::iter::from_fn(|| g.next_io()).collect();
    // 16 blocks, each a trim then a write at the same place, in order (fio's total_bytes
    // doubled).
    assert_eq!(ios.len(), 32);
    for (k, pair) in ios.chunks(2).enumerate() {
        let at = k as u64 * 4096;
        assert_eq!(pair[0], Io { op: Op::Trim, offset_bytes: at, len_bytes: 4096 });
        assert_eq!(pair[1], Io { op: Op::Write, offset_bytes: at, len_bytes: 4096 });
    }
    // randtrimwrite: random blocks, each trimmed then written; number_ios counts both, doubled.
    let job = parse_options("t", &["rw=randtrimwrite".into(), "bs=4k".into(), "size=1m".into(), "number_ios=10".into()]).unwrap();
    let mut g = IoGenerator::new(&job, 1 << 30, 1).unwrap();
    let ios: Vec<Io> = std::iter::from_fn(|| g.next_io()).collect();
    assert_eq!(ios.len(), 20);
    assert!(ios.chunks(2).all(|p| p[0].op == Op::Trim && p[1].op == Op::Write && p[0].offset_bytes == p[1].offset_bytes));
    assert!(ios.chunks(2).any(|p| p[0].offset_bytes != 0), "offsets drawn at random");
}

#[test]
fn trimwrite_with_its_own_write_size_writes_as_fio_does() {
    // fio's set_rw_ddir: a trim when the last trim and the last write started at the same place,
    // else a write at the writes' own position and size. fio 3.33 (null engine, write_iolog)
    // with bs=512,512,16k over 64 KiB: trim 0, write 0, trim 16k, writes 512..16k, trim 32k,
    // writes 16.5k..32k, trim 48k, writes 32.5k..48k, then no trim past the end: 4 trims,
    // 97 writes. (Each trimmed block was written whole here: 4 trims and 4 writes of 16 KiB.)
    let trims_writes = |items: &[&str]| -> Vec<Io> {
        let mut g = IoGenerator::new(&job(items), 1 << 30, 1).unwrap();
        std::iter::from_fn(|| g.next_io()).collect()
    };
    let ios = trims_writes(&["rw=trimwrite", "bs=512,512,16k", "size=64k"]);
    let trims: Vec<u64> = ios.iter().filter(|io| io.op == Op::Trim).map(|io| io.offset_bytes).collect();
    assert_eq!(trims, [0, 16384, 32768, 49152]);
    assert!(ios.iter().all(|io| io.len_bytes == if io.op == Op::Trim { 16384 } else { 512 }));
    let writes: Vec<u64> = ios.iter().filter(|io| io.op == Op::Write).map(|io| io.offset_bytes).collect();
    assert_eq!(writes, (0..97).map(|k| k * 512).collect::<Vec<_>>());
    assert_eq!(
        ios[..4],
        [
            Io { op: Op::Trim, offset_bytes: 0, len_bytes: 16384 },
            Io { op: Op::Write, offset_bytes: 0, len_bytes: 512 },
            Io { op: Op::Trim, offset_bytes: 16384, len_bytes: 16384 },
            Io { op: Op::Write, offset_bytes: 512, len_bytes: 512 },
        ]
    );
    // loops=2: the second pass starts afresh (fio: 8 trims, 194 writes).
    let ios = trims_writes(&["rw=trimwrite", "bs=512,512,16k", "size=64k", "loops=2"]);
    assert_eq!((ios.iter().filter(|io| io.op == Op::Trim).count(), ios.iter().filter(|io| io.op == Op::Write).count()), (8, 194));
    // Writes larger than the trims: fio trims 0 and 16k, then writes 64 KiB blocks to the end.
    let ios = trims_writes(&["rw=trimwrite", "bs=4k,64k,16k", "size=256k"]);
    let got: Vec<(Op, u64, u64)> = ios.iter().map(|io| (io.op, io.offset_bytes, io.len_bytes)).collect();
    assert_eq!(
        got,
        [
            (Op::Trim, 0, 16384),
            (Op::Write, 0, 65536),
            (Op::Trim, 16384, 16384),
            (Op::Write, 65536, 65536),
            (Op::Write, 131072, 65536),
            (Op::Write, 196608, 65536),
        ]
    );
}

#[test]
fn filesize_is_the_span_and_size_the_bytes_moved_in_it_as_fio() {
    // fio 3.33 (null engine, write_iolog): size=64m filesize=1g moves 64 MiB at random offsets
    // over the whole 1 GiB file, in either order of the two options; with offset=512m, over the
    // file's second half. (ssdlab took whichever came last as the span and the bytes.)
    for items in [["rw=randwrite", "size=64m", "filesize=1g"], ["rw=randwrite", "filesize=1g", "size=64m"]] {
        let mut g = IoGenerator::new(&job(&items), 4 << 30, 3).unwrap();
        let ios: Vec<Io> = std::iter::from_fn(|| g.next_io()).collect();
        assert_eq!(ios.iter().map(|io| io.len_bytes).sum::<u64>(), 64 << 20, "{items:?}");
        assert!(ios.iter().any(|io| io.offset_bytes >= 512 << 20) && ios.iter().all(|io| io.offset_bytes + io.len_bytes <= 1 << 30));
    }
    let mut g = IoGenerator::new(&job(&["rw=randwrite", "size=64m", "filesize=1g", "offset=512m"]), 4 << 30, 3).unwrap();
    let ios: Vec<Io> = std::iter::from_fn(|| g.next_io()).collect();
    assert_eq!(ios.iter().map(|io| io.len_bytes).sum::<u64>(), 64 << 20);
    assert!(ios.iter().all(|io| io.offset_bytes >= 512 << 20 && io.offset_bytes + io.len_bytes <= 1 << 30));
    // A size past the file is cut to it (fio: 1 GiB written of size=2g filesize=1g); filesize
    // alone is the span and the bytes, as before.
    for items in [["rw=write", "size=2g", "filesize=1g"], ["rw=write", "bs=1m", "filesize=1g"]] {
        let mut g = IoGenerator::new(&job(&items), 4 << 30, 3).unwrap();
        assert_eq!(std::iter::from_fn(|| g.next_io()).map(|io| io.len_bytes).sum::<u64>(), 1 << 30, "{items:?}");
    }
}

#[test]
fn block_sizes_per_direction_as_fio() {
    // bs=4k,64k: every read 4k, every write 64k (it was refused).
    let j = job(&["rw=randrw", "bs=4k,64k", "size=64m", "number_ios=4000", "time_based", "runtime=60"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 9).unwrap();
    let ios: Vec<Io> = std::iter::from_fn(|| g.next_io()).collect();
    let reads = ios.iter().filter(|io| io.op == Op::Read).count();
    assert!((1800..2200).contains(&reads), "{reads} reads");
    assert!(ios.iter().all(|io| io.len_bytes == if io.op == Op::Read { 4096 } else { 65536 }));
    // Aligned to the smallest size, inside the span.
    assert!(ios.iter().all(|io| io.offset_bytes % 4096 == 0 && io.offset_bytes + io.len_bytes <= 64 << 20));
    // Each direction aligned to its own size, as fio's ba[ddir].
    assert!(ios.iter().filter(|io| io.op == Op::Write).all(|io| io.offset_bytes % 65536 == 0));
    // Only the directions a job issues count for its span: a read-only job's 64k writes do not.
    let j = job(&["rw=randread", "bs=4k,64k", "size=32k"]);
    assert!(IoGenerator::new(&j, 1 << 30, 1).is_ok());
    // Sequential: each direction goes on from its own position, each with its own size.
    let j = job(&["rw=rw", "bssplit=4k/50:8k/50,128k", "size=64m", "number_ios=1000", "time_based", "runtime=60"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 9).unwrap();
    let ios: Vec<Io> = std::iter::from_fn(|| g.next_io()).collect();
    let writes: Vec<&Io> = ios.iter().filter(|io| io.op == Op::Write).collect();
    assert!(writes.windows(2).all(|w| w[1].offset_bytes == w[0].offset_bytes + 131072));
    let read_sizes: std::collections::BTreeSet<u64> = ios.iter().filter(|io| io.op == Op::Read).map(|io| io.len_bytes).collect();
    assert_eq!(read_sizes.into_iter().collect::<Vec<_>>(), vec![4096, 8192]);
}

#[test]
fn strided_zones_as_fio() {
    // fio's disk-zone-profile: read 1 MiB, skip 3 MiB (zonesize alone means zonemode=strided).
    let j = job(&["rw=read", "bs=64k", "size=16m", "zonesize=1m", "zoneskip=3m"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 1).unwrap();
    let ios: Vec<Io> = std::iter::from_fn(|| g.next_io()).collect();
    let zones: std::collections::BTreeSet<u64> = ios.iter().map(|io| io.offset_bytes >> 20).collect();
    assert_eq!(zones.into_iter().collect::<Vec<_>>(), vec![0, 4, 8, 12], "zones read");
    assert!(ios[..16].windows(2).all(|w| w[1].offset_bytes == w[0].offset_bytes + 65536));
    assert_eq!(ios[16].offset_bytes, 4 << 20);
    // The skipped bytes do not count toward the size (fio stops on bytes moved): 16 MiB read,
    // round the four zones of the 16 MiB span four times, as fio 3.33's null engine does.
    assert_eq!(ios.len(), 256);
    assert_eq!(ios[64].offset_bytes, 0);
    // Random commands stay in the current zone (zonerange), zonesize bytes at a time.
    let j = job(&["rw=randwrite", "bs=4k", "size=64m", "zonemode=strided", "zonesize=256k", "zonerange=1m", "zoneskip=1m", "number_ios=1024"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 2).unwrap();
    let ios: Vec<Io> = std::iter::from_fn(|| g.next_io()).collect();
    for (k, chunk) in ios.chunks(64).enumerate() {
        let zone = (k as u64 * (2 << 20)) % (64 << 20);
        assert!(chunk.iter().all(|io| io.offset_bytes >= zone && io.offset_bytes + 4096 <= zone + (1 << 20)), "zone {k}");
    }
    for bad in
        [&["zonemode=strided"][..], &["zonemode=none", "zonesize=1m"], &["zonemode=zbd"], &["zonesize=1m", "random_distribution=zipf:1.1", "rw=randread"]]
    {
        assert!(parse_options("t", &bad.iter().map(|s| s.to_string()).collect::<Vec<_>>()).is_err(), "{bad:?}");
    }
}

#[test]
fn a_command_starting_in_a_strided_zone_keeps_its_length() {
    // 64k commands in 96k zones: the second starts inside the zone and runs past its end whole
    // (it was cut to 32k).
    let j = job(&["rw=read", "bs=64k", "size=16m", "zonesize=128k", "zonerange=96k", "zoneskip=32k"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 1).unwrap();
    let ios: Vec<Io> = std::iter::from_fn(|| g.next_io()).take(4).collect();
    assert!(ios.iter().all(|io| io.len_bytes == 65536), "{ios:?}");
    assert_eq!(ios.iter().map(|io| io.offset_bytes >> 10).collect::<Vec<_>>(), vec![0, 64, 128, 192]);
}

#[test]
fn backwards_sequential_walks_back_from_the_end_and_moves_the_jobs_bytes_as_fio() {
    // fio's examples/backwards-read.fio at 40 KiB: the first read at the start, then from the
    // end plus the step (-8k: each read 4 KiB before the last), wrapping, until `size` is read.
    let j = job(&["rw=read:-8k", "bs=4k", "size=40k"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 1).unwrap();
    let offsets: Vec<u64> = std::iter::from_fn(|| g.next_io()).map(|io| io.offset_bytes / 1024).collect();
    assert_eq!(offsets, vec![0, 32, 28, 24, 20, 16, 12, 8, 4, 0]);
    // A forward step makes one pass (fio's t/jobs/t0007: 85 reads of 1 MiB over 128 MiB).
    let j = job(&["rw=read:512k", "bs=1m", "size=128m"]);
    let mut g = IoGenerator::new(&j, 1 << 30, 1).unwrap();
    assert_eq!(std::iter::from_fn(|| g.next_io()).count(), 85);
}

#[test]
fn loops_multiply_io_size_and_number_ios_as_fio() {
    let count = |items: &[&str]| {
        let mut g = IoGenerator::new(&job(items), 1 << 30, 1).unwrap();
        std::iter::from_fn(|| g.next_io()).count()
    };
    assert_eq!(count(&["rw=write", "bs=4k", "size=8m", "io_size=4m"]), 1024);
    assert_eq!(count(&["rw=write", "bs=4k", "size=8m", "io_size=4m", "loops=2"]), 2048);
    assert_eq!(count(&["rw=write", "bs=4k", "size=8m", "number_ios=100", "loops=2"]), 200);
    assert_eq!(count(&["rw=write", "bs=4k", "size=1m", "loops=3"]), 768);
}

#[test]
fn bsrange_takes_fios_colon_and_swapped_bounds() {
    // fio's range parser splits at `-`, else at `:`, and swaps a larger first bound.
    for text in ["bsrange=4k-16k", "bsrange=4k:16k", "bsrange=16k-4k"] {
        let j = job(&["rw=read", text, "size=1m"]);
        let sizes: Vec<u64> = j.block_sizes.iter().map(|(bytes, _)| *bytes).collect();
        assert_eq!(sizes, vec![4096, 8192, 12288, 16384], "{text}");
    }
}

#[test]
fn integer_options_take_fios_size_suffixes() {
    // fio reads its integer options as sizes (parse.c: check_str_bytes): 1k is 1024, or 1000
    // with kb_base=1000.
    assert_eq!(job(&["rw=write", "number_ios=1k"]).number_ios, Some(1024));
    assert_eq!(job(&["kb_base=1000", "rw=write", "number_ios=1k"]).number_ios, Some(1000));
    assert_eq!(job(&["rw=randwrite", "iodepth=0x20"]).iodepth, 32);
    assert!(parse_options("t", &["rw=write".into(), "number_ios=many".into()]).unwrap_err().to_string().contains("`many` is not a whole number"));
}

#[test]
fn loops_make_whole_passes_and_io_size_adds_passes_only_after_them_as_fio() {
    // fio 3.33 (null and psync engines alike, write_iolog): rw=read size=1m io_size=2m reads
    // 512 blocks of 4 KiB with loops=1 or 2, and 768 with loops=3: a sequential pass ends at the
    // span's end, `loops` passes run, then more only while less than io_size was moved
    // (backend.c keep_running). ssdlab read io_size times loops: 1,536 with loops=3.
    let generated = |items: &[&str]| {
        let mut g = IoGenerator::new(&job(items), 1 << 30, 1).unwrap();
        let ios: Vec<Io> = std::iter::from_fn(|| g.next_io()).collect();
        (ios, g.limit_bytes())
    };
    for (loops, reads) in [("loops=1", 512), ("loops=2", 512), ("loops=3", 768)] {
        let (ios, limit) = generated(&["rw=read", "bs=4k", "size=1m", "io_size=2m", loops]);
        assert_eq!(ios.len(), reads, "{loops}");
        assert_eq!(limit, Some(reads as u64 * 4096), "{loops}: the bytes the job moves");
        assert!(ios.chunks(256).all(|pass| pass[0].offset_bytes == 0), "{loops}: each pass from the start");
    }
    // A random job keeps no map of the blocks done (fio's norandommap): its passes never end by
    // themselves and it moves io_size times loops (fio 3.33, null and psync: 1,536).
    let (ios, _) = generated(&["rw=randread", "bs=4k", "size=1m", "io_size=2m", "loops=3"]);
    assert_eq!(ios.len(), 1536);
}

#[test]
fn a_forward_step_keeps_its_last_block_when_it_fits_as_fio() {
    // fio 3.33 (write_iolog): rw=write:8k bs=4k writes at 0, 12k, ..., 60k over 64k, 68k and 72k
    // alike (6 writes: the pass ends where the next block starts past the span's end). ssdlab
    // counted whole strides of 12k: 5 writes over 64k and 68k, losing the one at 60k.
    let offsets = |items: &[&str]| {
        let mut g = IoGenerator::new(&job(items), 1 << 30, 1).unwrap();
        let offsets: Vec<u64> = std::iter::from_fn(|| g.next_io()).map(|io| io.offset_bytes >> 10).collect();
        (offsets, g.limit_bytes())
    };
    for size in ["size=64k", "size=68k", "size=72k"] {
        assert_eq!(offsets(&["rw=write:8k", "bs=4k", size]), (vec![0, 12, 24, 36, 48, 60], Some(24 << 10)), "{size}");
    }
    // loops=2: two such passes (fio: 12 writes); io_size=128k: passes until 128 KiB (fio: 32).
    assert_eq!(offsets(&["rw=write:8k", "bs=4k", "size=64k", "loops=2"]).0.len(), 12);
    assert_eq!(offsets(&["rw=write:8k", "bs=4k", "size=64k", "io_size=128k"]).0.len(), 32);
}
