"""Snapshots of the embedded moto's state in the data dir, and restoring them at start.

moto 5 keeps nothing on disk, so the local runtime copies what it holds into plain
files.  It goes through the AWS APIs over loopback rather than moto's internals, so a
moto upgrade cannot silently change what is saved.

On-disk layout (``<data>`` is ``$NIMBUS_DATA_DIR``, default ``./.nimbus``)::

    <data>/lock                         flock()ed by the process using the data dir
    <data>/dynamodb/<table>.jsonl       line 1: {"table": <CreateTable arguments, GSIs
                                        and LSIs included>, "ttl_attribute": name|null};
                                        then one item per line in DynamoDB's JSON
                                        ({"pk": {"S": ...}}; B and BS values base64)
    <data>/s3/<bucket>/manifest.json    {"bucket", "region", "objects": {<key>: {"blob",
                                        "etag", "size", "put": {ContentType, Metadata,
                                        ...: PutObject arguments}}}}
    <data>/s3/<bucket>/blobs/<hh>/<h>   an object's bytes; h = sha256(key NUL etag) in hex,
                                        hh its first two digits (keys may hold '/', odd
                                        characters and up to 1024 bytes: never filenames)
    <data>/sqs.json                     [{"name", "attributes"}]: queue definitions only;
                                        messages in flight are not kept
    <data>/ssm.json                     [{PutParameter arguments}], SecureStrings decrypted

Crash safety: every file is written under a temporary name in its directory, fsynced,
then renamed over the old one (os.replace), so a crash leaves the old version or the
new one, never half a file.  Blob names include the ETag, so a new version of an
object never overwrites the blob the current manifest names; the manifest is replaced
only after its blobs are complete, and superseded blobs are deleted after that.
Leftovers of a crash (temporary files, unreferenced blobs) are swept at restore.
Objects are copied only when their ETag or size changed, so large git packs are
written once.
"""
from __future__ import annotations

import base64
import hashlib
import itertools
import json
import logging
import os
import shutil
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator

from botocore.exceptions import ClientError

log = logging.getLogger("nimbus.local")

TMP_SUFFIX = ".tmp"
# PutObject arguments that GetObject reports and a restored object should keep.
_OBJECT_FIELDS = ("ContentType", "ContentEncoding", "ContentDisposition", "ContentLanguage",
                  "CacheControl", "Metadata")
# Queue attributes that SQS computes; CreateQueue refuses them.
_COMPUTED_QUEUE_ATTRIBUTES = frozenset({
    "QueueArn", "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
    "ApproximateNumberOfMessagesDelayed", "CreatedTimestamp", "LastModifiedTimestamp"})
_PARAMETER_FIELDS = ("Description", "KeyId", "Tier", "AllowedPattern", "DataType")
_BATCH_WRITE_LIMIT = 25
_GET_PARAMETERS_LIMIT = 10
_COPY_CHUNK = 1 << 20


# -- files -----------------------------------------------------------------------------

