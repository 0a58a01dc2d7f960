"""Webhooks: repository, organization, user and system hooks, and their deliveries.

Operations (``delivery_routes.py``): repoListHookDeliveries, repoGetHookDelivery,
repoRedeliverHookDelivery, orgListHookDeliveries, orgGetHookDelivery,
orgRedeliverHookDelivery, adminListHookDeliveries, adminGetHookDelivery,
adminRedeliverHookDelivery, repoTestHook.
Operations (``routes.py``): repoListHooks, repoCreateHook, repoGetHook, repoEditHook,
repoDeleteHook, orgListHooks, orgCreateHook, orgGetHook, orgEditHook, orgDeleteHook,
adminListHooks, adminCreateHook, adminGetHook, adminEditHook, adminDeleteHook.
Operations (``user_hook_routes.py``): userListHooks, userCreateHook, userGetHook,
userEditHook, userDeleteHook.

| module | what it holds |
|---|---|
| ``branch_filters`` | Hooks' branch filters (``branch_filter``): gobwas/glob patterns without separators, as Forgejo matches … |
| ``chat`` | Chat hooks' messages, made from the Forgejo payload as Forgejo's converters make them … |
| ``consumers`` | Webhook delivery's two jobs. |
| ``copies`` | A repository's webhooks copied to another repository: ``generateRepo``'s ``webhooks`` … |
| ``deliveries`` | Webhook delivery: every payload reaches every hook that subscribed, in order per hook, even when the … |
| ``delivery_routes`` | A hook's deliveries (GitHub's delivery API, which Forgejo lacks: documented in docs/compatibility.md) and … |
| ``delivery_store`` | Webhook deliveries in the table: each delivery's record (its payload, state and attempts), the queue of a … |
| ``formats`` | What a hook is sent for a payload: the text that is signed and how it travels. |
| ``history`` | A hook's deliveries as its owners see them: the history (newest first), one delivery with its attempts, … |
| ``hook_records`` | The Hook record (fj:services/webhook/general.go ToHook), field for field. |
| ``hook_test`` | repoTestHook: a push of one commit sent to a hook by hand (the API's ``POST … |
| ``models`` | The webhooks domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the webhooks domain, declared once: the edge checks them (``hook_option``) and … |
| ``payloads`` | Domain events -> the payloads Forgejo sends its webhooks, field for field. |
| ``release_payloads`` | The Release record inside a release webhook payload, from a ``ReleaseChanged`` event's snapshot … |
| ``review_payloads`` | Code review webhooks (fj:services/webhook/notifier.go PullRequestReview, PullRequestReviewRequest; … |
| ``routes`` | Webhooks of repositories and organizations (the records; delivery is elsewhere). |
| ``sender`` | One webhook request on the wire, and what came back. |
| ``service`` | Webhooks of repositories and organizations: the stored records and who gets what. |
| ``snapshots`` | Stored records rebuilt from the snapshots domain events carry (``events.snapshot``), never saved: … |
| ``sources`` | What a webhook payload is made from, for the delivery consumer: the records an event's snapshots describe … |
| ``store`` | Webhooks of repositories and organizations, in the table. |
| ``user_hook_routes`` | The signed-in user's own webhooks (``/user/hooks``; fj:routers/api/v1/user/hook.go). |

| layer | modules |
|---|---|
| routes (thin handlers) | ``routes``, ``delivery_routes``, ``user_hook_routes`` |
| consumer of domain events | ``consumers`` (the ``webhooks`` consumer: every event a hook wants becomes a delivery; ``app.py`` runs the delivery queue's function) |
| records (what receivers get) | ``formats`` (Forgejo, Gitea, Slack, Discord … bodies), ``payloads`` (Forgejo's payloads per event), ``release_payloads``, ``review_payloads`` (code review), ``chat`` |
| rules | ``service`` (hooks: who may manage which, validation, events), ``deliveries`` (the ordered, retried queue per hook), ``history`` (delivery history, redelivery), ``sender`` (one HTTP attempt through the SSRF guard), ``copies`` (a template's hooks for a generated repository) |
| storage | ``store`` (hook items), ``delivery_store`` (deliveries, leases, history) |

Registered by ``chalicelib/areas.py`` (routes) and ``chalicelib/jobs/consumers.py``
(the consumer); ``.importlinter`` keeps the layers inside the package pointing down.
What it takes from other domains, through their faces: repositories and access (``repos``),
accounts, the records of users, repositories, issues, pull requests and releases, and
the snapshots events carry, rebuilt by their owners; and the SSRF guard (``netguard``).
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "EVENT_TYPES":         "consumers",
    "deliver_due":         "consumers",
    "handle_sqs_records":  "consumers",
    "on_event":            "consumers",
    "wants_event":         "consumers",
    "run_lanes":           "consumers",
    "sweep_deliveries":    "consumers.sweep",
    "queue_url":           "deliveries",
    "list_deliveries":     "history",
    "get_delivery":        "history",
    "send_test_push":      "hook_test",
    "redeliver":           "history",
    "hook_record":         "hook_records.hook",
    # generateRepo's ``webhooks`` (chalicelib/repo_admin/generation.py).
    "hooks_to_copy":       "copies",
    "stage_hook_copies":   "copies",
    "CreateHookOption":    "options",
    "EditHookOption":      "options",
    "hook_option":         "options",
    "create_hook":         "service",
    "delete_hook":         "service",
    "edit_hook":           "service",
    "get_hook":            "service",
    "list_hooks":          "service",
    "repo_hook_scope":     "service.repo_scope",
    "usernames":           "sources",
})
