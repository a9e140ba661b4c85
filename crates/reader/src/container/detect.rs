//! Archive format detection from the decoded bytes (never from file names).
//!
//! The decision is made on the shape of the first line, not on the first record being valid: a
//! `WARC/<digit>` line, a `<DOC>` tag, or a line shaped like an ARC header (a URL with a scheme,
//! an IP address, a date of digits; see [`arc::parse_line`]) whatever its length field says. The
//! format's parser then resyncs past whatever is broken, as it does later in the file. When the
//! first line is none of these, the first of them within [`DETECT_WINDOW`] decides.

use super::parse::skip_blank;
use super::{arc, trec, warc};
use crate::record::Format;

/// How far into decoded data detection looks for a first record.
const DETECT_WINDOW: usize = 64 << 10;

/// Archive format of decoded bytes: `Ok(Some(f))`, `Ok(None)` when the bytes are not any known
/// format, `Err(())` when more bytes are needed to decide (only while `!eof`).
#[allow(clippy::result_unit_err)]
pub fn detect_format(b: &[u8], eof: bool) -> Result<Option<Format>, ()> {
    let mut p = skip_blank(b, 0);
    if p >= DETECT_WINDOW {
        // A window of nothing but blanks and NULs (an endless device, a zeroed disk image): no
        // archive starts like that, and waiting for one would read without end.
        return Ok(None);
    }
    if b[p..].starts_with(b"\xef\xbb\xbf") {
        p = skip_blank(b, p + 3);
    }
    let rest = &b[p..];
    if rest.len() < 6 && !eof {
        return Err(());
    }
    if warc::is_warc_start(rest) {
        return Ok(Some(Format::Warc));
    }
    if rest.starts_with(b"<DOC>") || rest.starts_with(b"<DOC ") {
        return Ok(Some(Format::Trec));
    }
    match memchr::memchr(b'\n', rest) {
        Some(n) if arc::parse_line(&rest[..n]).is_some() => return Ok(Some(Format::Arc)),
        None if !eof && rest.len() < DETECT_WINDOW => return Err(()),
        None if arc::parse_line(rest).is_some() => return Ok(Some(Format::Arc)),
        _ => {}
    }
    // Something else first (garbage, comments): look a little further.
    let win = &b[..b.len().min(DETECT_WINDOW)];
    if !eof && win.len() < DETECT_WINDOW {
        return Err(());
    }
    let warc_at = warc::find_warc_line(win, 0);
    let arc_at = arc::find_arc_line(win, 0);
    let trec_at =
        memchr::memmem::find(win, b"<DOC>").or_else(|| memchr::memmem::find(win, b"<DOC "));
    // TREC only when nothing but blanks and comments precede the first <DOC> (a text file that
    // mentions <DOC> is not a collection); WARC after leading garbage is resynced on.
    let trec_ok = |t: usize| {
        let before: Vec<u8> = String::from_utf8_lossy(&win[..t])
            .replace("</DOC>", "")
            .into_bytes();
        trec::skipped_is_benign(&before)
    };
    // The earliest record start decides; a format's parser counts what precedes it as garbage.
    let found = [
        (warc_at, Format::Warc),
        (arc_at, Format::Arc),
        (trec_at.filter(|&t| trec_ok(t)), Format::Trec),
    ];
    Ok(found
        .into_iter()
        .filter_map(|(at, f)| Some((at?, f)))
        .min_by_key(|&(at, _)| at)
        .map(|(_, f)| f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_from_bytes() {
        assert_eq!(
            detect_format(b"\r\nWARC/1.0\r\n", true),
            Ok(Some(Format::Warc))
        );
        assert_eq!(
            detect_format(b"<DOC>\n<DOCNO>x</DOCNO>", true),
            Ok(Some(Format::Trec))
        );
        assert_eq!(
            detect_format(
                b"filedesc://x.arc 0.0.0.0 20080430204825 text/plain 76\n1 0 IA\n",
                true
            ),
            Ok(Some(Format::Arc))
        );
        assert_eq!(
            detect_format(b"<!-- c -->\n<DOC id=\"a\">", true),
            Ok(Some(Format::Trec))
        );
        assert_eq!(detect_format(b"hello world\n", true), Ok(None));
        assert_eq!(detect_format(b"WAR", false), Err(()));
    }

    #[test]
    fn arc_is_known_by_the_shape_of_its_first_line_not_its_fields() {
        for first in [
            &b"filedesc://x.arc 0.0.0.0 20080430204825 text/plain -1\n"[..],
            b"filedesc://x.arc 0.0.0.0 200804302048251234 text/plain abc\n",
            b"filedesc://x.arc\n",
            b"http://a.b/ c 1.2.3.4 20080430204826 text/html 5\n",
            b"http://a.b/ 20080430204826 text/html 5\n",
            b"http://a.b/ 1.2.3.4 20080430204826 text/html 5",
        ] {
            assert_eq!(
                detect_format(first, true),
                Ok(Some(Format::Arc)),
                "{first:?}"
            );
        }
        // A damaged first line: the first header line further on decides.
        let mut b =
            b"\x00garbage \xff line\nhttp://a.b/ 1.2.3.4 20080430204826 text/html 5\nhello\n"
                .to_vec();
        assert_eq!(detect_format(&b, true), Ok(Some(Format::Arc)));
        b.extend_from_slice(b"WARC/1.0\r\n");
        assert_eq!(detect_format(&b, true), Ok(Some(Format::Arc)));
        assert_eq!(
            detect_format(
                b"junk\nWARC/1.0\r\n\r\nhttp://a.b/ 1.2.3.4 20080430204826 x 5\n",
                true
            ),
            Ok(Some(Format::Warc))
        );
        assert_eq!(detect_format(b"WAR", false), Err(()));
    }
}
