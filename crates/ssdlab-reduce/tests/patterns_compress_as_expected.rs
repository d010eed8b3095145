//! Each pattern compresses as its description says, measured with the real compressor.

use ssdlab_reduce::{measured_sizes, ContentMode, ContentStream, DataPattern, PatternKind, SECTOR_BYTES};

fn mean_ratio(kind: PatternKind) -> f64 {
    let sizes = measured_sizes(&DataPattern { kind, dedupe_percent: 0 });
    let mean = sizes.iter().map(|&s| s as f64).sum::<f64>() / sizes.len() as f64;
    SECTOR_BYTES as f64 / mean
}

#[test]
fn compression_ratios_by_pattern() {
    assert!(mean_ratio(PatternKind::Repeating) > 50.0, "{}", mean_ratio(PatternKind::Repeating));
    let text = mean_ratio(PatternKind::Text);
    assert!((1.5..4.0).contains(&text), "{text}");
    assert!((mean_ratio(PatternKind::Random) - 1.0).abs() < 1e-9);
    let half = mean_ratio(PatternKind::FioCompress { percent: 50, chunk_bytes: 512 });
    assert!((1.6..2.2).contains(&half), "{half}");
}

#[test]
fn modes_agree_on_sizes_and_duplicates() {
    let pattern = DataPattern { kind: PatternKind::Text, dedupe_percent: 30 };
    let mut modeled = ContentStream::new(pattern, ContentMode::Modeled, 9);
    let mut real = ContentStream::new(pattern, ContentMode::Real, 9);
    let n = 4000;
    let (mut m_bytes, mut r_bytes) = (0u64, 0u64);
    let (mut m_fps, mut r_fps) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
    for _ in 0..n {
        let a = modeled.next_sector();
        let b = real.next_sector();
        m_bytes += a.stored_bytes as u64;
        r_bytes += b.stored_bytes as u64;
        m_fps.insert(a.fingerprint);
        r_fps.insert(b.fingerprint);
        assert!(b.payload.is_some());
    }
    let diff = (m_bytes as f64 - r_bytes as f64).abs() / r_bytes as f64;
    assert!(diff < 0.03, "modeled {m_bytes} vs real {r_bytes}");
    // The same identities repeat in both modes.
    assert_eq!(m_fps.len(), r_fps.len());
    assert!(m_fps.len() < n * 80 / 100);
}

#[test]
fn zeros_are_zero_and_real_bytes_round_trip() {
    let mut zeros = ContentStream::new(DataPattern { kind: PatternKind::Zeros, dedupe_percent: 0 }, ContentMode::Real, 1);
    assert!(zeros.next_sector().zero);
    let pattern = DataPattern { kind: PatternKind::Repeating, dedupe_percent: 0 };
    let mut buffer = vec![0u8; SECTOR_BYTES];
    pattern.fill_sector(77, &mut buffer);
    let content = ssdlab_reduce::SectorContent::from_bytes(&buffer);
    let back = ssdlab_reduce::decompress_sector(content.payload.as_ref().unwrap()).unwrap();
    assert_eq!(back, buffer);
}
