//! Remote inputs: archives read over `http://` / `https://` and from S3 (`s3://BUCKET/KEY`), as
//! streams with bounded memory, the way a pipe is read.
//!
//! - [`is_remote`] tells a URL argument from a path; [`expand`] turns one into inputs (an
//!   `s3://BUCKET/PREFIX/` ending in `/` lists the objects under it, in key order, as a local
//!   folder is walked); [`open`] opens one as a [`Read`](std::io::Read). This module knows
//!   nothing of `input.rs`, which calls it.
//! - `resume.rs`: the reader of one remote object. It keeps its byte position; when the
//!   connection drops, times out or the server answers 5xx/429, it asks again from that position
//!   (`Range: bytes=N-`): a `206` answer resumes, a `200` (a server without range support) is read
//!   again from the start and its first N bytes skipped. Attempts from one position are bounded
//!   ([`REMOTE_ATTEMPTS`](crawlsift_common::limits::REMOTE_ATTEMPTS)), with exponential backoff;
//!   then the error names the URL and the byte offset reached.
//! - `s3.rs`: the S3 endpoint and credentials from the usual environment variables, requests
//!   signed (SigV4, `rusty-s3`) into plain HTTP GETs that go through the same reader.
//!
//! HTTP is `ureq` (blocking, rustls): connect and per-read timeouts are named bounds, bodies are
//! streamed, answers read whole (listings, error bodies) are capped. Random access to a remote
//! input (`get`, `index`) is not offered: those commands need local files.

mod resume;
mod s3;

use std::io::Read;
use std::sync::OnceLock;
use std::time::Duration;

use crawlsift_common::limits::{
    REMOTE_ATTEMPTS, REMOTE_BACKOFF_FIRST_MS, REMOTE_BACKOFF_MAX_MS, REMOTE_CONNECT_TIMEOUT_SECS,
    REMOTE_READ_TIMEOUT_SECS, REMOTE_SMALL_BODY_BYTES,
};

use crate::error::{ReadError, RemoteError};
pub(crate) use resume::Resumable;

/// Whether an argument names a remote input (`http://`, `https://` or `s3://`) rather than a
/// path.
pub(crate) fn is_remote(arg: &str) -> bool {
    ["http://", "https://", "s3://"].iter().any(|scheme| {
        arg.len() > scheme.len()
            && arg
                .get(..scheme.len())
                .is_some_and(|s| s.eq_ignore_ascii_case(scheme))
    })
}

/// The URLs a URL argument stands for: itself, or for `s3://BUCKET/PREFIX/` (ending in `/`)
/// every object under the prefix in key order (keys ending in `/`, folder markers, left out).
pub(crate) fn expand(url: &str, out: &mut Vec<String>) -> Result<(), ReadError> {
    let open_err = |e: RemoteError| ReadError::Open {
        path: url.into(),
        source: std::io::Error::other(e),
    };
    if is_s3(url) && url.ends_with('/') {
        let (bucket, prefix) = s3::split(url).map_err(open_err)?;
        for key in s3::list(bucket, prefix).map_err(open_err)? {
            out.push(format!("s3://{bucket}/{key}"));
        }
    } else {
        out.push(url.to_string());
    }
    Ok(())
}

/// Opens a remote input for reading from its first byte: the first request is made here, so a
/// missing object or an unreachable server is an error now, naming the URL.
pub(crate) fn open(url: &str) -> Result<Resumable, ReadError> {
    let open_err = |source| ReadError::Open {
        path: url.into(),
        source,
    };
    let target = if is_s3(url) {
        let object = s3::split(url).and_then(|(bucket, key)| s3::Object::new(bucket, key));
        resume::Target::S3(Box::new(
            object.map_err(|e| open_err(std::io::Error::other(e)))?,
        ))
    } else {
        resume::Target::Http(url.to_string())
    };
    let mut r = Resumable::new(url.to_string(), target);
    r.start().map_err(open_err)?;
    Ok(r)
}

/// Whether `url` is an `s3://` one.
fn is_s3(url: &str) -> bool {
    url.get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("s3://"))
}

/// The one HTTP agent of the process (connections are pooled across requests to a host).
fn agent() -> &'static ureq::Agent {
    static AGENT: OnceLock<ureq::Agent> = OnceLock::new();
    AGENT.get_or_init(|| {
        ureq::AgentBuilder::new()
            .timeout_connect(Duration::from_secs(REMOTE_CONNECT_TIMEOUT_SECS))
            .timeout_read(Duration::from_secs(REMOTE_READ_TIMEOUT_SECS))
            .timeout_write(Duration::from_secs(REMOTE_READ_TIMEOUT_SECS))
            .user_agent(concat!("crawlsift/", env!("CARGO_PKG_VERSION")))
            .build()
    })
}

