"""Type hints and documentation of crawlsift's native module (``crawlsift._crawlsift``)."""

from os import PathLike
from typing import IO, Iterable, Iterator, List, Literal, Optional, Sequence, Tuple, TypedDict, Union, overload

__version__: str

Path = Union[str, "PathLike[str]"]
"""A file or folder name."""

Header = List[Tuple[str, str]]
"""Header fields in the order they were written, as ``(name, value)`` pairs (as warcio's
``rec_headers.headers`` and ``http_headers.headers``); a name may come more than once. WARC
header values are UTF-8 (invalid bytes read as U+FFFD); HTTP header names and values are UTF-8
where valid, else ISO-8859-1, one character per byte, so ``value.encode("latin-1")`` gives the
bytes back."""

class Record(TypedDict, total=False):
    """One record, with the fields of a ``crawlsift records`` row plus its headers."""

    file: str
    """The input's name as given or found in a folder (``<stream>`` or the file object's
    ``name`` for a file object, ``<bytes>`` for bytes)."""
    offset: int
    """Byte offset of the record (or of the gzip member / LZ4 or zstd frame holding it)."""
    uoffset: int
    """Only for a record inside a member or frame it does not start (a file compressed whole):
    its offset in the decompressed stream from ``offset``."""
    index: int
    """The record's ordinal in its input, from 0."""
    type: str
    """``warcinfo``, ``response``, ``request``, ``resource``, ``metadata``, ``revisit``,
    ``conversion``, ``continuation``, ``arc`` or ``trec``..."""
    id: str
    """``WARC-Record-ID`` as written, ARC ``url date``, or the TREC DOCNO."""
    url: Optional[str]
    date: Optional[str]
    """The capture date, ISO 8601 in UTC (``YYYY-MM-DDThh:mm:ssZ``); ``None`` without a date or
    with one that names no date (then ``date_raw`` holds it)."""
    date_raw: str
    """Only where it differs from ``date``: the date as written (an ARC or TREC 14-digit date,
    an offset such as ``-0700``, fractional seconds, or an invalid date)."""
    content_type: Optional[str]
    """The record's content type (WARC ``Content-Type``: ``application/http; msgtype=response``
    for a response; the HTTP one is in ``http_headers``)."""
    http_status: Optional[int]
    payload_length: int
    warc_headers: Header
    """The record's header fields (WARC named fields; ARC fields by name; TREC tags)."""
    http_headers: Optional[Header]
    """The HTTP response's header fields, ``None`` for a record that holds no HTTP response."""
    payload: bytes
    """With ``payload=True`` only: the HTTP body (transfer and content codings undone), or the
    whole block for a record that holds no HTTP response."""

class Report(TypedDict):
    """What reading found, summed over the inputs as ``crawlsift records --summary``'s total."""

    records: int
    bytes: int
    """Bytes read of the inputs that hold an archive."""
    errors: dict[str, int]
    """Records skipped (or kept despite an error), by kind of error."""
    skipped_inputs: dict[str, int]
    """Inputs not read, by kind: ``not_archive``, ``bad_compression``, ``duplicate``."""
    invalid_dates: int
    """Records whose written date names no date (``date`` is ``None``, ``date_raw`` set)."""
    failed_inputs: list[str]
    """The error of each input of a list or folder that could not be opened or read, passed
    over as the CLI passes it over (also given as a ``RuntimeWarning``)."""

class Records(Iterator[Record]):
    """An iterator over the records of ``records()``'s source, read on a background thread."""

    def __iter__(self) -> "Records": ...
    def __next__(self) -> Record:
        """The next record. Raises ``OSError`` naming the input (and byte offset) that cannot be
        opened or read, ``KeyboardInterrupt`` on Ctrl-C."""
    @property
    def report(self) -> Optional[Report]:
        """The summary once iteration has ended; ``None`` before."""

