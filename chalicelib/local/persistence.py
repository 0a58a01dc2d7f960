"""Snapshots of the embedded moto's state, and restoring them.

moto 5 keeps nothing on disk, so the local runtime copies what it holds into plain
files.  It goes through the AWS APIs over loopback rather than moto's internals, so a
moto upgrade cannot silently change what is saved.  ``state.py`` decides where a
snapshot goes and when (generations, the journal in between); this module writes and
reads one.

One snapshot, in its folder ``<snap>`` (``<data>`` is the data dir)::

    <snap>/dynamodb/<table>.jsonl       a table's base and, beside it, <table>.deltas/:
                                        layout in table_snapshot.py
    <snap>/s3/<bucket>/manifest.json    {"bucket", "region", "objects": {<key>: {"blob",
                                        "etag", "size", "put": {ContentType, Metadata,
                                        ...: PutObject arguments}}}}
    <snap>/sqs.json                     [{"name", "attributes"}]: queue definitions only;
                                        messages in flight are not kept
    <snap>/ssm.json                     [{PutParameter arguments}], SecureStrings decrypted
    <data>/s3/<bucket>/blobs/<hh>/<h>   an object's bytes, shared by all snapshots;
                                        h = sha256(key NUL etag) in hex, hh its first two
                                        digits (keys may hold '/', odd characters and up
                                        to 1024 bytes: never filenames)

Every file is written under a temporary name, fsynced, renamed into place, and its
directory fsynced.  Blob names include the ETag, so a new version of an object never
overwrites a blob an older snapshot names; an object whose ETag and size are unchanged
since the previous snapshot is not copied again, so large git packs are written once.
"""
from __future__ import annotations

import hashlib
import logging
import os
import time
from pathlib import Path
from typing import IO, Any, Callable, Iterable

from botocore.exceptions import ClientError

from chalicelib.local import table_snapshot
from chalicelib.local.files import atomic_write, chunks, fsync_dir, read_json, write_json
from chalicelib.local.journal import read_records

log = logging.getLogger("nimbus.local")

# PutObject arguments that GetObject reports and a restored object should keep.
_OBJECT_FIELDS = ("ContentType", "ContentEncoding", "ContentDisposition", "ContentLanguage",
                  "CacheControl", "Metadata")
# Queue attributes that SQS computes; CreateQueue refuses them.
_COMPUTED_QUEUE_ATTRIBUTES = frozenset({
    "QueueArn", "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
    "ApproximateNumberOfMessagesDelayed", "CreatedTimestamp", "LastModifiedTimestamp"})
_PARAMETER_FIELDS = ("Description", "KeyId", "Tier", "AllowedPattern", "DataType")
_GET_PARAMETERS_LIMIT = 10
_COPY_CHUNK = 1 << 20


# Each service's files in a snapshot folder (glob patterns).
_SERVICE_FILES = {"dynamodb": "dynamodb/**/*.jsonl", "s3": "s3/*/manifest.json",
                  "sqs": "sqs.json", "ssm": "ssm.json"}


def _link_files(source: Path, target: Path, pattern: str, dirs: set[Path]) -> None:
    for path in Path(source).glob(pattern):
        if path.name.startswith("."):
            continue  # a leftover temporary file
        copy = target / path.relative_to(source)
        copy.parent.mkdir(parents=True, exist_ok=True)
        os.link(path, copy)
        dirs.add(copy.parent)


class SnapshotTimeout(Exception):
    """A snapshot ran past its deadline and was abandoned unfinished."""


def _checker(deadline: float | None) -> Callable[[], None]:
    """A function that raises :class:`SnapshotTimeout` once ``deadline`` (a
    ``time.monotonic()`` value) has passed; called between the steps of a snapshot."""
    def check() -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise SnapshotTimeout("snapshot abandoned: out of time")
    return check


# -- S3 --------------------------------------------------------------------------------

def blob_name(key: str, etag: str) -> str:
    digest = hashlib.sha256(key.encode("utf-8") + b"\0" + etag.encode("utf-8")).hexdigest()
    return f"{digest[:2]}/{digest}"


