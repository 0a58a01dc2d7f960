"""Multipart uploads (what boto3's ``upload_fileobj`` does past 8 MB): create, upload
parts, complete (every part but the last at least 5 MiB, parts in order, ETags that
match) or abort.

A completed object's ETag is the MD5 of the parts' MD5s and ``-N``; its checksum, when
the upload named an algorithm, is either S3's composite one (the checksum of the
parts' checksums, ``-N``) or, for ``ChecksumType=FULL_OBJECT``, that of the whole.
"""
from __future__ import annotations

import base64
import hashlib
import uuid

from tests.twin.errors import Unsupported
from tests.twin.s3_data import (CHECKSUMS, Bucket, Stored, Upload, checksum, document, element,
                                error, given_checksums, kept_headers, md5_etag, parse_xml,
                                verify_checksums)
from tests.twin.transport import Request

MIN_PART = 5 * 1024 * 1024
MAX_PART_NUMBER = 10000


def _no_such_upload(upload_id: str):
    return error("NoSuchUpload", "The specified upload does not exist. The upload ID may be "
                 "invalid, or the upload may have been aborted or completed.", 404,
                 UploadId=upload_id)


def handle(bucket: Bucket, request: Request, key: str):
    method, query = request.method, request.query
    if method == "POST" and "uploads" in query:
        return create(bucket, request, key)
    upload = bucket.uploads.get(query.get("uploadId", ""))
    if upload is None or upload.key != key:
        raise _no_such_upload(query.get("uploadId", ""))
    if method == "PUT" and "partNumber" in query:
        if "x-amz-copy-source" in request.headers:
            raise Unsupported("s3", "UploadPartCopy")
        return upload_part(upload, request)
    if method == "POST":
        return complete(bucket, upload, request)
    if method == "DELETE":
        del bucket.uploads[upload.id]
        return 204, {}, b""
    raise Unsupported("s3", request.operation)


def create(bucket: Bucket, request: Request, key: str):
    algorithm = request.headers.get("x-amz-checksum-algorithm", "").upper() or None
    kind = request.headers.get("x-amz-checksum-type", "").upper() or None
    upload = Upload(uuid.uuid4().hex, key, kept_headers(request.headers), algorithm, kind)
    bucket.uploads[upload.id] = upload
    inner = element("Bucket", bucket.name) + element("Key", key) + element("UploadId", upload.id)
    headers = {"content-type": "application/xml"}
    if algorithm:
        headers["x-amz-checksum-algorithm"] = algorithm
    return 200, headers, document("InitiateMultipartUploadResult", inner)


def upload_part(upload: Upload, request: Request):
    try:
        number = int(request.query["partNumber"])
    except ValueError:
        number = 0
    if not 1 <= number <= MAX_PART_NUMBER:
        raise error("InvalidArgument", "Part number must be an integer between 1 and 10000, "
                    "inclusive", 400, ArgumentName="partNumber")
    data = request.body
    given = given_checksums(request.headers, request.trailers)
    verify_checksums(given, data)
    etag = md5_etag(data)
    part_checksum = given.get(upload.algorithm) if upload.algorithm else None
    if upload.algorithm and part_checksum is None:
        part_checksum = checksum(upload.algorithm, data)
    upload.parts[number] = (data, etag, part_checksum)
    headers = {"etag": etag}
    if part_checksum:
        headers["x-amz-checksum-" + upload.algorithm.lower()] = part_checksum
    return 200, headers, b""


def complete(bucket: Bucket, upload: Upload, request: Request):
    root = parse_xml(request.body)
    listed = [(int(p.findtext("PartNumber") or 0), (p.findtext("ETag") or "").strip())
              for p in root.findall("Part")]
    if not listed:
        raise error("MalformedXML", "The XML you provided was not well-formed or did not "
                    "validate against our published schema", 400)
    numbers = [n for n, _ in listed]
    if numbers != sorted(numbers) or len(set(numbers)) != len(numbers):
        raise error("InvalidPartOrder", "The list of parts was not in ascending order. The "
                    "parts list must be specified in order by part number.", 400)
    parts = []
    for number, etag in listed:
        part = upload.parts.get(number)
        if part is None or etag.strip('"') != part[1].strip('"'):
            raise error("InvalidPart", "One or more of the specified parts could not be found. "
                        "The part might not have been uploaded, or the specified entity tag "
                        "might not have matched the part's entity tag.", 400, UploadId=upload.id,
                        PartNumber=number, ETag=etag)
        parts.append(part)
    for data, _, _ in parts[:-1]:
        if len(data) < MIN_PART:
            raise error("EntityTooSmall", "Your proposed upload is smaller than the minimum "
                        "allowed object size.", 400, MinSizeAllowed=MIN_PART,
                        ProposedSize=len(data))
    data = b"".join(p[0] for p in parts)
    digest = hashlib.md5(b"".join(bytes.fromhex(p[1].strip('"')) for p in parts)).hexdigest()
    etag = f'"{digest}-{len(parts)}"'
    checksums, kind = {}, "FULL_OBJECT"
    if upload.algorithm:
        kind = upload.checksum_type or "COMPOSITE"
        if kind == "FULL_OBJECT":
            whole = given_checksums(request.headers, {})
            verify_checksums(whole, data)
            checksums[upload.algorithm] = whole.get(upload.algorithm) \
                or checksum(upload.algorithm, data)
        elif upload.algorithm in CHECKSUMS and all(p[2] for p in parts):
            joined = b"".join(base64.b64decode(p[2]) for p in parts)
            checksums[upload.algorithm] = f"{checksum(upload.algorithm, joined)}-{len(parts)}"
    stored = Stored(upload.key, data, etag, upload.headers, checksums=checksums,
                    checksum_type=kind, parts=len(parts))
    bucket.put(stored)
    del bucket.uploads[upload.id]
    inner = (element("Location", f"https://{bucket.name}.s3.amazonaws.com/{upload.key}")
             + element("Bucket", bucket.name) + element("Key", upload.key) + element("ETag", etag))
    inner += "".join(element("Checksum" + a, v) for a, v in checksums.items())
    if checksums:
        inner += element("ChecksumType", kind)
    return 200, {"content-type": "application/xml"}, document("CompleteMultipartUploadResult",
                                                              inner)
