//! One chunk-table entry ([`Chunk`]): key, address, packed reference count, length, indexed bit.

/// One chunk: its fingerprint key, where it is, how long, who uses it, in 16 bytes aligned to
/// 16: four to a cache line and none straddling two (GC and every overwrite load entries of
/// this table at random, and 24-byte entries took 1.25 lines each).
#[derive(Debug, Default, Clone, Copy, serde::Serialize, serde::Deserialize)]
#[repr(C, align(16))]
pub(crate) struct Chunk {
    /// Fingerprint key (low 64 bits of the fingerprint).
    pub key: u64,
    /// First ECC unit (UNMAPPED until placed).
    pub addr: u32,
    /// The reference count's field (low [`REF_BITS`] bits: the logical sectors referencing the
    /// chunk, 0 when the id is free; at [`ChunkFtl`]'s saturation value the count is kept in
    /// `many_refs`), the length in ECC units (the next 7 bits) and whether the index holds the
    /// chunk under its key (the top bit: it was stored while the index had room; a chunk that
    /// is not indexed has no entry to remove when it is freed, so freeing it skips the index, a
    /// random probe of a large table for nothing on a drive whose index is full).
    ///
    /// [`ChunkFtl`]: super::ChunkFtl
    bits: u32,
}

// One line holds whole entries: a prefetch of an entry's address loads all of it.
const _: () = assert!(std::mem::size_of::<Chunk>() == 16 && std::mem::align_of::<Chunk>() == 16);

/// Bits of a chunk entry's reference count field.
const REF_BITS: u32 = 24;
/// The reference count field's mask, and the value at which the count moves to `many_refs`.
pub(super) const REF_MASK: u32 = (1 << REF_BITS) - 1;
/// The length field's mask (after shifting by [`REF_BITS`]): a chunk is at most a 4 KiB sector
/// of 64-byte ECC units (`ChunkFtlConfig::validate`), 64 units.
const LEN_MASK: u32 = 0x7F;
/// The entry's "indexed" bit.
const INDEXED_BIT: u32 = 1 << 31;

impl Chunk {
    /// An entry with `refs` (below the saturation value) references.
    pub(super) fn new(addr: u32, key: u64, len: u32, refs: u32, indexed: bool) -> Self {
        let mut chunk = Self { key, addr, bits: 0 };
        chunk.set_len(len);
        chunk.set_refs_field(refs);
        chunk.set_indexed(indexed);
        chunk
    }

    /// Whether any sector references the chunk (its id is in use).
    #[inline]
    pub fn live(&self) -> bool {
        self.bits & REF_MASK != 0
    }

    /// The reference count's field (the count itself below the saturation value).
    #[inline]
    pub(crate) fn refs_field(&self) -> u32 {
        self.bits & REF_MASK
    }

    #[inline]
    pub(super) fn set_refs_field(&mut self, refs: u32) {
        debug_assert!(refs <= REF_MASK);
        self.bits = (self.bits & !REF_MASK) | refs;
    }

    /// Length in ECC units.
    #[inline]
    pub fn len(&self) -> u32 {
        (self.bits >> REF_BITS) & LEN_MASK
    }

    #[inline]
    fn set_len(&mut self, len: u32) {
        assert!(len <= LEN_MASK, "a chunk of {len} ECC units is longer than an entry holds");
        self.bits = (self.bits & !(LEN_MASK << REF_BITS)) | (len << REF_BITS);
    }

    /// Whether the index holds this chunk under its key.
    #[inline]
    pub fn indexed(&self) -> bool {
        self.bits & INDEXED_BIT != 0
    }

    #[inline]
    fn set_indexed(&mut self, indexed: bool) {
        self.bits = (self.bits & !INDEXED_BIT) | if indexed { INDEXED_BIT } else { 0 };
    }
}