def atomic_write(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write ``path`` through ``write(fh)`` so that readers never see a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}{TMP_SUFFIX}")
    try:
        with open(tmp, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _write_json(path: Path, data: Any) -> None:
    atomic_write(path, lambda fh: fh.write(json.dumps(data, indent=1, sort_keys=True).encode()))


def _read_json(path: Path, default: Any) -> Any:
    try:
        return json.loads(path.read_bytes())
    except FileNotFoundError:
        return default


def _chunks(items: Iterable, size: int) -> Iterator[list]:
    iterator = iter(items)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk


# -- DynamoDB --------------------------------------------------------------------------

def _map_binary(value: dict, convert: Callable) -> dict:
    """Apply ``convert`` to the binary parts of an AttributeValue (bytes <-> base64)."""
    (kind, inner), = value.items()
    if kind == "B":
        return {"B": convert(inner)}
    if kind == "BS":
        return {"BS": [convert(v) for v in inner]}
    if kind == "M":
        return {"M": {k: _map_binary(v, convert) for k, v in inner.items()}}
    if kind == "L":
        return {"L": [_map_binary(v, convert) for v in inner]}
    return value


def _item_to_json(item: dict) -> str:
    encode = lambda b: base64.b64encode(b).decode("ascii")  # noqa: E731
    return json.dumps({k: _map_binary(v, encode) for k, v in item.items()})


def _item_from_json(line: str) -> dict:
    return {k: _map_binary(v, base64.b64decode) for k, v in json.loads(line).items()}


def _create_table_arguments(table: dict) -> dict:
    """CreateTable arguments that rebuild ``table`` (a DescribeTable answer)."""
    on_demand = table.get("BillingModeSummary", {}).get("BillingMode") == "PAY_PER_REQUEST"

    def capacity(described: dict) -> dict:
        throughput = described["ProvisionedThroughput"]
        return {"ProvisionedThroughput": {
            "ReadCapacityUnits": throughput["ReadCapacityUnits"],
            "WriteCapacityUnits": throughput["WriteCapacityUnits"]}}

    args = {"TableName": table["TableName"], "KeySchema": table["KeySchema"],
            "AttributeDefinitions": table["AttributeDefinitions"]}
    args.update({"BillingMode": "PAY_PER_REQUEST"} if on_demand else capacity(table))
    for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        indexes = []
        for index in table.get(kind) or []:
            spec = {k: index[k] for k in ("IndexName", "KeySchema", "Projection")}
            if kind == "GlobalSecondaryIndexes" and not on_demand:
                spec.update(capacity(index))
            indexes.append(spec)
        if indexes:
            args[kind] = indexes
    stream = table.get("StreamSpecification")
    if stream and stream.get("StreamEnabled"):
        args["StreamSpecification"] = stream
    return args


def _save_table(ddb, name: str, path: Path) -> None:
    table = ddb.describe_table(TableName=name)["Table"]
    ttl = ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    header = {"table": _create_table_arguments(table),
              "ttl_attribute": ttl.get("AttributeName")
              if ttl.get("TimeToLiveStatus") in ("ENABLED", "ENABLING") else None}

    def write(fh: IO[bytes]) -> None:
        fh.write((json.dumps(header) + "\n").encode())
        for page in ddb.get_paginator("scan").paginate(TableName=name, ConsistentRead=True):
            for item in page["Items"]:
                fh.write((_item_to_json(item) + "\n").encode())

    atomic_write(path, write)


def _restore_table(ddb, path: Path) -> None:
    with open(path, encoding="utf-8") as fh:
        header = json.loads(fh.readline())
        name = header["table"]["TableName"]
        ddb.create_table(**header["table"])
        if header.get("ttl_attribute"):
            ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
                "Enabled": True, "AttributeName": header["ttl_attribute"]})
        items = (_item_from_json(line) for line in fh if line.strip())
        for chunk in _chunks(items, _BATCH_WRITE_LIMIT):
            pending = {name: [{"PutRequest": {"Item": item}} for item in chunk]}
            while pending:
                pending = ddb.batch_write_item(RequestItems=pending).get("UnprocessedItems")


# -- S3 --------------------------------------------------------------------------------

def _blob_name(key: str, etag: str) -> str:
    digest = hashlib.sha256(key.encode("utf-8") + b"\0" + etag.encode("utf-8")).hexdigest()
    return f"{digest[:2]}/{digest}"


def _copy_object(s3, bucket: str, key: str, blobs: Path) -> dict | None:
    """Save one object's bytes; its manifest entry, or None if it vanished meanwhile."""
    try:
        obj = s3.get_object(Bucket=bucket, Key=key)
    except ClientError as exc:
        if exc.response["Error"]["Code"] in ("NoSuchKey", "404"):
            return None
        raise
    body = obj["Body"]
    blob = _blob_name(key, obj["ETag"])

    def copy(fh: IO[bytes]) -> None:
        for chunk in body.iter_chunks(_COPY_CHUNK):
            fh.write(chunk)

    try:
        if not (blobs / blob).exists():  # this version is on disk already
            atomic_write(blobs / blob, copy)
    finally:
        body.close()
    return {"blob": blob, "etag": obj["ETag"], "size": obj["ContentLength"],
            "put": {k: obj[k] for k in _OBJECT_FIELDS if obj.get(k)}}


def _save_bucket(s3, bucket: str, folder: Path) -> None:
    manifest_path = folder / "manifest.json"
    previous = _read_json(manifest_path, {"objects": {}})["objects"]
    objects = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for listed in page.get("Contents", []):
            key = listed["Key"]
            kept = previous.get(key)
            if kept and kept["etag"] == listed["ETag"] and kept["size"] == listed["Size"]:
                objects[key] = kept
            elif entry := _copy_object(s3, bucket, key, folder / "blobs"):
                objects[key] = entry
    region = s3.get_bucket_location(Bucket=bucket).get("LocationConstraint")
    _write_json(manifest_path, {"bucket": bucket, "region": region, "objects": objects})
    live = {entry["blob"] for entry in objects.values()}
    for entry in previous.values():
        if entry["blob"] not in live:
            (folder / "blobs" / entry["blob"]).unlink(missing_ok=True)


def _forget_bucket(folder: Path) -> None:
    # The manifest goes first: a crash halfway leaves blobs nobody restores, never a
    # manifest naming blobs that are gone.
    (folder / "manifest.json").unlink(missing_ok=True)
    shutil.rmtree(folder, ignore_errors=True)


