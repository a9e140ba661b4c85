"""Type hints of crawlsift's native module."""

from os import PathLike
from typing import Iterator, Optional, Sequence, TypedDict, Union

__version__: str

class Record(TypedDict, total=False):
    file: str
    offset: int
    index: int
    type: str
    id: str
    url: Optional[str]
    date: Optional[str]
    content_type: Optional[str]
    http_status: Optional[int]
    payload_length: int
    payload: bytes

class Report(TypedDict):
    records: int
    bytes: int
    errors: dict[str, int]

class Records(Iterator[Record]):
    def __iter__(self) -> "Records": ...
    def __next__(self) -> Record: ...
    @property
    def report(self) -> Optional[Report]: ...

class Extracted(TypedDict):
    title: str
    text: str
    charset: str
    method: str

class Fingerprint(TypedDict):
    words: int
    exact: str
    simhash: int
    minhash: bytes
    adler32: int

def records(
    path: Union[str, "PathLike[str]"], payload: bool = False, threads: Optional[int] = None
) -> Records: ...
def extract(
    html: Union[bytes, str], content_type: Optional[str] = None, method: str = "blocks"
) -> Extracted: ...
def fingerprint(text: str) -> Fingerprint: ...

class CrawlsiftError(Exception): ...
class UsageError(CrawlsiftError): ...
class OutputExistsError(CrawlsiftError): ...
class ShardsError(CrawlsiftError): ...
class DamagedError(CrawlsiftError): ...
class InputOutputError(CrawlsiftError): ...
class RunInterrupted(CrawlsiftError): ...

class RunSummary(TypedDict, total=False):
    records: int
    record_errors: int
    failed_inputs: int
    skipped_inputs: dict[str, int]
    problems: bool
    documents: int
    inputs: int
    clusters: int
    duplicates: int

def shard(
    inputs: Sequence[Union[str, "PathLike[str]"]],
    index: int,
    count: int,
    out: Union[str, "PathLike[str]"],
    *,
    text: bool = False,
    threads: Optional[int] = None,
    method: Optional[str] = None,
    threshold: Optional[float] = None,
    min_words: Optional[int] = None,
    force: bool = False,
    quiet: bool = True,
) -> RunSummary: ...
def merge(
    shards: Sequence[Union[str, "PathLike[str]"]],
    out: Union[str, "PathLike[str]"],
    *,
    text: Optional[Union[str, "PathLike[str]"]] = None,
    threads: Optional[int] = None,
    memory: Optional[int] = None,
    force: bool = False,
    quiet: bool = True,
) -> RunSummary: ...
