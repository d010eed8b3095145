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
