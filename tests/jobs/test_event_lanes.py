"""The local event worker's lanes (chalicelib/local/event_lanes.py): one repository's
events in the order received, one thread per lane at a time, lanes taken in turn, and
a redelivery of a waiting message not run twice.  Pure: no AWS at all."""
from __future__ import annotations

import random
import threading
import time

import pytest

from chalicelib.local.event_lanes import Lanes

pytestmark = pytest.mark.fast


def message(n: int, lane: str = "repo:1", handle: str = "") -> dict:
    return {"MessageId": f"{lane}/{n}", "ReceiptHandle": handle or f"h{n}",
            "Body": f"{lane}/{n}"}


def test_a_lane_runs_in_order_and_is_held_by_one_taker():
    lanes = Lanes()
    for n in range(3):
        lanes.put("repo:1", message(n))
    lane, first = lanes.take(0)
    assert (lane, first["Body"]) == ("repo:1", "repo:1/0")
    assert lanes.take(0) is None            # held: its next message waits for done
    lanes.put("repo:1", message(3))
    assert lanes.take(0) is None            # also one that came while it was held
    lanes.done(lane, first)
    assert [lanes.take(0)[1]["Body"]] == ["repo:1/1"]


def test_lanes_take_turns_so_a_burst_does_not_hold_up_another_repository():
    lanes = Lanes()
    for n in range(100):
        lanes.put("repo:busy", message(n, "repo:busy"))
    lanes.put("repo:quiet", message(0, "repo:quiet"))
    busy = lanes.take(0)
    quiet = lanes.take(0)                   # the second taker is not behind the burst
    assert quiet[1]["Body"] == "repo:quiet/0"
    lanes.done(*busy)
    lanes.done(*quiet)
    lanes.put("repo:quiet", message(1, "repo:quiet"))
    # busy went to the end of the turn when it was done: quiet's new message is next
    assert lanes.take(0)[1]["Body"] == "repo:busy/1"
    assert lanes.take(0)[1]["Body"] == "repo:quiet/1"


def test_a_redelivered_waiting_message_is_not_queued_again_but_a_failed_one_is():
    lanes = Lanes()
    first = message(0)
    assert lanes.put("repo:1", first)
    assert not lanes.put("repo:1", message(0, handle="newer"))    # visibility timed out
    assert len(lanes) == 1
    lane, taken = lanes.take(0)
    assert lanes.receipt_handle(taken) == "newer"                 # the delete uses it
    lanes.done(lane, taken)                                       # failed or deleted
    assert lanes.put("repo:1", message(0, handle="third"))        # a later delivery runs


def test_threads_keep_each_lane_in_order_and_never_share_one():
    lanes, seen, running = Lanes(), {}, set()
    broken: list[str] = []
    guard = threading.Lock()
    stop = threading.Event()

    def worker():
        while not stop.is_set():
            taken = lanes.take(0.05)
            if taken is None:
                continue
            lane, msg = taken
            with guard:
                if lane in running:
                    broken.append(f"{lane} run by two threads")
                running.add(lane)
            time.sleep(random.random() / 2000)
            with guard:
                running.discard(lane)
                seen.setdefault(lane, []).append(int(msg["Body"].rsplit("/", 1)[1]))
            lanes.done(lane, msg)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for n in range(60):
        for lane in ("repo:1", "repo:2", "repo:3", "event:x"):
            lanes.put(lane, message(n, lane))
        time.sleep(0.001)                   # messages arrive while lanes are held
    deadline = time.monotonic() + 10
    while len(lanes) and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()
    for thread in threads:
        thread.join()
    assert not broken
    assert seen == {lane: list(range(60)) for lane in ("repo:1", "repo:2", "repo:3", "event:x")}
