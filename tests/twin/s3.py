"""S3 in memory, on its REST-XML protocol: buckets and objects (ranges, conditional
writes, copies, batch deletes); listings are in ``s3_listing.py`` and multipart
uploads in ``s3_multipart.py``.

The operation is told from the HTTP request as S3 tells it (method, bucket, key and
query string); the bucket comes from the host (virtual-host style, botocore's default
for AWS endpoints) or else from the first path segment.  One lock per service makes
every request atomic.
"""
from __future__ import annotations

import base64
import hashlib
import re
import threading
from urllib.parse import unquote

from tests.twin import s3_listing, s3_multipart
from tests.twin.errors import ServiceError, Unsupported
from tests.twin.s3_data import (OWNER_ID, Bucket, Stored, checksum, checksum_headers, document,
                                element, error, error_document, given_checksums, http_date,
                                iso_date, kept_headers, md5_etag, no_such_bucket, no_such_key,
                                parse_xml, verify_checksums)
from tests.twin.transport import Request, respond

_VIRTUAL_HOST = re.compile(r"^(?P<bucket>.+)\.s3(?:[.-][a-z0-9-]+)*\.amazonaws\.com$")
_BUCKET_NAME = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")
_RESPONSE_OVERRIDES = {"response-content-type": "content-type",
                       "response-content-disposition": "content-disposition",
                       "response-content-encoding": "content-encoding",
                       "response-content-language": "content-language",
                       "response-cache-control": "cache-control",
                       "response-expires": "expires"}


