"""Type hints of crawlsift's native module."""

from os import PathLike
from typing import Iterator, Optional, TypedDict, Union

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
def cli(args: list[str]) -> int: ...
