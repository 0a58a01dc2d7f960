"""The single DynamoDB table: the base model every item is, its indexes, and the
store kernel's own items (counters and claims).

Every item has ``pk``/``sk`` and, where it must be found by a second key, ``gsi1pk``/
``gsi1sk`` (or ``gsi2pk``/``gsi2sk``).  ``kind`` is the PynamoDB discriminator, so a
read of the wrong kind of item fails loudly.  Each domain declares its own items in its
``models.py`` (key layouts in ``docs/data-model.md``); a model anywhere else is refused
by tests/test_structure.py.

A read that may meet any kind of item (a query of a whole partition through ``Item``,
a batch of keys of several kinds) must know every kind, but a request imports only the
domains it uses.  ``Kind`` closes the gap: meeting a kind it does not know, or being
asked for every kind, it imports every ``chalicelib/<package>/models.py`` once
(``load_every_model``).

PynamoDB filters each query, scan and count of a model to the model's kinds
(``kind IN (...)``).  Through ``Item`` that filter names every kind — it keeps nothing
out (every item is an Item), and DynamoDB takes at most 100 operands in an ``IN``, a
limit a growing list of kinds would pass.  So a read through ``Item`` itself is sent
without it (``_unfiltered``); the items found still load as their own kinds.
"""
from __future__ import annotations

import contextlib
import importlib
import threading
from pathlib import Path
from typing import Iterator

from pynamodb.attributes import DiscriminatorAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.connection import Connection
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from chalicelib import aws
from chalicelib.settings import Settings, get_settings


class GSI1(GlobalSecondaryIndex):
    class Meta:
        index_name = "gsi1"
        projection = AllProjection()
        billing_mode = "PAY_PER_REQUEST"

    gsi1pk = UnicodeAttribute(hash_key=True)
    gsi1sk = UnicodeAttribute(range_key=True)


class GSI2(GlobalSecondaryIndex):
    """Instance-wide listings (all repositories, for search)."""
    class Meta:
        index_name = "gsi2"
        projection = AllProjection()
        billing_mode = "PAY_PER_REQUEST"

    gsi2pk = UnicodeAttribute(hash_key=True)
    gsi2sk = UnicodeAttribute(range_key=True)


# The store kernel's own models, besides the ones in this module.
KERNEL_MODEL_MODULES = ("chalicelib.store.outbox",)
_PACKAGE = Path(__file__).resolve().parent.parent
_loaded = False
_load_lock = threading.Lock()


def load_every_model() -> None:
    """Import every module that declares items (once per process)."""
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        names = [*KERNEL_MODEL_MODULES,
                 *(f"chalicelib.{path.parent.name}.models"
                   for path in sorted(_PACKAGE.glob("*/models.py")))]
        for name in names:
            importlib.import_module(name)
        _loaded = True


class Kind(DiscriminatorAttribute):
    """``kind``, which loads every model before it answers for a kind it has not seen
    or for "every kind" (see the module's docstring)."""

    def deserialize(self, value):
        if value not in self._discriminator_map:
            load_every_model()
        return super().deserialize(value)

    def get_registered_subclasses(self, cls):
        if cls is Item:
            load_every_model()
        return super().get_registered_subclasses(cls)


# Set while PynamoDB builds the request of a query, scan or count through Item itself.
_unfiltered = threading.local()


class Item(Model):
    class Meta:
        table_name = "nimbus"
        region = "us-east-1"
        billing_mode = "PAY_PER_REQUEST"
        max_retry_attempts = 3

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True)
    kind = Kind()
    gsi1pk = UnicodeAttribute(null=True)
    gsi1sk = UnicodeAttribute(null=True)
    gsi1 = GSI1()
    gsi2pk = UnicodeAttribute(null=True)
    gsi2sk = UnicodeAttribute(null=True)
    gsi2 = GSI2()

    def owned_elsewhere(self) -> list["Item"]:
        """Items outside this item's partition that exist only because of it (a token's
        lookup item, a key's fingerprint claim): whoever deletes this item with its
        partition deletes them too (``store.partitions.stage_purge``).  None by default."""
        return []

    @classmethod
    def _get_discriminator_attribute(cls):
        if cls is Item and getattr(_unfiltered, "active", False):
            return None         # no kind filter (see the module's docstring)
        return super()._get_discriminator_attribute()

    @classmethod
    def query(cls, *args, **kwargs):
        # PynamoDB builds the filter now and reads (and loads each item by its kind)
        # while the caller iterates, after the flag is down again.
        with _every_kind(cls):
            return super().query(*args, **kwargs)

    @classmethod
    def scan(cls, *args, **kwargs):
        with _every_kind(cls):
            return super().scan(*args, **kwargs)

    @classmethod
    def count(cls, *args, **kwargs):
        with _every_kind(cls):
            return super().count(*args, **kwargs)

    @classmethod
    def _get_connection(cls):
        # One connection (one botocore client) for every kind of item: creating a
        # client per model class would cost each cold start several clients.
        made = Model._get_connection.__func__(Item)
        low = made.connection
        if low._client is None:
            # From the process's one botocore session (chalicelib/aws.py): PynamoDB would
            # otherwise make a session of its own, parsing botocore's descriptions again.
            with aws.lock():
                if low._client is None:
                    low._local.session = aws.session()
                    low.client  # noqa: B018 - made now, under the lock
        aws.attach_hooks(low.client)   # call counting (benchmarks)
        return made


@contextlib.contextmanager
def _every_kind(cls: type) -> Iterator[None]:
    if cls is not Item:
        yield
        return
    _unfiltered.active = True
    try:
        yield
    finally:
        _unfiltered.active = False


class Counter(Item, discriminator="counter"):
    value = NumberAttribute(default=0)


class Claim(Item, discriminator="claim"):
    """Reserves a unique value (login name, e-mail, key fingerprint) for ``owner_id``."""
    owner_id = NumberAttribute()


def configure(settings: Settings | None = None) -> None:
    """Point every model at the configured table and endpoint (moto locally)."""
    settings = settings or get_settings()
    host = settings.aws.ENDPOINT_URL or None
    for model in (Item, GSI1, GSI2):
        model.Meta.table_name = settings.aws.TABLE
        model.Meta.region = settings.aws.REGION
        model.Meta.host = host
    Item._connection = None


def connection() -> Connection:
    """The low-level connection, shared with the models (transactions need it)."""
    return Item._get_connection().connection


configure()
