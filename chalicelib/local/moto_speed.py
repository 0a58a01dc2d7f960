"""DynamoDB and SQS answers from the embedded moto at a cost proportional to what they
hold.

moto 5.2.5 spends most of a DynamoDB request on work unrelated to the answer's size
(bench/README.md, "The local backend's DynamoDB answers", has the numbers):

- its generic response serializer: see ``moto_json.py``;
- ``Table.query`` sorts every item of the table, all partitions, before it keeps the
  one partition asked for (a Query of 5 items in a table of 5,000: 45-65 ms), and on
  an index it compares every item of the table as DynamoType objects;
- it measures each candidate item's size twice, through generic DynamoType code,
  deep-copies the items a Query found, then turns them into plain dicts through a
  recursive function that tests each value for five types;
- each request lists moto's package directory (to tell a service name from a host)
  and collects the handler's method names with ``inspect.getmembers``.

:func:`install` changes how, never what: clients get the same bytes.  It relies on the
locks of ``aws_requests.py`` (each DynamoDB request runs alone), as
``moto_transactions.py`` does.

- DynamoDB answers are serialized by ``moto_json.FastJSONSerializer``;
- ``Table.query`` sees only the window of the partition its page can come from, kept
  sorted between writes (``moto_query.py``); a Query the window cannot be computed for
  reads the partition it names, sorted natively on the range keys' values (the same
  order as moto's DynamoType order when they have one type);
- ``Item.size`` measures string and number attributes directly (the same count);
- the found items are not deep-copied: the handler only reads them, into new dicts;
- ``dynamo_to_dict`` handles DynamoType, dict, list and scalars directly and gives
  every other type to moto's;
- the module list and the method names are computed once per process (per handler
  class): neither changes while moto runs;
- ``Item.project`` of top-level string attributes (a ``ProjectionExpression`` of
  plain names: the ref reads of ``gitstore/refdb.py``) takes those attributes as they
  are; moto turns the whole item into JSON, back into Python values and into
  DynamoDB types again (0.2 ms an item: a Query of 5,000 refs spent a second there).

SQS (a burst of events: hundreds of messages in the events queue) is quadratic in
moto: every message sent reads all the queue's attributes, which count the visible and
the in-flight messages, each test of a message reading the clock twice; every message
received does so again (to read one attribute, the retention period).  Here:

- ``Queue.messages`` and the counts of messages not visible and delayed read the clock
  once per call;
- the retention check reads the queue's retention period, not all its attributes;
- ``Queue.delete_message`` finds the message in one pass, not two.

``tests/test_local_backend_speed.py`` compares answers with and without the patches
(:func:`uninstall` puts moto's code back).
"""
from __future__ import annotations

import functools
import logging
import threading
from typing import Any

from chalicelib.local import moto_json, moto_query

log = logging.getLogger("nimbus.local")

# The moto these patches were checked against, line by line; another version runs
# unpatched (correct, only slower) until they are checked again.
MOTO_VERSION = "5.2.5"

_installed = threading.Lock()
_partition = threading.local()
_state = {"installed": False}
# (object, attribute, moto's value) for each patch, so uninstall() can put them back.
_patches: list[tuple[Any, str, Any]] = []
# The DynamoDBBackend methods that change items or tables (BatchWriteItem calls
# put_item and delete_item; PartiQL its own three).
_WRITES = ("put_item", "update_item", "delete_item", "transact_write_items", "create_table",
           "delete_table", "update_table", "update_table_global_indexes", "execute_statement",
           "execute_transaction", "batch_execute_statement", "import_table",
           "restore_table_from_backup", "restore_table_to_point_in_time")


def installed() -> bool:
    return _state["installed"]


def install() -> bool:
    """Patch moto, once per process; False when this moto is not the one checked."""
    import moto

    with _installed:
        if _state["installed"]:
            return True
        if moto.__version__ != MOTO_VERSION:
            log.warning("moto %s is not %s: DynamoDB answers take moto's slow path",
                        moto.__version__, MOTO_VERSION)
            return False
        if not moto_json.alias_providers_as_checked():
            log.warning("moto's alias providers changed: DynamoDB answers take moto's slow path")
            return False
        _install_serializer()
        _install_query()
        _install_write_marks()
        _install_item_size()
        _install_plain_values()
        _install_lookups()
        _install_projection()
        _install_queue()
        _state["installed"] = True
        return True


def uninstall() -> None:
    """Put moto's own code back (tests compare answers with and without the patches)."""
    with _installed:
        while _patches:
            owner, name, original = _patches.pop()
            setattr(owner, name, original)
        tables_changed()
        _state["installed"] = False


def _patch(owner: Any, name: str, replacement: Any) -> None:
    _patches.append((owner, name, getattr(owner, name)))
    setattr(owner, name, replacement)


# -- the serializer ----------------------------------------------------------------------

