//! Publication dates as pages write them, to ISO 8601 calendar dates (`2021-03-04`): machine
//! values (ISO 8601, `2021/03/04`, `20210304`, RFC 2822), the path of a URL, and dates written in
//! words in the text (`4 March 2021`, `March 4, 2021`, `4. März 2021`, `04.03.2021`, in a few
//! languages). Every date is checked against the calendar and [`MIN_YEAR`]..=[`MAX_YEAR`].

/// Earliest year a publication date may have (the web's).
pub const MIN_YEAR: u32 = 1990;
/// Latest year a publication date may have.
pub const MAX_YEAR: u32 = 2100;

/// A calendar date, checked, as `YYYY-MM-DD`.
fn ymd(y: u32, m: u32, d: u32) -> Option<String> {
    let max = crate::calendar::days_in_month(y, m)?;
    ((MIN_YEAR..=MAX_YEAR).contains(&y) && (1..=max).contains(&d))
        .then(|| format!("{y:04}-{m:02}-{d:02}"))
}

fn digits(s: &str) -> Option<u32> {
    (!s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())?
}

/// The date of a machine-readable value: ISO 8601 (`2021-03-04T10:00:00Z`, `2021-03-04`,
/// `20210304`), `2021/03/04`, or RFC 2822 (`Thu, 04 Mar 2021 10:00:00 GMT`).
pub fn iso_date(s: &str) -> Option<String> {
    let s = s.trim();
    if s.len() >= 10 {
        let b = s.as_bytes();
        if (b[4] == b'-' || b[4] == b'/' || b[4] == b'.') && b[7] == b[4] {
            return ymd(
                digits(s.get(0..4)?)?,
                digits(s.get(5..7)?)?,
                digits(s.get(8..10)?)?,
            );
        }
    }
    if s.len() >= 8
        && s.bytes().take(8).all(|b| b.is_ascii_digit())
        && !s.as_bytes().get(8).is_some_and(u8::is_ascii_digit)
    {
        return ymd(
            digits(s.get(0..4)?)?,
            digits(s.get(4..6)?)?,
            digits(s.get(6..8)?)?,
        );
    }
    crate::feed::parse_date(s).and_then(|d| iso_date(d.get(0..10)?))
}

/// The date in a URL's path: `/2021/03/04/`, `/2021-03-04-`, `/20210304/`.
pub fn url_date(url: &str) -> Option<String> {
    let path = url
        .split("://")
        .nth(1)
        .map_or(url, |r| r.split_once('/').map_or("", |p| p.1));
    let parts: Vec<&str> = path.split(['/', '-', '_', '.']).collect();
    for w in parts.windows(3) {
        if w[0].len() == 4 && w[1].len() <= 2 && w[2].len() <= 2 {
            if let (Some(y), Some(m), Some(d)) = (digits(w[0]), digits(w[1]), digits(w[2])) {
                if let Some(x) = ymd(y, m, d) {
                    return Some(x);
                }
            }
        }
    }
    parts
        .iter()
        .find(|p| p.len() == 8)
        .and_then(|p| iso_date(p))
}

const MONTHS: [&[&str]; 12] = [
    &[
        "january", "jan", "januar", "janvier", "enero", "gennaio", "januari", "január",
    ],
    &[
        "february", "feb", "februar", "février", "febrero", "febbraio", "februari", "február",
    ],
    &["march", "mar", "märz", "mars", "marzo", "maart", "március"],
    &["april", "apr", "avril", "abril", "aprile", "április"],
    &["may", "mai", "mayo", "maggio", "mei", "május"],
    &["june", "jun", "juni", "juin", "junio", "giugno", "június"],
    &[
        "july", "jul", "juli", "juillet", "julio", "luglio", "július",
    ],
    &["august", "aug", "août", "agosto", "augustus", "augusztus"],
    &[
        "september",
        "sep",
        "sept",
        "septembre",
        "septiembre",
        "settembre",
        "szeptember",
    ],
    &[
        "october", "oct", "oktober", "octobre", "octubre", "ottobre", "október",
    ],
    &["november", "nov", "novembre", "noviembre", "november"],
    &[
        "december",
        "dec",
        "dezember",
        "décembre",
        "diciembre",
        "dicembre",
        "december",
    ],
];

fn month(w: &str) -> Option<u32> {
    let w = w.trim_end_matches('.').to_lowercase();
    MONTHS
        .iter()
        .position(|names| names.contains(&w.as_str()))
        .map(|i| i as u32 + 1)
}

/// The first full date written in `text`: `4 March 2021`, `March 4, 2021`, `2021-03-04`,
/// `04.03.2021` (day first). Only the first `TEXT_DATE_WORDS` words are looked at.
pub fn text_date(text: &str) -> Option<String> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .take(TEXT_DATE_WORDS)
        .collect();
    for (i, w) in words.iter().enumerate() {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        if w.len() >= 8 && w.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            if let Some(d) = iso_date(w) {
                return Some(d);
            }
            let p: Vec<&str> = w.split(['.', '/']).collect();
            if p.len() == 3 && p[2].len() == 4 && w.contains('.') {
                if let (Some(d), Some(m), Some(y)) = (digits(p[0]), digits(p[1]), digits(p[2])) {
                    if let Some(x) = ymd(y, m, d) {
                        return Some(x);
                    }
                }
            }
        }
        let next = |k: usize| {
            words
                .get(i + k)
                .map(|x| x.trim_matches(|c: char| !c.is_alphanumeric()))
        };
        let year = |s: Option<&str>| s.filter(|s| s.len() == 4).and_then(digits);
        if let Some(m) = month(w) {
            // March 4, 2021
            if let (Some(d), Some(y)) = (
                next(1).and_then(|s| digits(s.trim_end_matches(|c: char| c.is_alphabetic()))),
                year(next(2)),
            ) {
                if let Some(x) = ymd(y, m, d) {
                    return Some(x);
                }
            }
        } else if let Some(d) = digits(w.trim_end_matches(|c: char| c.is_alphabetic())) {
            // 4 March 2021, 4. März 2021
            if let (Some(m), Some(y)) = (next(1).and_then(month), year(next(2))) {
                if let Some(x) = ymd(y, m, d) {
                    return Some(x);
                }
            }
        }
    }
    None
}

/// Words of the main text looked at for a written date.
const TEXT_DATE_WORDS: usize = 400;
