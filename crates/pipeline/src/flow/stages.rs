//! Threads and bounded channels: the shape every command's work takes (the threaded pipeline).
//!
//! A producer (the reader) sends numbered batches into a bounded channel; each [`stage`] is a pool
//! of named worker threads that map batches to new batches, keeping their numbers; the caller's
//! thread consumes the last channel through [`Reorder`], which hands batches on in their original
//! order. So the work is parallel but everything the consumer sees, and writes, is in input order,
//! whatever the thread count.
//!
//! Shutdown: a stage ends when its input channel closes. When a consumer stops early (an output
//! error), dropping its receiver makes every `send` upstream fail, so each stage stops instead of
//! blocking on a full channel; the producer learns it from the `false` its sink returns.

use std::collections::BTreeMap;
use std::thread;

use crossbeam_channel::{bounded, Receiver, Sender};

/// A batch with its sequence number.
pub type Numbered<T> = (u64, T);

/// Spawns `workers` threads named `name-i` inside `scope`, each mapping batches from `rx` to `tx`
/// with its own state from `init` (an extractor, a fingerprinter: buffers reused per thread).
pub fn stage<'scope, T, U, S, I, F>(
    scope: &'scope thread::Scope<'scope, '_>,
    name: &str,
    workers: usize,
    rx: Receiver<Numbered<T>>,
    cap: usize,
    init: I,
    map: F,
) -> Receiver<Numbered<U>>
where
    T: Send + 'scope,
    U: Send + 'scope,
    I: Fn() -> S + Sync + Send + 'scope,
    F: Fn(&mut S, T) -> U + Sync + Send + 'scope,
{
    let (tx, out) = bounded::<Numbered<U>>(cap);
    let init = std::sync::Arc::new(init);
    let map = std::sync::Arc::new(map);
    for i in 0..workers.max(1) {
        let (rx, tx, init, map) = (rx.clone(), tx.clone(), init.clone(), map.clone());
        thread::Builder::new()
            .name(format!("{name}-{i}"))
            .spawn_scoped(scope, move || {
                let mut state = init();
                for (seq, batch) in rx.iter() {
                    if tx.send((seq, map(&mut state, batch))).is_err() {
                        break; // the consumer stopped: stop too, upstream sees our receiver go
                    }
                }
            })
            .expect("spawning a worker thread");
    }
    out
}

/// The sending end of a producer: numbers batches as they are sent.
pub struct Producer<T> {
    tx: Sender<Numbered<T>>,
    next: u64,
}

impl<T> Producer<T> {
    /// Sends one batch; `false` when nobody downstream listens any more.
    pub fn send(&mut self, batch: T) -> bool {
        let seq = self.next;
        self.next += 1;
        self.tx.send((seq, batch)).is_ok()
    }
}

/// A bounded channel whose sending end numbers batches.
pub fn producer<T>(cap: usize) -> (Producer<T>, Receiver<Numbered<T>>) {
    let (tx, rx) = bounded(cap);
    (Producer { tx, next: 0 }, rx)
}

/// Restores sequence order of batches that arrive out of order.
pub struct Reorder<U> {
    next: u64,
    pending: BTreeMap<u64, U>,
}

impl<U> Default for Reorder<U> {
    fn default() -> Self {
        Reorder {
            next: 0,
            pending: BTreeMap::new(),
        }
    }
}

impl<U> Reorder<U> {
    /// Accepts batch `seq` and calls `f` on every batch that is now next in order.
    pub fn push<E>(
        &mut self,
        seq: u64,
        batch: U,
        mut f: impl FnMut(U) -> Result<(), E>,
    ) -> Result<(), E> {
        self.pending.insert(seq, batch);
        while let Some(batch) = self.pending.remove(&self.next) {
            self.next += 1;
            f(batch)?;
        }
        Ok(())
    }

    /// Drains `rx` in order, calling `f` on each batch.
    pub fn drain<E>(
        rx: Receiver<Numbered<U>>,
        mut f: impl FnMut(U) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut reorder = Reorder::default();
        for (seq, batch) in rx.iter() {
            reorder.push(seq, batch, &mut f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_in_input_order_for_any_worker_count() {
        for workers in [1, 2, 4, 7] {
            let got: Vec<u64> = thread::scope(|s| {
                let (mut p, rx) = producer::<Vec<u64>>(2);
                s.spawn(move || {
                    for i in 0..200u64 {
                        if !p.send(vec![i, i + 1000]) {
                            break;
                        }
                    }
                });
                let out = stage(
                    s,
                    "t",
                    workers,
                    rx,
                    2,
                    || 0u64,
                    |n, b: Vec<u64>| {
                        *n += 1;
                        // Uneven work, so batches finish out of order.
                        std::thread::sleep(std::time::Duration::from_micros((b[0] * 7919) % 300));
                        b.into_iter().map(|x| x * 2).collect::<Vec<_>>()
                    },
                );
                let mut got = Vec::new();
                Reorder::drain(out, |b: Vec<u64>| -> Result<(), ()> {
                    got.extend(b);
                    Ok(())
                })
                .unwrap();
                got
            });
            let want: Vec<u64> = (0..200u64).flat_map(|i| [2 * i, 2 * (i + 1000)]).collect();
            assert_eq!(got, want, "workers = {workers}");
        }
    }

    #[test]
    fn a_consumer_that_stops_early_does_not_deadlock_the_producer() {
        thread::scope(|s| {
            let (mut p, rx) = producer::<u64>(1);
            let prod = s.spawn(move || {
                let mut sent = 0;
                for i in 0..1_000_000u64 {
                    if !p.send(i) {
                        break;
                    }
                    sent += 1;
                }
                sent
            });
            let out = stage(s, "t", 3, rx, 1, || (), |_, x: u64| x);
            let r = Reorder::drain(out, |x: u64| if x == 10 { Err(x) } else { Ok(()) });
            assert_eq!(r, Err(10));
            assert!(prod.join().unwrap() < 1_000_000);
        });
    }
}
