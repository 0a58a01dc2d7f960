"""One write to one item, prepared from its request: PutItem, UpdateItem, DeleteItem and
the Put, Update, Delete and ConditionCheck members of TransactWriteItems.

Preparing checks everything that does not depend on the stored item (key, values,
expressions, unused names and values) and raises ValidationException; ``outcome``
then reads the stored item and either refuses (``Refused``: a failed condition or a
data-dependent validation error, which a transaction turns into a cancellation
reason) or says what to store.  The caller holds the service's lock throughout.
"""
from __future__ import annotations

from tests.twin import expressions, values
from tests.twin.errors import ServiceError, Unsupported, validation
from tests.twin.evaluate import Binder, condition
from tests.twin.tables import Table
from tests.twin.updates import Update, UpdateError

_LEGACY = ("Expected", "AttributeUpdates", "ConditionalOperator")
CHECK_FAILED = "The conditional request failed"


class Refused(Exception):
    """The write cannot happen: ``code`` is ConditionalCheckFailed or ValidationError."""

    def __init__(self, code: str, message: str, item: dict | None = None):
        super().__init__(message)
        self.code, self.message, self.item = code, message, item


class Write:
    """``kind``: Put, Update, Delete or ConditionCheck."""

    def __init__(self, kind: str, table: Table, request: dict, operation: str):
        for legacy in _LEGACY:
            if legacy in request:
                raise Unsupported("dynamodb", operation, f"the legacy parameter {legacy}")
        self.kind, self.table = kind, table
        self.return_old_on_failure = \
            request.get("ReturnValuesOnConditionCheckFailure", "NONE") == "ALL_OLD"
        binder = Binder(request.get("ExpressionAttributeNames"),
                        request.get("ExpressionAttributeValues"))
        self.item = None
        self.update = None
        if kind == "Put":
            self.item = values.canonical_item(request.get("Item"))
            self.key = table.key_of_item(self.item)
            table.check_index_keys(self.item)
            self.size = values.item_size(self.item)
            if self.size > values.MAX_ITEM_BYTES:
                raise validation("Item size has exceeded the maximum allowed size")
        else:
            self.key_item = values.canonical_item(request.get("Key"))
            self.key = table.key_of(self.key_item)
        if kind == "Update":
            text = request.get("UpdateExpression")
            if text is None:
                raise Unsupported("dynamodb", operation, "an update without UpdateExpression")
            self.update = Update(expressions.parse("UpdateExpression", text), binder,
                                 table.key.key_names())
        text = request.get("ConditionExpression")
        if kind == "ConditionCheck" and text is None:
            raise validation("The ConditionExpression parameter is required for ConditionCheck")
        self.condition = None if text is None else condition(
            expressions.parse("ConditionExpression", text), binder, "ConditionExpression")
        binder.finish()

    def outcome(self, old: dict | None, in_transaction: bool = False):
        """The item to store (None: delete it; ``old`` itself for a ConditionCheck)."""
        if self.condition is not None and not self.condition(old or {}):
            raise Refused("ConditionalCheckFailed", CHECK_FAILED,
                          old if self.return_old_on_failure else None)
        if self.kind == "ConditionCheck":
            return old
        if self.kind == "Delete":
            return None
        if self.kind == "Put":
            return self.item
        try:
            new = self.update.apply(old if old is not None else self.key_item)
        except UpdateError as exc:
            raise Refused("ValidationError", exc.message) from None
        try:
            self.table.check_index_keys(new)
        except ServiceError as exc:
            message = exc.message
            if "empty string" in message:
                message = ("One or more parameter values are not valid. The update expression "
                           "attempted to update a secondary index key to a value that is not "
                           "supported. The AttributeValue for a key attribute cannot contain an "
                           "empty string value.")
            raise Refused("ValidationError", message) from None
        self.size = values.item_size(new)
        if self.size > values.MAX_ITEM_BYTES:
            raise Refused("ValidationError",
                          "Item size to update has exceeded the maximum allowed size")
        return new

    def store(self, new) -> None:
        if self.kind == "ConditionCheck":
            return
        if new is None:
            self.table.delete(self.key)
        else:
            self.table.put(self.key, new, self.size)


def refused_error(refusal: Refused) -> ServiceError:
    """A single write's refusal as the error the operation answers with."""
    if refusal.code == "ConditionalCheckFailed":
        fields = {"Item": refusal.item} if refusal.item is not None else {}
        return ServiceError("ConditionalCheckFailedException", refusal.message, **fields)
    return validation(refusal.message)


def updated_paths(write: Write) -> tuple:
    return tuple(write.update.paths) if write.update is not None else ()