class Extracted(TypedDict, total=False):
    """The main text of a document."""

    title: str
    text: str
    """The main text, one block per line."""
    charset: str
    """The encoding the bytes were decoded with (WHATWG name)."""
    method: str
    """What produced the text: ``blocks``, ``plateau``, ``full``, ``learned``, ``text`` or
    ``feed``."""
    metadata: "Metadata"
    """With ``metadata=True`` only."""

class Metadata(TypedDict):
    """What the page says about itself (empty strings where it says nothing)."""

    title: str
    author: str
    published: str
    sitename: str
    language: str
    description: str
    canonical: str

class Fingerprint(TypedDict):
    words: int
    exact: str
    simhash: int
    minhash: bytes
    adler32: int

Source = Union[Path, Sequence[Path], IO[bytes], bytes, bytearray]

def records(source: Source, payload: bool = False, threads: Optional[int] = None) -> Records:
    """The records of ``source``, in order.

    ``source`` is a path, a list or tuple of paths, a folder (every file below it in sorted
    order, as the CLI walks folders; inputs that hold no archive are skipped and counted in
    ``report``), a binary file object (anything with ``read(n)`` returning bytes; it need not
    seek, so a pipe works) or ``bytes``. WARC, ARC or TREC; plain, gzip, zstd or LZ4.

    Raises ``TypeError`` for any other kind of source (or a file object open in text mode),
    ``FileNotFoundError`` at once for a path that does not exist, ``ValueError`` for
    ``threads=0``; iteration raises ``OSError`` for a lone input that cannot be opened or read
    (among several, such an input is passed over, listed in ``report["failed_inputs"]`` and
    warned of).
    Damaged records are skipped and counted in ``report``, as the CLI counts them.
    """

class RecordReader:
    """Reads records back from the places rows give (``file``, ``offset``, ``uoffset``: rows of
    ``records()``, ``crawlsift records``/``extract``, ``documents.jsonl.gz``, ``clusters.jsonl``,
    ``--text``), keeping files open and the inflate checkpoints of the gzip members it has read:
    many records of one file gzipped whole are read inflating it about once in all. Bounded: 64
    files, the checkpoints of 64 members."""

    def __init__(self) -> None: ...
    def record_at(
        self, path: Path, offset: int, uoffset: int = 0, payload: bool = False
    ) -> Record:
        """The record at ``offset`` / ``uoffset`` of the archive at ``path``, as ``records()``
        gives it. Raises ``FileNotFoundError`` when the file is gone, ``ValueError`` when no
        record starts there, ``OSError`` when it cannot be read."""

def record_at(path: Path, offset: int, uoffset: int = 0, payload: bool = False) -> Record:
    """The record at ``offset`` / ``uoffset`` of the archive at ``path`` (a new
    :class:`RecordReader` each call: read many with one reader)."""

@overload
def extract(
    html: Union[bytes, str],
    content_type: Optional[str] = None,
    method: str = "learned",
    *,
    format: None = None,
    metadata: bool = False,
    url: Optional[str] = None,
) -> Extracted: ...
@overload
def extract(
    html: Union[bytes, str],
    content_type: Optional[str] = None,
    method: str = "learned",
    *,
    format: Literal["txt", "json", "markdown", "xml"],
    metadata: bool = False,
    url: Optional[str] = None,
) -> str: ...
def extract(
    html: Union[bytes, str],
    content_type: Optional[str] = None,
    method: str = "learned",
    *,
    format: Optional[str] = None,
    metadata: bool = False,
    url: Optional[str] = None,
) -> Union[Extracted, str]:
    """The main text of one document, as ``crawlsift extract`` gives it.

    ``content_type`` is the HTTP ``Content-Type`` (its ``charset`` is honoured; an image, PDF,
    audio, video or other binary type gives no text). ``method``: ``learned`` (the CLI's
    default), ``blocks``, ``plateau`` or ``full``. Without ``format`` a dict (with
    ``metadata`` when ``metadata=True``); with ``format`` (``txt``, ``json``, ``markdown``,
    ``xml``) the string ``crawlsift extract --html FILE --format FORMAT [--with-metadata]``
    prints. ``url``: where the page was captured (the metadata may use it).

    Raises ``NoTextError`` (a ``ValueError``) for a document that gives no text, naming why;
    ``ValueError`` for an unknown method or format.
    """

