//! crawlsift-reader (being written).
