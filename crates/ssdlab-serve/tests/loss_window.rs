//! The drive's own loss window: a power cut on the Force GS layout during 4 KiB random writes
//! without flushes loses what the simulated drive had not programmed (its 4 MiB volatile write
//! buffer, programs in flight included), no more and no less than the cut report says, and a
//! prefix of the writes survives; with power-loss protection nothing acknowledged is lost.

mod common;

use common::TempDir;
use ssdlab_core::SimRng;
use ssdlab_serve::{ServeConfig, Server};

/// The Force GS 240's dies, channels, timing and 4 MiB write buffer, with 64 blocks per plane
/// (8 GiB raw) so the test builds its drive in a moment.
fn force_gs(dir: &std::path::Path, protected: bool) -> ServeConfig {
    common::force_gs(
        &dir.join("drive.img"),
        vec!["nand.blocks_per_plane=64".into(), "drive.capacity_bytes_user=7499997184".into(), format!("controller.power_loss_protection={protected}")],
    )
}

/// 4 KiB of incompressible bytes carrying `id`.
fn block(id: u64) -> Vec<u8> {
    let mut x = id.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out: Vec<u8> = id.to_le_bytes().to_vec();
    while out.len() < 4096 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(4096);
    out
}

/// Buffer sectors of the Force GS profile: write_buffer_bytes / 4 KiB.
const BUFFER_SECTORS: u64 = (4 << 20) / 4096;

#[test]
fn a_power_cut_loses_at_most_the_write_buffer_and_nothing_with_protection() {
    for protected in [false, true] {
        for seed in [1u64, 2] {
            let dir = TempDir::new("loss-window");
            let cfg = force_gs(dir.path(), protected);
            let server = Server::start(&cfg).unwrap();
            let sectors = server.size() / 4096;
            // Distinct sectors in random order, without a flush.
            let mut rng = SimRng::new(seed);
            let mut lbas = std::collections::BTreeSet::new();
            let writes = 1500 + rng.below(1000);
            let mut order = Vec::new();
            while (order.len() as u64) < writes {
                let lba = rng.below(sectors);
                if lbas.insert(lba) {
                    order.push(lba);
                }
            }
            for (i, &lba) in order.iter().enumerate() {
                server.write(&block(i as u64 + 1), lba * 4096, false).unwrap();
            }
            let said = server.power_cut();
            drop(server);
            let server = Server::start(&cfg).unwrap();
            let report = server.recovery().and_then(|r| r.power_cut).expect("the cut is in the journal");
            // Which writes came back: a prefix of them.
            let mut buf = vec![0u8; 4096];
            let back: Vec<bool> = order
                .iter()
                .enumerate()
                .map(|(i, &lba)| {
                    server.read(&mut buf, lba * 4096).unwrap();
                    if buf == block(i as u64 + 1) {
                        true
                    } else {
                        assert!(buf.iter().all(|&b| b == 0), "seed {seed}: sector {lba} holds bytes never written there");
                        false
                    }
                })
                .collect();
            let kept = back.iter().take_while(|&&b| b).count() as u64;
            assert!(back[kept as usize..].iter().all(|&b| !b), "seed {seed}: the writes that came back are not a prefix");
            let lost = writes - kept;
            assert_eq!(lost, report.lost_sectors, "seed {seed} protection {protected}: the report says {report} ({said})");
            assert_eq!(report.lost_flushed_sectors, 0, "seed {seed}");
            if protected {
                assert_eq!(lost, 0, "seed {seed}: power-loss protection lost {lost} acknowledged writes ({said})");
            } else {
                assert!(lost >= 1, "seed {seed}: a cut without a flush lost nothing: the drive's buffer is not modelled ({said})");
                assert!(lost <= BUFFER_SECTORS, "seed {seed}: {lost} sectors lost, more than the {BUFFER_SECTORS}-sector write buffer ({said})");
                assert!(report.buffered_sectors >= lost, "seed {seed}: {report}");
            }
            eprintln!("loss window: protection {protected}, seed {seed}: {writes} writes, {lost} lost; {said}");
        }
    }
}
