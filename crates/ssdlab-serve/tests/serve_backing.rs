//! The server without nbdkit: data round trips through the backing file, TRIM and zeroes read
//! as zeros and show as holes, a clean shutdown and restart keeps data and drive state, and a
//! file in use or of another profile is refused by name (an unclean stop is recovered).

mod common;

use common::{pattern, stats, TempDir};
use ssdlab_serve::{ExtentKind, ServeConfig, Server};

/// Small drives: 64 blocks per plane (8 GiB raw) for the SandForce layout, with or without the
/// data-reduction engine.
fn config(dir: &std::path::Path, reduction: bool) -> ServeConfig {
    common::force_gs(
        &dir.join("drive.img"),
        vec!["nand.blocks_per_plane=64".into(), "drive.capacity_bytes_user=7499997184".into(), format!("reduction.enabled={reduction}")],
    )
}

fn allocated_bytes(path: &str) -> u64 {
    std::os::unix::fs::MetadataExt::blocks(&std::fs::metadata(path).unwrap()) * 512
}

#[test]
fn data_survives_a_clean_restart_with_the_drive_state() {
    for reduction in [true, false] {
        let dir = TempDir::new("serve");
        let cfg = config(dir.path(), reduction);
        let server = Server::start(&cfg).unwrap();
        let mut written = Vec::new();
        for i in 0..200u64 {
            let offset = (i * 7919 % 1000) * 65536 + (i % 8) * 512;
            let data = pattern(i, 4096 * (1 + (i % 5) as usize));
            server.write(&data, offset, i % 10 == 0).unwrap();
            written.push((offset, data));
        }
        server.trim(1 << 20, 8 << 20, false).unwrap();
        server.zero(1 << 20, 16 << 20, true, false, false).unwrap();
        server.flush().unwrap();
        server.shutdown().unwrap();
        let before: serde_json::Value = stats(&server);
        // A stopped server refuses requests.
        assert!(server.read(&mut [0u8; 4096], 0).is_err());
        drop(server);

        let server = Server::start(&cfg).unwrap();
        let mut expected = vec![None::<Vec<u8>>; 0];
        expected.clear();
        // Replay the writes on a shadow to know what each byte must be.
        let mut shadow = std::collections::BTreeMap::<u64, u8>::new();
        for (offset, data) in &written {
            for (i, b) in data.iter().enumerate() {
                shadow.insert(offset + i as u64, *b);
            }
        }
        for range in [(8u64 << 20, 1u64 << 20), (16 << 20, 1 << 20)] {
            for a in range.0..range.0 + range.1 {
                shadow.insert(a, 0);
            }
        }
        for (offset, data) in &written {
            let mut back = vec![0u8; data.len()];
            server.read(&mut back, *offset).unwrap();
            let want: Vec<u8> = (0..data.len() as u64).map(|i| shadow[&(offset + i)]).collect();
            assert_eq!(back, want, "reduction {reduction}: data at {offset} after restart");
        }
        let after: serde_json::Value = stats(&server);
        for key in ["host_write_bytes", "nand_write_bytes", "free_blocks"] {
            assert_eq!(before[key], after[key], "reduction {reduction}: {key} continues after the restart");
        }
        assert_eq!(before["wear"], after["wear"]);
        // Trimmed and zeroed ranges are holes.
        let extents = server.extents(1 << 20, 8 << 20).unwrap();
        assert_eq!(extents, vec![(8 << 20, 1 << 20, ExtentKind::HoleZero)], "reduction {reduction}");
        let extents = server.extents(1 << 20, 16 << 20).unwrap();
        assert!(extents.iter().all(|e| e.2 == ExtentKind::HoleZero), "reduction {reduction}: {extents:?}");
        server.shutdown().unwrap();
    }
}

