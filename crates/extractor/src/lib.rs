//! crawlsift-extractor (being written).
