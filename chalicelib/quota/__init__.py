"""Quota: Forgejo's rules, groups and memberships, usage kept exact per owner.

Operations (``admin_routes.py``): adminListQuotaRules, adminCreateQuotaRule,
adminGetQuotaRule, adminEditQuotaRule, adminDeleteQuotaRule, adminListQuotaGroups,
adminCreateQuotaGroup, adminGetQuotaGroup, adminDeleteQuotaGroup,
adminAddRuleToQuotaGroup, adminRemoveRuleFromQuotaGroup, adminListUsersInQuotaGroup,
adminAddUserToQuotaGroup, adminRemoveUserFromQuotaGroup, adminGetUserQuota,
adminSetUserQuotaGroups.
Operations (``routes.py``): userGetQuota, userCheckQuota, userListQuotaAttachments,
userListQuotaPackages, userListQuotaArtifacts, orgGetQuota, orgCheckQuota,
orgListQuotaAttachments, orgListQuotaPackages, orgListQuotaArtifacts.

| module | what it holds |
|---|---|
| ``admin`` | Administering quota: rules, groups, which rules a group holds and which accounts are in it (Forgejo's … |
| ``admin_routes`` | Quota administration (site admins; Forgejo's ``/admin/quota/…`` and ``/admin/users/{username}/quota…``). … |
| ``charges`` | Who is charged for repository storage, moved in the same transaction as the change. |
| ``check`` | The quota check: recompute every account's usage from the packs (S3 and their items) and DynamoDB, and … |
| ``models`` | The quota domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the quota domain, declared once: the edge checks them (``ApiRequest.option``) and … |
| ``records`` | Quota records: what an owner uses, its groups and rules, and the attachments, packages and artifacts … |
| ``routes`` | Quota of the signed-in user and of organizations (Forgejo's ``/user/quota…`` and ``/orgs/{org}/quota…``; … |
| ``rules`` | Forgejo's quota rules as plain data: subjects, usage, and how rules and groups decide … |
| ``service`` | Quota: what an account uses, what it may use, and the checks before writes that use space (Forgejo's … |
| ``store`` | Quota in the table: the rules and groups, group memberships, and each account's usage. |

| layer | modules |
|---|---|
| routes (thin handlers) | ``routes``, ``admin_routes`` |
| request bodies | ``options`` (the admin routes' bodies, checked at the edge) |
| schedule | ``check`` (the daily recount that repairs drift) |
| rules | ``admin`` (managing rules and groups), ``charges`` (what a write costs, staged in its unit of work), ``service`` (usage, limits, the 413 decision) |
| model | ``rules`` (Forgejo's subjects and how rules combine; no I/O) |
| storage | ``store`` (configuration, usage counters) |

Registered by ``chalicelib/areas.py``; the schedule runs from ``app.py``.  Off unless
``[quota] ENABLED`` (its routes then answer 404).  Pushes, forks, migrations, mirror
syncs, releases and uploads call ``charges``/``service`` in their own transactions;
``docs/quota.md`` has the model.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "CHARGE_VISIBILITY":        "charges.VISIBILITY",
    "Charge":                   "charges",
    "PUSH_SUBJECT":             "charges",
    "charge_committed":         "charges.committed",
    "charge_for":               "charges",
    "quota_push_refusal":       "charges.push_refusal",
    "refresh_charge":           "charges.refresh",
    "stage_charge":             "charges.stage",
    "stage_charge_release":     "charges.stage_release",
    "stage_charge_visibility":  "charges.stage_visibility",
    "stage_charge_owner":       "charges.stage_owner",
    "recount":                  "check",
    "ensure_within_quota":      "service.ensure_within",
    "quota_allows":             "service.allows",
    "stage_attachment_usage":   "service",
    "stage_usage":              "store",
})
