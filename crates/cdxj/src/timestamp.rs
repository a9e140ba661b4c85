//! 14-digit CDXJ timestamps from record dates, as warcio computes them: `iso_date_to_timestamp`
//! for WARC-Date (digit groups split at every other character, fractions dropped, the date
//! checked), and for ARC's 14-digit dates `timestamp_to_datetime`'s padding and clamping.

/// The timestamp of a WARC-Date, or `None` where warcio raises (then `cdxj-indexer` stops; we
/// count the record as skipped instead).
pub fn from_iso(date: &str) -> Option<String> {
    let mut nums: Vec<&str> = date.split(|c: char| !c.is_ascii_digit()).collect();
    if nums.last() == Some(&"") {
        nums.pop();
    }
    if !(3..=7).contains(&nums.len()) {
        return None;
    }
    let mut v = [0u64; 6];
    for (i, n) in nums.iter().enumerate() {
        // warcio pads the fraction (7th group) with zeros, so only it may be empty.
        if (n.is_empty() && i < 6) || n.len() > 18 {
            return None;
        }
        if i < 6 {
            v[i] = n.parse().ok()?;
        }
    }
    let [y, mo, d, h, mi, s] = v;
    if !(1..=9999).contains(&y) || !(1..=12).contains(&mo) || h > 23 || mi > 59 || s > 59 {
        return None;
    }
    if d < 1 || d > days_in_month(y, mo) {
        return None;
    }
    Some(format!("{y}{mo:02}{d:02}{h:02}{mi:02}{s:02}"))
}

/// The timestamp of a WARC-Date warcio cannot read, where it still names a time: digit groups
/// year, month, day, hour, minute, second (missing ones 0); a day past its month's end read as
/// the day of the year (ClueWeb09's `2009-03-65T08:43:19-0800`); the rest clamped to its range.
/// `None` without a year of four digits and a month.
pub fn from_iso_lenient(date: &str) -> Option<String> {
    let nums: Vec<u64> = date
        .split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .take(6)
        .map(|n| n.get(..n.len().min(9)).unwrap_or("0").parse().unwrap_or(0))
        .collect();
    if nums.len() < 2 || !(1000..=9999).contains(&nums[0]) {
        return None;
    }
    let y = nums[0];
    let get = |i: usize| nums.get(i).copied().unwrap_or(0);
    let (mut mo, mut d) = (get(1).clamp(1, 12), get(2).max(1));
    if d > days_in_month(y, mo) && d <= 366 {
        let mut left = d;
        mo = 1;
        while mo < 12 && left > days_in_month(y, mo) {
            left -= days_in_month(y, mo);
            mo += 1;
        }
        d = left;
    }
    let d = d.min(days_in_month(y, mo));
    let (h, mi, s) = (get(3).min(23), get(4).min(59), get(5).min(59));
    Some(format!("{y}{mo:02}{d:02}{h:02}{mi:02}{s:02}"))
}

/// The timestamp of a 14-digit (or shorter, or longer) ARC date: padded to 6 digits with
/// `299912`, each field clamped to its range, a field missing or not a number at its maximum.
pub fn from_arc(date: &str) -> String {
    const PAD_6_UP: &str = "299912";
    let mut s = date.to_string();
    if s.len() < 6 {
        s.push_str(PAD_6_UP.get(s.len()..).unwrap_or(""));
    }
    let field = |start: usize, end: usize, min: u64, max: u64| -> u64 {
        match s.get(start..end).map(|f| f.trim().parse::<u64>()) {
            Some(Ok(v)) => v.clamp(min, max),
            _ => max,
        }
    };
    let y = field(0, 4, 1900, 2999);
    let mo = field(4, 6, 1, 12);
    let d = field(6, 8, 1, days_in_month(y, mo));
    let h = field(8, 10, 0, 23);
    let mi = field(10, 12, 0, 59);
    let sec = field(12, 14, 0, 59);
    format!("{y:04}{mo:02}{d:02}{h:02}{mi:02}{sec:02}")
}

fn days_in_month(y: u64, m: u64) -> u64 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400) => 29,
        2 => 28,
        _ => 31,
    }
}

/// Seconds since year 0 of a 14-digit timestamp (shorter ones padded with the earliest values),
/// for "closest capture" distances; `None` when it is not digits.
pub fn seconds(ts: &str) -> Option<i64> {
    let digits: String = ts.chars().take(14).collect();
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let padded = format!("{digits}{}", &"00000101000000"[digits.len().min(14)..]);
    let n = |a: usize, b: usize| padded[a..b].parse::<i64>().unwrap_or(0);
    let (y, mo, d) = (n(0, 4), n(4, 6).clamp(1, 12), n(6, 8).clamp(1, 31));
    // Days from a civil date (Howard Hinnant's algorithm), valid for any year.
    let yy = if mo <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * (if mo > 2 { mo - 3 } else { mo + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe;
    Some(days * 86_400 + n(8, 10) * 3600 + n(10, 12) * 60 + n(12, 14))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates() {
        assert_eq!(from_iso("2013-12-26T10:11:12Z").unwrap(), "20131226101112");
        assert_eq!(
            from_iso("2013-12-26T10:11:12.456789Z").unwrap(),
            "20131226101112"
        );
        assert_eq!(from_iso("2013-12-26T10:11Z").unwrap(), "20131226101100");
        assert!(from_iso("2013-02-30T10:11:12Z").is_none());
        assert!(from_iso("2013--26T10:11:12Z").is_none());
        assert!(from_iso("").is_none());
    }

    #[test]
    fn lenient_dates() {
        assert_eq!(
            from_iso_lenient("2009-03-65T08:43:19-0800").unwrap(),
            "20090306084319"
        );
        assert_eq!(
            from_iso_lenient("2008-10-294T05:21:46-0700").unwrap(),
            "20081020052146"
        );
        assert_eq!(from_iso_lenient("2008-10").unwrap(), "20081001000000");
        assert!(from_iso_lenient("yesterday").is_none());
    }

    #[test]
    fn arc_dates() {
        assert_eq!(from_arc("20080430204825"), "20080430204825");
        assert_eq!(from_arc("2008"), "20081231235959");
        assert_eq!(from_arc("20081399999999"), "20081231235959");
    }

    #[test]
    fn distances() {
        let a = seconds("20200101000000").unwrap();
        assert_eq!(seconds("20200101000001").unwrap() - a, 1);
        assert_eq!(seconds("20200102").unwrap() - a, 86_400);
        assert!(seconds("x").is_none());
    }
}
