//! Content identities of 4 KiB sectors named by a content hash (a trace's MD5 per write), shared
//! by the trace reader (which counts duplicate blocks) and the data-reduction engine (which
//! deduplicates them), so both see the same blocks as equal by construction; and the SplitMix64
//! finaliser the content models mix their identities and seeds with.

/// The SplitMix64 finaliser: a bijection of `u64` that spreads every input bit over the output.
#[inline]
pub fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The identity of the `index`-th 4 KiB sector of a write whose content hash is `hash`: equal
/// for equal `(hash, index)`, the hash itself for the first sector (a bijection of `hash` for
/// each `index`).
#[inline]
pub fn sector_key(hash: u128, index: u64) -> u128 {
    hash ^ (index as u128).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)
}

/// [`sector_key`] folded to the 64 bits of a content identity (equal keys, equal identities).
#[inline]
pub fn sector_identity(hash: u128, index: u64) -> u64 {
    let key = sector_key(hash, index);
    mix64((key >> 64) as u64 ^ mix64(key as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_equal_exactly_for_equal_hash_and_index() {
        assert_eq!(sector_key(7, 0), 7);
        assert_eq!(sector_identity(7, 3), sector_identity(7, 3));
        let identities: std::collections::HashSet<u64> = (0..64u128).flat_map(|h| (0..64u64).map(move |i| sector_identity(h << 64 | h, i))).collect();
        assert_eq!(identities.len(), 64 * 64);
        // SplitMix64's known first output from state 0 (the state advanced once by the golden gamma).
        assert_eq!(mix64(0x9E37_79B9_7F4A_7C15), 0xE220_A839_7B1D_CDAF);
    }
}
