"""The local event worker's lanes (chalicelib/local/event_lanes.py): one repository's
events in the order they came, one thread per lane at a time, lanes taken in turn, and
an event still waiting not queued twice.  Pure: no AWS at all."""
from __future__ import annotations

import random
import threading
import time

import pytest

from chalicelib.local.event_lanes import Lanes

pytestmark = pytest.mark.fast


def event(n: int, lane: str = "repo:1") -> tuple[str, str, str]:
    return lane, f"{lane}/{n}", f"item {lane}/{n}"


def keys(taken) -> list[str]:
    return [key for key, _ in taken[1]]


def test_a_lane_runs_in_order_and_is_held_by_one_taker():
    lanes = Lanes()
    lanes.put_all([event(n) for n in range(3)])
    first = lanes.take(0)
    assert (first[0], keys(first)) == ("repo:1", ["repo:1/0"])
    assert lanes.take(0) is None            # held: its next events wait for done
    lanes.put_all([event(3)])
    assert lanes.take(0) is None            # also one that came while it was held
    lanes.done("repo:1", keys(first))
    assert keys(lanes.take(0, limit=10)) == ["repo:1/1", "repo:1/2", "repo:1/3"]


def test_lanes_take_turns_so_a_burst_does_not_hold_up_another_repository():
    lanes = Lanes()
    lanes.put_all([event(n, "repo:busy") for n in range(100)])
    lanes.put_all([event(0, "repo:quiet")])
    busy = lanes.take(0, limit=10)
    assert keys(busy) == [f"repo:busy/{n}" for n in range(10)]
    quiet = lanes.take(0, limit=10)         # the second taker is not behind the burst
    assert keys(quiet) == ["repo:quiet/0"]
    lanes.done("repo:busy", keys(busy))
    lanes.done("repo:quiet", keys(quiet))
    lanes.put_all([event(1, "repo:quiet")])
    # busy went to the end of the turn when it was done: quiet's new event is next
    assert keys(lanes.take(0, limit=10))[0] == "repo:busy/10"
    assert keys(lanes.take(0, limit=10)) == ["repo:quiet/1"]


def test_an_event_still_waiting_is_not_queued_again_but_a_done_one_is():
    lanes = Lanes()
    assert lanes.put_all([event(0), event(1)]) == 2
    assert lanes.put_all([event(0)]) == 0          # the sweep found it again
    assert len(lanes) == 2
    taken = lanes.take(0, limit=10)
    assert keys(taken) == ["repo:1/0", "repo:1/1"]
    lanes.done("repo:1", keys(taken))              # failed: it stays in the outbox
    assert lanes.put_all([event(0)]) == 1          # a later sweep runs it again


def test_threads_keep_each_lane_in_order_and_never_share_one():
    lanes, seen, running = Lanes(), {}, set()
    broken: list[str] = []
    guard = threading.Lock()
    stop = threading.Event()

    def worker():
        while not stop.is_set():
            taken = lanes.take(0.05, limit=random.choice((1, 3, 10)))
            if taken is None:
                continue
            lane, batch = taken
            with guard:
                if lane in running:
                    broken.append(f"{lane} run by two threads")
                running.add(lane)
            time.sleep(random.random() / 2000)
            with guard:
                running.discard(lane)
                seen.setdefault(lane, []).extend(int(key.rsplit("/", 1)[1]) for key, _ in batch)
            lanes.done(lane, [key for key, _ in batch])

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    names = ("repo:1", "repo:2", "repo:3", "event:x")
    for n in range(60):
        lanes.put_all([event(n, lane) for lane in names])
        time.sleep(0.001)                   # events arrive while lanes are held
    deadline = time.monotonic() + 10
    while len(lanes) and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()
    for thread in threads:
        thread.join()
    assert not broken
    assert seen == {lane: list(range(60)) for lane in names}
