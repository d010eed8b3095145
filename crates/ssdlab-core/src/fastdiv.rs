//! Division by a divisor fixed at run time without a division instruction, for the FTL's
//! per-slot address arithmetic (slot -> block, slots into a program unit).
//!
//! Lemire, Kaser and Kurz, "Faster remainder by direct computation" (Software: Practice and
//! Experience, 2019): with `M = floor((2^64 - 1) / d) + 1`, the quotient of a 32-bit `n` is the
//! high 64 bits of `M * n`, its remainder the high 64 bits of `(M * n mod 2^64) * d`, and `d`
//! divides `n` exactly when `M * n mod 2^64 <= M - 1`. Exact for every 32-bit dividend and
//! divisor, so results never depend on which form is used.

/// A divisor with its precomputed multiplier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastDiv {
    divisor: u32,
    /// `M`, or 0 for the divisor 1 (whose `M` would be 2^64).
    magic: u64,
}

impl Default for FastDiv {
    /// The divisor 1.
    fn default() -> Self {
        Self::new(1)
    }
}

impl FastDiv {
    /// Division by `divisor` (which must not be 0).
    pub fn new(divisor: u32) -> Self {
        assert!(divisor > 0, "division by zero");
        let magic = if divisor == 1 { 0 } else { u64::MAX / divisor as u64 + 1 };
        Self { divisor, magic }
    }

    /// The divisor.
    #[inline]
    pub fn divisor(&self) -> u32 {
        self.divisor
    }

    /// `n / divisor`.
    #[inline(always)]
    pub fn div(&self, n: u32) -> u32 {
        if self.magic == 0 {
            return n;
        }
        ((self.magic as u128 * n as u128) >> 64) as u32
    }

    /// `n % divisor`.
    #[inline(always)]
    pub fn rem(&self, n: u32) -> u32 {
        if self.magic == 0 {
            return 0;
        }
        let low = self.magic.wrapping_mul(n as u64);
        ((low as u128 * self.divisor as u128) >> 64) as u32
    }

    /// Whether `divisor` divides `n`.
    #[inline(always)]
    pub fn divides(&self, n: u32) -> bool {
        self.magic == 0 || self.magic.wrapping_mul(n as u64) < self.magic
    }
}

#[cfg(test)]
mod tests {
    use super::FastDiv;
    use crate::SimRng;

    #[test]
    fn agrees_with_the_division_instruction() {
        let mut rng = SimRng::new(9);
        let mut divisors: Vec<u32> = (1..=4200).collect();
        divisors.extend([u32::MAX, u32::MAX - 1, 1 << 31, (1 << 31) + 1, 3 * 1024, 12 * 1024, 196_608]);
        divisors.extend((0..2000).map(|_| rng.next_u64() as u32 | 1));
        for &d in &divisors {
            let f = FastDiv::new(d);
            let mut dividends = vec![0, 1, d - 1, d, d.wrapping_add(1), u32::MAX, u32::MAX - 1, u32::MAX / d * d];
            dividends.extend((0..200).map(|_| rng.next_u64() as u32));
            for n in dividends {
                assert_eq!(f.div(n), n / d, "{n} / {d}");
                assert_eq!(f.rem(n), n % d, "{n} % {d}");
                assert_eq!(f.divides(n), n % d == 0, "{d} divides {n}");
            }
        }
    }
}