def _copy_object(s3, bucket: str, key: str, blobs: Path, dirs: set[Path]) -> dict | None:
    """Save one object's bytes; its manifest entry, or None if it vanished meanwhile."""
    try:
        obj = s3.get_object(Bucket=bucket, Key=key)
    except ClientError as exc:
        if exc.response["Error"]["Code"] in ("NoSuchKey", "404"):
            return None
        raise
    body = obj["Body"]
    blob = blob_name(key, obj["ETag"])

    def copy(fh: IO[bytes]) -> None:
        for chunk in body.iter_chunks(_COPY_CHUNK):
            fh.write(chunk)

    try:
        if not (blobs / blob).exists():  # this version is on disk already
            atomic_write(blobs / blob, copy, dirs)
    finally:
        body.close()
    return {"blob": blob, "etag": obj["ETag"], "size": obj["ContentLength"],
            "put": {k: obj[k] for k in _OBJECT_FIELDS if obj.get(k)}}


def _save_bucket(s3, bucket: str, manifest_path: Path, previous: dict, blobs: Path,
                 dirs: set[Path], check: Callable) -> None:
    """``previous``: the objects of the last snapshot's manifest (copied only if changed)."""
    objects = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for listed in page.get("Contents", []):
            check()
            key = listed["Key"]
            kept = previous.get(key)
            if (kept and kept["etag"] == listed["ETag"] and kept["size"] == listed["Size"]
                    and (blobs / kept["blob"]).exists()):
                objects[key] = kept
            elif entry := _copy_object(s3, bucket, key, blobs, dirs):
                objects[key] = entry
    region = s3.get_bucket_location(Bucket=bucket).get("LocationConstraint")
    write_json(manifest_path, {"bucket": bucket, "region": region, "objects": objects}, dirs)


def _restore_bucket(s3, manifest: dict, blobs: Path) -> None:
    bucket, region = manifest["bucket"], manifest.get("region")
    create = {"Bucket": bucket}
    if region and region != "us-east-1":
        create["CreateBucketConfiguration"] = {"LocationConstraint": region}
    s3.create_bucket(**create)
    for key, entry in manifest["objects"].items():
        try:
            with open(blobs / entry["blob"], "rb") as fh:
                s3.put_object(Bucket=bucket, Key=key, Body=fh, **entry["put"])
        except FileNotFoundError:
            log.warning("s3://%s/%s: its saved copy is missing; not restored", bucket, key)


# -- the snapshot as a whole -----------------------------------------------------------

