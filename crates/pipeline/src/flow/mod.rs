//! The flow every command's reading takes, in one place: the inputs read in order on a reader
//! thread ([`inputs`]), batches mapped on worker pools over bounded channels ([`stages`]), and
//! the results handed on in input order ([`read_in_order`], [`map_inputs`]), whatever the thread
//! count; cancellation stops the reader, and a consumer that stops early stops every stage.

pub mod inputs;
pub mod stages;

use std::thread::Scope;

use crawlsift_common::limits::{RAW_QUEUE_CAP, TEXT_QUEUE_CAP};
use crawlsift_reader::{FileReport, ReaderConfig, Record};
use crossbeam_channel::Receiver;

use crate::error::Error;
use inputs::{Cancelled, InputSet, ReadEvent, ReadOutcome, RecordTap};
use stages::{Numbered, Reorder};

/// Per input, its summary if it was read to its end (an error text when it could not be read).
pub type Reports = Vec<Option<Result<FileReport, String>>>;

/// How the inputs are read.
#[derive(Clone, Copy)]
pub struct Reading<'a> {
    /// The reader's settings (its `threads` is also the workers per stage).
    pub cfg: &'a ReaderConfig,
    /// Inputs announced ([`ReadEvent::Skipped`]) but not read (checkpointed, or another
    /// shard's).
    pub skip: &'a (dyn Fn(u32) -> bool + Sync),
    /// Another use of the records read ([`RecordTap`]).
    pub tap: Option<&'a dyn RecordTap>,
    /// Whether to stop.
    pub cancelled: Cancelled<'a>,
}

/// Reads `inputs` in order on a thread named `reader` of the scope `s`, turning each event into
/// a batch with `event` (`None`: not handed on), runs the batches through the worker stages
/// `workers` starts on them in `s`, and hands the results to `drain` in input order on the
/// calling thread. Returns how the reading ended, or the first error of `drain` (which stops the
/// reader and every stage).
pub fn read_in_order<'scope, 'env, T, U, E>(
    s: &'scope Scope<'scope, 'env>,
    inputs: &'env InputSet,
    reading: Reading<'env>,
    event: impl Fn(ReadEvent) -> Option<T> + Send + 'env,
    workers: impl FnOnce(Receiver<Numbered<T>>) -> Receiver<Numbered<U>>,
    drain: impl FnMut(U) -> Result<(), E>,
) -> Result<ReadOutcome, E>
where
    T: Send + 'env,
    E: From<Error>,
{
    let (mut producer, rx) = stages::producer::<T>(RAW_QUEUE_CAP);
    let reader = std::thread::Builder::new()
        .name("reader".into())
        .spawn_scoped(s, move || {
            let Reading {
                cfg,
                skip,
                tap,
                cancelled,
            } = reading;
            inputs.read_all(cfg, skip, tap, cancelled, &mut |e| match event(e) {
                Some(batch) => producer.send(batch),
                None => true,
            })
        })
        .map_err(|e| E::from(Error::Stream(e)))?;
    let drained = Reorder::drain(workers(rx), drain);
    let outcome = reader.join().expect("the reader thread does not panic");
    drained.map(|()| outcome)
}

/// The common case of [`read_in_order`]: the records of every input, mapped batch by batch on
/// `cfg.threads` workers named `name-i` (each with its own state from `init`), handed to `drain`
/// in input order. Returns the inputs' reports.
pub fn map_inputs<'env, S, U, E>(
    inputs: &'env InputSet,
    cfg: &'env ReaderConfig,
    cancelled: Cancelled<'env>,
    name: &str,
    init: impl Fn() -> S + Sync + Send + 'env,
    map: impl Fn(&mut S, Vec<Record>) -> U + Sync + Send + 'env,
    drain: impl FnMut(U) -> Result<(), E>,
) -> Result<Reports, E>
where
    U: Send + 'env,
    E: From<Error>,
{
    let reading = Reading {
        cfg,
        skip: &|_| false,
        tap: None,
        cancelled,
    };
    let records = |e| match e {
        ReadEvent::Records(batch) => Some(batch),
        _ => None,
    };
    std::thread::scope(|s| {
        let workers = |rx| stages::stage(s, name, cfg.threads, rx, TEXT_QUEUE_CAP, init, map);
        read_in_order(s, inputs, reading, records, workers, drain).map(|o| o.reports)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn sample() -> InputSet {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/sample.warc.gz");
        InputSet::expand(&[root.clone(), root]).expect("the sample is there")
    }

    /// Offsets of every record, as the drain sees them.
    fn offsets(inputs: &InputSet, threads: usize, cancelled: Cancelled<'_>) -> (Vec<u64>, Reports) {
        let cfg = ReaderConfig {
            threads,
            ..ReaderConfig::default()
        };
        let mut seen = Vec::new();
        let map = |_: &mut (), batch: Vec<Record>| batch.iter().map(|r| r.pos.offset).collect();
        let reports = map_inputs(
            inputs,
            &cfg,
            cancelled,
            "t",
            || (),
            map,
            |o: Vec<u64>| {
                seen.extend(o);
                Ok::<(), Error>(())
            },
        )
        .unwrap();
        (seen, reports)
    }

    #[test]
    fn records_come_in_input_order_whatever_the_workers() {
        let inputs = sample();
        let (one, reports) = offsets(&inputs, 1, &|| false);
        assert!(one.len() > 3 && one.windows(2).all(|w| w[0] < w[1]));
        assert!(reports.iter().all(|r| matches!(r, Some(Ok(_)))));
        for threads in [2, 5] {
            assert_eq!(offsets(&inputs, threads, &|| false).0, one);
        }
    }

    #[test]
    fn a_cancelled_reading_reads_nothing_and_reports_nothing() {
        let (seen, reports) = offsets(&sample(), 3, &|| true);
        assert!(seen.is_empty());
        assert!(reports.iter().all(Option::is_none));
    }

    #[test]
    fn an_error_of_the_drain_stops_the_reading_and_is_returned() {
        let inputs = sample();
        let cfg = ReaderConfig::default();
        let got = map_inputs(
            &inputs,
            &cfg,
            &|| false,
            "t",
            || (),
            |_, b: Vec<Record>| b.len(),
            |_| Err(Error::failed("the consumer stops")),
        );
        assert!(matches!(got, Err(Error::Failed { .. })));
    }
}
