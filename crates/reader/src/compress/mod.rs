//! Compression: everything between the input's bytes and decoded bytes. Nothing in here depends
//! on the container formats or the splitter.
//!
//! - [`detect`]: [`Compression`](detect::Compression) from the magic numbers (a leaf).
//! - [`decode`]: the [`Decode`](decode::Decode) trait the record splitter pulls decoded bytes
//!   through, and the marks that map them back to input offsets.
//! - [`members`]: the one loop over gzip members and LZ4 / zstd frames, for mapped files and
//!   streams alike; [`input`] is what it reads from (a map), [`stream`] adapts stdin and pipes
//!   (and passes uncompressed streams through); [`frames`] opens LZ4 and zstd frame decoders.
//! - [`gzip_header`]: member headers and the inflate-ratio bound; [`inflate`]: the libdeflate
//!   whole-member inflater, also used by the HTTP layer; [`gzip`]: the public gzip API and the
//!   confirmed member starts the parallel reader cuts at.
//! - [`seek`]: checkpoints of the inflate state inside a gzip member, for reading a record of a
//!   file gzipped whole without inflating it from the start.

pub(crate) mod decode;
pub(crate) mod detect;
pub(crate) mod frames;
pub mod gzip;
pub(crate) mod gzip_header;
pub(crate) mod inflate;
pub(crate) mod input;
pub(crate) mod members;
pub(crate) mod seek;
pub(crate) mod stream;
