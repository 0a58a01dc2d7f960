"""Every S3, SSM, SQS, Lambda and EventBridge call each Lambda function's code can reach, found by
reading the code (tests/code_graph.py), with the IAM action and resource AWS authorizes
it as, checked against the role infra/template.py renders for that function.  tests/test_iam.py
runs the functions under enforcement, but only the paths its run takes: a failed
multipart upload or a branch only some state reaches is a path here all the same.

- Roots: each function app.py gives chalice (its ``name``, camel-cased, is the
  template's; a scheduled one from the job its cron task runs), and for the API and the
  streaming function the gateway and every handler the route and page registrars
  register: POST routes for the streaming function (API Gateway sends it every POST),
  the others for the API.
- Calls: boto3 methods (by name, from botocore's models of the services the module makes
  clients of, plus s3transfer's managed transfers) and chalicelib/aws.py's helpers,
  mapped to IAM actions as the Service Authorization Reference lists them: HeadObject is
  s3:GetObject, a managed upload is s3:PutObject and, when it fails, s3:AbortMultipartUpload
  (s3transfer aborts it), a batch is its single-message action.
- Resources: an object key is followed back to where it is made (a literal, an f-string,
  a key builder's return, a module constant, the listing it came from, or the argument
  every caller on a reachable path passes), then matched to the bucket prefixes the
  template grants; a parameter name to the keys infra/iam.py names; a queue to the
  settings name its module uses; a function to the cron tasks' functions.  A key this
  cannot follow is reported, not guessed.

DynamoDB is left to tests/test_iam.py: one table, and PynamoDB's method names (get, save,
update, query) cannot be told apart from other objects' by name.
"""
from __future__ import annotations

import ast
import json

from tests.code_graph import Graph, dotted, packaged_modules, path_to
from tests.code_values import Tracer, Unknown

# What registers a request handler in the route table, as a decorator or called.
REGISTRARS = {"chalicelib.http.router:route", "chalicelib.web.view:page",
              "chalicelib.web.conversation_view:tracker_page"}
GATEWAY = "chalicelib.http.gateway:handle_event"
CRON_MODULE = "chalicelib.jobs.cron"
# Not entered by the walk: the table of every cron task's job (``cron_job`` picks the
# one a function runs), and the gateway branch of app.py's dispatch, which serves API
# Gateway's events only (a schedule's or a queue's goes to Chalice's own).
AVOID = frozenset({f"{CRON_MODULE}:JOBS", "app:NimbusApp.__call__"})
STREAMING = ("chalicelib.streaming.handler", "chalicelib.streaming.bootstrap")
# chalicelib/aws.py's helpers: (action, which argument names the resource).
HELPERS = {"chalicelib.aws:delete_objects": ("s3", ("DeleteObject",), 1),
           "chalicelib.aws:read_secret": ("ssm", ("GetParameter",), 0),
           "chalicelib.aws:kept_secret": ("ssm", ("GetParameter", "PutParameter"), 0)}
# boto3 and s3transfer method -> IAM actions, where they differ from the operation's name;
# the argument holding the key (position, keyword).
S3_ACTIONS = {
    "head_object": ("GetObject",), "copy_object": ("GetObject", "PutObject"),
    "delete_objects": ("DeleteObject",), "list_objects_v2": ("ListBucket",),
    "list_objects": ("ListBucket",),
    "create_multipart_upload": ("PutObject",), "upload_part": ("PutObject",),
    "complete_multipart_upload": ("PutObject",),
    "upload_fileobj": ("PutObject", "AbortMultipartUpload"),
    "upload_file": ("PutObject", "AbortMultipartUpload"),
    "copy": ("GetObject", "PutObject", "AbortMultipartUpload"),
    "download_fileobj": ("GetObject",), "download_file": ("GetObject",),
}
S3_KEY_ARGUMENT = {"upload_fileobj": 2, "upload_file": 2, "copy": 2,
                   "download_fileobj": 1, "download_file": 1}
TRANSFERS = ("upload_fileobj", "upload_file", "download_fileobj", "download_file", "copy")
# IAM actions whose names are not their operation's (other than S3's above).
RENAMED = {("lambda", "invoke"): "InvokeFunction"}
SQS_SINGLE = {"send_message_batch": "SendMessage", "delete_message_batch": "DeleteMessage",
              "change_message_visibility_batch": "ChangeMessageVisibility"}