#[test]
fn compressible_data_takes_little_backing_space_on_a_sandforce_drive() {
    for (reduction, low, high) in [(true, 0.0, 0.25), (false, 0.9, 1.2)] {
        let dir = TempDir::new("serve");
        let cfg = config(dir.path(), reduction);
        let server = Server::start(&cfg).unwrap();
        let before = allocated_bytes(&cfg.backing);
        // 256 MiB of highly compressible data: distinct 4 KiB sectors (each names itself once)
        // of a repeated phrase.
        for i in 0..256u64 {
            let mut data = Vec::with_capacity(1 << 20);
            for sector in 0..256u64 {
                let mut block = format!("sector {} ", i * 256 + sector).into_bytes();
                while block.len() < 4096 {
                    block.extend_from_slice(b"all work and no play makes a dull drive. ");
                }
                data.extend_from_slice(&block[..4096]);
            }
            server.write(&data, i << 20, false).unwrap();
        }
        server.flush().unwrap();
        let grown = (allocated_bytes(&cfg.backing) - before) as f64 / (256u64 << 20) as f64;
        assert!((low..=high).contains(&grown), "reduction {reduction}: the backing file grew by {grown:.2} of the data written");
        server.shutdown().unwrap();
    }
}

#[test]
fn a_file_in_use_or_of_another_profile_is_refused_and_an_unclean_stop_recovered() {
    let dir = TempDir::new("serve");
    let cfg = config(dir.path(), true);
    let server = Server::start(&cfg).unwrap();
    let err = Server::start(&cfg).err().unwrap().to_string();
    assert!(err.contains("in use by another ssdlab server"), "{err}");
    // It names the process holding the lock (here this one), which a user whose killed
    // `ssdlab serve` left its nbdkit saving the drive could not tell before.
    assert!(err.contains(&format!("process {} (", std::process::id())), "{err}");
    server.write(&pattern(1, 4096), 0, false).unwrap();
    server.flush().unwrap();
    // Not shut down: the next start recovers the flushed write from the journal.
    drop(server);
    let server = Server::start(&cfg).unwrap();
    assert_eq!(server.recovery().expect("recovered").sectors_recovered, 1);
    let mut back = vec![0u8; 4096];
    server.read(&mut back, 0).unwrap();
    assert_eq!(back, pattern(1, 4096));
    server.shutdown().unwrap();
    drop(server);

    let dir = TempDir::new("serve");
    let cfg = config(dir.path(), true);
    Server::start(&cfg).unwrap().shutdown().unwrap();
    let mut other = cfg.clone();
    other.overrides.push("ftl.gc_policy=cost-benefit".into());
    let err = Server::start(&other).err().unwrap().to_string();
    assert!(err.contains("was made for profile `force-gs-240`") && err.contains("not for `force-gs-240`") && err.contains("give the --set values"), "{err}");
    let junk = dir.path().join("junk.img");
    std::fs::write(&junk, vec![7u8; 8192]).unwrap();
    let mut junk_cfg = cfg.clone();
    junk_cfg.backing = junk.to_string_lossy().into_owned();
    let err = Server::start(&junk_cfg).err().unwrap().to_string();
    assert!(err.contains("not an ssdlab backing file"), "{err}");
    let mut missing = cfg.clone();
    missing.backing = "/nonexistent/folder/drive.img".into();
    let err = Server::start(&missing).err().unwrap().to_string();
    assert!(err.contains("does not exist"), "{err}");
}

#[test]
fn a_blank_file_made_beforehand_is_named_as_not_ours_and_secure_erase_serves_it() {
    // `truncate -s 1G drive.img` or `qemu-img create drive.img 1G` before `serve`: the start was
    // refused with "header slot 0 is blank", which named neither the cause nor the way out.
    let dir = TempDir::new("serve");
    let mut cfg = config(dir.path(), true);
    std::fs::File::create(&cfg.backing).unwrap().set_len(1 << 30).unwrap();
    let err = Server::start(&cfg).err().unwrap().to_string();
    assert!(err.contains("not an ssdlab backing file") && err.contains("blank") && err.contains("--secure-erase"), "{err}");
    assert_eq!(std::fs::metadata(&cfg.backing).unwrap().len(), 1 << 30, "the file was changed");
    cfg.secure_erase = true;
    let server = Server::start(&cfg).unwrap();
    server.write(&[9u8; 4096], 0, true).unwrap();
    server.shutdown().unwrap();
}

