//! Decompression bombs in every shape, end to end, under the watchdog of `tests/hostile.rs`
//! (`tests/util/watchdog.rs`): the real `crawlsift` binary, each run bounded to
//! [`RUN_SECS`] seconds and [`RUN_RSS_MB`] of resident memory, on a mapped file and on a pipe.
//!
//! Shapes (issue #16): a WARC record declaring `Content-Length: 4000000000` followed by 4e9 zero
//! bytes, between honest records, inside one whole-file gzip member, one zstd frame and one LZ4
//! frame, and in a bomb member between honest gzip members; HTTP bodies with
//! `Content-Encoding: gzip` / `deflate` / `br` that expand to gigabytes; a gzip member that
//! fails to decode on a pipe; bzip2 and xz inputs. Each test counts the honest records before
//! and after the bomb and checks the bomb is said (an error naming the file and offset, or a
//! skip reason). Inputs are generated in temporary directories without ever holding what they
//! expand to (`tests/util/inputs.rs`).
//!
//! Records after a bomb are read where the format allows: in a whole-file stream the reader
//! passes over the bomb's declared length (discarding what it decodes, up to
//! `MAX_SKIP_DECODED_BYTES`) and reads on; after a bomb member, at the next member.
//!
//! Exit status: these inputs have records with errors, so a run ends with 3 (finished, but some
//! records had errors), or 1 where an input is refused outright.

mod util;

use std::ffi::OsString;
use std::path::Path;

use util::inputs::*;
use util::watchdog::*;

/// Wall-clock bound of one run (debug build; the reader and its decoders are optimised even
/// there, see the workspace's `profile.dev.package`).
const RUN_SECS: u64 = 30;
/// Resident-memory bound of one run: under 1 GB whatever the input declares.
const RUN_RSS_MB: u64 = 1000;
/// What a bomb record declares, and how many zero bytes follow its header.
const BOMB_LEN: u64 = 4_000_000_000;
/// Exit statuses of a run that finished with records in error (see the module documentation).
const HAD_ERRORS: &[i32] = &[3];

/// Two honest pages, the WARC header of a record declaring [`BOMB_LEN`] bytes, and the two
/// honest pages that follow the bomb's `BOMB_LEN` zero bytes: (before, bomb header, after).
fn bomb_parts() -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let before = [
        warc_page("before-1", article(1, 300).as_bytes()),
        warc_page("before-2", article(2, 300).as_bytes()),
    ]
    .concat();
    let after = [
        b"\r\n\r\n".to_vec(),
        warc_page("after-1", article(3, 300).as_bytes()),
        warc_page("after-2", article(4, 300).as_bytes()),
    ]
    .concat();
    let mut head = before.clone();
    head.extend(warc_head("bomb", &BOMB_LEN.to_string()));
    (before, head, after)
}

/// `records --summary`, `extract` and `dedup --out` on `input`, read from a pipe.
fn run_all_piped(label: &str, input: &Path, out: &Path) -> [Ran; 3] {
    std::fs::create_dir_all(out).unwrap();
    let os = |s: &str| OsString::from(s);
    let dd = out.join("dedup-piped");
    let records = run_piped(
        &format!("{label} (pipe) / records --summary"),
        input,
        &[os("records"), os("--summary"), os("-")],
        RUN_SECS,
        RUN_RSS_MB,
    );
    let extract = run_piped(
        &format!("{label} (pipe) / extract"),
        input,
        &[
            os("extract"),
            os("-"),
            os("-o"),
            out.join("extract-piped.jsonl").into_os_string(),
        ],
        RUN_SECS,
        RUN_RSS_MB,
    );
    let mut dedup = run_piped(
        &format!("{label} (pipe) / dedup --out"),
        input,
        &[
            os("dedup"),
            os("--out"),
            dd.clone().into_os_string(),
            os("-"),
        ],
        RUN_SECS,
        RUN_RSS_MB,
    );
    for r in [&records, &extract, &dedup] {
        r.assert_clean_end();
    }
    if let Ok(rep) = std::fs::read_to_string(dd.join("report.json")) {
        dedup.stdout.push_str(&rep);
    }
    [records, extract, dedup]
}

/// What a shape must give: records read (the honest ones before and after the bomb, and the
/// bomb's when it is kept), documents, and how the bomb is said.
struct Want<'a> {
    records: u64,
    pages: u64,
    /// Words one of which `records --summary` prints (it prints counts, not messages), and its
    /// exit statuses.
    records_said: &'a [&'a str],
    records_codes: &'a [i32],
    /// Words one of which `extract` and `dedup` print (messages on stderr, skip reasons).
    said: &'a [&'a str],
    codes: &'a [i32],
}

/// A whole-stream bomb record: the four honest records read, the record counted `too_large`,
/// with the declared length in the message.
const BOMB_RECORD: Want = Want {
    records: 4,
    pages: 4,
    records_said: &["too_large"],
    records_codes: HAD_ERRORS,
    said: &["Content-Length 4000000000"],
    codes: HAD_ERRORS,
};