class S3:
    def __init__(self, region: str = "us-east-1"):
        self.region = region
        self.buckets: dict[str, Bucket] = {}
        self.lock = threading.Lock()

    # -- routing
    def answer(self, request: Request):
        match = _VIRTUAL_HOST.match(request.host)
        if match:
            bucket, key = match.group("bucket"), request.path[1:]
        else:
            bucket, _, key = request.path[1:].partition("/")
        try:
            with self.lock:
                status, headers, body = self.dispatch(request, bucket, key)
        except ServiceError as err:
            headers = {"content-type": "application/xml"}
            if request.method == "HEAD":
                return respond(request.url, err.status, headers, b"")
            return respond(request.url, err.status, headers, error_document(err, "twin"))
        return respond(request.url, status, headers, body)

    def dispatch(self, request: Request, bucket: str, key: str):
        method, query = request.method, request.query
        if not bucket:
            if method == "GET":
                return self.list_buckets()
            raise Unsupported("s3", request.operation)
        if not key:
            if method == "PUT" and not query:
                return self.create_bucket(request, bucket)
            found = self.bucket(bucket)
            if method == "HEAD":
                return 200, {"x-amz-bucket-region": found.region}, b""
            if method == "DELETE" and not query:
                return self.delete_bucket(found)
            if method == "GET" and "location" in query:
                constraint = "" if found.region == "us-east-1" else found.region
                return 200, {}, document("LocationConstraint", constraint)
            if method == "GET" and set(query) <= s3_listing.LIST_PARAMETERS:
                return s3_listing.list_objects(found, query)
            if method == "POST" and "delete" in query:
                return self.delete_objects(found, request)
            raise Unsupported("s3", request.operation)
        found = self.bucket(bucket)
        if "uploads" in query or "uploadId" in query:
            return s3_multipart.handle(found, request, key)
        if query and set(query) - set(_RESPONSE_OVERRIDES) - {"versionId", "x-id"}:
            raise Unsupported("s3", request.operation, f"query {sorted(query)}")
        if method == "PUT" and "x-amz-copy-source" in request.headers:
            return self.copy_object(found, request, key)
        if method == "PUT":
            return self.put_object(found, request, key)
        if method in ("GET", "HEAD"):
            return self.get_object(found, request, key)
        if method == "DELETE":
            found.delete(key)
            return 204, {}, b""
        raise Unsupported("s3", request.operation)

    def bucket(self, name: str) -> Bucket:
        found = self.buckets.get(name)
        if found is None:
            raise no_such_bucket(name)
        return found

    # -- buckets
    def list_buckets(self):
        inner = f"<Owner>{element('ID', OWNER_ID)}</Owner><Buckets>"
        inner += "".join(f"<Bucket>{element('Name', b.name)}"
                         f"{element('CreationDate', iso_date(b.created))}</Bucket>"
                         for b in sorted(self.buckets.values(), key=lambda b: b.name))
        return 200, {"content-type": "application/xml"}, document("ListAllMyBucketsResult",
                                                                  inner + "</Buckets>")

    def create_bucket(self, request: Request, name: str):
        if not _BUCKET_NAME.match(name) or ".." in name:
            raise error("InvalidBucketName", "The specified bucket is not valid.", 400,
                        BucketName=name)
        region = "us-east-1"
        if request.body.strip():
            constraint = parse_xml(request.body).find("LocationConstraint")
            region = constraint.text if constraint is not None and constraint.text else region
        if name in self.buckets:
            # S3 answers 200 to re-creating your own bucket in us-east-1 (legacy).
            if region == "us-east-1" and self.buckets[name].region == "us-east-1":
                return 200, {"location": "/" + name}, b""
            raise error("BucketAlreadyOwnedByYou", "Your previous request to create the named "
                        "bucket succeeded and you already own it.", 409, BucketName=name)
        self.buckets[name] = Bucket(name, region)
        return 200, {"location": "/" + name}, b""

    def delete_bucket(self, bucket: Bucket):
        if bucket.objects:
            raise error("BucketNotEmpty", "The bucket you tried to delete is not empty", 409,
                        BucketName=bucket.name)
        del self.buckets[bucket.name]
        return 204, {}, b""

    # -- objects
    def put_object(self, bucket: Bucket, request: Request, key: str):
        headers, data = request.headers, request.body
        if "content-md5" in headers:
            if base64.b64encode(hashlib.md5(data).digest()).decode() != headers["content-md5"]:
                raise error("BadDigest", "The Content-MD5 you specified did not match what we "
                            "received.", 400)
        given = given_checksums(headers, request.trailers)
        verify_checksums(given, data)
        self.preconditions(bucket, key, headers)
        stored = Stored(key, data, md5_etag(data), kept_headers(headers), checksums=given)
        bucket.put(stored)
        out = {"etag": stored.etag}
        out.update(checksum_headers(stored))
        return 200, out, b""

    def preconditions(self, bucket: Bucket, key: str, headers: dict) -> None:
        """PutObject's If-None-Match: * and If-Match (conditional writes)."""
        existing = bucket.objects.get(key)
        if headers.get("if-none-match") == "*" and existing is not None:
            raise error("PreconditionFailed", "At least one of the pre-conditions you "
                        "specified did not hold", 412, Condition="If-None-Match")
        if "if-match" in headers:
            if existing is None:
                raise no_such_key(key)
            if headers["if-match"] not in (existing.etag, existing.etag.strip('"'), "*"):
                raise error("PreconditionFailed", "At least one of the pre-conditions you "
                            "specified did not hold", 412, Condition="If-Match")

    def get_object(self, bucket: Bucket, request: Request, key: str):
        stored = bucket.objects.get(key)
        if stored is None:
            raise no_such_key(key)
        headers = request.headers
        if "if-match" in headers and headers["if-match"] not in (stored.etag, "*"):
            raise error("PreconditionFailed", "At least one of the pre-conditions you "
                        "specified did not hold", 412, Condition="If-Match")
        if "if-none-match" in headers and headers["if-none-match"] in (stored.etag, "*"):
            return 304, {"etag": stored.etag}, b""
        out = dict(stored.headers)
        out.setdefault("content-type", "binary/octet-stream")
        for parameter, header in _RESPONSE_OVERRIDES.items():
            if parameter in request.query:
                out[header] = request.query[parameter]
        out.update({"etag": stored.etag, "last-modified": http_date(stored.modified),
                    "accept-ranges": "bytes"})
        if stored.parts:
            out["x-amz-mp-parts-count"] = str(stored.parts)
        data, status = stored.data, 200
        wanted = byte_range(headers.get("range"), len(data))
        if wanted is not None:
            start, end = wanted
            out["content-range"] = f"bytes {start}-{end}/{len(data)}"
            data, status = data[start:end + 1], 206
        elif headers.get("x-amz-checksum-mode", "").upper() == "ENABLED":
            out.update(checksum_headers(stored))
        out["content-length"] = str(len(data))
        return status, out, b"" if request.method == "HEAD" else data

    def copy_object(self, bucket: Bucket, request: Request, key: str):
        source = unquote(request.headers["x-amz-copy-source"]).lstrip("/")
        source, _, version = source.partition("?")
        source_bucket, _, source_key = source.partition("/")
        original = self.bucket(source_bucket).objects.get(source_key)
        if original is None:
            raise no_such_key(source_key)
        headers = request.headers
        directive = headers.get("x-amz-metadata-directive", "COPY").upper()
        algorithm = headers.get("x-amz-checksum-algorithm", "").upper()
        if (source_bucket, source_key) == (bucket.name, key) and directive != "REPLACE" \
                and not algorithm:
            raise error("InvalidRequest", "This copy request is illegal because it is trying to "
                        "copy an object to itself without changing the object's metadata, "
                        "storage class, website redirect location or encryption attributes.", 400)
        kept = dict(original.headers) if directive == "COPY" else kept_headers(headers)
        checksums = dict(original.checksums) if original.checksum_type == "FULL_OBJECT" else {}
        if algorithm:
            checksums = {algorithm: checksum(algorithm, original.data)}
        stored = Stored(key, original.data, original.etag if not original.parts
                        else md5_etag(original.data), kept, checksums=checksums)
        bucket.put(stored)
        inner = element("LastModified", iso_date(stored.modified)) + element("ETag", stored.etag)
        inner += "".join(element("Checksum" + a, v) for a, v in checksums.items() if v)
        return 200, {"content-type": "application/xml"}, document("CopyObjectResult", inner)

    def delete_objects(self, bucket: Bucket, request: Request):
        root = parse_xml(request.body)
        quiet = (root.findtext("Quiet") or "").strip().lower() == "true"
        keys = [node.findtext("Key") for node in root.findall("Object")]
        if not keys or len(keys) > 1000:
            raise error("MalformedXML", "The XML you provided was not well-formed or did not "
                        "validate against our published schema", 400)
        inner = ""
        for key in keys:
            bucket.delete(key)
            if not quiet:
                inner += f"<Deleted>{element('Key', key)}</Deleted>"
        return 200, {"content-type": "application/xml"}, document("DeleteResult", inner)


def byte_range(header: str | None, size: int):
    """(first, last) byte of a ``Range`` header, None to send the whole object; S3
    ignores what it cannot parse (several ranges included) and refuses a range that
    starts past the end (416)."""
    match = _RANGE.match(header or "")
    if not match or match.group(1) == match.group(2) == "":
        return None
    first, last = match.groups()
    if first == "":
        length = int(last)
        if length == 0 or size == 0:
            raise error("InvalidRange", "The requested range is not satisfiable", 416,
                        RangeRequested=header, ActualObjectSize=size)
        return max(0, size - length), size - 1
    start = int(first)
    end = size - 1 if last == "" else min(int(last), size - 1)
    if last != "" and int(last) < start:
        return None
    if start >= size:
        raise error("InvalidRange", "The requested range is not satisfiable", 416,
                    RangeRequested=header, ActualObjectSize=size)
    return start, end