#[test]
fn a_protected_drive_answers_flush_and_fua_without_programming() {
    // Power-loss protection: nothing volatile, every write committed before its reply. A flush
    // (which nbdkit now forwards: the plugin advertises flush and FUA on every drive) drained
    // the drive's buffer into padded programs, raising its WA.
    let dir = TempDir::new("serve");
    let mut cfg = config(dir.path(), false);
    cfg.overrides.push("controller.power_loss_protection=true".into());
    let server = Server::start(&cfg).unwrap();
    server.write(&pattern(1, 4096), 0, false).unwrap();
    let nand = stats(&server)["nand_write_bytes"].as_u64().unwrap();
    server.flush().unwrap();
    server.write(&pattern(2, 4096), 8192, true).unwrap();
    server.trim(4096, 0, true).unwrap();
    let after = stats(&server);
    assert_eq!(after["nand_write_bytes"].as_u64().unwrap(), nand, "a flush or FUA programmed something");
    assert_eq!(after["flushes"].as_u64().unwrap(), 1);
    let mut back = vec![0u8; 4096];
    server.read(&mut back, 8192).unwrap();
    assert_eq!(back, pattern(2, 4096));
    server.shutdown().unwrap();
}

#[test]
fn requests_beyond_the_export_are_refused() {
    let dir = TempDir::new("serve");
    let server = Server::start(&config(dir.path(), true)).unwrap();
    let size = server.size();
    assert_eq!(server.write(&[0u8; 4096], size, false).err().unwrap().errno, libc::EINVAL);
    assert_eq!(server.read(&mut [0u8; 4096], size - 512).err().unwrap().errno, libc::EINVAL);
    assert_eq!(server.write(&[0u8; 100], 0, false).err().unwrap().errno, libc::EINVAL);
    server.shutdown().unwrap();
}

/// Reads served outside the drive's lock and data copied into the file after it (issue 24):
/// threads write and read their own sectors at once, over a small drive overwritten
/// (so blocks are erased, GC moves data and erased blocks' extents are given back and reused
/// meanwhile), and every read returns the last data its thread wrote there.
#[test]
fn concurrent_reads_and_writes_see_the_last_data_written() {
    for reduction in [true, false] {
        let dir = TempDir::new("serve");
        let mut cfg = config(dir.path(), reduction);
        // Four dies, 1 GiB of flash.
        cfg.overrides =
            ["nand.channels=2", "nand.packages_per_channel=1", "nand.dies_per_package=2", "nand.blocks_per_plane=64", "drive.capacity_bytes_user=943718400"]
                .into_iter()
                .map(String::from)
                .chain([format!("reduction.enabled={reduction}")])
                .collect();
        let server = std::sync::Arc::new(Server::start(&cfg).unwrap());
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let server = server.clone();
                std::thread::spawn(move || {
                    // Each thread owns 48 MiB; 1.25 GiB written in all on 1 GiB of flash, so
                    // blocks are erased (and GC moves data) while requests run.
                    let base = t * (48 << 20);
                    let mut last: Vec<Option<u64>> = vec![None; 48 * 16];
                    for i in 0..5000u64 {
                        let slot = ((i * 2_654_435_761 + t) % last.len() as u64) as usize;
                        let offset = base + slot as u64 * 65536;
                        let seed = (t << 32) | i;
                        // Every fifth write compresses (half of it repeats).
                        let mut data = pattern(seed, 65536);
                        if i % 5 == 0 {
                            data[32768..].fill(7);
                        }
                        server.write(&data, offset, false).unwrap();
                        last[slot] = Some(seed);
                        let check = ((i * 40_503) % last.len() as u64) as usize;
                        if let Some(seed) = last[check] {
                            let mut want = pattern(seed, 65536);
                            if (seed & 0xffff_ffff) % 5 == 0 {
                                want[32768..].fill(7);
                            }
                            let mut got = vec![0u8; 65536];
                            server.read(&mut got, base + check as u64 * 65536).unwrap();
                            assert!(got == want, "thread {t}: slot {check} reads other data than written last");
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let stats: serde_json::Value = stats(&server);
        assert!(stats["nand_block_erases"].as_u64().unwrap() > 0, "no block was erased: {stats}");
        server.shutdown().unwrap();
    }
}