/// The bomb tests decode gigabytes each: one at a time, so that the time bound measures the
/// binary rather than how many tests share the machine's cores.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs the three commands on `path`, mapped and piped, and checks each run against `want`:
/// records counted, the bomb said, and every honest page a document (`extract`, `dedup`).
fn check_shape(label: &str, path: &Path, out: &Path, want: &Want) {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (want_records, pages) = (want.records, want.pages);
    let mapped = run_all(label, path, &out.join("mapped"), RUN_SECS, RUN_RSS_MB);
    let piped = run_all_piped(label, path, &out.join("piped"));
    for (runs, extract_out, dedup_out) in [
        (
            &mapped,
            out.join("mapped/extract.jsonl"),
            out.join("mapped/dedup"),
        ),
        (
            &piped,
            out.join("piped/extract-piped.jsonl"),
            out.join("piped/dedup-piped"),
        ),
    ] {
        let [records, extract, dedup] = runs;
        let total = total_line(records);
        assert_eq!(
            count(&total, "records"),
            want_records,
            "{}: the honest records before and after the bomb are read: {total}",
            records.label
        );
        assert_said(records, want.records_said, want.records_codes);
        for r in [extract, dedup] {
            assert_said(r, want.said, want.codes);
        }
        let docs = std::fs::read_to_string(&extract_out).unwrap();
        for i in 1..=2 {
            for side in ["before", "after"] {
                let url = format!("http://example.com/{side}-{i}\"");
                if pages > 0 {
                    assert!(
                        docs.contains(&url),
                        "{}: no {url} in {docs:.300}",
                        extract.label
                    );
                }
            }
        }
        assert_eq!(
            docs.lines().filter(|l| l.contains("\"text\"")).count() as u64,
            pages,
            "{}: documents",
            extract.label
        );
        let rep = report(&dedup_out);
        assert_eq!(rep["records"], want_records, "{}: {rep}", dedup.label);
    }
}

#[test]
fn gzip_whole_file_member_holding_a_4gb_record() {
    let dir = tempfile::tempdir().unwrap();
    let (_, head, after) = bomb_parts();
    let path = dir.path().join("whole.warc.gz");
    std::fs::write(&path, gzip_parts(&head, BOMB_LEN, &after)).unwrap();
    println!(
        "whole-file gzip member: {} bytes",
        std::fs::metadata(&path).unwrap().len()
    );
    check_shape("whole-file gzip bomb", &path, dir.path(), &BOMB_RECORD);
}

#[test]
fn gzip_bomb_member_between_honest_members_on_a_pipe_too() {
    let dir = tempfile::tempdir().unwrap();
    let (before, head, after) = bomb_parts();
    let bomb_head = &head[before.len()..];
    let data = [
        gzip(&before),
        gzip_parts(bomb_head, BOMB_LEN, b""),
        gzip(&after),
    ]
    .concat();
    let path = dir.path().join("members.warc.gz");
    std::fs::write(&path, data).unwrap();
    check_shape("gzip bomb member", &path, dir.path(), &BOMB_RECORD);
}

#[test]
fn zstd_whole_file_frame_holding_a_4gb_record() {
    let dir = tempfile::tempdir().unwrap();
    let (_, head, after) = bomb_parts();
    let path = dir.path().join("whole.warc.zst");
    std::fs::write(&path, zstd_parts(&head, BOMB_LEN, &after)).unwrap();
    check_shape("whole-file zstd bomb", &path, dir.path(), &BOMB_RECORD);
}

#[test]
fn lz4_whole_file_frame_holding_a_4gb_record() {
    let dir = tempfile::tempdir().unwrap();
    let (_, head, after) = bomb_parts();
    let path = dir.path().join("whole.warc.lz4");
    std::fs::write(&path, lz4_parts(&head, BOMB_LEN, &after)).unwrap();
    check_shape("whole-file LZ4 bomb", &path, dir.path(), &BOMB_RECORD);
}

#[test]
fn zstd_frame_of_endless_zeros_is_given_up_and_the_next_frame_read() {
    // 32 GB of zeros after a record in one frame (~1 MB of RLE blocks): more than the reader
    // passes over, so it gives the frame up (said) and reads the honest frame after it.
    let dir = tempfile::tempdir().unwrap();
    let (before, _, after) = bomb_parts();
    let data = [
        zstd_parts(&before, 32 << 30, b""),
        zstd_parts(&after[4..], 0, b""),
    ]
    .concat();
    let path = dir.path().join("endless.warc.zst");
    std::fs::write(&path, data).unwrap();
    check_shape(
        "zstd frame of 32 GB zeros",
        &path,
        dir.path(),
        &Want {
            said: &["MAX_SKIP_DECODED_BYTES"],
            ..BOMB_RECORD
        },
    );
}

