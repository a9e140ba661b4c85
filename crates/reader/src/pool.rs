//! Reuse of batch buffers. Records of compressed input are slices of a decoded batch buffer
//! (several MiB); allocating a fresh one per batch made the kernel map and zero new pages for
//! every batch (page faults were ~10% of a two-thread `records --summary` run). A buffer taken
//! here goes back to a small process-wide pool when the last record slicing it is dropped, on
//! whichever thread that happens, and the next batch reuses its (already mapped) memory.

use std::sync::Mutex;

use bytes::Bytes;
use crawlsift_common::limits::BUFFER_POOL_MAX;

/// The process-wide pool the splitter takes its batch buffers from.
pub(crate) static POOL: Pool = Pool::new(BUFFER_POOL_MAX);

/// A bounded set of empty buffers waiting to be reused.
pub(crate) struct Pool {
    bufs: Mutex<Vec<Vec<u8>>>,
    max: usize,
}

impl Pool {
    /// A pool keeping at most `max` buffers (more are freed).
    pub(crate) const fn new(max: usize) -> Self {
        Pool {
            bufs: Mutex::new(Vec::new()),
            max,
        }
    }

    /// An empty buffer with room for at least `capacity` bytes: a pooled one if one is big enough.
    pub(crate) fn take(&self, capacity: usize) -> Vec<u8> {
        let reused = self.bufs.lock().ok().and_then(|mut bufs| {
            let i = bufs.iter().position(|b| b.capacity() >= capacity)?;
            Some(bufs.swap_remove(i))
        });
        reused.unwrap_or_else(|| Vec::with_capacity(capacity))
    }

    /// Freezes a filled buffer into `Bytes` that give it back when the last slice is dropped.
    pub(crate) fn freeze(&'static self, buf: Vec<u8>) -> Bytes {
        Bytes::from_owner(Pooled { buf, pool: self })
    }

    fn give_back(&self, mut buf: Vec<u8>) {
        buf.clear();
        if let Ok(mut bufs) = self.bufs.lock() {
            if bufs.len() < self.max {
                bufs.push(buf);
            }
        }
    }
}

/// A buffer on its way back to its pool.
struct Pooled {
    buf: Vec<u8>,
    pool: &'static Pool,
}

impl AsRef<[u8]> for Pooled {
    fn as_ref(&self) -> &[u8] {
        &self.buf
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        self.pool.give_back(std::mem::take(&mut self.buf));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_returns_when_its_last_slice_is_dropped_and_is_reused() {
        let pool: &'static Pool = Box::leak(Box::new(Pool::new(2)));
        let mut v = pool.take(1 << 20);
        v.extend_from_slice(b"record bytes");
        let ptr = v.as_ptr();
        let bytes = pool.freeze(v);
        let slice = bytes.slice(0..6);
        drop(bytes);
        assert_eq!(&slice[..], b"record", "a live slice keeps the buffer");
        let fresh = pool.take(1 << 20);
        assert_ne!(fresh.as_ptr(), ptr, "still in use: not handed out again");
        drop(slice);
        let again = pool.take(1 << 10);
        assert_eq!(again.as_ptr(), ptr);
        assert!(again.is_empty() && again.capacity() >= 1 << 20);
    }

    #[test]
    fn the_pool_keeps_at_most_its_bound() {
        let pool: &'static Pool = Box::leak(Box::new(Pool::new(1)));
        let (a, b) = (pool.take(16), pool.take(16));
        drop(pool.freeze(a));
        drop(pool.freeze(b));
        assert_eq!(pool.bufs.lock().map(|b| b.len()).unwrap_or(0), 1);
    }
}
