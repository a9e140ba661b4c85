//! crawlsift-dedup (being written).
