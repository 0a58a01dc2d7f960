"""Webhook scenarios for bench/aws_calls.py (imported there): system hooks
(``/admin/hooks``), a hook's delivery history and redelivery under repositories,
organizations and the admin, and ``repoTestHook``.

A delivery to read is written in-process as the delivery consumer writes it (set-up:
not counted); nothing is sent (the bench's hook URL does not resolve).
"""
from __future__ import annotations

from scenarios_orgs import any_org_hook, org
from scenarios_repos import DEMO, any_hook
from scene import Req

SYSTEM_HOOK = {"type": "forgejo", "active": True, "events": ["push"],
               "config": {"url": "https://ci.example.com/system", "content_type": "json",
                          "is_system_webhook": "true"}}


def new_system_hook(s) -> int:
    return s.must("POST", "/admin/hooks", "admin", SYSTEM_HOOK)["id"]


def any_system_hook(s) -> int:
    return s.once("system_hook", lambda: new_system_hook(s))


def delivery_of(s, kind: str, owner_id: int, hook_id: int) -> int:
    """One delivery of the hook, written as the consumer writes it."""
    def make() -> int:
        from chalicelib.webhooks import deliveries as webhook_deliveries
        from chalicelib.webhooks import store as hook_store
        from chalicelib.store import unit_of_work

        with unit_of_work.start():
            hook = hook_store.get(kind, owner_id, hook_id)
            made = webhook_deliveries.enqueue(
                hook, text='{\n  "ref": "refs/heads/main"\n}', event="push",
                event_type="push", action="", content_kind="json", http_method="POST",
                default_headers=True)
        return int(made.id)
    return s.once(f"delivery:{kind}:{hook_id}", make)


def _owner_id(kind: str, name: str) -> int:
    if kind == "repo":
        from chalicelib.repos import store as repo_store

        owner, repo = name.split("/")
        return int(repo_store.get(owner, repo).id)
    from chalicelib import accounts

    return int(accounts.account_by_name(name).id)


def repo_delivery(s) -> tuple[int, int]:
    hook = any_hook(s)
    return hook, delivery_of(s, "repo", _owner_id("repo", DEMO.removeprefix("/repos/")), hook)


def org_delivery(s) -> tuple[int, int]:
    hook = any_org_hook(s)
    return hook, delivery_of(s, "org", _owner_id("org", org(s)), hook)


def system_delivery(s) -> tuple[int, int]:
    hook = any_system_hook(s)
    return hook, delivery_of(s, "system", 0, hook)


def _delivery_scenarios(area: str, base, find, auth: str) -> dict:
    def path(s, suffix=""):
        hook, delivery = find(s)
        return f"{base(s)}/hooks/{hook}/deliveries{suffix.format(delivery=delivery)}"
    return {
        f"{area}ListHookDeliveries": lambda s: [Req("GET", path(s), auth)],
        f"{area}GetHookDelivery": lambda s: [Req("GET", path(s, "/{delivery}"), auth)],
        f"{area}RedeliverHookDelivery": lambda s: [
            Req("POST", path(s, "/{delivery}/attempts"), auth, expect=202)],
    }


def scenarios() -> dict:
    """operationId -> scenario, as in aws_calls.SCENARIOS."""
    return {
        "adminListHooks": lambda s: [Req("GET", f"/admin/hooks?x={any_system_hook(s)}",
                                         "admin")],
        "adminCreateHook": lambda s: [Req("POST", "/admin/hooks", "admin", SYSTEM_HOOK, 201)],
        "adminGetHook": lambda s: [Req("GET", f"/admin/hooks/{any_system_hook(s)}", "admin")],
        "adminEditHook": lambda s: [Req("PATCH", f"/admin/hooks/{any_system_hook(s)}", "admin",
                                        {"active": True})],
        "adminDeleteHook": lambda s: [Req("DELETE", f"/admin/hooks/{new_system_hook(s)}",
                                          "admin", expect=204)],
        "repoTestHook": lambda s: [Req("POST", f"{DEMO}/hooks/{any_hook(s)}/tests", "token",
                                       expect=204)],
        **_delivery_scenarios("repo", lambda s: DEMO, repo_delivery, "token"),
        **_delivery_scenarios("org", lambda s: f"/orgs/{org(s)}", org_delivery, "token"),
        **_delivery_scenarios("admin", lambda s: "/admin", system_delivery, "admin"),
    }