class Snapshots:
    """Saves moto's state into a snapshot folder and restores it from one (layout: module
    docstring).  ``blob_root`` is ``<data>/s3``; ``client(service)`` returns a boto3
    client of the moto to save from / restore into."""

    def __init__(self, blob_root: Path, client: Callable[[str], Any]):
        self.blob_root = Path(blob_root)
        self._client = client

    def blobs(self, bucket: str) -> Path:
        return self.blob_root / bucket / "blobs"

    @staticmethod
    def manifests(folder: Path) -> dict[str, dict]:
        """The S3 manifests of the snapshot in ``folder``, by bucket."""
        found = {}
        for path in sorted(Path(folder).glob("s3/*/manifest.json")):
            manifest = read_json(path, None)
            if manifest is not None:
                found[manifest["bucket"]] = manifest
        return found

    def restore(self, folder: Path) -> None:
        """Load the snapshot in ``folder`` into an empty moto."""
        folder = Path(folder)
        self._restore_queues(folder)
        for parameter in read_json(folder / "ssm.json", []):
            self._client("ssm").put_parameter(**parameter, Overwrite=True)
        for path in sorted((folder / "dynamodb").glob("*.jsonl")):
            table_snapshot.restore_table(self._client("dynamodb"), path)
        for bucket, manifest in self.manifests(folder).items():
            _restore_bucket(self._client("s3"), manifest, self.blobs(bucket))

    def save(self, folder: Path, previous: Path | None, changed: Iterable[str] | None = None,
             deadline: float | None = None, journal: Path | None = None) -> None:
        """Write the whole state into the empty ``folder``.  ``previous`` is the last
        snapshot's folder: a service not in ``changed`` (None: all changed) since then
        keeps its files from there (hard links: saved files are never modified), and
        objects it holds unchanged are not copied again; ``journal`` (the writes since
        ``previous``) lets a table be saved as a delta (``table_snapshot.py``).  Raises
        :class:`SnapshotTimeout` (leaving ``folder`` unfinished) once past ``deadline``."""
        folder = Path(folder)
        dirs: set[Path] = {folder}
        check = _checker(deadline)
        changed = set(_SERVICE_FILES) if changed is None or previous is None else set(changed)
        # DynamoDB before S3: a push writes its pack before it moves refs, so an S3
        # copy taken after the table copy holds every pack the saved refs point to.
        savers = {"dynamodb": lambda: table_snapshot.save_tables(
                      self._client("dynamodb"), folder, previous,
                      read_records(journal) if journal is not None else None, dirs, check),
                  "s3": lambda: self._save_buckets(folder, previous, dirs, check),
                  "sqs": lambda: self._save_queues(folder, dirs),
                  "ssm": lambda: self._save_parameters(folder, dirs)}
        for service, save in savers.items():
            check()
            if service in changed:
                save()
            else:
                _link_files(previous, folder, _SERVICE_FILES[service], dirs)
        for path in sorted(dirs, key=lambda p: len(p.parts), reverse=True):
            fsync_dir(path)  # children before parents

    def _save_buckets(self, folder: Path, previous: Path | None, dirs: set[Path],
                      check: Callable) -> None:
        s3 = self._client("s3")
        before = self.manifests(previous) if previous else {}
        for listed in s3.list_buckets().get("Buckets", []):
            bucket = listed["Name"]
            _save_bucket(s3, bucket, folder / "s3" / bucket / "manifest.json",
                         before.get(bucket, {}).get("objects", {}), self.blobs(bucket), dirs,
                         check)

    def _save_queues(self, folder: Path, dirs: set[Path]) -> None:
        sqs = self._client("sqs")
        queues = []
        for page in sqs.get_paginator("list_queues").paginate():
            for url in page.get("QueueUrls", []):
                attributes = sqs.get_queue_attributes(
                    QueueUrl=url, AttributeNames=["All"]).get("Attributes", {})
                queues.append({"name": url.rsplit("/", 1)[1], "attributes": {
                    k: v for k, v in attributes.items() if k not in _COMPUTED_QUEUE_ATTRIBUTES}})
        write_json(folder / "sqs.json", sorted(queues, key=lambda q: q["name"]), dirs)

    def _restore_queues(self, folder: Path) -> None:
        sqs = self._client("sqs")
        queues = read_json(folder / "sqs.json", [])
        # Dead-letter queues first: a RedrivePolicy must name an existing queue.
        for queue in sorted(queues, key=lambda q: "RedrivePolicy" in q["attributes"]):
            sqs.create_queue(QueueName=queue["name"], Attributes=queue["attributes"])

    def _save_parameters(self, folder: Path, dirs: set[Path]) -> None:
        ssm = self._client("ssm")
        described = {p["Name"]: p for page in ssm.get_paginator("describe_parameters").paginate()
                     for p in page["Parameters"]}
        parameters = []
        for names in chunks(sorted(described), _GET_PARAMETERS_LIMIT):
            for found in ssm.get_parameters(Names=names, WithDecryption=True)["Parameters"]:
                meta = described[found["Name"]]
                parameter = {"Name": found["Name"], "Value": found["Value"], "Type": found["Type"]}
                parameter.update({k: meta[k] for k in _PARAMETER_FIELDS if meta.get(k)})
                parameters.append(parameter)
        write_json(folder / "ssm.json", sorted(parameters, key=lambda p: p["Name"]), dirs)
