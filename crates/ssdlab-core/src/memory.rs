//! Large tables backed by transparent huge pages where the OS allows it.
//!
//! The FTL's maps are hundreds of megabytes accessed at random; with 4 KiB pages nearly every
//! access also misses the TLB. On Linux, [`huge_vec`] asks for 2 MiB pages
//! (`madvise(MADV_HUGEPAGE)`) before the memory is first touched. Elsewhere, or if the kernel
//! says no, it is an ordinary `Vec`: the advice changes speed, never results.

/// Tables at least this large are filled by two threads, half each: the first write to fresh
/// memory is mostly the kernel zeroing its pages (4.7% of a 1 TiB steady-state run, all of it
/// while the maps are built), which then runs on two cores. The contents are the same either way.
pub const PARALLEL_FILL_BYTES: usize = 128 << 20;

/// A vector of `len` copies of `value`, with room reserved for `capacity` elements
/// (`capacity >= len`), whose memory is advised to use huge pages. A large one is filled by two
/// threads ([`PARALLEL_FILL_BYTES`]).
pub fn huge_vec<T: Clone + Send + Sync>(value: T, len: usize, capacity: usize) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(capacity.max(len));
    advise_huge_pages(v.as_ptr() as *const u8, v.capacity() * std::mem::size_of::<T>());
    if len.saturating_mul(std::mem::size_of::<T>()) < PARALLEL_FILL_BYTES {
        v.resize(len, value);
        return v;
    }
    let (first, second) = v.spare_capacity_mut()[..len].split_at_mut(len / 2);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            second.iter_mut().for_each(|x| {
                x.write(value.clone());
            })
        });
        first.iter_mut().for_each(|x| {
            x.write(value.clone());
        });
    });
    // SAFETY: both halves of the first `len` elements were written just above.
    unsafe { v.set_len(len) };
    v
}

/// Set every element of `slice` to `value`; a large slice ([`PARALLEL_FILL_BYTES`]) is filled by
/// two threads, half each.
pub fn fill<T: Clone + Send + Sync>(slice: &mut [T], value: T) {
    if std::mem::size_of_val(slice) < PARALLEL_FILL_BYTES {
        slice.fill(value);
        return;
    }
    let half = slice.len() / 2;
    let (first, second) = slice.split_at_mut(half);
    std::thread::scope(|scope| {
        scope.spawn(|| second.fill(value.clone()));
        first.fill(value.clone());
    });
}

/// Advise the kernel to back the whole 2 MiB pages of `bytes` at `ptr` with huge pages (before
/// they are first touched; small ranges are left alone).
#[cfg(target_os = "linux")]
pub(crate) fn advise_huge_pages(ptr: *const u8, bytes: usize) {
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

/// Huge pages are advised on Linux only.
#[cfg(not(target_os = "linux"))]
pub(crate) fn advise_huge_pages(_ptr: *const u8, _bytes: usize) {}

#[cfg(test)]
mod tests {
    #[test]
    fn a_large_table_is_filled_whole_by_two_threads() {
        let len = super::PARALLEL_FILL_BYTES / 4 + 3;
        let mut v = super::huge_vec(0xABCD_u32, len, len + 5);
        assert_eq!(v.len(), len);
        assert!(v.iter().all(|&x| x == 0xABCD));
        v[7] = 1;
        super::fill(&mut v, 9);
        assert!(v.iter().all(|&x| x == 9));
    }

    #[test]
    fn huge_vec_is_an_ordinary_vec() {
        let v = super::huge_vec(7u32, 5_000_000, 6_000_000);
        assert_eq!(v.len(), 5_000_000);
        assert!(v.capacity() >= 6_000_000);
        assert!(v.iter().all(|&x| x == 7));
    }
}
