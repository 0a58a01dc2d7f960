"""repoTestHook: a push of one commit sent to a hook by hand (the API's
``POST /repos/{owner}/{repo}/hooks/{id}/tests`` and the hook's settings page).

Above the payloads and formats it builds with, beside the consumer that builds the
same for real events; the delivery is queued and recorded by ``history``.
"""
from __future__ import annotations

from chalicelib.webhooks import formats as webhook_formats
from chalicelib.webhooks import history as webhook_history
from chalicelib.webhooks import payloads as webhook_payloads
from chalicelib.webhooks import service as hooks
from chalicelib.webhooks.delivery_store import HookDelivery


def send_test_push(scope: hooks.Scope, view, actor, hook_id: int,
                   ref: str | None) -> HookDelivery | None:
    """The test push of ``ref`` or the default branch's head, queued like any delivery."""
    test = webhook_history.test_push(scope, view, actor, hook_id, ref)
    payload = webhook_payloads.test_push(test.repo, test.actor, test.ref, test.commit)
    return webhook_history.send_test(test, webhook_formats.request_for(test.hook, payload),
                                     payload)
