"""Per-call time of a PynamoDB ``Model.get`` and ``save`` through the AWS twin
(tests/twin) and through moto's ``mock_aws``, on the project's table.

    .venv/bin/python -m bench.twin_speed [calls]

Both run botocore's whole client pipeline; the twin also reports how much of a call
its own handler takes (the rest is botocore and PynamoDB).
"""
from __future__ import annotations

import os
import sys
import time

os.environ.update({"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                   "AWS_DEFAULT_REGION": "us-east-1"})


def measure(calls: int) -> dict[str, float]:
    from chalicelib.store.table import Counter

    Counter("bench", "counter", value=1).save()
    out = {}
    for name, call in (("get", lambda: Counter.get("bench", "counter")),
                       ("save", lambda: Counter("bench", "counter", value=2).save())):
        for _ in range(50):
            call()                                  # warm caches (parsed expressions, models)
        start = time.perf_counter()
        for _ in range(calls):
            call()
        out[name] = (time.perf_counter() - start) / calls * 1e6
    return out


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    from tests import twin
    from tests.twin.world import World

    with twin.world():
        numbers = measure(calls)
        original, spent = World.answer, [0.0, 0]

        def timed(self, service, request):
            start = time.perf_counter()
            try:
                return original(self, service, request)
            finally:
                spent[0] += time.perf_counter() - start
                spent[1] += 1
        World.answer = timed
        try:
            measure(calls)
        finally:
            World.answer = original
    print(f"twin: get {numbers['get']:.0f} us, save {numbers['save']:.0f} us per call; the "
          f"twin's own handler {spent[0] / spent[1] * 1e6:.0f} us of it")

    from moto import mock_aws

    from tests.conftest import moto_world
    with mock_aws(), moto_world():
        numbers = measure(max(200, calls // 5))
    print(f"moto: get {numbers['get']:.0f} us, save {numbers['save']:.0f} us per call")


if __name__ == "__main__":
    main()
