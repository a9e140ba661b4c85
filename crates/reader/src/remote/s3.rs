//! S3 objects and listings: `s3://BUCKET/KEY` to signed HTTP GETs (`rusty-s3`), with the endpoint
//! and credentials the usual environment variables give.
//!
//! - Credentials: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`); without
//!   them requests go unsigned, which public buckets accept.
//! - Region: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else `us-east-1`.
//! - Endpoint: `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL` or `AWS_ENDPOINT` (an S3-compatible
//!   server; path-style URLs unless `AWS_VIRTUAL_HOSTED_STYLE_REQUEST=true`), else AWS's regional
//!   endpoint (virtual-hosted style). A plain `http://` endpoint needs `AWS_ALLOW_HTTP=true`.

use std::time::Duration;

use crawlsift_common::limits::{REMOTE_MAX_LISTED, REMOTE_SIGNED_URL_SECS};
use rusty_s3::actions::ListObjectsV2;
use rusty_s3::{Bucket, Credentials, S3Action, UrlStyle};

use super::{agent, get_small};
use crate::error::RemoteError;

/// Splits `s3://BUCKET/KEY` into the bucket and the key (empty for `s3://BUCKET` and
/// `s3://BUCKET/`).
pub(crate) fn split(url: &str) -> Result<(&str, &str), RemoteError> {
    let rest = url.get(5..).unwrap_or("");
    let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(RemoteError::Config(
            "an s3:// URL needs a bucket: s3://BUCKET/KEY".into(),
        ));
    }
    Ok((bucket, key))
}

/// One object: its bucket's endpoint, the credentials to sign with, and its key.
pub(crate) struct Object {
    bucket: Bucket,
    credentials: Option<Credentials>,
    key: String,
}

impl Object {
    /// The object `key` of `bucket`, at the endpoint the environment gives.
    pub(crate) fn new(bucket: &str, key: &str) -> Result<Object, RemoteError> {
        if key.is_empty() {
            return Err(RemoteError::Config(
                "an s3:// URL needs a key after the bucket (or a prefix ending in /)".into(),
            ));
        }
        let (bucket, credentials) = endpoint(bucket)?;
        Ok(Object {
            bucket,
            credentials,
            key: key.to_string(),
        })
    }

    /// A GET of the object, signed now (a fresh signature per request, so none expires).
    pub(crate) fn signed_get(&self) -> url::Url {
        self.bucket
            .get_object(self.credentials.as_ref(), &self.key)
            .sign(Duration::from_secs(REMOTE_SIGNED_URL_SECS))
    }
}

/// The keys under `prefix` in `bucket`, in key order, folder markers (keys ending in `/`) left
/// out; every page of the listing is asked for with the retries of a stream.
pub(crate) fn list(bucket: &str, prefix: &str) -> Result<Vec<String>, RemoteError> {
    let (bucket, credentials) = endpoint(bucket)?;
    let mut keys = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let request = || {
            let mut action = bucket.list_objects_v2(credentials.as_ref());
            if !prefix.is_empty() {
                action.with_prefix(prefix);
            }
            if let Some(t) = &token {
                action.with_continuation_token(t.as_str());
            }
            agent().get(
                action
                    .sign(Duration::from_secs(REMOTE_SIGNED_URL_SECS))
                    .as_str(),
            )
        };
        let text = get_small(&request)?;
        let page = ListObjectsV2::parse_response(&text)
            .map_err(|e| RemoteError::Config(format!("unreadable S3 listing: {e}")))?;
        keys.extend(
            page.contents
                .into_iter()
                .map(|c| c.key)
                .filter(|k| !k.ends_with('/')),
        );
        if keys.len() > REMOTE_MAX_LISTED {
            return Err(RemoteError::Config(format!(
                "more than {REMOTE_MAX_LISTED} objects under the prefix: list fewer"
            )));
        }
        match page.next_continuation_token {
            Some(next) if token.as_ref() != Some(&next) => token = Some(next),
            _ => break,
        }
    }
    keys.sort();
    keys.dedup();
    Ok(keys)
}

/// The bucket at the endpoint the environment names, and the credentials it gives (if any).
fn endpoint(name: &str) -> Result<(Bucket, Option<Credentials>), RemoteError> {
    let var = |n: &str| std::env::var(n).ok().filter(|v| !v.trim().is_empty());
    let yes = |n: &str| var(n).is_some_and(|v| v.eq_ignore_ascii_case("true") || v == "1");
    let region = var("AWS_REGION")
        .or_else(|| var("AWS_DEFAULT_REGION"))
        .unwrap_or_else(|| "us-east-1".into());
    let custom = var("AWS_ENDPOINT_URL_S3")
        .or_else(|| var("AWS_ENDPOINT_URL"))
        .or_else(|| var("AWS_ENDPOINT"));
    let (url, style) = match &custom {
        Some(e) if yes("AWS_VIRTUAL_HOSTED_STYLE_REQUEST") => (e.clone(), UrlStyle::VirtualHost),
        Some(e) => (e.clone(), UrlStyle::Path),
        None => (
            format!("https://s3.{region}.amazonaws.com"),
            UrlStyle::VirtualHost,
        ),
    };
    let bad = |why: String| RemoteError::Config(format!("S3 endpoint {url}: {why}"));
    let endpoint: url::Url = url.parse().map_err(|e| bad(format!("{e}")))?;
    if endpoint.scheme() == "http" && !yes("AWS_ALLOW_HTTP") {
        return Err(bad("plain http: set AWS_ALLOW_HTTP=true to allow it".into()));
    }
    let bucket =
        Bucket::new(endpoint, style, name.to_string(), region).map_err(|e| bad(format!("{e}")))?;
    Ok((bucket, Credentials::from_env()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_bucket_and_key() {
        assert_eq!(split("s3://b/k/x.warc.gz").unwrap(), ("b", "k/x.warc.gz"));
        assert_eq!(split("s3://b/").unwrap(), ("b", ""));
        assert_eq!(split("s3://b").unwrap(), ("b", ""));
        assert!(split("s3:///k").is_err());
        assert!(Object::new("b", "").is_err());
    }
}