def fingerprint(text: str) -> Fingerprint:
    """The fingerprint ``crawlsift dedup`` computes for a document's text, with its default
    settings."""

class Passage(TypedDict):
    """A passage two texts share: word ranges over each text's words (maximal runs of Unicode
    letters and digits) and character ranges in each text, end exclusive."""

    a_words: list[int]
    b_words: list[int]
    a_chars: list[int]
    b_chars: list[int]

class Reuse(TypedDict):
    """What two texts share, as a line of ``reuse.jsonl`` gives it."""

    a_share: float
    """Share of ``a_text``'s words inside the passages (near 1: ``a`` is mostly in ``b``)."""
    b_share: float
    passages: list[Passage]

def reuse(a_text: str, b_text: str, min_passage_words: int = 8) -> Reuse:
    """The passages two texts share, aligned as ``crawlsift reuse`` aligns a pair. Raises
    ``ValueError`` for ``min_passage_words=0``."""

def kernel_similarity(a_text: str, b_text: str, corpus: Iterable[str] | None = None) -> float:
    """The kernel similarity of two texts, in [0, 1]: ``stories.jsonl``'s measure (character
    3-gram kernels of letters and digits weighted by their commonality, counted over ``corpus``
    and the two texts). Raises ``TypeError`` when ``corpus`` is one string."""

class CrawlsiftError(Exception):
    """A crawlsift run could not finish; the message names the file (and byte offset) at fault."""

class UsageError(CrawlsiftError):
    """An argument or setting the run refuses, found before anything was read."""

class OutputExistsError(CrawlsiftError):
    """The output folder holds an earlier run's outputs: pass force=True to replace them."""

class ShardsError(CrawlsiftError):
    """The shards given to merge() are not the complete shards of one run."""

class DamagedError(CrawlsiftError):
    """A file the run reads back (a checkpoint, a shard's manifest, an index) is damaged."""

class InputOutputError(CrawlsiftError):
    """A file or folder cannot be found, opened, read, written or made."""

class RunInterrupted(CrawlsiftError):
    """The run was stopped before its outputs were written."""

class NoTextError(CrawlsiftError, ValueError):
    """The document gives no text (an image, a PDF, other binary content, an empty page)."""

class RunSummary(TypedDict, total=False):
    """What a ``shard()`` or ``merge()`` run did."""

    records: int
    record_errors: int
    failed_inputs: int
    skipped_inputs: dict[str, int]
    problems: bool
    """Whether an input had problems (the CLI's exit status 3)."""
    documents: int
    inputs: int
    clusters: int
    duplicates: int

def shard(
    inputs: Sequence[Path],
    index: int,
    count: int,
    out: Path,
    *,
    text: bool = False,
    threads: Optional[int] = None,
    method: Optional[str] = None,
    threshold: Optional[float] = None,
    min_words: Optional[int] = None,
    force: bool = False,
    quiet: bool = True,
) -> RunSummary:
    """Shard ``index`` of ``count`` of a dedup run over ``inputs`` (``crawlsift dedup INPUTS
    --out OUT --shard INDEX/COUNT``). Raises ``CrawlsiftError`` or a subclass when the run
    cannot finish (``OutputExistsError`` without ``force=True`` over an earlier run)."""

def merge(
    shards: Sequence[Path],
    out: Path,
    *,
    text: Optional[Path] = None,
    threads: Optional[int] = None,
    memory: Optional[int] = None,
    force: bool = False,
    quiet: bool = True,
) -> RunSummary:
    """Merges the shards of one run into the outputs of a single run (``crawlsift merge``).
    Raises ``ShardsError`` for an incomplete or mixed set of shards, ``OutputExistsError``
    without ``force=True`` over an earlier run, or another ``CrawlsiftError``."""
