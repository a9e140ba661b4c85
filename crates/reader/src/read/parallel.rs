//! Parallel decoding of one large multi-member gzip file: the map is cut into ranges at confirmed
//! member starts that also start a record, ranges are inflated and split on worker threads, and
//! their records are handed on in file order with indices assigned in order, so the output is
//! identical for any thread count. A file with no such cut points (whole-file gzip, members not
//! aligned with records) is left to the sequential reader; a range that meets any error is
//! re-read sequentially from its start to the end of the file, which is exactly what the
//! sequential reader would have done from that point.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use bytes::Bytes;

use super::split::Splitter;
use crate::compress::detect::Compression;
use crate::compress::gzip::find_member_start;
use crate::compress::members::Members;
use crate::config::ReaderConfig;
use crate::container::detect::detect_format;
use crate::container::starts_record;
use crate::record::{Format, Record};
use crate::report::FileReport;

/// Cut points: offsets of members that start a record, about one per `range` bytes.
pub(crate) fn cut_points(data: &[u8], range: usize, format: Format) -> Vec<usize> {
    let range = range.max(1);
    let mut cuts = Vec::new();
    let mut target = range;
    while target < data.len() {
        let window_end = (target + range).min(data.len());
        let mut from = target.max(cuts.last().map_or(1, |c| c + 1));
        while let Some(m) = find_member_start(data, from, window_end) {
            if starts_record(format, &m.prefix) {
                cuts.push(m.start);
                break;
            }
            from = m.start + 1;
        }
        target += range;
    }
    cuts
}

fn read_range(
    cfg: &ReaderConfig,
    file: u32,
    format: Format,
    data: Bytes,
    base: u64,
    first_index: u64,
    sink: &mut dyn FnMut(Vec<Record>) -> bool,
) -> (FileReport, bool) {
    let mut s = Splitter::new(cfg, file, Some(format));
    s.next_index = first_index;
    let mut dec = Members::mapped(data, base, Compression::Gzip);
    // In-memory gzip decoding never returns an io::Error.
    let _ = s.run(&mut dec, sink);
    (s.report, s.stopped)
}

/// Reads a gzip file on `cfg.threads` threads, or returns `None` when it should be read by one.
pub(crate) fn read(
    data: &Bytes,
    file: u32,
    cfg: &ReaderConfig,
    sink: &mut dyn FnMut(Vec<Record>) -> bool,
) -> Option<FileReport> {
    if cfg.threads <= 1 || data.len() < cfg.parallel_min_file_bytes {
        return None;
    }
    let first = find_member_start(data, 0, 1)?;
    let format = detect_format(&first.prefix, true).ok().flatten()?;
    let cuts = cut_points(data, cfg.parallel_range_bytes, format);
    if cuts.is_empty() {
        return None;
    }
    let mut bounds = vec![0usize];
    bounds.extend(cuts);
    bounds.push(data.len());
    let ranges: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();

    let next = AtomicUsize::new(0);
    let cancel = AtomicBool::new(false);
    let in_flight = cfg.threads * crawlsift_common::limits::PARALLEL_RANGES_IN_FLIGHT;
    let (tok_tx, tok_rx) = crossbeam_channel::bounded::<()>(in_flight);
    for _ in 0..in_flight {
        let _ = tok_tx.send(());
    }
    let (res_tx, res_rx) = crossbeam_channel::unbounded::<(usize, Vec<Vec<Record>>, FileReport)>();
    let mut report = FileReport {
        format: Some(format),
        every_error: cfg.every_error,
        ..FileReport::default()
    };
    let mut fallback_from: Option<usize> = None;
    let mut next_index = 0u64;
    let mut stopped = false;
    std::thread::scope(|scope| {
        for _ in 0..cfg.threads {
            let (tok_rx, res_tx) = (tok_rx.clone(), res_tx.clone());
            let (next, cancel, ranges) = (&next, &cancel, &ranges);
            scope.spawn(move || {
                while tok_rx.recv().is_ok() {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= ranges.len() || cancel.load(Ordering::SeqCst) {
                        break;
                    }
                    let (a, b) = ranges[i];
                    let mut batches = Vec::new();
                    let (rep, _) =
                        read_range(cfg, file, format, data.slice(a..b), a as u64, 0, &mut |v| {
                            batches.push(v);
                            true
                        });
                    if res_tx.send((i, batches, rep)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(res_tx);
        drop(tok_rx);
        let mut pending = BTreeMap::new();
        let mut expected = 0usize;
        'recv: for msg in res_rx.iter() {
            pending.insert(msg.0, (msg.1, msg.2));
            while let Some((batches, rep)) = pending.remove(&expected) {
                if rep.error_count() > 0 {
                    fallback_from = Some(expected);
                    break 'recv;
                }
                report.merge(&rep);
                report.parallel_ranges += 1;
                // A range numbers its records from 0 across all its batches: shift them all by the
                // records handed on before the range.
                let range_base = next_index;
                for mut b in batches {
                    for r in &mut b {
                        r.pos.index += range_base;
                    }
                    next_index += b.len() as u64;
                    if !stopped && !sink(b) {
                        stopped = true;
                    }
                }
                if stopped {
                    break 'recv;
                }
                expected += 1;
                let _ = tok_tx.send(());
                if expected == ranges.len() {
                    break 'recv;
                }
            }
        }
        cancel.store(true, Ordering::SeqCst);
        drop(tok_tx);
    });
    if let (Some(i), false) = (fallback_from, stopped) {
        let (a, _) = ranges[i];
        let (rep, _) = read_range(
            cfg,
            file,
            format,
            data.slice(a..),
            a as u64,
            next_index,
            sink,
        );
        report.merge(&rep);
    }
    Some(report)
}