QUEUES = {"EVENTS_QUEUE": "EventsQueue", "WEBHOOK_QUEUE": "WebhookQueue"}


def _cron_functions() -> list[str]:
    from chalicelib import instance

    return [task.function for task in instance.CRON_TASKS]


# Functions a module invokes: adminCronRun starts a cron task's own function.
LAMBDA_TARGETS = {"chalicelib.instance.cron": _cron_functions}
# The modules that put events on a bus: the stack's one (infra/eventbridge.py).
EVENT_BUS_CALLERS = ("chalicelib.jobs.bridge",)


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def boto_methods(service: str) -> set[str]:
    import botocore.session
    from botocore import xform_name

    model = botocore.session.get_session().get_service_model(service)
    return {xform_name(op) for op in model.operation_names}


def operation_name(service: str, method: str) -> str:
    import botocore.session
    from botocore import xform_name

    model = botocore.session.get_session().get_service_model(service)
    return {xform_name(op): op for op in model.operation_names}.get(method, method)


class Reader:
    """The graph, the roots of each function and what each node calls in AWS."""

    def __init__(self):
        self.graph = Graph(packaged_modules())
        self._services: dict[str, set[str]] = {}
        named = set().union(*(self.services(m) for m in self.graph.modules))
        # Client methods that are no operation: a paginator's and a presigned URL's
        # operation is their first argument.
        self.ops = {service: boto_methods(service) | {"get_paginator", "generate_presigned_url"}
                    for service in named}
        self.ops["s3"] |= set(TRANSFERS)

    # --- roots ---------------------------------------------------------------------------

    def roots(self) -> dict[str, set[str]]:
        graph, found = self.graph, {}
        for name, node in graph.modules["app"].defs.items():
            for decorator in getattr(node, "decorator_list", ()):
                if isinstance(decorator, ast.Call) and dotted(decorator.func)[:1] == ["app"]:
                    function = next((k.value.value for k in decorator.keywords
                                     if k.arg == "name"), None)
                    if function:
                        found[camel(function)] = {f"app:{name}", *self.cron_job(name)}
        # API Gateway sends POST to the streaming function, every other method to the
        # API's (infra/template.py, streaming_resources).
        handlers = {"APIHandler": {GATEWAY}, "StreamHandler": {GATEWAY} | {
            f"{m}:{d}" for m in STREAMING for d in graph.modules[m].defs}}

        def register(call, handler_nodes) -> None:
            method = call.args[0].value if call and call.args and isinstance(
                call.args[0], ast.Constant) and str(call.args[0].value).isupper() else None
            for function in (("StreamHandler",) if method == "POST" else
                             ("APIHandler",) if method else ("APIHandler", "StreamHandler")):
                handlers[function] |= handler_nodes

        for module in graph.modules.values():
            for name, node in module.defs.items():      # @route(...) def handler
                for decorator in getattr(node, "decorator_list", ()):
                    call = decorator if isinstance(decorator, ast.Call) else None
                    chain = dotted(call.func if call else decorator)
                    if chain and graph.resolve(module.name, chain) & REGISTRARS:
                        register(call, {f"{module.name}:{name}"})
        for node in graph.bodies:                       # route(...)(handler)
            module = graph.owner[node]
            for call in graph.calls(node):
                inner = call.func
                if isinstance(inner, ast.Call) and (chain := dotted(inner.func)) and \
                        graph.resolve(module, chain) & REGISTRARS and call.args:
                    # A lambda or a nested function belongs to the function it is in.
                    target = dotted(call.args[0])
                    register(inner, {r for r in graph.resolve(module, target, graph.class_of(
                        node)) if r in graph.bodies} or {node} if target else {node})
        return {**found, **handlers}

    def cron_job(self, handler: str) -> set[str]:
        """A scheduled function runs its task's job through chalicelib/jobs/cron.py's
        table by the name it passes (``cron.run_scheduled("mirror_sync", event)``): the
        job that name maps to, read from the table itself (the walk does not enter the
        table, ``JOBS``, which holds every task's job)."""
        graph = self.graph
        for call in graph.calls(f"app:{handler}"):
            chain = dotted(call.func)
            if not chain or not call.args or not isinstance(call.args[0], ast.Constant):
                continue
            if any(r.startswith(CRON_MODULE + ":") for r in graph.resolve("app", chain)):
                import importlib

                job = importlib.import_module(CRON_MODULE).JOBS[call.args[0].value]
                node = f"{job.__module__}:{job.__qualname__}"
                assert node in graph.bodies, f"the job of {handler} is not a plain function"
                return {node}
        return set()

    # --- calls ---------------------------------------------------------------------------

    def services(self, module: str) -> set[str]:
        """The services ``module`` makes clients of (``client("s3")``, ``presigner()``)."""
        if module in self._services:
            return self._services[module]
        self._services[module] = found = set()
        for node in ast.walk(self.graph.modules[module].tree):
            if isinstance(node, ast.Call) and (chain := dotted(node.func)):
                if chain[-1] == "client" and node.args and isinstance(node.args[0], ast.Constant):
                    found.add(node.args[0].value)
                elif chain[-1] == "presigner":
                    found.add("s3")
        return found

    def sinks(self, node: str):
        """(service, boto method, actions, resource expression or None) per AWS call."""
        graph, module = self.graph, self.graph.owner[node]
        services = self.services(module) if module != "chalicelib.aws" else set()
        for call in graph.calls(node):
            chain = dotted(call.func)
            helper = (graph.resolve(module, chain) & set(HELPERS)) if chain else set()
            for name in helper:
                service, actions, index = HELPERS[name]
                yield service, name, actions, _argument(call, index, "name" if index == 0
                                                         else "keys")
            if helper or not isinstance(call.func, ast.Attribute):
                continue
            method = call.func.attr
            service = next((s for s in sorted(services) if method in self.ops.get(s, ())), None)
            if service is None:
                continue
            if method == "get_paginator" and call.args:
                method = call.args[0].value
            if method == "generate_presigned_url":
                method, params = call.args[0].value, _keyword(call, "Params")
                if isinstance(params, ast.Name):           # params = {...}; ...(Params=params)
                    params = next((a.value for stmt in graph.bodies[node]
                                   for a in ast.walk(stmt) if isinstance(a, ast.Assign)
                                   and isinstance(a.value, ast.Dict)
                                   and any(getattr(t, "id", "") == params.id
                                           for t in a.targets)), None)
                key = _dict_value(params, "Key") if isinstance(params, ast.Dict) else None
                yield service, method, self.actions(service, method), key
                continue
            if service == "s3":
                key = _argument(call, S3_KEY_ARGUMENT.get(method, 99), "Key")
                yield service, method, self.actions(service, method), key
            else:
                yield service, method, self.actions(service, method), call

    def actions(self, service: str, method: str) -> tuple[str, ...]:
        if service == "s3" and method in S3_ACTIONS:
            return S3_ACTIONS[method]
        if service == "sqs" and method in SQS_SINGLE:
            return (SQS_SINGLE[method],)
        if (service, method) in RENAMED:
            return (RENAMED[service, method],)
        return (operation_name(service, method),)


