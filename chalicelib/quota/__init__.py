"""Quota: Forgejo's rules, groups and memberships, usage kept exact per owner.

Operations (``routes.py``): userGetQuota, userCheckQuota, userListQuotaArtifacts,
userListQuotaAttachments, userListQuotaPackages, orgGetQuota, orgCheckQuota,
orgListQuotaArtifacts, orgListQuotaAttachments, orgListQuotaPackages;
(``admin_routes.py``) adminListQuotaRules, adminCreateQuotaRule, adminGetQuotaRule,
adminEditQuotaRule, adminDeleteQuotaRule, adminListQuotaGroups, adminCreateQuotaGroup,
adminGetQuotaGroup, adminDeleteQuotaGroup, adminAddRuleToQuotaGroup,
adminRemoveRuleFromQuotaGroup, adminListUsersInQuotaGroup, adminAddUserToQuotaGroup,
adminRemoveUserFromQuotaGroup, adminGetUserQuota, adminSetUserQuotaGroups.

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
    "recount":                  "check",
    "ensure_within_quota":      "service.ensure_within",
    "quota_allows":             "service.allows",
    "stage_attachment_usage":   "service",
    "stage_usage":              "store",
})
