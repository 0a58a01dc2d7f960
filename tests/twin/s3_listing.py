"""ListObjectsV2: keys in UTF-8 byte order, grouped under CommonPrefixes by a delimiter,
pages of ``max-keys`` entries (keys and common prefixes both count), continued by an
opaque token.  botocore asks for ``encoding-type=url`` and decodes what it set, so keys
are answered percent-encoded when asked.
"""
from __future__ import annotations

import base64
import bisect
import json
from urllib.parse import quote

from tests.twin.errors import Unsupported
from tests.twin.s3_data import Bucket, document, element, error, iso_date

LIST_PARAMETERS = frozenset(("list-type", "prefix", "delimiter", "max-keys", "continuation-token",
                             "start-after", "encoding-type", "fetch-owner"))


def _token(after: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"after": after}).encode()).decode()


def _after(token: str) -> str:
    try:
        return json.loads(base64.urlsafe_b64decode(token.encode()))["after"]
    except (ValueError, KeyError, TypeError):
        raise error("InvalidArgument", "The continuation token provided is incorrect", 400,
                    ArgumentName="continuation-token") from None


def list_objects(bucket: Bucket, query: dict):
    if query.get("list-type") != "2":
        raise Unsupported("s3", "ListObjects", "only ListObjectsV2 is modelled")
    prefix = query.get("prefix", "")
    delimiter = query.get("delimiter", "")
    try:
        max_keys = min(int(query.get("max-keys", "1000")), 1000)
    except ValueError:
        raise error("InvalidArgument", "Provided max-keys not an integer or within integer "
                    "range", 400, ArgumentName="max-keys") from None
    encode = query.get("encoding-type") == "url"
    shown = (lambda text: quote(text, safe="/")) if encode else (lambda text: text)
    after = query.get("start-after", "")
    if "continuation-token" in query:
        after = max(after, _after(query["continuation-token"]))
    keys = bucket.keys
    at = bisect.bisect_left(keys, max(prefix, after))
    entries, last_prefix, truncated, last = [], None, False, None
    while at < len(keys):
        key = keys[at]
        if not key.startswith(prefix):
            break
        if key <= after or (last_prefix and key.startswith(last_prefix)):
            at += 1
            continue
        if after and delimiter and key.startswith(after) and after.endswith(delimiter):
            at += 1         # a continuation after a common prefix skips the whole group
            continue
        if len(entries) == max_keys:
            truncated = True
            break
        cut = key.find(delimiter, len(prefix)) if delimiter else -1
        if cut >= 0:
            last_prefix = key[:cut + len(delimiter)]
            entries.append(("prefix", last_prefix))
            last = last_prefix
        else:
            entries.append(("key", bucket.objects[key]))
            last = key
        at += 1
    inner = element("Name", bucket.name) + element("Prefix", shown(prefix))
    if delimiter:
        inner += element("Delimiter", shown(delimiter))
    inner += element("MaxKeys", max_keys) + element("KeyCount", len(entries))
    inner += element("IsTruncated", truncated)
    if encode:
        inner += element("EncodingType", "url")
    if "start-after" in query:
        inner += element("StartAfter", shown(query["start-after"]))
    if "continuation-token" in query:
        inner += element("ContinuationToken", query["continuation-token"])
    if truncated:
        inner += element("NextContinuationToken", _token(last))
    for kind, entry in entries:
        if kind == "key":
            inner += ("<Contents>" + element("Key", shown(entry.key))
                      + element("LastModified", iso_date(entry.modified))
                      + element("ETag", entry.etag) + element("Size", len(entry.data))
                      + "".join(element("ChecksumAlgorithm", a) for a in entry.checksums)
                      + element("StorageClass", "STANDARD") + "</Contents>")
        else:
            inner += f"<CommonPrefixes>{element('Prefix', shown(entry))}</CommonPrefixes>"
    return 200, {"content-type": "application/xml"}, document("ListBucketResult", inner)