def _keyword(call: ast.Call, name: str):
    return next((k.value for k in call.keywords if k.arg == name), None)


def _argument(call: ast.Call, index: int, name: str):
    if len(call.args) > index:
        return call.args[index]
    return _keyword(call, name)


def _dict_value(node: ast.Dict, key: str):
    return next((v for k, v in zip(node.keys, node.values)
                 if isinstance(k, ast.Constant) and k.value == key), None)


def resource_json(resource) -> str:
    return json.dumps(resource, sort_keys=True)


# --- what each function needs, and what its role grants ---------------------------------

def known_values() -> dict:
    """Parameter names made by a function of the code: the same names infra/iam.py
    grants (those functions are the single source of each name)."""
    from chalicelib import oauth2
    from chalicelib.http import sessions
    from chalicelib.settings import get_settings

    def signing() -> str:
        return get_settings().aws.SIGNING_KEY_PARAMETER

    return {"chalicelib.http.sessions:key_parameter":
            lambda: sessions.key_parameter(signing()),
            "chalicelib.oauth2.jwt_keys:key_parameter":
            lambda: oauth2.jwt_key_parameter(signing())}


def granted_prefixes(roles: dict) -> list[str]:
    """The bucket prefixes any role is granted objects under, longest first."""
    found = set()
    for text in json.dumps(roles).split('"'):
        if text.startswith("${NimbusBucket.Arn}/") and text.endswith("*"):
            found.add(text[len("${NimbusBucket.Arn}/"):-1])
    return sorted(found, key=len, reverse=True)


