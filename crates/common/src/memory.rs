//! What the process holds in memory, measured rather than counted: the one place that reads it.
//! [`settled_resident_bytes`] gives the resident set, read from `/proc/self/statm` after freed
//! heap has been handed back to the system (glibc's `malloc_trim`); [`peak_resident_bytes`] the
//! peak (`VmHWM`) a report states. A clustering bounded by `--memory` counts what it keeps per
//! document, but not the allocator's slack (memory freed by the reading threads and kept by their
//! arenas: some 300 bytes a document at a million documents) nor the buffers of the rest of the
//! run; each step's working memory is what the budget leaves beside the larger of the two figures.
//!
//! Where the figures cannot be read (not Linux, `/proc` not mounted) they are `None`, and a
//! count stands alone.

/// Hands freed heap back to the system where the allocator allows it, then reads the resident
/// set size of the process in bytes; `None` where it cannot be read.
pub fn settled_resident_bytes() -> Option<usize> {
    release_free_heap();
    resident_bytes()
}

/// The resident set size of the process in bytes (`/proc/self/statm`, second field, in pages).
fn resident_bytes() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    pages.checked_mul(page_size())
}

#[cfg(unix)]
fn page_size() -> usize {
    // SAFETY: sysconf only reads a system constant.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096).max(1)
}

#[cfg(not(unix))]
fn page_size() -> usize {
    4096
}

/// Returns the free pages of every malloc arena to the system (glibc only; elsewhere nothing).
fn release_free_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer and may be called at any time from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Peak resident memory of this process in bytes (Linux `VmHWM`), if known.
pub fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::settled_resident_bytes;

    #[test]
    #[cfg(target_os = "linux")]
    fn the_resident_set_grows_with_memory_touched() {
        let before = settled_resident_bytes().expect("Linux has /proc/self/statm");
        let held = vec![1u8; 256 << 20];
        let during = settled_resident_bytes().expect("Linux has /proc/self/statm");
        assert!(held.iter().all(|&b| b == 1));
        // Other tests run in parallel threads and allocate and free too: allow them some room.
        assert!(
            during + (64 << 20) >= before + (256 << 20),
            "{before} -> {during}"
        );
    }
}
