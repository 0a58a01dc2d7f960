"""S3 through boto3: objects, ranges, conditional writes, copies, listings with
delimiters and continuation, batch deletes and multipart transfers, against moto and
the twin (tests/twin/differential.py)."""
from __future__ import annotations

import io
import os

from tests.twin.differential import Record, assert_same, client

BUCKET = "twin-bucket"


def test_objects_ranges_and_conditional_writes():
    def scenario():
        s3, log = client("s3"), Record()
        log.call(s3.create_bucket, Bucket=BUCKET)
        log.call(s3.head_bucket, Bucket=BUCKET)
        log.call(s3.head_bucket, Bucket="no-such-bucket")
        log.call(s3.get_bucket_location, Bucket=BUCKET)
        log.note([b["Name"] for b in s3.list_buckets()["Buckets"]])
        body = bytes(range(256)) * 4
        log.call(s3.put_object, Bucket=BUCKET, Key="a/b c+d", Body=body, ContentType="x/y",
                 Metadata={"who": "me"})
        log.call(s3.put_object, Bucket=BUCKET, Key="a/b c+d", Body=b"again", IfNoneMatch="*")
        log.call(s3.put_object, Bucket=BUCKET, Key="fresh", Body=b"new", IfNoneMatch="*")
        for header in ("bytes=0-9", "bytes=1000-", "bytes=-5", "bytes=5-2000", "bytes=2000-"):
            log.call(s3.get_object, Bucket=BUCKET, Key="a/b c+d", Range=header)
        log.call(s3.get_object, Bucket=BUCKET, Key="a/b c+d")
        log.call(s3.head_object, Bucket=BUCKET, Key="a/b c+d")
        log.call(s3.head_object, Bucket=BUCKET, Key="missing")
        log.call(s3.get_object, Bucket=BUCKET, Key="missing")
        log.call(s3.get_object, Bucket="no-such-bucket", Key="missing")
        log.call(s3.copy_object, Bucket=BUCKET, Key="copy", ChecksumAlgorithm="SHA256",
                 CopySource={"Bucket": BUCKET, "Key": "a/b c+d"})
        log.call(s3.head_object, Bucket=BUCKET, Key="copy", ChecksumMode="ENABLED")
        log.call(s3.copy_object, Bucket=BUCKET, Key="copy2",
                 CopySource={"Bucket": BUCKET, "Key": "missing"})
        log.call(s3.delete_object, Bucket=BUCKET, Key="copy")
        log.call(s3.delete_object, Bucket=BUCKET, Key="copy")
        log.call(s3.delete_bucket, Bucket=BUCKET)
        return log
    assert_same(scenario)


def test_listings_with_prefixes_delimiters_and_continuation():
    def scenario():
        s3, log = client("s3"), Record()
        s3.create_bucket(Bucket=BUCKET)
        keys = ["a/1", "a/2", "a/b/3", "a/b/4", "a/c/5", "b", "b/6", "c d/7", "é/8", "z+9"]
        for key in keys:
            s3.put_object(Bucket=BUCKET, Key=key, Body=key.encode())

        def listing(**kwargs):
            pages = s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, **kwargs)
            return [([c["Key"] for c in page.get("Contents", [])],
                     [p["Prefix"] for p in page.get("CommonPrefixes", [])],
                     page["KeyCount"], page["IsTruncated"]) for page in pages]

        log.note(listing())
        log.note(listing(Delimiter="/"))
        log.note(listing(Delimiter="/", Prefix="a/"))
        log.note(listing(Prefix="a/", PaginationConfig={"PageSize": 2}))
        log.note(listing(Delimiter="/", PaginationConfig={"PageSize": 1}))
        log.note(listing(StartAfter="a/b/4"))
        log.call(s3.list_objects_v2, Bucket=BUCKET, Prefix="nothing/")
        log.call(s3.delete_objects, Bucket=BUCKET, Delete={"Objects": [{"Key": "a/1"},
                                                                        {"Key": "absent"}]})
        log.call(s3.delete_objects, Bucket=BUCKET, Delete={
            "Objects": [{"Key": k} for k in keys]})
        log.note(listing())
        return log
    assert_same(scenario)


def test_multipart_transfers_and_their_errors():
    data = os.urandom(13 * 1024 * 1024)

    def scenario():
        s3, log = client("s3"), Record()
        s3.create_bucket(Bucket=BUCKET)
        s3.upload_fileobj(io.BytesIO(data), BUCKET, "big", ExtraArgs={"ContentType": "app/x"})
        head = s3.head_object(Bucket=BUCKET, Key="big")
        log.note([head["ContentLength"], head["ETag"], head["ContentType"]])
        out = io.BytesIO()
        s3.download_fileobj(BUCKET, "big", out)
        log.note(out.getvalue() == data)
        upload = s3.create_multipart_upload(Bucket=BUCKET, Key="parts")["UploadId"]
        small = s3.upload_part(Bucket=BUCKET, Key="parts", UploadId=upload, PartNumber=1,
                               Body=b"tiny")["ETag"]
        last = s3.upload_part(Bucket=BUCKET, Key="parts", UploadId=upload, PartNumber=2,
                              Body=b"end")["ETag"]
        log.call(s3.complete_multipart_upload, Bucket=BUCKET, Key="parts", UploadId=upload,
                 MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": last}]})
        log.call(s3.complete_multipart_upload, Bucket=BUCKET, Key="parts", UploadId=upload,
                 MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": small},
                                            {"PartNumber": 2, "ETag": last}]})
        log.call(s3.abort_multipart_upload, Bucket=BUCKET, Key="parts", UploadId=upload)
        log.call(s3.abort_multipart_upload, Bucket=BUCKET, Key="parts", UploadId=upload)
        return log
    assert_same(scenario)
