"""Scenarios and budgets for the audit log (chalicelib/audit): the instance's list for
site admins, an organization's for its owners.

The bench runs no event worker, so the set-up hands the waiting events to the audit-log
consumer itself (unmeasured), as the worker would.  A page is ONE Query of one index
partition: the site admin's list after the gateway's two batches (the token, the
account); the organization's after those, the organization by name (one Query of the
name index) and the caller's membership (one GetItem: is the caller an owner).  A
``repo`` or ``actor`` filter adds one GetItem (the name as the log last saw it).
"""
from __future__ import annotations

from scenarios_orgs import new_org_repo, org
from scene import Req, Scene, after, deliver_pending

BUDGETS = {
    ("adminListAuditLog", "admin"): 4,
    ("orgListAuditLog", "token"): 6,
}


def recorded(s: Scene) -> str:
    """A repository of alice's organization, its making recorded (once): its name."""
    def make() -> str:
        name = new_org_repo(s)
        deliver_pending("audit")
        return name
    return s.once("audit_recorded", make)


def scenarios() -> dict:
    return {
        "adminListAuditLog": lambda s: after(recorded(s), [
            Req("GET", "/admin/audit_log?limit=20", "admin"),
            Req("GET", f"/admin/audit_log?repo={org(s)}/{recorded(s)}", "admin")]),
        "orgListAuditLog": lambda s: after(recorded(s), [
            Req("GET", f"/orgs/{org(s)}/audit_log?limit=20", "token"),
            Req("GET", f"/orgs/{org(s)}/audit_log?repo={recorded(s)}&action=repository",
                "token")]),
    }
