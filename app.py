"""The Lambda entry point: builds the Chalice app and nothing else.

API Gateway sends every request through one catch-all route; the in-app route table
(chalicelib/http/router.py) picks the handler.  Scheduled and queue functions are
registered here as they land, each a thin wrapper around a job in chalicelib/jobs.
"""
import gc

# A cold start creates hundreds of thousands of objects that live as long as the process
# (modules, classes, the route index); the cyclic collector would scan them again and
# again while they are made (a tenth of the import's CPU).  It is off for the import and
# the survivors are frozen out of later collections (gc.freeze), which the first
# requests would otherwise pay for.
gc.disable()

from chalice import Chalice  # noqa: E402

from chalicelib.http.gateway import handle_event  # noqa: E402

ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


class NimbusApp(Chalice):
    """Chalice for packaging, schedules and queues; HTTP goes to our own gateway.

    Chalice's REST dispatcher would refuse content types the catch-all route does not
    list (415) and binary responses without a matching Accept header (400), and cannot
    bind greedy paths; our gateway handles the proxy event itself, the same way in
    AWS, under the local server and in tests.
    """

    def __call__(self, event, context):
        request_context = event.get("requestContext") or {}
        if "resourcePath" in request_context and "httpMethod" in request_context:
            return handle_event(event, context)
        return super().__call__(event, context)


app = NimbusApp(app_name="nimbus")
# Every body travels base64-encoded, so git packs and archives pass API Gateway intact.
app.api.binary_types = ["*/*"]


@app.route("/", methods=ALL_METHODS, content_types=["*/*"])
def root():  # pragma: no cover - NimbusApp.__call__ answers before Chalice routes
    raise AssertionError("handled by the gateway")


@app.route("/{proxy+}", methods=ALL_METHODS, content_types=["*/*"])
def proxy():  # pragma: no cover - see root()
    raise AssertionError("handled by the gateway")


# Scheduled functions: thin wrappers around chalicelib/jobs (the local runtime runs the
# same jobs from background threads).  Each run is recorded for /admin/cron, which can
# also start one: an invocation whose event says so (chalicelib/jobs/cron.py).
from chalice import Rate  # noqa: E402

from chalicelib.jobs import cron  # noqa: E402


@app.schedule(Rate(10, unit=Rate.MINUTES), name="mirror_sync")
def mirror_sync(event):
    return {"synced": cron.run_scheduled("mirror_sync", event)}


@app.schedule(Rate(1, unit=Rate.DAYS), name="pack_compaction")
def pack_compaction(event):
    return {"compacted": cron.run_scheduled("pack_compaction", event)}


@app.schedule(Rate(1, unit=Rate.HOURS), name="lfs_collect")
def lfs_collect(event):
    return {"collected": cron.run_scheduled("lfs_collect", event)}


@app.schedule(Rate(1, unit=Rate.DAYS), name="quota_check")
def quota_check(event):
    return {"corrected": cron.run_scheduled("quota_check", event)}


@app.schedule(Rate(5, unit=Rate.MINUTES), name="migration_resume")
def migration_resume(event):
    return {"resumed": cron.run_scheduled("migration_resume", event)}


@app.schedule(Rate(1, unit=Rate.HOURS), name="deleted_repo_purge")
def deleted_repo_purge(event):
    return {"purged": cron.run_scheduled("deleted_repo_purge", event)}


@app.schedule(Rate(1, unit=Rate.DAYS), name="audit_export")
def audit_export(event):
    return {"exported": cron.run_scheduled("audit_export", event)}


# Domain events (chalicelib/store/outbox.py -> jobs/relay.py -> the events queue ->
# jobs/consumers.py).  In AWS the table's stream, filtered to new outbox items
# (infra/template.py), invokes the relay; the sweep picks up what the stream left.
# The handlers import their jobs when called, so the API function's cold start does not
# pay for them.
from chalicelib.settings import get_settings  # noqa: E402


@app.lambda_function(name="outbox_relay")
def outbox_relay(event, context):
    from chalicelib.jobs import relay

    return {"published": relay.relay_stream_records(event.get("Records") or [])}


@app.schedule(Rate(5, unit=Rate.MINUTES), name="outbox_sweep")
def outbox_sweep(event):
    return {"published": cron.run_scheduled("outbox_sweep", event)}


@app.on_sqs_message(queue=get_settings().aws.EVENTS_QUEUE, batch_size=10, name="event_worker")
def event_worker(event):
    # One failing message fails the batch: SQS redelivers it (consumers are idempotent
    # on the event id) and dead-letters it after five receives.
    from chalicelib.jobs import consumers

    return {"handled": consumers.handle_sqs_records(record.body for record in event)}


# Webhook delivery (chalicelib/webhooks/consumers.py): the webhook-delivery consumer writes
# deliveries to the table and posts their hooks' lanes here; this function sends them,
# in order per hook, retrying with backoff.  One lane per invocation keeps a run within
# the function's timeout; the sweep wakes lanes a lost message or a long retry left.
@app.on_sqs_message(queue=get_settings().aws.WEBHOOK_QUEUE, batch_size=1, name="webhook_worker")
def webhook_worker(event):
    from chalicelib import webhooks

    return {"sent": webhooks.handle_sqs_records(record.body for record in event)}


@app.schedule(Rate(1, unit=Rate.MINUTES), name="webhook_sweep")
def webhook_sweep(event):
    return {"woken": cron.run_scheduled("webhook_sweep", event)}


gc.freeze()
gc.enable()
