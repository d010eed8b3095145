//! The engine's compressor and hash.

use crate::SECTOR_BYTES;

/// A content fingerprint (XXH3-128 of the sector's bytes in real mode; a 128-bit draw in
/// modeled mode).
pub type Fingerprint = u128;

/// Fingerprint of a sector's bytes.
pub fn fingerprint(bytes: &[u8]) -> Fingerprint {
    xxhash_rust::xxh3::xxh3_128(bytes)
}

/// Compress one sector with LZ4. Returns the stored form: the compressed bytes, or the sector
/// unchanged when compression would not make it smaller (flagged by its full length).
pub fn compress_sector(bytes: &[u8]) -> Vec<u8> {
    debug_assert_eq!(bytes.len(), SECTOR_BYTES);
    thread_local! {
        /// The compressor's output, reused by every sector a thread compresses.
        static OUT: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0; lz4_flex::block::get_maximum_output_size(SECTOR_BYTES)]);
    }
    OUT.with(|out| {
        let mut out = out.borrow_mut();
        match lz4_flex::block::compress_into(bytes, &mut out) {
            // One allocation, of the stored size.
            Ok(n) if n < SECTOR_BYTES => out[..n].to_vec(),
            _ => bytes.to_vec(),
        }
    })
}

/// Inverse of [`compress_sector`].
pub fn decompress_sector(stored: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = vec![0u8; SECTOR_BYTES];
    decompress_sector_into(stored, &mut out)?;
    Ok(out)
}

/// Inverse of [`compress_sector`], into `out` (exactly [`SECTOR_BYTES`] long).
///
/// A decoder of the LZ4 block format of its own rather than `lz4_flex`'s: the engine's
/// compressible sectors are mostly long runs (zeros, a repeated phrase), which LZ4 encodes as
/// matches overlapping their own output, and `lz4_flex` copies those a byte at a time (about
/// 4 us per 4 KiB sector here, slower than the copy of a 128 KiB read to the client); this one
/// fills them by doubling copies. Damaged input is an error, never a panic or a read out of
/// bounds (`tests` below compare it with `lz4_flex` on valid and damaged blocks).
pub fn decompress_sector_into(stored: &[u8], out: &mut [u8]) -> Result<(), String> {
    if out.len() != SECTOR_BYTES {
        return Err(format!("a sector is decoded into {SECTOR_BYTES} bytes, not {}", out.len()));
    }
    if stored.len() == SECTOR_BYTES {
        out.copy_from_slice(stored);
        return Ok(());
    }
    let corrupt = |what: &str| format!("corrupt compressed sector: {what}");
    let (mut i, mut o) = (0usize, 0usize);
    let length = |i: &mut usize, mut n: usize| -> Result<usize, String> {
        if n == 15 {
            loop {
                let b = *stored.get(*i).ok_or_else(|| corrupt("a length runs past the end"))?;
                *i += 1;
                n += b as usize;
                if b != 255 {
                    break;
                }
            }
        }
        Ok(n)
    };
    loop {
        let token = *stored.get(i).ok_or_else(|| corrupt("no sequence where one was expected"))?;
        i += 1;
        let literals = length(&mut i, (token >> 4) as usize)?;
        if literals > stored.len() - i || literals > SECTOR_BYTES - o {
            return Err(corrupt("literals run past the end"));
        }
        out[o..o + literals].copy_from_slice(&stored[i..i + literals]);
        i += literals;
        o += literals;
        if i == stored.len() {
            break;
        }
        if stored.len() - i < 2 {
            return Err(corrupt("a match offset is cut short"));
        }
        let offset = u16::from_le_bytes([stored[i], stored[i + 1]]) as usize;
        i += 2;
        let len = length(&mut i, (token & 15) as usize)? + 4;
        if offset == 0 || offset > o {
            return Err(corrupt("a match points before the start"));
        }
        if len > SECTOR_BYTES - o {
            return Err(corrupt("a match runs past the end of the sector"));
        }
        let start = o - offset;
        if offset == 1 {
            let b = out[start];
            out[o..o + len].fill(b);
        } else {
            // out[start..o + done] repeats with period `offset`: copy as much of it as is
            // there at a time (doubling), which keeps the period.
            let mut done = 0;
            while done < len {
                let n = (o + done - start).min(len - done);
                out.copy_within(start..start + n, o + done);
                done += n;
            }
        }
        o += len;
    }
    if o != SECTOR_BYTES {
        return Err(format!("decompressed sector has {o} bytes, expected {SECTOR_BYTES}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_incompressible_stays_raw() {
        let zeros = vec![0u8; SECTOR_BYTES];
        let c = compress_sector(&zeros);
        assert!(c.len() < 64);
        assert_eq!(decompress_sector(&c).unwrap(), zeros);
        let mut noise = vec![0u8; SECTOR_BYTES];
        let mut x = 0x9E3779B97F4A7C15u64;
        for b in noise.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        let c = compress_sector(&noise);
        assert_eq!(c.len(), SECTOR_BYTES);
        assert_eq!(decompress_sector(&c).unwrap(), noise);
        assert_ne!(fingerprint(&zeros), fingerprint(&noise));
    }

    /// A sector of `seed`'s kind: runs of one byte, a repeated phrase of 2 to 40 bytes,
    /// stretches of noise, or a mix of them.
    fn sector(seed: u64) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut out = Vec::with_capacity(SECTOR_BYTES);
        while out.len() < SECTOR_BYTES {
            let n = 1 + (next() % 700) as usize;
            match next() % 4 {
                0 => out.extend(std::iter::repeat_n(next() as u8, n)),
                1 => {
                    let phrase: Vec<u8> = (0..2 + next() % 39).map(|_| next() as u8).collect();
                    out.extend(phrase.iter().cycle().take(n));
                }
                2 => out.extend((0..n).map(|_| next() as u8)),
                _ => out.extend((0..n).map(|_| (next() % 3) as u8)),
            }
        }
        out.truncate(SECTOR_BYTES);
        out
    }

    #[test]
    fn the_decoder_agrees_with_lz4_flex_on_valid_and_damaged_blocks() {
        let mut out = vec![0u8; SECTOR_BYTES];
        for seed in 0..3000u64 {
            let bytes = sector(seed);
            let stored = compress_sector(&bytes);
            decompress_sector_into(&stored, &mut out).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert_eq!(out, bytes, "seed {seed}");
            if stored.len() == SECTOR_BYTES {
                continue;
            }
            // Damaged blocks: each is refused or decodes to what lz4_flex decodes, never a panic.
            let mut x = seed | 1;
            for k in 0..8 {
                let mut damaged = stored.clone();
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                match k % 3 {
                    0 => {
                        let at = (x >> 33) as usize % damaged.len();
                        damaged[at] ^= 1 << (x % 8);
                    }
                    1 => damaged.truncate((x >> 33) as usize % damaged.len()),
                    _ => {
                        let at = (x >> 33) as usize % damaged.len();
                        damaged[at] = 0xff;
                    }
                }
                let ours = decompress_sector_into(&damaged, &mut out).map(|()| out.clone());
                let theirs = lz4_flex::block::decompress(&damaged, SECTOR_BYTES).ok().filter(|v| v.len() == SECTOR_BYTES);
                match (ours, theirs) {
                    (Ok(a), Some(b)) => assert_eq!(a, b, "seed {seed} damage {k}"),
                    (Err(_), None) => {}
                    (a, b) => panic!("seed {seed} damage {k}: ours {:?}, lz4_flex {:?}", a.map(|v| v.len()), b.map(|v| v.len())),
                }
            }
        }
    }
}
