//! Extents of blocks emptied while programmed are recycled (issue 24, round four): a span
//! rewritten again and again reuses the extents its earlier passes emptied, instead of growing
//! the file by one extent per block written; the data reads back, and recovery after a kill
//! (the journal's records carry the recycling in their extent changes and placement digests)
//! and a clean restart give the same drive.

mod common;

use common::{pattern, stats, TempDir};
use ssdlab_serve::{ServeConfig, Server};

/// 4 dies, 1 MiB blocks, 1 GiB raw: a 32 MiB span rewritten eight times never needs GC, so
/// every extent given back comes from an emptied block, none from an erase.
fn config(dir: &std::path::Path, reduction: bool) -> ServeConfig {
    common::force_gs(
        &dir.join("drive.img"),
        [
            "nand.channels=2",
            "nand.packages_per_channel=1",
            "nand.dies_per_package=2",
            "nand.blocks_per_plane=256",
            "nand.pages_per_block=64",
            "drive.capacity_bytes_user=943718400",
        ]
        .into_iter()
        .map(String::from)
        .chain([format!("reduction.enabled={reduction}")])
        .collect(),
    )
}

const SPAN: u64 = 32 << 20;
const PASSES: u64 = 8;
const WRITE: usize = 1 << 20;
const BLOCK: u64 = 1 << 20;

/// Write the span `PASSES` times (pass `p` with seeds `p * 1000 + i`), flushing after each.
fn rewrite(server: &Server) {
    for pass in 0..PASSES {
        for i in 0..SPAN / WRITE as u64 {
            server.write(&pattern(pass * 1000 + i, WRITE), i * WRITE as u64, false).unwrap();
        }
        server.flush().unwrap();
    }
}

fn check_last_pass(server: &Server, what: &str) {
    let pass = PASSES - 1;
    for i in 0..SPAN / WRITE as u64 {
        let mut back = vec![0u8; WRITE];
        server.read(&mut back, i * WRITE as u64).unwrap();
        assert!(back == pattern(pass * 1000 + i, WRITE), "{what}: the MiB at {} reads other data than its last write", i * WRITE as u64);
    }
}

#[test]
fn a_rewritten_span_reuses_the_extents_its_earlier_passes_emptied() {
    for reduction in [false, true] {
        let dir = TempDir::new("recycle");
        let cfg = config(dir.path(), reduction);
        let server = Server::start(&cfg).unwrap();
        rewrite(&server);
        check_last_pass(&server, "served");
        let s = stats(&server);
        let e = &s["extents"];
        let (recycled, grown, erased) = (e["recycled"].as_u64().unwrap(), e["grown"].as_u64().unwrap(), e["erased"].as_u64().unwrap());
        assert_eq!(erased, 0, "reduction {reduction}: no block should be erased here: {e}");
        // Every pass but the last empties the blocks of the pass before (all but the blocks
        // left open, at most one per die).
        let span_blocks = SPAN / BLOCK;
        assert!(recycled >= (PASSES - 2) * (span_blocks - 4), "reduction {reduction}: only {recycled} extents recycled: {e}");
        // Without recycling the file would grow by one extent per block written (eight spans);
        // with it, by about two spans (the live pass and the one being emptied).
        assert!(grown <= 3 * span_blocks, "reduction {reduction}: the file grew by {grown} extents for a span of {span_blocks} blocks: {e}");
        assert!(e["reused_warm"].as_u64().unwrap() > 0, "reduction {reduction}: no warm extent was reused: {e}");
        // Killed (no shutdown): recovery redoes the journal, recycling included.
        drop(server);
        let server = Server::start(&cfg).unwrap();
        let report = server.recovery().expect("an unclean stop is recovered");
        assert!(report.records_replayed > 0, "{report:?}");
        check_last_pass(&server, "recovered");
        // More passes on the recovered drive, then a clean restart.
        rewrite(&server);
        server.shutdown().unwrap();
        drop(server);
        let server = Server::start(&cfg).unwrap();
        assert!(server.recovery().is_none());
        check_last_pass(&server, "restarted");
        server.shutdown().unwrap();
    }
}

/// TRIM of a whole span empties its blocks: their extents are given back (punched beyond the
/// warm bound, kept warm below it), and the trimmed span reads as zeros.
#[test]
fn a_trimmed_span_gives_its_extents_back() {
    let dir = TempDir::new("recycle-trim");
    let cfg = config(dir.path(), false);
    let server = Server::start(&cfg).unwrap();
    for i in 0..SPAN / WRITE as u64 {
        server.write(&pattern(i, WRITE), i * WRITE as u64, false).unwrap();
    }
    server.flush().unwrap();
    let before = stats(&server)["extents"]["in_use"].as_u64().unwrap();
    server.trim(SPAN, 0, false).unwrap();
    server.flush().unwrap();
    let e = stats(&server)["extents"].clone();
    let in_use = e["in_use"].as_u64().unwrap();
    assert!(in_use <= 4 && before >= SPAN / BLOCK, "extents in use {before} before the TRIM, {in_use} after: {e}");
    assert_eq!(e["recycled"].as_u64().unwrap() + in_use, before, "{e}");
    let mut back = vec![1u8; WRITE];
    server.read(&mut back, 0).unwrap();
    assert!(back.iter().all(|&b| b == 0));
    server.shutdown().unwrap();
}
