//! The reader of one remote object ([`Resumable`]): a [`Read`] over HTTP GETs that resumes a
//! dropped connection from the byte it reached, with bounded, backed-off retries.

use std::io::{self, Read};

use crawlsift_common::limits::REMOTE_ATTEMPTS;

use super::{agent, backoff, error_detail, retryable, s3};
use crate::error::RemoteError;

/// What a request is made to.
pub(crate) enum Target {
    /// An `http://` or `https://` URL, asked for as given.
    Http(String),
    /// An S3 object: each request is signed anew (a presigned GET).
    S3(Box<s3::Object>),
}

impl Target {
    fn request(&self) -> ureq::Request {
        match self {
            Target::Http(url) => agent().get(url),
            Target::S3(object) => agent().get(object.signed_get().as_str()),
        }
    }
}

/// Why an attempt failed: worth another one, or not.
enum Failure {
    Retry(String),
    Fatal(RemoteError),
}

/// A remote object read as a stream from its first byte. It knows its position; on a dropped
/// connection, a read timeout or a 5xx/429 answer it asks again from there (`Range: bytes=N-`,
/// and from the start skipping N bytes where the server ignores ranges). Attempts without a byte
/// of progress are bounded by [`REMOTE_ATTEMPTS`], with exponential backoff between them; the
/// error then says the attempts, the offset and the last cause (the caller names the URL).
pub(crate) struct Resumable {
    name: String,
    target: Target,
    /// Bytes handed out so far.
    pos: u64,
    /// The body of the current answer, read from `pos` on.
    body: Option<Box<dyn Read + Send + Sync>>,
    /// The object's total length, when an answer said it.
    len: Option<u64>,
    /// The object's ETag, when an answer gave one: a resumed answer must carry the same.
    etag: Option<String>,
    /// Failed attempts since the last byte read.
    failures: u32,
    /// The end was reached.
    done: bool,
}

impl Resumable {
    /// A reader of `target`, named `name` (the URL as given) in its messages; nothing is asked yet.
    pub(crate) fn new(name: String, target: Target) -> Self {
        Resumable {
            name,
            target,
            pos: 0,
            body: None,
            len: None,
            etag: None,
            failures: 0,
            done: false,
        }
    }

    /// Makes the first request (with its retries), so that a missing object fails at opening.
    pub(crate) fn start(&mut self) -> io::Result<()> {
        self.connect_with_retries()
    }

    /// Requests from `pos` until an answer's body is ready (or the end is known), retrying
    /// with backoff; fails after [`REMOTE_ATTEMPTS`] failed attempts or on a fatal answer.
    fn connect_with_retries(&mut self) -> io::Result<()> {
        while self.body.is_none() && !self.done {
            if self.failures > 0 {
                std::thread::sleep(backoff(self.failures));
            }
            match self.connect() {
                Ok(()) => {}
                Err(Failure::Fatal(e)) => return Err(io::Error::other(e)),
                Err(Failure::Retry(why)) => self.failed(why)?,
            }
        }
        Ok(())
    }

    /// Counts a failed attempt: an error once they are all spent.
    fn failed(&mut self, why: String) -> io::Result<()> {
        self.body = None;
        self.failures += 1;
        if self.failures >= REMOTE_ATTEMPTS {
            return Err(io::Error::other(RemoteError::GaveUp {
                attempts: self.failures,
                offset: self.pos,
                last: why,
            }));
        }
        Ok(())
    }

    /// One attempt: a GET from `pos`, checked, its body kept (or the end noted).
    fn connect(&mut self) -> Result<(), Failure> {
        let mut req = self.target.request();
        if self.pos > 0 {
            req = req.set("Range", &format!("bytes={}-", self.pos));
        }
        let resp = match req.call() {
            Ok(resp) => resp,
            Err(ureq::Error::Status(416, _)) if self.pos > 0 && self.len == Some(self.pos) => {
                self.done = true; // asked past the end of an object read to its end
                return Ok(());
            }
            Err(ureq::Error::Status(status, resp)) => {
                let detail = error_detail(resp);
                return Err(if retryable(status) {
                    Failure::Retry(format!("HTTP {status}{detail}"))
                } else {
                    Failure::Fatal(RemoteError::Status { status, detail })
                });
            }
            Err(ureq::Error::Transport(t)) => return Err(Failure::Retry(t.to_string())),
        };
        let pos = self.pos;
        let resume = move |why: String| Failure::Fatal(RemoteError::Resume { offset: pos, why });
        if let Some(tag) = resp.header("etag") {
            match &self.etag {
                Some(was) if was != tag => {
                    return Err(resume(format!(
                        "the object changed (ETag {was} became {tag})"
                    )))
                }
                _ => self.etag = Some(tag.to_string()),
            }
        }
        let length = resp.header("content-length").and_then(|v| v.parse().ok());
        let mut skip = 0;
        match resp.status() {
            206 => {
                let range = resp.header("content-range").unwrap_or("");
                let (first, total) = content_range(range)
                    .ok_or_else(|| resume(format!("unreadable Content-Range {range:?}")))?;
                if first != pos {
                    return Err(resume(format!("the server sent {range:?}")));
                }
                if total.is_some() {
                    self.len = total;
                }
            }
            200 => {
                // No range support (or a first request): the whole object, from byte 0.
                skip = self.pos;
                if length.is_some() {
                    self.len = length;
                }
            }
            status => {
                return Err(Failure::Fatal(RemoteError::Status {
                    status,
                    detail: " where 200 or 206 was expected".into(),
                }))
            }
        }
        let mut body = resp.into_reader();
        if skip > 0 {
            match io::copy(&mut (&mut body).take(skip), &mut io::sink()) {
                Ok(n) if n == skip => {}
                Ok(n) => return Err(Failure::Retry(format!("the answer ended at byte {n}"))),
                Err(e) => return Err(Failure::Retry(e.to_string())),
            }
        }
        self.body = Some(body);
        Ok(())
    }
}

impl Read for Resumable {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            self.connect_with_retries()?;
            let Some(body) = self.body.as_mut() else {
                return Ok(0); // done
            };
            match body.read(buf) {
                Ok(0) => match self.len {
                    Some(len) if self.pos < len => {
                        let why = format!("the connection closed at byte {} of {len}", self.pos);
                        self.failed(why)?;
                    }
                    _ => {
                        self.body = None;
                        self.done = true;
                        return Ok(0);
                    }
                },
                Ok(n) => {
                    self.pos += n as u64;
                    self.failures = 0;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => self.failed(e.to_string())?,
            }
        }
    }
}

impl std::fmt::Debug for Resumable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Resumable({} at byte {})", self.name, self.pos)
    }
}

/// The first byte and the total length (None for `*`) of a `Content-Range: bytes A-B/T`.
fn content_range(v: &str) -> Option<(u64, Option<u64>)> {
    let rest = v.trim().strip_prefix("bytes")?.trim_start();
    let (range, total) = rest.split_once('/')?;
    let (first, last) = range.split_once('-')?;
    let (first, last): (u64, u64) = (first.trim().parse().ok()?, last.trim().parse().ok()?);
    if last < first {
        return None;
    }
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    Some((first, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_content_ranges() {
        assert_eq!(content_range("bytes 100-199/1000"), Some((100, Some(1000))));
        assert_eq!(content_range("bytes 5-9/*"), Some((5, None)));
        assert_eq!(content_range("bytes 9-5/10"), None);
        assert_eq!(content_range("bytes */1000"), None);
        assert_eq!(content_range("items 1-2/3"), None);
    }
}
