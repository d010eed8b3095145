//! A cache prefetch hint, used by both FTLs to start loading table entries before they are
//! needed.

/// Ask the CPU to start loading the cache line holding `value` (no effect on other targets).
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: prefetching is a hint; it never faults, even for an invalid address, and the
        // pointer comes from a live reference.
        #[allow(unused_unsafe)]
        unsafe {
            core::arch::x86_64::_mm_prefetch(value as *const T as *const i8, core::arch::x86_64::_MM_HINT_T0);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Ask the CPU to start loading every cache line `value` covers: the first, and the last when
/// the value straddles a line boundary (a 24-byte chunk entry does for 2 entries in 8).
#[inline(always)]
pub(crate) fn prefetch_all<T>(value: &T) {
    let start = value as *const T as *const u8;
    let size = core::mem::size_of::<T>().max(1);
    prefetch(value);
    if (start as usize) / 64 != (start as usize + size - 1) / 64 {
        prefetch_address(start.wrapping_add(size - 1));
    }
}

/// The hint for one address (never dereferenced).
#[inline(always)]
fn prefetch_address(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: prefetching is a hint; it never faults, even for an invalid address.
        #[allow(unused_unsafe)]
        unsafe {
            core::arch::x86_64::_mm_prefetch(address as *const i8, core::arch::x86_64::_MM_HINT_T0);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