def _install_serializer() -> None:
    from moto.core import responses
    from moto.core.serialize import JSONSerializer

    fast = moto_json.fast_serializer_class()
    original = responses.get_serializer_class

    def get_serializer_class(service_name: str, protocol: str):
        chosen = original(service_name, protocol)
        return fast if service_name == "dynamodb" and chosen is JSONSerializer else chosen

    _patch(responses, "get_serializer_class", get_serializer_class)


# -- Query ---------------------------------------------------------------------------------

def _install_query() -> None:
    import copy
    import inspect
    import types

    from moto.dynamodb.models import table as table_module
    from moto.dynamodb.models.table import Table

    whole_table_query = Table.query
    every_item = Table.all_items
    signature = inspect.signature(whole_table_query)

    def query(self, *args, **kwargs):
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError:
            return whole_table_query(self, *args, **kwargs)
        found = moto_query.candidates(self, bound.arguments)
        hash_key = bound.arguments.get("hash_key")
        if found is not None:
            _partition.scope = (self, found)
        elif not bound.arguments.get("index_name") and hash_key is not None \
                and self.range_key_attr:
            partition = self.items.get(hash_key)
            _partition.scope = (self, _sorted_partition(
                list(partition.values()) if partition else []))
        _partition.querying = True
        try:
            return whole_table_query(self, *args, **kwargs)
        finally:
            _partition.scope = None
            _partition.querying = False

    def deepcopy(value: Any, memo: dict | None = None) -> Any:
        # Table.query copies the items it found (its one deepcopy) and the handler only
        # reads them, into new dicts, while the request holds the DynamoDB lock.
        if getattr(_partition, "querying", False) and type(value) is list:
            return list(value)
        return copy.deepcopy(value, memo)

    def all_items(self):
        scope = getattr(_partition, "scope", None)
        if scope is None or scope[0] is not self:
            return every_item(self)
        _partition.scope = None     # the one call of the query it was set for
        # Table.query keeps, of these, the items of the partition asked for (and sorts
        # them again: they come in order, so that costs what they number).
        return scope[1]

    _patch(Table, "query", query)
    _patch(table_module, "copy", types.SimpleNamespace(deepcopy=deepcopy, copy=copy.copy))
    _patch(Table, "all_items", all_items)


def _sorted_partition(items: list) -> list:
    """In all_items' order: by (hash key, range key) as DynamoType.  In one partition
    the hash keys are equal, and range keys of one type compare (``==`` then ``<``)
    exactly as their cast values do, so those are sorted natively; Table.query's own
    sort on the range key then finds them in order."""
    kinds = {None if item.range_key is None else item.range_key.type for item in items}
    if len(kinds) == 1 and None not in kinds:
        items.sort(key=lambda x: x.range_key.cast_value)
    else:
        items.sort(key=lambda x: (x.hash_key, x.range_key) if x.range_key else x.hash_key)
    return items


def tables_changed() -> None:
    """Any item may have changed: the sorted partitions are built again when next asked."""
    moto_query.everything_changed()


def _install_write_marks() -> None:
    import inspect

    from moto.dynamodb.models import DynamoDBBackend

    def marking(name: str, write):
        signature = inspect.signature(write)

        @functools.wraps(write)
        def marked(self, *args, **kwargs):
            try:
                return write(self, *args, **kwargs)
            finally:
                touched = _touched(self, name, signature, args, kwargs)
                if touched is None:
                    tables_changed()
                for table, (hash_key, range_key) in touched or ():
                    moto_query.item_changed(table, hash_key, range_key)
        return marked

    for name in _WRITES:
        _patch(DynamoDBBackend, name, marking(name, getattr(DynamoDBBackend, name)))


def _touched(backend, name: str, signature, args: tuple, kwargs: dict) -> list | None:
    """(table, key) of each item this write may have changed; None when unknown."""
    try:
        arguments = signature.bind(backend, *args, **kwargs).arguments
    except TypeError:
        return None
    if name == "transact_write_items":
        named = []
        for entry in arguments.get("transact_items") or ():
            operation = next(iter(entry.values())) if isinstance(entry, dict) and entry \
                else None
            if not isinstance(operation, dict):
                return None
            named.append((operation.get("TableName"),
                          operation.get("Key") or operation.get("Item")))
    elif name in ("put_item", "update_item", "delete_item"):
        named = [(arguments.get("table_name"),
                  arguments.get("item_attrs") if name == "put_item" else arguments.get("key"))]
    else:
        return None
    touched = []
    for table_name, key in named:
        table = backend.tables.get(table_name) if isinstance(table_name, str) else None
        found = moto_query.key_of(table, key) if table is not None else None
        if found is None:
            return None
        touched.append((table, found))
    return touched


