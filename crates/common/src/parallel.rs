//! Deterministic data parallelism on scoped threads: a slice is cut into contiguous chunks, one
//! per thread, and the results come back in chunk order, so whatever is merged from them does not
//! depend on the thread count. Clustering and the output writers use it.

/// Runs `work` on up to `threads` contiguous chunks of `items` at once and returns the results
/// in chunk order. With one thread, or at most one item, `work` runs on the calling thread. A
/// panic in a worker is raised again on the caller.
pub fn in_parallel<T: Sync, R: Send>(
    threads: usize,
    items: &[T],
    work: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    let chunk = items.len().div_ceil(threads.max(1)).max(1);
    if threads <= 1 || items.len() <= 1 {
        return vec![work(items)];
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| {
                let work = &work;
                s.spawn(move || work(c))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_chunk_order_for_any_thread_count() {
        let items: Vec<u32> = (0..10).collect();
        for threads in [1, 2, 3, 4, 16] {
            let sums = in_parallel(threads, &items, |c| c.to_vec());
            assert_eq!(sums.concat(), items, "{threads} threads");
            assert!(sums.len() <= threads.max(1));
        }
        assert_eq!(in_parallel(4, &[] as &[u32], |c| c.len()), vec![0]);
    }
}
