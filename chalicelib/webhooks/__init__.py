"""Webhooks: repository, organization and system hooks, and their deliveries.

Operations (``routes.py``): repoListHooks, repoCreateHook, repoGetHook, repoEditHook,
repoDeleteHook, repoTestHook, orgListHooks, orgCreateHook, orgGetHook, orgEditHook,
orgDeleteHook, adminListHooks, adminCreateHook, adminGetHook, adminEditHook,
adminDeleteHook; (``delivery_routes.py``) repoListHookDeliveries, repoGetHookDelivery,
repoRedeliverHookDelivery, orgListHookDeliveries, orgGetHookDelivery,
orgRedeliverHookDelivery.

| layer | modules |
|---|---|
| routes (thin handlers) | ``routes``, ``delivery_routes`` |
| consumer of domain events | ``consumers`` (the ``webhooks`` consumer: every event a hook wants becomes a delivery; ``app.py`` runs the delivery queue's function) |
| records (what receivers get) | ``formats`` (Forgejo, Gitea, Slack, Discord … bodies), ``payloads`` (Forgejo's payloads per event), ``release_payloads``, ``review_payloads`` (code review), ``chat`` |
| rules | ``service`` (hooks: who may manage which, validation, events), ``deliveries`` (the ordered, retried queue per hook), ``history`` (delivery history, redelivery), ``sender`` (one HTTP attempt through the SSRF guard) |
| storage | ``store`` (hook items), ``delivery_store`` (deliveries, leases, history) |

Registered by ``chalicelib/areas.py`` (routes) and ``chalicelib/jobs/consumers.py``
(the consumer); ``.importlinter`` keeps the layers inside the package pointing down.
What it takes from other domains: repositories and access (``repos.permissions``,
``repos.routes``), accounts, the records of users, repositories, issues, pull requests and
releases (``repos.records`` …) and the SSRF guard (``netguard``).
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "EVENT_TYPES":         "consumers",
    "deliver_due":         "consumers",
    "handle_sqs_records":  "consumers",
    "on_event":            "consumers",
    "run_lanes":           "consumers",
    "sweep_deliveries":    "consumers.sweep",
    "queue_url":           "deliveries",
    "usernames":           "sources",
})
