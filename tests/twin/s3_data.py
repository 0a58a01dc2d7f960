"""What the S3 twin stores (buckets, objects, multipart uploads) and the small pieces
of S3's protocol its modules share: checksums, timestamps and XML.

Object bytes are immutable ``bytes``: a GetObject answers with the stored value, so
an overwrite while a reader streams never changes what the reader sees (as in S3).
"""
from __future__ import annotations

import base64
import bisect
import email.utils
import hashlib
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from xml.etree import ElementTree
from xml.sax.saxutils import escape

from tests.twin.errors import ServiceError

NAMESPACE = "http://s3.amazonaws.com/doc/2006-03-01/"
OWNER_ID = "75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a"
# The flexible checksums the twin can compute; CRC32C and CRC64NVME are stored as sent.
CHECKSUMS = {
    "CRC32": lambda data: zlib.crc32(data).to_bytes(4, "big"),
    "SHA1": lambda data: hashlib.sha1(data).digest(),
    "SHA256": lambda data: hashlib.sha256(data).digest(),
}
ALGORITHMS = ("CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256")
# Headers kept with an object and answered back as they were given.
STORED_HEADERS = ("content-type", "content-disposition", "content-encoding", "content-language",
                  "cache-control", "expires", "x-amz-website-redirect-location")


@dataclass
class Stored:
    key: str
    data: bytes
    etag: str                           # with its quotes, as S3 sends it
    headers: dict                       # STORED_HEADERS and x-amz-meta-*
    modified: float = field(default_factory=time.time)
    checksums: dict = field(default_factory=dict)       # algorithm -> base64 (or "x-N")
    checksum_type: str = "FULL_OBJECT"
    parts: int = 0


@dataclass
class Upload:
    id: str
    key: str
    headers: dict
    algorithm: str | None
    checksum_type: str | None
    parts: dict = field(default_factory=dict)    # number -> (data, etag, checksum or None)


class Bucket:
    def __init__(self, name: str, region: str):
        self.name, self.region = name, region
        self.created = time.time()
        self.objects: dict[str, Stored] = {}
        self.keys: list[str] = []       # sorted: listings (str order is UTF-8 byte order)
        self.uploads: dict[str, Upload] = {}

    def put(self, stored: Stored) -> None:
        if stored.key not in self.objects:
            bisect.insort(self.keys, stored.key)
        self.objects[stored.key] = stored

    def delete(self, key: str) -> None:
        if self.objects.pop(key, None) is not None:
            del self.keys[bisect.bisect_left(self.keys, key)]


def error(code: str, message: str, status: int, **fields) -> ServiceError:
    return ServiceError(code, message, status, **fields)


def no_such_key(key: str) -> ServiceError:
    return error("NoSuchKey", "The specified key does not exist.", 404, Key=key)


def no_such_bucket(name: str) -> ServiceError:
    return error("NoSuchBucket", "The specified bucket does not exist", 404, BucketName=name)


def md5_etag(data: bytes) -> str:
    return '"' + hashlib.md5(data).hexdigest() + '"'


def checksum(algorithm: str, data: bytes) -> str | None:
    compute = CHECKSUMS.get(algorithm)
    return base64.b64encode(compute(data)).decode("ascii") if compute else None


def given_checksums(headers: dict, trailers: dict) -> dict:
    """The ``x-amz-checksum-*`` values a request carries (header or trailer)."""
    found = {}
    for algorithm in ALGORITHMS:
        name = "x-amz-checksum-" + algorithm.lower()
        value = trailers.get(name) or headers.get(name)
        if value:
            found[algorithm] = value
    return found


def verify_checksums(given: dict, data: bytes) -> None:
    for algorithm, value in given.items():
        computed = checksum(algorithm, data)
        if computed is not None and computed != value:
            raise error("BadDigest", f"The {algorithm} you specified did not match the "
                        "calculated checksum.", 400)


def http_date(moment: float) -> str:
    return email.utils.formatdate(int(moment), usegmt=True)


def iso_date(moment: float) -> str:
    stamp = datetime.fromtimestamp(moment, timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


def element(name: str, value) -> str:
    if isinstance(value, bool):
        value = "true" if value else "false"
    return f"<{name}>{escape(str(value))}</{name}>"


def document(root: str, inner: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<{root} xmlns="{NAMESPACE}">{inner}'
            f"</{root}>").encode("utf-8")


def error_document(err: ServiceError, request_id: str) -> bytes:
    inner = element("Code", err.code) + element("Message", err.message) + "".join(
        element(k, v) for k, v in err.fields.items()) + element("RequestId", request_id)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<Error>{inner}</Error>'.encode("utf-8")


def parse_xml(body: bytes) -> ElementTree.Element:
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError:
        raise error("MalformedXML", "The XML you provided was not well-formed or did not "
                    "validate against our published schema", 400) from None
    for node in root.iter():
        node.tag = node.tag.rpartition("}")[2]      # drop the namespace
    return root


def kept_headers(headers: dict) -> dict:
    kept = {name: value for name, value in headers.items()
            if name in STORED_HEADERS or name.startswith("x-amz-meta-")}
    # aws-chunked is how the body travelled, not how it is stored.
    encoding = ",".join(e for e in kept.pop("content-encoding", "").split(",")
                        if e.strip() and e.strip() != "aws-chunked")
    if encoding:
        kept["content-encoding"] = encoding
    return kept


def checksum_headers(stored: Stored) -> dict:
    out = {"x-amz-checksum-" + a.lower(): v for a, v in stored.checksums.items() if v}
    if out and stored.checksum_type != "FULL_OBJECT":
        out["x-amz-checksum-type"] = stored.checksum_type
    return out
