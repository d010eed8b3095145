//! Content a block trace names by hash: equal hashes give equal sector content (fingerprint
//! and compressed size, or bytes) whatever the stream's seed, different hashes different
//! content, and the named write leaves the stream's own draws where they were.

use ssdlab_reduce::{ContentMode, ContentStream, DataPattern, NamedContent, PatternKind, SectorContent};

fn text() -> DataPattern {
    DataPattern { kind: PatternKind::Text, ..DataPattern::default() }
}

fn named(stream: &mut ContentStream, content: NamedContent, sectors: usize) -> Vec<SectorContent> {
    stream.name_next_write(Some(content));
    (0..sectors).map(|_| stream.next_sector()).collect()
}

#[test]
fn equal_hashes_are_equal_content_whatever_the_seed() {
    for mode in [ContentMode::Modeled, ContentMode::Real] {
        let mut a = ContentStream::new(text(), mode, 1);
        let mut b = ContentStream::new(text(), mode, 99);
        let first = named(&mut a, NamedContent::Hash(0xfeed), 2);
        assert_eq!(first, named(&mut b, NamedContent::Hash(0xfeed), 2));
        // The second sector of a write differs from its first; another hash differs from both.
        assert_ne!(first[0].fingerprint, first[1].fingerprint);
        let other = named(&mut a, NamedContent::Hash(0xbeef), 1);
        assert!(other[0].fingerprint != first[0].fingerprint && other[0].fingerprint != first[1].fingerprint);
        // Text compresses: the size is drawn from the pattern's distribution, below a sector.
        assert!(first[0].stored_bytes < 4096 && first[0].stored_bytes > 0, "{}", first[0].stored_bytes);
        // The all-zero block takes no flash.
        assert!(named(&mut a, NamedContent::Zeros, 1)[0].zero);
    }
}

#[test]
fn unnamed_writes_draw_as_before() {
    let mut plain = ContentStream::new(text(), ContentMode::Modeled, 5);
    let mut mixed = ContentStream::new(text(), ContentMode::Modeled, 5);
    let expected: Vec<SectorContent> = (0..3).map(|_| plain.next_sector()).collect();
    named(&mut mixed, NamedContent::Hash(7), 4);
    mixed.name_next_write(None);
    let got: Vec<SectorContent> = (0..3).map(|_| mixed.next_sector()).collect();
    assert_eq!(got, expected);
}
