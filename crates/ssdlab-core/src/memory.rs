//! Large tables backed by transparent huge pages where the OS allows it.
//!
//! The FTL's maps are hundreds of megabytes accessed at random; with 4 KiB pages nearly every
//! access also misses the TLB. On Linux, [`huge_vec`] asks for 2 MiB pages
//! (`madvise(MADV_HUGEPAGE)`) before the memory is first touched. Elsewhere, or if the kernel
//! says no, it is an ordinary `Vec`: the advice changes speed, never results.

/// A vector of `len` copies of `value`, with room reserved for `capacity` elements
/// (`capacity >= len`), whose memory is advised to use huge pages.
pub fn huge_vec<T: Clone>(value: T, len: usize, capacity: usize) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(capacity.max(len));
    advise_huge_pages(v.as_ptr() as *const u8, v.capacity() * std::mem::size_of::<T>());
    v.resize(len, value);
    v
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *const u8, bytes: usize) {
    const HUGE: usize = 2 << 20;
    if bytes < 4 * HUGE {
        return;
    }
    let start = (ptr as usize).div_ceil(HUGE) * HUGE;
    let end = (ptr as usize + bytes) / HUGE * HUGE;
    if end > start {
        // SAFETY: the range lies inside an allocation this process owns; MADV_HUGEPAGE is
        // advice only and does not change the memory's contents or validity.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_ptr: *const u8, _bytes: usize) {}

#[cfg(test)]
mod tests {
    #[test]
    fn huge_vec_is_an_ordinary_vec() {
        let v = super::huge_vec(7u32, 5_000_000, 6_000_000);
        assert_eq!(v.len(), 5_000_000);
        assert!(v.capacity() >= 6_000_000);
        assert!(v.iter().all(|&x| x == 7));
    }
}
