"""SSM Parameter Store in memory (JSON protocol, ``AmazonSSM.<Op>``): String,
StringList and SecureString parameters with versions, read one, several or by path.

A SecureString read without ``WithDecryption`` answers an opaque ciphertext-like value,
never the plain text, so code that forgets to ask for decryption fails here as in AWS.
"""
from __future__ import annotations

import base64
import hashlib
import threading
import time

from tests.twin.errors import ServiceError, Unsupported, validation

ACCOUNT = "123456789012"
TYPES = ("String", "StringList", "SecureString")
MAX_VALUE = 4096


def not_found(name: str = "") -> ServiceError:
    return ServiceError("ParameterNotFound", f"Parameter {name} not found." if name else "")


class SSM:
    def __init__(self, region: str = "us-east-1"):
        self.region = region
        self.parameters: dict[str, dict] = {}
        self.lock = threading.Lock()

    def handle(self, operation: str, body: dict) -> dict:
        method = getattr(self, "op_" + operation, None)
        if method is None:
            raise Unsupported("ssm", operation)
        with self.lock:
            return method(body)

    def shown(self, stored: dict, decrypt: bool) -> dict:
        value = stored["Value"]
        if stored["Type"] == "SecureString" and not decrypt:
            value = base64.b64encode(hashlib.sha256(value.encode()).digest()).decode()
        name = stored["Name"]
        arn_name = name if name.startswith("/") else "/" + name
        return {"Name": name, "Type": stored["Type"], "Value": value,
                "Version": stored["Version"], "LastModifiedDate": stored["LastModifiedDate"],
                "ARN": f"arn:aws:ssm:{self.region}:{ACCOUNT}:parameter{arn_name}",
                "DataType": stored.get("DataType", "text")}

    def op_PutParameter(self, body: dict) -> dict:
        name, value = body.get("Name", ""), body.get("Value")
        kind = body.get("Type")
        existing = self.parameters.get(name)
        if not name or len(name) > 2048:
            raise validation("Parameter name must not be empty and at most 2048 characters")
        if "/" in name and not name.startswith("/"):
            raise validation("Parameter name: can't be prefixed with \"ssm\" (case-insensitive). "
                             "If formed as a path, it can consist of sub-paths divided by slash "
                             "symbol; each sub-path can be formed as a mix of letters, numbers "
                             "and the following 3 symbols .-_")
        if value is None or len(value) > MAX_VALUE:
            raise validation("1 validation error detected: Value at 'value' failed to satisfy "
                             "constraint: Member must have length less than or equal to 4096")
        if existing is not None and not body.get("Overwrite"):
            raise ServiceError("ParameterAlreadyExists", "The parameter already exists. To "
                               "overwrite this value, set the overwrite option in the request "
                               "to true.")
        if kind is None:
            if existing is None:
                raise validation("A parameter type is required when you create a parameter.")
            kind = existing["Type"]
        if kind not in TYPES:
            raise validation(f"1 validation error detected: Value '{kind}' at 'type' failed to "
                             "satisfy constraint: Member must satisfy enum value set: "
                             "[SecureString, StringList, String]")
        version = existing["Version"] + 1 if existing else 1
        self.parameters[name] = {"Name": name, "Type": kind, "Value": value, "Version": version,
                                 "LastModifiedDate": time.time(),
                                 "DataType": body.get("DataType", "text")}
        return {"Version": version, "Tier": body.get("Tier", "Standard")}

    def op_GetParameter(self, body: dict) -> dict:
        name = body.get("Name", "")
        stored = self.parameters.get(name)
        if stored is None:
            raise not_found(name)
        return {"Parameter": self.shown(stored, bool(body.get("WithDecryption")))}

    def op_GetParameters(self, body: dict) -> dict:
        names = body.get("Names") or []
        if len(names) > 10:
            raise validation("1 validation error detected: Value at 'names' failed to satisfy "
                             "constraint: Member must have length less than or equal to 10")
        found, missing = [], []
        for name in dict.fromkeys(names):
            stored = self.parameters.get(name)
            if stored is None:
                missing.append(name)
            else:
                found.append(self.shown(stored, bool(body.get("WithDecryption"))))
        return {"Parameters": found, "InvalidParameters": missing}

    def op_GetParametersByPath(self, body: dict) -> dict:
        if body.get("ParameterFilters"):
            raise Unsupported("ssm", "GetParametersByPath", "ParameterFilters")
        path = body.get("Path", "")
        if not path.startswith("/"):
            raise validation("The parameter doesn't meet the parameter name requirements. The "
                             "parameter name must begin with a forward slash \"/\".")
        prefix = path.rstrip("/") + "/"
        recursive = bool(body.get("Recursive"))
        names = sorted(n for n in self.parameters if n.startswith(prefix)
                       and (recursive or "/" not in n[len(prefix):]))
        limit = body.get("MaxResults", 10)
        if not 1 <= limit <= 10:
            raise validation("1 validation error detected: Value at 'maxResults' failed to "
                             "satisfy constraint: Member must have value less than or equal to 10")
        start = int(body.get("NextToken") or 0)
        page = names[start:start + limit]
        out = {"Parameters": [self.shown(self.parameters[n], bool(body.get("WithDecryption")))
                              for n in page]}
        if start + limit < len(names):
            out["NextToken"] = str(start + limit)
        return out

    def op_DeleteParameter(self, body: dict) -> dict:
        name = body.get("Name", "")
        if self.parameters.pop(name, None) is None:
            raise not_found(name)
        return {}

    def op_DeleteParameters(self, body: dict) -> dict:
        names = body.get("Names") or []
        deleted = [n for n in names if self.parameters.pop(n, None) is not None]
        return {"DeletedParameters": deleted,
                "InvalidParameters": [n for n in names if n not in deleted]}
