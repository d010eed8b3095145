//! A damaged header slot falls back to the other slot when the journal still belongs to that
//! slot's checkpoint (a header write the host tore inside its sector), and is refused when the
//! drive went on to a later checkpoint after it (the other slot's map may point at reused
//! blocks).

mod common;

use common::{sector_bytes, sector_value, tiny, TempDir, SECTOR};
use ssdlab_serve::{Header, Server, HEADER_BYTES};
use std::os::unix::fs::FileExt;

/// Flip a byte inside the body of the header slot with the higher generation; returns it.
fn damage_newest_slot(path: &std::path::Path) -> u64 {
    let file = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
    let mut newest = (0, 0);
    for slot in 0..2u64 {
        let mut block = vec![0u8; HEADER_BYTES as usize];
        file.read_exact_at(&mut block, slot * HEADER_BYTES).unwrap();
        let header = Header::decode("f", &block).unwrap();
        if header.generation >= newest.1 {
            newest = (slot, header.generation);
        }
    }
    let at = newest.0 * HEADER_BYTES + 20;
    let mut byte = [0u8];
    file.read_exact_at(&mut byte, at).unwrap();
    file.write_all_at(&[byte[0] ^ 0x40], at).unwrap();
    newest.0
}

fn write_values(server: &Server, first: u64, ids: &[u64]) {
    let data: Vec<u8> = ids.iter().flat_map(|&id| sector_bytes(id)).collect();
    server.write(&data, first * SECTOR, false).unwrap();
}

fn read_values(server: &Server, first: u64, count: u64) -> Vec<Option<u64>> {
    let mut buf = vec![0u8; (count * SECTOR) as usize];
    server.read(&mut buf, first * SECTOR).unwrap();
    buf.chunks(SECTOR as usize).map(sector_value).collect()
}

#[test]
fn a_damaged_newest_header_slot_falls_back_only_while_the_journal_is_its_own() {
    for reduction in [false, true] {
        let dir = TempDir::new("header-fallback");
        let path = dir.path().join("drive.img");
        let cfg = tiny(&path, reduction, false);
        // A clean shutdown (a checkpoint), then a restart that writes and flushes, then a kill:
        // both slots name the same checkpoint; the newest says "in use".
        let server = Server::start(&cfg).unwrap();
        write_values(&server, 0, &[11, 12, 13]);
        server.shutdown().unwrap();
        drop(server);
        let server = Server::start(&cfg).unwrap();
        write_values(&server, 100, &[21, 22]);
        server.flush().unwrap();
        drop(server); // killed
        damage_newest_slot(&path);
        let server = Server::start(&cfg).unwrap_or_else(|e| panic!("reduction {reduction}: the other slot should be used: {e}"));
        let report = server.recovery().expect("recovered from the journal");
        assert!(report.header_fallback.as_deref().is_some_and(|n| n.contains("the other header slot")), "{report:?}");
        assert_eq!(read_values(&server, 0, 3), vec![Some(11), Some(12), Some(13)], "reduction {reduction}");
        assert_eq!(read_values(&server, 100, 2), vec![Some(21), Some(22)], "reduction {reduction}");
        // Two clean shutdowns: the newest slot names a later checkpoint than the other, whose
        // journal has been started over; damaging the newest slot is then refused.
        server.shutdown().unwrap();
        drop(server);
        let server = Server::start(&cfg).unwrap();
        write_values(&server, 200, &[31]);
        server.shutdown().unwrap();
        drop(server);
        damage_newest_slot(&path);
        let refused = Server::start(&cfg).err().unwrap_or_else(|| panic!("reduction {reduction}: a header of an older checkpoint was taken"));
        assert!(refused.to_string().contains("no longer belongs"), "{refused}");
    }
}
