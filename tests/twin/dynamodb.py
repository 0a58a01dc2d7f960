"""DynamoDB in memory: the operations Nimbus calls, on the JSON 1.0 protocol's terms.

Each operation takes the request body (a dict, as botocore serialized it) and returns
the answer body; errors are ``ServiceError``s.  ``handle`` holds the service's lock for
the whole request, so every request is atomic, as in DynamoDB (a transaction's
conditions and writes included): a race a test finds is a race in Nimbus.
"""
from __future__ import annotations

import threading
import uuid

from tests.twin import reads, values
from tests.twin.errors import ServiceError, Unsupported, validation
from tests.twin.evaluate import Binder, project, projection
from tests.twin.expressions import parse
from tests.twin.tables import Table
from tests.twin.writes import Refused, Write, refused_error, updated_paths

ACCOUNT = "123456789012"
_TRANSACT_KINDS = ("ConditionCheck", "Put", "Delete", "Update")


def not_found(name: str | None = None) -> ServiceError:
    return ServiceError("ResourceNotFoundException", "Requested resource not found"
                        + (f": Table: {name} not found" if name else ""))


class DynamoDB:
    def __init__(self, region: str = "us-east-1"):
        self.region = region
        self.tables: dict[str, Table] = {}
        self.lock = threading.Lock()

    def handle(self, operation: str, body: dict) -> dict:
        method = getattr(self, "op_" + operation, None)
        if method is None:
            raise Unsupported("dynamodb", operation)
        with self.lock:
            return method(body)

    def table(self, name, describe: bool = False) -> Table:
        found = self.tables.get(name)
        if found is None:
            raise not_found(name if describe else None)
        return found

    # -- tables
    def describe(self, table: Table, status: str = "ACTIVE") -> dict:
        arn = f"arn:aws:dynamodb:{self.region}:{ACCOUNT}:table/{table.name}"
        definition = table.definition
        out = {
            "TableName": table.name, "TableArn": arn, "TableStatus": status,
            "TableId": str(uuid.uuid5(uuid.NAMESPACE_URL, arn)),
            "KeySchema": definition["KeySchema"],
            "AttributeDefinitions": definition["AttributeDefinitions"],
            "CreationDateTime": table.created, "ItemCount": table.count(),
            "TableSizeBytes": table.bytes(), "DeletionProtectionEnabled": False,
            "ProvisionedThroughput": {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0,
                                      "WriteCapacityUnits": 0},
            "BillingModeSummary": {"BillingMode": definition.get("BillingMode", "PROVISIONED")},
        }
        if table.indexes:
            out["GlobalSecondaryIndexes"] = [{
                "IndexName": index.name, "IndexArn": f"{arn}/index/{index.name}",
                "KeySchema": [{"AttributeName": index.hash_name, "KeyType": "HASH"}]
                + ([{"AttributeName": index.range_name, "KeyType": "RANGE"}]
                   if index.range_name else []),
                "Projection": index.projection, "IndexStatus": "ACTIVE",
                "ItemCount": sum(len(p.entries) for p in index.partitions.values()),
                "IndexSizeBytes": 0,
                "ProvisionedThroughput": {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0,
                                          "WriteCapacityUnits": 0},
            } for index in table.indexes.values()]
        return out

    def op_CreateTable(self, body: dict) -> dict:
        name = body["TableName"]
        if name in self.tables:
            raise ServiceError("ResourceInUseException", f"Table already exists: {name}")
        defined = {a["AttributeName"] for a in body.get("AttributeDefinitions", [])}
        schemas = [body["KeySchema"]] + [i["KeySchema"] for i in
                                         body.get("GlobalSecondaryIndexes", []) or []]
        for schema in schemas:
            for key in schema:
                if key["AttributeName"] not in defined:
                    raise validation("One or more parameter values were invalid: Some index key "
                                     "attributes are not defined in AttributeDefinitions. Keys: "
                                     f"[{key['AttributeName']}], AttributeDefinitions: "
                                     f"[{', '.join(sorted(defined))}]")
        if body.get("LocalSecondaryIndexes") or body.get("StreamSpecification", {}).get(
                "StreamEnabled"):
            raise Unsupported("dynamodb", "CreateTable", "local indexes and streams")
        table = self.tables[name] = Table(name, dict(body))
        return {"TableDescription": self.describe(table)}

    def op_DescribeTable(self, body: dict) -> dict:
        return {"Table": self.describe(self.table(body["TableName"], describe=True))}

    def op_ListTables(self, body: dict) -> dict:
        names = sorted(self.tables)
        start = body.get("ExclusiveStartTableName")
        if start:
            names = [n for n in names if n > start]
        limit = body.get("Limit", 100)
        out = {"TableNames": names[:limit]}
        if len(names) > limit:
            out["LastEvaluatedTableName"] = names[limit - 1]
        return out

    def op_DeleteTable(self, body: dict) -> dict:
        table = self.table(body["TableName"], describe=True)
        del self.tables[table.name]
        return {"TableDescription": self.describe(table, "DELETING")}

    def op_UpdateTable(self, body: dict) -> dict:
        table = self.table(body["TableName"], describe=True)
        known = {a["AttributeName"]: a for a in table.definition["AttributeDefinitions"]}
        for definition in body.get("AttributeDefinitions", []):
            known[definition["AttributeName"]] = definition
            table.types[definition["AttributeName"]] = definition["AttributeType"]
        for change in body.get("GlobalSecondaryIndexUpdates", []):
            if "Create" in change:
                spec = change["Create"]
                if spec["IndexName"] in table.indexes:
                    raise validation(f"One or more parameter values were invalid: Index with "
                                     f"name {spec['IndexName']} already exists")
                table.add_index(spec)
                table.definition.setdefault("GlobalSecondaryIndexes", []).append(spec)
            elif "Delete" in change:
                gone = change["Delete"]["IndexName"]
                if table.indexes.pop(gone, None) is None:
                    raise not_found()
                table.definition["GlobalSecondaryIndexes"] = [
                    i for i in table.definition["GlobalSecondaryIndexes"] if i["IndexName"] != gone]
            else:
                raise Unsupported("dynamodb", "UpdateTable", "changing an index's throughput")
        table.definition["AttributeDefinitions"] = list(known.values())
        for other in set(body) - {"TableName", "AttributeDefinitions",
                                  "GlobalSecondaryIndexUpdates", "BillingMode"}:
            raise Unsupported("dynamodb", "UpdateTable", other)
        return {"TableDescription": self.describe(table)}

    def op_UpdateTimeToLive(self, body: dict) -> dict:
        table = self.table(body["TableName"])
        spec = body["TimeToLiveSpecification"]
        enabled = table.ttl is not None
        if spec["Enabled"] == enabled:
            raise validation("TimeToLive is already " + ("enabled" if enabled else "disabled"))
        table.ttl = spec["AttributeName"] if spec["Enabled"] else None
        return {"TimeToLiveSpecification": spec}

    def op_DescribeTimeToLive(self, body: dict) -> dict:
        table = self.table(body["TableName"])
        if table.ttl is None:
            return {"TimeToLiveDescription": {"TimeToLiveStatus": "DISABLED"}}
        return {"TimeToLiveDescription": {"TimeToLiveStatus": "ENABLED",
                                          "AttributeName": table.ttl}}

    # -- items
    def capacity(self, body: dict, table: str, units: float = 1.0) -> dict:
        if body.get("ReturnConsumedCapacity", "NONE") == "NONE":
            return {}
        return {"ConsumedCapacity": {"TableName": table, "CapacityUnits": units}}

    def op_GetItem(self, body: dict) -> dict:
        table = self.table(body["TableName"])
        paths = read_projection(body)
        key = table.key_of(values.canonical_item(body.get("Key")))
        item = table.get(key)
        out = self.capacity(body, table.name, 0.5)
        if item is not None:
            out["Item"] = project(item, paths) if paths else item
        return out

    def write(self, operation: str, kind: str, body: dict) -> dict:
        table = self.table(body.get("TableName"))
        returns = body.get("ReturnValues", "NONE")
        allowed = ("NONE", "ALL_OLD") if kind != "Update" else (
            "NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW")
        if returns not in allowed:
            raise validation("ReturnValues can only be ALL_OLD or NONE" if kind != "Update" else
                             f"Invalid ReturnValues: {returns}")
        write = Write(kind, table, body, operation)
        old = table.get(write.key)
        try:
            new = write.outcome(old)
        except Refused as refusal:
            raise refused_error(refusal) from None
        write.store(new)
        out = self.capacity(body, table.name)
        shown = {"ALL_OLD": old, "ALL_NEW": new}.get(returns)
        if returns == "UPDATED_OLD" and old is not None:
            shown = project(old, updated_paths(write))
        elif returns == "UPDATED_NEW":
            shown = project(new, updated_paths(write))
        if shown:
            out["Attributes"] = shown
        return out

    def op_PutItem(self, body: dict) -> dict:
        return self.write("PutItem", "Put", body)

    def op_UpdateItem(self, body: dict) -> dict:
        return self.write("UpdateItem", "Update", body)

    def op_DeleteItem(self, body: dict) -> dict:
        return self.write("DeleteItem", "Delete", body)

    def op_Query(self, body: dict) -> dict:
        table = self.table(body.get("TableName"))
        return {**reads.query(table, body), **self.capacity(body, table.name)}

    def op_Scan(self, body: dict) -> dict:
        table = self.table(body.get("TableName"))
        return {**reads.scan(table, body), **self.capacity(body, table.name)}

    # -- batches
    def op_BatchGetItem(self, body: dict) -> dict:
        requested = body.get("RequestItems") or {}
        wanted = []
        for name, spec in requested.items():
            table = self.table(name)
            paths = read_projection(spec)
            keys = [table.key_of(values.canonical_item(k)) for k in spec.get("Keys", [])]
            if len(set(keys)) != len(keys):
                raise validation("Provided list of item keys contains duplicates")
            wanted += [(table, key, paths) for key in keys]
        if len(wanted) > 100:
            raise validation("Too many items requested for the BatchGetItem call")
        if not wanted:
            raise validation("1 validation error detected: Value at 'requestItems' failed to "
                             "satisfy constraint: Member must have length greater than or "
                             "equal to 1")
        responses: dict[str, list] = {name: [] for name in requested}
        for table, key, paths in wanted:
            item = table.get(key)
            if item is not None:
                responses[table.name].append(project(item, paths) if paths else item)
        return {"Responses": responses, "UnprocessedKeys": {}}

    def op_BatchWriteItem(self, body: dict) -> dict:
        requested = body.get("RequestItems") or {}
        writes = []
        for name, requests in requested.items():
            table = self.table(name)
            seen = set()
            for request in requests:
                if "PutRequest" in request:
                    write = Write("Put", table, request["PutRequest"], "BatchWriteItem")
                else:
                    write = Write("Delete", table, request["DeleteRequest"], "BatchWriteItem")
                if write.key in seen:
                    raise validation("Provided list of item keys contains duplicates")
                seen.add(write.key)
                writes.append(write)
        if not 1 <= len(writes) <= 25:
            raise validation("1 validation error detected: Value at 'requestItems' failed to "
                             "satisfy constraint: Map value must satisfy constraint: [Member "
                             "must have length less than or equal to 25, Member must have "
                             "length greater than or equal to 1]")
        for write in writes:
            write.store(write.outcome(write.table.get(write.key)))
        return {"UnprocessedItems": {}}

    # -- transactions
    def op_TransactWriteItems(self, body: dict) -> dict:
        members = body.get("TransactItems") or []
        if not members:
            raise validation("1 validation error detected: Value '[]' at 'transactItems' failed "
                             "to satisfy constraint: Member must have length greater than or "
                             "equal to 1")
        if len(members) > 100:
            raise validation("1 validation error detected at 'transactItems' failed to satisfy "
                             "constraint: Member must have length less than or equal to 100.")
        writes = []
        for member in members:
            kinds = [k for k in _TRANSACT_KINDS if k in member]
            if len(kinds) != 1:
                raise validation("TransactItems can only contain one of Check, Put, Update or "
                                 "Delete")
            request = member[kinds[0]]
            writes.append(Write(kinds[0], self.table(request.get("TableName")), request,
                                "TransactWriteItems"))
        targets = [(w.table.name, w.key) for w in writes]
        if len(set(targets)) != len(targets):
            raise validation("Transaction request cannot include multiple operations on one item")
        reasons, outcomes = [], []
        for write in writes:
            try:
                outcomes.append(write.outcome(write.table.get(write.key), in_transaction=True))
                reasons.append({"Code": "None"})
            except Refused as refusal:
                reason = {"Code": refusal.code, "Message": refusal.message}
                if refusal.item is not None:
                    reason["Item"] = refusal.item
                reasons.append(reason)
        if any(r["Code"] != "None" for r in reasons):
            codes = ", ".join(r["Code"] for r in reasons)
            message = ("Transaction cancelled, please refer cancellation reasons for specific "
                       f"reasons [{codes}]")
            raise ServiceError("TransactionCanceledException", message,
                               CancellationReasons=reasons, Message=message)
        for write, new in zip(writes, outcomes):
            write.store(new)
        return {}

    def op_TransactGetItems(self, body: dict) -> dict:
        members = body.get("TransactItems") or []
        if not 1 <= len(members) <= 100:
            raise validation("1 validation error detected: Value at 'transactItems' failed to "
                             "satisfy constraint: Member must have length less than or equal "
                             "to 100")
        found, seen = [], set()
        for member in members:
            request = member["Get"]
            table = self.table(request.get("TableName"))
            paths = read_projection(request)
            key = table.key_of(values.canonical_item(request.get("Key")))
            if (table.name, key) in seen:
                raise validation("Transaction request cannot include multiple operations on "
                                 "one item")
            seen.add((table.name, key))
            found.append((table, key, paths))
        responses = []
        for table, key, paths in found:
            item = table.get(key)
            responses.append({} if item is None else {"Item": project(item, paths) if paths
                                                      else item})
        return {"Responses": responses}


def read_projection(body: dict) -> tuple:
    """The paths a read keeps (ProjectionExpression or the legacy AttributesToGet)."""
    binder = Binder(body.get("ExpressionAttributeNames"), None)
    if "AttributesToGet" in body:
        if "ProjectionExpression" in body:
            raise validation("Can not use both expression and non-expression parameters in the "
                             "same request: Non-expression parameters: {AttributesToGet} "
                             "Expression parameters: {ProjectionExpression}")
        paths = tuple((name,) for name in body["AttributesToGet"])
    elif "ProjectionExpression" in body:
        paths = projection(parse("ProjectionExpression", body["ProjectionExpression"]), binder)
    else:
        paths = ()
    binder.finish()
    return paths