/// A WARC response whose HTTP body is `body`, sent with `Content-Encoding: coding`.
fn coded_record(uri: &str, coding: &str, body: &[u8]) -> Vec<u8> {
    let mut http =
        format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: {coding}\r\n\r\n")
            .into_bytes();
    http.extend_from_slice(body);
    let mut rec = warc_head(uri, &http.len().to_string());
    rec.extend_from_slice(&http);
    rec.extend_from_slice(b"\r\n\r\n");
    rec
}

#[test]
fn http_content_encoding_bombs_gzip_deflate_br() {
    let dir = tempfile::tempdir().unwrap();
    let page = b"<html><body><p>";
    let gz = gzip_parts(page, BOMB_LEN, b"");
    let (deflate, _) = deflate_parts(page, BOMB_LEN, b"");
    let br = brotli_bomb(page, BOMB_LEN);
    let (before, _, after) = bomb_parts();
    for (coding, body) in [("gzip", gz), ("deflate", deflate), ("br", br)] {
        let data = [
            before.clone(),
            coded_record("bomb", coding, &body),
            after[4..].to_vec(),
        ]
        .concat();
        let path = dir.path().join(format!("coded-{coding}.warc"));
        std::fs::write(&path, &data).unwrap();
        let gz_path = dir.path().join(format!("coded-{coding}.warc.gz"));
        std::fs::write(&gz_path, gzip(&data)).unwrap();
        for p in [&path, &gz_path] {
            let name = p.file_name().unwrap().to_str().unwrap();
            let out = dir.path().join(format!("{name}-out"));
            // Five records, the bomb's among them; its body is not a document.
            check_shape(
                &format!("HTTP {coding} bomb ({name})"),
                p,
                &out,
                &Want {
                    records: 5,
                    pages: 4,
                    records_said: &["records=5"],
                    records_codes: &[0],
                    said: &["too_large"],
                    codes: &[0],
                },
            );
        }
    }
}

#[test]
fn corrupt_gzip_member_on_a_pipe_is_resynced_on() {
    // A member whose deflate data is cut short runs on into the next member's bytes: reading
    // it fails past the next member's start, which the reader finds again from just after the
    // broken member's start, on a pipe as on a mapped file.
    let dir = tempfile::tempdir().unwrap();
    let (before, _, after) = bomb_parts();
    let broken = gzip(&warc_page("broken", article(9, 3000).as_bytes()));
    let data = [
        gzip(&before),
        broken[..broken.len() / 2].to_vec(),
        gzip(&after[4..]),
    ]
    .concat();
    let path = dir.path().join("broken.warc.gz");
    std::fs::write(&path, &data).unwrap();
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mapped = run_bounded(
        "broken member / records --summary",
        &[
            OsString::from("records"),
            OsString::from("--summary"),
            path.clone().into(),
        ],
        None,
        RUN_SECS,
        RUN_RSS_MB,
    );
    let piped = run_piped(
        "broken member (pipe) / records --summary",
        &path,
        &[
            OsString::from("records"),
            OsString::from("--summary"),
            OsString::from("-"),
        ],
        RUN_SECS,
        RUN_RSS_MB,
    );
    for r in [&mapped, &piped] {
        r.assert_clean_end();
        assert_said(r, &["bad_gzip"], HAD_ERRORS);
        let total = total_line(r);
        // before-1, before-2, after-1, after-2 whole; the broken record may be kept truncated.
        let n = count(&total, "records");
        assert!((4..=5).contains(&n), "{}: {total}", r.label);
    }
    assert_eq!(
        total_line(&mapped),
        total_line(&piped),
        "both paths read the same"
    );
}

#[test]
fn bzip2_and_xz_are_named_as_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    for (name, magic) in [
        ("bz2", &b"BZh91AY&SY\x00\x00"[..]),
        ("xz", &b"\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46"[..]),
    ] {
        let path = dir.path().join(format!("a.warc.{name}"));
        std::fs::write(&path, magic).unwrap();
        let want = format!("unsupported compression {name}");
        let out = dir.path().join(name);
        let [records, extract, dedup] = run_all(name, &path, &out, RUN_SECS, RUN_RSS_MB);
        // `records --summary` prints counts only: the error's kind.
        assert_said(&records, &["bad_compression=1"], &[1, 3]);
        for r in [&extract, &dedup] {
            assert_said(r, &[&want], &[1, 3]);
        }
        let r = run_piped(
            &format!("{name} (pipe) / records --summary"),
            &path,
            &[
                OsString::from("records"),
                OsString::from("--summary"),
                OsString::from("-"),
            ],
            RUN_SECS,
            RUN_RSS_MB,
        );
        r.assert_clean_end();
        assert_said(&r, &["bad_compression=1"], &[1, 3]);
    }
}
