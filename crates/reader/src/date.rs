//! Capture dates in one form: ISO 8601 in UTC to the second, `YYYY-MM-DDThh:mm:ssZ`, the form
//! WARC 1.0 writes `WARC-Date` in. [`iso_utc`] reads what records carry: a `WARC-Date` (with
//! fractional seconds, a lower precision such as `2017-03-06`, or a timezone offset such as
//! ClueWeb09's `-0700`, which is applied), the 14-digit `YYYYMMDDhhmmss` of ARC and TREC
//! (`<DOCHDR>`) records (digits past the 14th, a fraction, dropped), and says `None` for anything
//! that is no date (ClueWeb09's `2009-03-78T08:13:42-0700`: day 78). [`split`] gives the `date` and
//! `date_raw` fields of an output row from a record's date as written.
//!
//! Every output that prints a record's date goes through here; CDXJ keeps its own 14-digit
//! timestamp (`crawlsift_cdxj`), which is that format's.

use std::borrow::Cow;

/// Longest date string looked at: anything longer is no date.
const MAX_LEN: usize = 64;

/// The date `raw` names, in UTC, as `YYYY-MM-DDThh:mm:ssZ`; `None` when it names none (a field
/// out of range, a day past its month's end, text that is no date). A leap second (`:60`) reads
/// as `:59`; a date with no timezone is taken as UTC.
pub fn iso_utc(raw: &str) -> Option<String> {
    let s = raw.trim();
    if s.is_empty() || s.len() > MAX_LEN || !s.is_ascii() {
        return None;
    }
    let b = s.as_bytes();
    // Fourteen or more digits are an ARC/TREC/CDX timestamp; four are a W3C-DTF year.
    let (fields, offset_min) = if b.len() != 4 && b.iter().all(u8::is_ascii_digit) {
        (digits14(b)?, 0)
    } else {
        iso(b)?
    };
    let [y, mo, d, h, mi, sec] = fields;
    if !(1..=9999).contains(&y) || !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) {
        return None;
    }
    if h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let sec = sec.min(59);
    let days = days_from_civil(y, mo, d);
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset_min * 60;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, mo, d) = civil_from_days(days);
    if !(1..=9999).contains(&y) {
        return None;
    }
    Some(format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    ))
}

/// The `date` and `date_raw` of an output row for a record dated `raw` (as written): the date in
/// UTC, and the raw value only where it differs from it; an invalid date gives no `date` and the
/// raw value (see [`is_invalid`]).
pub fn split(raw: Option<&str>) -> (Option<Cow<'_, str>>, Option<&str>) {
    let Some(raw) = raw else {
        return (None, None);
    };
    match iso_utc(raw) {
        Some(d) if d == raw => (Some(Cow::Borrowed(raw)), None),
        Some(d) => (Some(Cow::Owned(d)), Some(raw)),
        None => (None, Some(raw)),
    }
}

/// Whether a record's date (as written) is there but names no date: such records are counted
/// (`invalid_dates`) and their rows carry only `date_raw`.
pub fn is_invalid(raw: Option<&str>) -> bool {
    raw.is_some_and(|r| iso_utc(r).is_none())
}

/// `YYYYMMDDhhmmss` (ARC, TREC): exactly 14 digits, or more (a fraction, dropped).
fn digits14(b: &[u8]) -> Option<[i64; 6]> {
    if b.len() < 14 || b.len() > 20 {
        return None;
    }
    let n = |i: usize, w: usize| num(&b[i..i + w]);
    Some([n(0, 4)?, n(4, 2)?, n(6, 2)?, n(8, 2)?, n(10, 2)?, n(12, 2)?])
}

/// ISO 8601 / W3C-DTF: `YYYY[-MM[-DD[Thh:mm[:ss[.f...]]]]]` then `Z`, `±hh:mm`, `±hhmm`, `±hh` or
/// nothing. Returns the fields and the offset east of UTC in minutes.
fn iso(b: &[u8]) -> Option<([i64; 6], i64)> {
    let mut f = [0i64, 1, 1, 0, 0, 0];
    let mut p = Parser { b, i: 0 };
    f[0] = p.digits(4)?;
    if p.eat(b'-') {
        f[1] = p.digits(2)?;
        if p.eat(b'-') {
            f[2] = p.digits(2)?;
            if p.eat(b'T') || p.eat(b't') || p.eat(b' ') {
                f[3] = p.digits(2)?;
                if !p.eat(b':') {
                    return None;
                }
                f[4] = p.digits(2)?;
                if p.eat(b':') {
                    f[5] = p.digits(2)?;
                    if p.eat(b'.') || p.eat(b',') {
                        let start = p.i;
                        while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                            p.i += 1;
                        }
                        if p.i == start {
                            return None;
                        }
                    }
                }
            }
        }
    }
    let offset = match p.peek() {
        None => 0,
        Some(b'Z' | b'z') => {
            p.i += 1;
            0
        }
        Some(sign @ (b'+' | b'-')) => {
            p.i += 1;
            let h = p.digits(2)?;
            // `±hh:mm`, `±hhmm`, or `±hh` alone.
            p.eat(b':');
            let m = if p.peek().is_some() { p.digits(2)? } else { 0 };
            if h > 23 || m > 59 {
                return None;
            }
            let o = h * 60 + m;
            if sign == b'-' {
                -o
            } else {
                o
            }
        }
        Some(_) => return None,
    };
    if p.i != b.len() {
        return None;
    }
    Some((f, offset))
}

/// A cursor over the bytes of a date.
struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.peek() == Some(c);
        self.i += usize::from(hit);
        hit
    }

    /// Exactly `n` digits.
    fn digits(&mut self, n: usize) -> Option<i64> {
        let v = num(self.b.get(self.i..self.i + n)?)?;
        self.i += n;
        Some(v)
    }
}