/// The wait before attempt `failures + 1` (after `failures` failed ones): doubling from the first
/// backoff, capped.
fn backoff(failures: u32) -> Duration {
    let shift = failures.saturating_sub(1).min(16);
    Duration::from_millis((REMOTE_BACKOFF_FIRST_MS << shift).min(REMOTE_BACKOFF_MAX_MS))
}

/// Whether an HTTP status is worth asking again for (the server is busy or failing for now).
fn retryable(status: u16) -> bool {
    status == 429 || status >= 500
}

/// What an error answer says: its reason phrase, and an S3 error's code and message (other
/// bodies, HTML pages most often, are left out; plain text is quoted, briefly).
fn error_detail(resp: ureq::Response) -> String {
    let mut out = format!(" {}", resp.status_text());
    let mut text = String::new();
    let _ = resp.into_reader().take(2048).read_to_string(&mut text);
    let tag = |name: &str| {
        let start = text.find(&format!("<{name}>"))? + name.len() + 2;
        let len = text.get(start..)?.find(&format!("</{name}>"))?;
        text.get(start..start + len)
    };
    if let Some(code) = tag("Code") {
        out.push_str(&format!(": {code}: {}", tag("Message").unwrap_or("")));
    } else if !text.contains('<') && !text.trim().is_empty() {
        let words: Vec<&str> = text.split_whitespace().collect();
        let quoted: String = words.join(" ").chars().take(200).collect();
        out.push_str(&format!(": {quoted}"));
    }
    out.trim_end_matches([' ', ':']).to_string()
}

/// GETs a small answer whole (an S3 listing page), with the retries of a stream: `request` makes
/// each attempt's request (signing it anew). The body is capped at
/// [`REMOTE_SMALL_BODY_BYTES`].
fn get_small(request: &dyn Fn() -> ureq::Request) -> Result<String, RemoteError> {
    let mut failures = 0;
    loop {
        if failures > 0 {
            std::thread::sleep(backoff(failures));
        }
        let why = match request().call() {
            Ok(resp) => {
                let mut body = Vec::new();
                let read = resp
                    .into_reader()
                    .take(REMOTE_SMALL_BODY_BYTES + 1)
                    .read_to_end(&mut body);
                match read {
                    Ok(_) if body.len() as u64 > REMOTE_SMALL_BODY_BYTES => {
                        return Err(RemoteError::TooLarge(REMOTE_SMALL_BODY_BYTES))
                    }
                    Ok(_) => return Ok(String::from_utf8_lossy(&body).into_owned()),
                    Err(e) => e.to_string(),
                }
            }
            Err(ureq::Error::Status(status, resp)) if !retryable(status) => {
                let detail = error_detail(resp);
                return Err(RemoteError::Status { status, detail });
            }
            Err(ureq::Error::Status(status, resp)) => {
                format!("HTTP {status}{}", error_detail(resp))
            }
            Err(ureq::Error::Transport(t)) => t.to_string(),
        };
        failures += 1;
        if failures >= REMOTE_ATTEMPTS {
            return Err(RemoteError::GaveUp {
                attempts: failures,
                offset: 0,
                last: why,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_urls_from_paths() {
        assert!(is_remote("https://data.commoncrawl.org/x.warc.gz"));
        assert!(is_remote("HTTP://h/x"));
        assert!(is_remote("s3://bucket/key"));
        assert!(!is_remote("s3://"));
        assert!(!is_remote("data/sample.warc.gz"));
        assert!(!is_remote("./http://x"));
    }

    #[test]
    fn error_answers_are_summed_up_not_quoted_whole() {
        let xml = "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code>\
                   <Message>The specified key does not exist.</Message></Error>";
        let r = ureq::Response::new(404, "Not Found", xml).unwrap();
        let want = " Not Found: NoSuchKey: The specified key does not exist.";
        assert_eq!(error_detail(r), want);
        let html = "<!DOCTYPE html><html><body>Not here</body></html>";
        let r = ureq::Response::new(404, "Not Found", html).unwrap();
        assert_eq!(error_detail(r), " Not Found");
        let r = ureq::Response::new(503, "Service Unavailable", "slow\n down").unwrap();
        assert_eq!(error_detail(r), " Service Unavailable: slow down");
    }

    #[test]
    fn backoff_doubles_up_to_its_cap() {
        assert_eq!(backoff(1), Duration::from_millis(REMOTE_BACKOFF_FIRST_MS));
        assert_eq!(
            backoff(2),
            Duration::from_millis(2 * REMOTE_BACKOFF_FIRST_MS)
        );
        assert_eq!(backoff(60), Duration::from_millis(REMOTE_BACKOFF_MAX_MS));
    }
}