def _restore_bucket(s3, folder: Path) -> None:
    manifest = _read_json(folder / "manifest.json", None)
    if manifest is None:
        shutil.rmtree(folder, ignore_errors=True)
        return
    bucket, region = manifest["bucket"], manifest.get("region")
    create = {"Bucket": bucket}
    if region and region != "us-east-1":
        create["CreateBucketConfiguration"] = {"LocationConstraint": region}
    s3.create_bucket(**create)
    blobs = folder / "blobs"
    for key, entry in manifest["objects"].items():
        try:
            with open(blobs / entry["blob"], "rb") as fh:
                s3.put_object(Bucket=bucket, Key=key, Body=fh, **entry["put"])
        except FileNotFoundError:
            log.warning("s3://%s/%s: its saved copy is missing; not restored", bucket, key)
    live = {blobs / entry["blob"] for entry in manifest["objects"].values()}
    for path in blobs.glob("*/*") if blobs.exists() else ():
        if path not in live:
            path.unlink()


# -- the snapshot as a whole -----------------------------------------------------------

class Snapshots:
    """Saves and restores moto's state under ``data_dir`` (layout: module docstring).

    ``client(service)`` returns a boto3 client of the moto to save from / restore into.
    """

    def __init__(self, data_dir: Path, client: Callable[[str], Any]):
        self.root = Path(data_dir)
        self._client = client

    def restore(self) -> None:
        """Load a saved state into an empty moto."""
        for leftover in self.root.rglob("*" + TMP_SUFFIX):
            leftover.unlink()
        self._restore_queues()
        for parameter in _read_json(self.root / "ssm.json", []):
            self._client("ssm").put_parameter(**parameter, Overwrite=True)
        for path in sorted((self.root / "dynamodb").glob("*.jsonl")):
            _restore_table(self._client("dynamodb"), path)
        for folder in sorted(p for p in (self.root / "s3").glob("*") if p.is_dir()):
            _restore_bucket(self._client("s3"), folder)

    def save(self, services: Iterable[str]) -> None:
        """Save the state of the given services (those that changed)."""
        services = set(services)
        # DynamoDB before S3: a push writes its pack before it moves refs, so an S3
        # copy taken after the table copy holds every pack the saved refs point to.
        if "dynamodb" in services:
            self._save_tables()
        if "s3" in services:
            self._save_buckets()
        if "sqs" in services:
            self._save_queues()
        if "ssm" in services:
            self._save_parameters()

    def _save_tables(self) -> None:
        ddb = self._client("dynamodb")
        names = [n for page in ddb.get_paginator("list_tables").paginate()
                 for n in page["TableNames"]]
        folder = self.root / "dynamodb"
        for name in names:
            _save_table(ddb, name, folder / f"{name}.jsonl")
        for path in folder.glob("*.jsonl"):
            if path.name[:-len(".jsonl")] not in names:
                path.unlink()

    def _save_buckets(self) -> None:
        s3 = self._client("s3")
        buckets = [b["Name"] for b in s3.list_buckets().get("Buckets", [])]
        folder = self.root / "s3"
        for bucket in buckets:
            _save_bucket(s3, bucket, folder / bucket)
        for path in folder.glob("*"):
            if path.is_dir() and path.name not in buckets:
                _forget_bucket(path)

    def _save_queues(self) -> None:
        sqs = self._client("sqs")
        queues = []
        for page in sqs.get_paginator("list_queues").paginate():
            for url in page.get("QueueUrls", []):
                attributes = sqs.get_queue_attributes(
                    QueueUrl=url, AttributeNames=["All"]).get("Attributes", {})
                queues.append({"name": url.rsplit("/", 1)[1], "attributes": {
                    k: v for k, v in attributes.items() if k not in _COMPUTED_QUEUE_ATTRIBUTES}})
        _write_json(self.root / "sqs.json", sorted(queues, key=lambda q: q["name"]))

    def _restore_queues(self) -> None:
        sqs = self._client("sqs")
        queues = _read_json(self.root / "sqs.json", [])
        # Dead-letter queues first: a RedrivePolicy must name an existing queue.
        for queue in sorted(queues, key=lambda q: "RedrivePolicy" in q["attributes"]):
            sqs.create_queue(QueueName=queue["name"], Attributes=queue["attributes"])

    def _save_parameters(self) -> None:
        ssm = self._client("ssm")
        described = {p["Name"]: p for page in ssm.get_paginator("describe_parameters").paginate()
                     for p in page["Parameters"]}
        parameters = []
        for names in _chunks(sorted(described), _GET_PARAMETERS_LIMIT):
            for found in ssm.get_parameters(Names=names, WithDecryption=True)["Parameters"]:
                meta = described[found["Name"]]
                parameter = {"Name": found["Name"], "Value": found["Value"], "Type": found["Type"]}
                parameter.update({k: meta[k] for k in _PARAMETER_FIELDS if meta.get(k)})
                parameters.append(parameter)
        _write_json(self.root / "ssm.json", sorted(parameters, key=lambda p: p["Name"]))