class Check:
    """Per function: the (action, resource) pairs its reachable code needs, each with a
    path that reaches it; and what could not be followed."""

    def __init__(self):
        from chalicelib.settings import get_settings
        from infra import iam
        from infra.template import resources

        self.iam, self.settings = iam, get_settings()
        self.template = resources(self.settings)["Resources"]
        self.reader = Reader()
        self.graph = self.reader.graph
        self.tracer = Tracer(self.graph, known_values())
        self.prefixes = granted_prefixes(self.roles())
        self.unresolved: list[tuple[str, str, str]] = []

    def roles(self) -> dict:
        return {name: r for name, r in self.template.items()
                if r.get("Type") == "AWS::IAM::Role"}

    def statements(self, function: str) -> list[dict]:
        role = self.template[self.iam.role_name(function)]
        return [s for p in role["Properties"]["Policies"]
                for s in p["PolicyDocument"]["Statement"]]

    def granted(self, function: str, action: str, resource) -> bool:
        wanted = resource_json(resource)
        for statement in self.statements(function):
            targets = statement["Resource"]
            targets = targets if isinstance(targets, list) else [targets]
            if action in statement["Action"] and wanted in map(resource_json, targets):
                return True
        return False

    def avoid(self, function: str) -> frozenset:
        return frozenset() if function in ("APIHandler", "StreamHandler") else AVOID

    def needs(self, function: str, roots: set[str]) -> dict[tuple[str, str], list[str]]:
        reach = self.graph.reach(roots, self.avoid(function))
        found: dict[tuple[str, str], list[str]] = {}
        for node in sorted(reach):
            for service, method, actions, expr in self.reader.sinks(node):
                for resource in self.resources(function, node, service, expr, actions, reach):
                    for action in actions:
                        key = (f"{service}:{action}", resource_json(
                            self.iam.BUCKET if action == "ListBucket" else resource))
                        found.setdefault(key, [*path_to(reach, node), method])
        return found

    def resources(self, function, node, service, expr, actions, reach) -> list:
        iam = self.iam
        if service == "s3":
            if actions == ("ListBucket",):
                return [iam.BUCKET]
            return [iam.objects(p)[0] for p in self.key_prefixes(function, node, expr, reach)]
        if service == "ssm":
            names = self.tracer.starts(node, expr, reach)
            return [iam.parameter(n) for n in self.followed(function, node, names)]
        module = self.graph.modules[self.graph.owner[node]]
        if service == "events" and module.name in EVENT_BUS_CALLERS:
            from infra import eventbridge

            return [eventbridge.BUS_ARN]
        if service == "lambda" and module.name in LAMBDA_TARGETS:
            return [{"Fn::GetAtt": [name, "Arn"]} for name in LAMBDA_TARGETS[module.name]()]
        queues = [{"Fn::GetAtt": [logical, "Arn"]} for name, logical in QUEUES.items()
                  if name in module.source] if service == "sqs" else []
        if not queues:
            self.unresolved.append(
                (function, node, f"which {service} resource: not known for {module.name}"))
        return queues

    def key_prefixes(self, function, node, expr, reach) -> set[str]:
        starts = self.tracer.starts(node, expr, reach)
        found = set()
        for start in self.followed(function, node, starts - {""}):   # "": no object
            prefix = next((p for p in self.prefixes if start.startswith(p)), None)
            if prefix is None:
                self.unresolved.append(
                    (function, node, f"key starting {start!r} is under no granted prefix"))
            else:
                found.add(prefix)
        return found

    def followed(self, function: str, node: str, starts: set) -> list[str]:
        for start in starts:
            if isinstance(start, Unknown):
                self.unresolved.append((function, start.where, start.text))
        return sorted(s for s in starts if isinstance(s, str))

    def missing(self) -> dict[str, dict]:
        """function -> {(action, resource): path} its role lacks."""
        out = {}
        for function, roots in sorted(self.reader.roots().items()):
            lacking = {key: path for key, path in self.needs(function, roots).items()
                       if not self.granted(function, key[0], json.loads(key[1]))}
            if lacking:
                out[function] = lacking
        return out
