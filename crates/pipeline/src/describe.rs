//! What `crawlsift records` says of one record beyond its header: the HTTP status, the payload
//! length, and the HTTP tallies its `--summary` adds up. Shared by the CLI and the Python package,
//! so both describe a record the same way.

use crawlsift_reader::Record;

/// What decoding one record's HTTP message gave, as `records --summary` counts it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct HttpTally {
    /// Records holding an HTTP message that parsed.
    pub http: u64,
    /// Records whose HTTP message did not parse.
    pub http_errors: u64,
    /// HTTP messages whose headers lied about their body (length, encoding).
    pub lied: u64,
    /// Bytes of payload: HTTP bodies, or whole blocks of records without HTTP.
    pub payload_bytes: u64,
    /// Records whose date names no date (`crawlsift_reader::date`): their rows carry only
    /// `date_raw`.
    pub invalid_dates: u64,
}

impl HttpTally {
    /// Adds another tally to this one.
    pub fn add(&mut self, o: &HttpTally) {
        self.http += o.http;
        self.http_errors += o.http_errors;
        self.lied += o.lied;
        self.payload_bytes += o.payload_bytes;
        self.invalid_dates += o.invalid_dates;
    }
}

/// A record's HTTP status (if it holds an HTTP response), the length of its payload (the HTTP
/// body, or the whole block when there is no HTTP message or it does not parse) and its tally.
pub fn describe(rec: &Record) -> (Option<u16>, u64, HttpTally) {
    let mut t = HttpTally {
        invalid_dates: u64::from(crawlsift_reader::date::is_invalid(rec.date.as_deref())),
        ..HttpTally::default()
    };
    match rec.http() {
        Some(Ok(resp)) => {
            t.http = 1;
            t.lied = u64::from(resp.flags.lied());
            t.payload_bytes = resp.body.len() as u64;
            (Some(resp.status), resp.body.len() as u64, t)
        }
        Some(Err(_)) => {
            t.http_errors = 1;
            (None, rec.block.len() as u64, t)
        }
        None => {
            t.payload_bytes = rec.block.len() as u64;
            (None, rec.block.len() as u64, t)
        }
    }
}
