//! Compression: everything between the input's bytes and decoded bytes. [`detect`] names the
//! compression from magic numbers; [`decode`] is the [`Decode`](decode::Decode) trait the record
//! splitter pulls decoded bytes through; [`gzip`] walks the gzip members of a mapped file (and
//! finds confirmed member starts for the parallel reader); [`frames`] does the same for LZ4 and
//! zstd frames; [`stream`] decodes stdin and pipes; [`inflate`] is the libdeflate whole-member
//! inflater, also used by the HTTP layer; [`gzip_header`] parses member headers. Nothing in here
//! depends on the container formats or the splitter.

pub(crate) mod decode;
pub(crate) mod detect;
pub(crate) mod frames;
pub mod gzip;
pub(crate) mod gzip_header;
pub(crate) mod inflate;
pub(crate) mod stream;