/// The value of a run of ASCII digits (at most 4 here, so no overflow).
fn num(d: &[u8]) -> Option<i64> {
    if d.is_empty() || !d.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(d.iter().fold(0i64, |v, c| v * 10 + i64::from(c - b'0')))
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `days` after 1970-01-01 as (year, month, day) (the inverse of [`days_from_civil`];
/// Howard Hinnant's algorithm). Every date crawlsift writes is computed here.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(s: &str) -> Option<String> {
        iso_utc(s)
    }

    #[test]
    fn warc_dates_stay_as_they_are() {
        assert_eq!(iso("2017-03-06T04:02:06Z").unwrap(), "2017-03-06T04:02:06Z");
        assert_eq!(split(Some("2017-03-06T04:02:06Z")).1, None);
        assert_eq!(
            iso("2017-03-06T04:02:06.123456Z").unwrap(),
            "2017-03-06T04:02:06Z"
        );
        assert_eq!(iso("2017-03-06").unwrap(), "2017-03-06T00:00:00Z");
        assert_eq!(iso("2017-03").unwrap(), "2017-03-01T00:00:00Z");
        assert_eq!(iso("2017").unwrap(), "2017-01-01T00:00:00Z");
        assert_eq!(iso("2017-03-06T04:02Z").unwrap(), "2017-03-06T04:02:00Z");
        assert_eq!(
            iso(" 2017-03-06T04:02:06 ").unwrap(),
            "2017-03-06T04:02:06Z"
        );
    }

    #[test]
    fn offsets_are_applied() {
        assert_eq!(
            iso("2009-03-28T08:13:42-0700").unwrap(),
            "2009-03-28T15:13:42Z"
        );
        assert_eq!(
            iso("2009-12-31T20:00:00-05:00").unwrap(),
            "2010-01-01T01:00:00Z"
        );
        assert_eq!(
            iso("2000-03-01T01:00:00+02").unwrap(),
            "2000-02-29T23:00:00Z"
        );
        assert_eq!(
            iso("2017-03-06T04:02:06+00:00").unwrap(),
            "2017-03-06T04:02:06Z"
        );
    }

    #[test]
    fn fourteen_digits_are_converted() {
        assert_eq!(iso("20080430204825").unwrap(), "2008-04-30T20:48:25Z");
        assert_eq!(iso("20080430204825123").unwrap(), "2008-04-30T20:48:25Z");
        assert_eq!(iso("20040101000000").unwrap(), "2004-01-01T00:00:00Z");
        let (d, raw) = split(Some("20080430204825"));
        assert_eq!(d.as_deref(), Some("2008-04-30T20:48:25Z"));
        assert_eq!(raw, Some("20080430204825"));
    }

    #[test]
    fn invalid_dates_are_none() {
        for bad in [
            "2009-03-78T08:13:42-0700",
            "2009-02-29T00:00:00Z",
            "2009-13-01T00:00:00Z",
            "2009-00-10",
            "2009-01-01T24:00:00Z",
            "2009-01-01T23:60:00Z",
            "2009-01-01T23:00:61Z",
            "2009-01-01T23:00:00+24:00",
            "2009-01-01T23:00:00Zjunk",
            "2009-01-01T23",
            "2009-01-01T23:00:00.Z",
            "20081332000000",
            "2008043020482",
            "0000-01-01",
            "0001-01-01T00:00:00+01:00",
            "9999-12-31T23:00:00-01:00",
            "",
            "   ",
            "yesterday",
            "Tue, 15 Apr 2003 12:00:00 GMT",
            "２０１７-03-06",
        ] {
            assert_eq!(iso(bad), None, "{bad}");
        }
        assert_eq!(
            split(Some("2009-03-78T08:13:42-0700")),
            (None, Some("2009-03-78T08:13:42-0700"))
        );
        assert!(is_invalid(Some("2009-03-78T08:13:42-0700")));
        assert!(!is_invalid(None) && !is_invalid(Some("2000-02-29")));
        assert_eq!(split(None), (None, None));
    }

    #[test]
    fn leap_seconds_and_leap_years() {
        assert_eq!(iso("2016-12-31T23:59:60Z").unwrap(), "2016-12-31T23:59:59Z");
        assert_eq!(iso("2000-02-29T12:00:00Z").unwrap(), "2000-02-29T12:00:00Z");
        assert_eq!(iso("1900-02-29"), None);
    }

    #[test]
    fn hostile_input_never_panics() {
        let seeds: [&[u8]; 6] = [
            b"2017-03-06T04:02:06Z",
            b"20080430204825",
            b"2009-03-28T08:13:42-0700",
            b"-+:.TZ",
            b"\xff\xfe2017",
            b"9999-12-31T23:59:59+23:59",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for seed in seeds {
            for _ in 0..2000 {
                let mut v = seed.to_vec();
                for _ in 0..3 {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let i = (state as usize) % (v.len() + 1);
                    let c = (state >> 32) as u8;
                    match state % 3 {
                        0 if i < v.len() => v[i] = c,
                        1 => v.insert(i, c),
                        _ if i < v.len() => {
                            v.remove(i);
                        }
                        _ => {}
                    }
                }
                let s = String::from_utf8_lossy(&v);
                if let Some(d) = iso_utc(&s) {
                    assert_eq!(d.len(), 20, "{s:?} -> {d}");
                    assert_eq!(iso_utc(&d).as_deref(), Some(d.as_str()));
                }
            }
        }
        assert_eq!(iso_utc(&"9".repeat(100_000)), None);
    }
}
