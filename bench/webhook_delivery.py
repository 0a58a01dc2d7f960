"""Webhook delivery in the local runtime: how many deliveries one worker sends per second
to a fast local receiver, and how long an event takes from its API write to its
delivery.

    .venv/bin/python bench/webhook_delivery.py      # [--events 40] [--backlog 200] [--json]

In one process: a LocalRuntime as ``make run`` runs it (journal with fsync, the event
pipeline, one webhook worker thread), a repository with one ``forgejo`` hook, and a
receiver (``http.server`` on loopback, threads) that answers 200 at once.

- **delay**: ``--events`` issues are created one after another through the HTTP API;
  each one's delay runs from the moment its POST returned to the moment the receiver
  got its ``issues`` delivery (outbox -> relay -> events queue -> consumer -> table ->
  webhook queue -> worker -> receiver).  Median and p99.
- **rate**: the receiver answers 503 while ``--backlog`` issues are created, so their
  deliveries pile up behind the first one's retries; then it answers 200, and the rate
  is deliveries received / time from the first to the last 2xx answer.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from _harness import FAKE_AWS, REPO_ROOT

ADMIN = ("root", "root-password-1")


class Receiver:
    def __init__(self):
        self.status = 200
        self.arrivals: dict[str, float] = {}
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status = owner.status
                if status == 200:
                    title = json.loads(body)["issue"]["title"]
                    with owner.lock:
                        owner.arrivals.setdefault(title, time.time())
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def wait(self, titles, timeout: float) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self.lock:
                if all(t in self.arrivals for t in titles):
                    return
            time.sleep(0.01)
        raise SystemExit(f"timed out: {len([t for t in titles if t in self.arrivals])} of "
                         f"{len(titles)} delivered")


def call(base: str, method: str, path: str, body=None) -> dict:
    import base64

    token = base64.b64encode(":".join(ADMIN).encode()).decode()
    request = urllib.request.Request(base + path, method=method,
                                     data=json.dumps(body).encode() if body else None,
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Basic " + token})
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read() or b"null")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=40)
    parser.add_argument("--backlog", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.update(FAKE_AWS)
    os.environ.update({"NIMBUS__WEBHOOK__ALLOWED_HOST_LIST": "loopback",
                       "NIMBUS__WEBHOOK__BACKOFF_BASE_MS": "200",
                       "NIMBUS__WEBHOOK__MAX_ATTEMPTS": "1000",
                       "NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024"})
    sys.path.insert(0, str(REPO_ROOT))
    from chalicelib.local.event_pipeline import EventPipeline
    from chalicelib.local.runtime import LocalRuntime
    from chalicelib.local.webhook_worker import WebhookWorker

    receiver = Receiver()
    with tempfile.TemporaryDirectory() as data, \
            LocalRuntime(port=0, data_dir=data, access_log=False, sync_journal=os.environ.get("NOSYNC") is None) as runtime:
        for task in EventPipeline().tasks() + WebhookWorker().tasks():
            runtime.add_background(task)
        from chalicelib.accounts import ensure_admin

        ensure_admin(ADMIN[0], ADMIN[1], "root@example.com")
        base = runtime.url + "/api/v1"
        call(base, "POST", "/user/repos", {"name": "bench"})
        hook = call(base, "POST", "/repos/root/bench/hooks", {
            "type": "forgejo", "active": True, "events": ["issues"],
            "config": {"url": receiver.url, "content_type": "json", "secret": "s"}})

        written: dict[str, float] = {}
        for n in range(args.events):
            title = f"delay {n}"
            call(base, "POST", "/repos/root/bench/issues", {"title": title})
            written[title] = time.time()
            receiver.wait([title], 30)
        delays = [receiver.arrivals[t] - written[t] for t in written]

        receiver.status = 503
        titles = [f"backlog {n}" for n in range(args.backlog)]
        started = time.time()
        for title in titles:
            call(base, "POST", "/repos/root/bench/issues", {"title": title})
        # Every delivery written (the consumer is not what is measured), the first retrying.
        from chalicelib.webhooks import delivery_store as store

        repo_id = call(base, "GET", "/repos/root/bench")["id"]
        ref = store.hook_ref("repo", repo_id, hook["id"])
        while store.count(ref) < args.events + args.backlog:
            time.sleep(0.2)
        consumed = time.time()
        receiver.status = 200
        receiver.wait(titles, 300)
        times = sorted(receiver.arrivals[t] for t in titles)
        rate = (len(times) - 1) / max(times[-1] - times[0], 1e-9)

    result = {"events": args.events, "delay_median_ms": round(statistics.median(delays) * 1000, 1),
              "delay_p99_ms": round(percentile(delays, 0.99) * 1000, 1),
              "backlog": args.backlog, "deliveries_per_second": round(rate, 1),
              "consumer_events_per_second": round(args.backlog / (consumed - started), 1)}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"delay from API write to delivery: median {result['delay_median_ms']} ms, "
              f"p99 {result['delay_p99_ms']} ms ({args.events} events, one at a time)")
        print(f"one worker, backlog of {args.backlog}: {result['deliveries_per_second']} "
              "deliveries/s to a local receiver")
        print(f"(the events consumer wrote those {args.backlog} deliveries at "
              f"{result['consumer_events_per_second']} events/s, API writes included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