def _install_item_size() -> None:
    from moto.dynamodb.models.dynamo_type import DynamoType, Item
    from moto.dynamodb.models.utilities import bytesize

    def size(self) -> int:
        # Table.query asks each candidate's size twice.  Strings and numbers are
        # measured here as DynamoType.size measures them; every other value by it.
        total = 0
        for key, value in self.attrs.items():
            total += len(key.encode("utf-8")) if type(key) is str else bytesize(key)
            if type(value) is DynamoType:
                if value.type == "S" and type(value.value) is str:
                    total += len(value.value.encode("utf-8"))
                    continue
                if value.type == "N":
                    total += len(str(value.value))
                    continue
            total += value.size()
        return total

    _patch(Item, "size", size)


# -- DynamoType to plain values ------------------------------------------------------------

def _install_plain_values() -> None:
    from moto.dynamodb import responses
    from moto.dynamodb.models.dynamo_type import DynamoType, LimitedSizeDict

    generic = responses.dynamo_to_dict
    mappings = (dict, LimitedSizeDict)     # an item's attributes: no to_json of its own
    as_is = (str, int, float, bool, type(None))

    def dynamo_to_dict(obj: Any) -> Any:
        # moto's dynamo_to_dict for the exact types DynamoDB results are made of; any
        # other type (datetime, objects with to_json, subclasses) goes to moto's.
        kind = type(obj)
        if kind is DynamoType:
            if obj.type == "B" or obj.type == "BS":
                return generic(obj)
            return {obj.type: dynamo_to_dict(obj.value)}
        if kind in mappings:
            return {key: dynamo_to_dict(value) for key, value in obj.items()}
        if kind is list:
            return [dynamo_to_dict(item) for item in obj]
        if kind in as_is:
            return obj
        return generic(obj)

    def checked(obj: Any) -> Any:
        plain = dynamo_to_dict(obj)
        if moto_json.verifying() and plain != generic(obj):
            raise AssertionError(f"dynamo_to_dict differs from moto's: {plain!r:.300}")
        return plain

    _patch(responses, "dynamo_to_dict", checked)


# -- per-request lookups ---------------------------------------------------------------------

def _install_lookups() -> None:
    from moto import backends
    from moto.core import responses

    modules = tuple(backends.list_of_moto_modules())
    _patch(backends, "list_of_moto_modules", lambda: modules)
    _patch(responses, "method_names_from_class",
           functools.cache(responses.method_names_from_class))


# -- projections ----------------------------------------------------------------------------

def _install_projection() -> None:
    from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict

    generic = Item.project

    def project(self, projection_expressions: list[list[str]]) -> Item:
        # Plain names whose values are strings: the same attributes, in the same order,
        # as moto's round trip gives; anything else (nested paths, other types) is
        # moto's.
        names = [expr[0] for expr in projection_expressions if len(expr) == 1]
        if len(names) != len(projection_expressions) or any(
                type(value := self.attrs.get(name)) is not DynamoType or value.type != "S"
                for name in names if name in self.attrs):
            return generic(self, projection_expressions)
        item = Item.__new__(Item)
        item.hash_key, item.range_key = self.hash_key, self.range_key
        item.attrs = LimitedSizeDict()
        for name in dict.fromkeys(names):
            if name in self.attrs:
                # Read only by the handler, as the found items themselves (_install_query).
                dict.__setitem__(item.attrs, name, self.attrs[name])
        return item

    _patch(Item, "project", project)


# -- SQS queues -----------------------------------------------------------------------------

def _install_queue() -> None:
    from moto.core.utils import unix_time, unix_time_millis
    from moto.sqs.exceptions import ReceiptHandleIsInvalid
    from moto.sqs.models import Queue, SQSBackend

    def messages(self) -> list:
        # moto's Message.visible and .delayed, with one reading of the clock.
        now = unix_time_millis()
        return [m for m in self._messages if now > m.visible_at and not now < m.delayed_until]

    def not_visible(self) -> int:
        now = unix_time_millis()
        return sum(1 for m in self._messages if not now > m.visible_at)

    def delayed(self) -> int:
        now = unix_time_millis()
        return sum(1 for m in self._messages if now < m.delayed_until)

    def retained(self, queue_name: str, message) -> bool:
        period = self.get_queue(queue_name).message_retention_period
        return period + message.sent_timestamp / 1000 > unix_time()

    def delete_message(self, receipt_handle: str) -> None:
        if receipt_handle in self.deleted_messages:
            return                  # deleting twice is not an error (moto's answer)
        kept, gone = [], []
        for message in self._messages:
            (gone if message.had_receipt_handle(receipt_handle) else kept).append(message)
        if not gone:
            raise ReceiptHandleIsInvalid()
        for message in gone:
            self.pending_messages.discard(message)
            self.deleted_messages.update(message.all_receipt_handles)
        self._messages = kept

    _patch(Queue, "messages", property(messages))
    _patch(Queue, "approximate_number_of_messages_not_visible", property(not_visible))
    _patch(Queue, "approximate_number_of_messages_delayed", property(delayed))
    _patch(SQSBackend, "is_message_valid_based_on_retention_period", retained)
    _patch(Queue, "delete_message", delete_message)
