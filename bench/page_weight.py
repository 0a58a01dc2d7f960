"""Page weight of a first visit to a repository home page: the HTML and every stylesheet
and script it links, as the function sends them to a browser that takes gzip, and the
AWS calls of the page itself.

The repository is the bench scene's ``alice/demo`` (auto-initialized: a README), read
anonymously through the same Lambda handler as in AWS, under moto.

    .venv/bin/python bench/page_weight.py [--json]

Exit status 1 above BUDGET_BYTES (60 KB) or when a request fails.
"""
from __future__ import annotations

import re
import sys
from collections import Counter

import _harness

_harness.use_repo()

from scene import moto_scene  # noqa: E402

BUDGET_BYTES = 60 * 1024
PAGE = "/alice/demo"
ASSET = re.compile(r'<(?:link[^>]+href|script[^>]+src)="(/assets/[^"]+)"')


def fetch(app, path: str) -> tuple[int, bytes, dict]:
    from chalicelib.local.events import build_event, read_result

    status, headers, body = read_result(app(build_event(
        "GET", path, [("Accept-Encoding", "gzip, deflate, br")], None), None))
    return status, body, {name.lower(): value for name, value in headers}


def run() -> dict:
    calls: Counter = Counter()
    counting = [False]

    def hook(model, **_):
        if counting[0]:
            calls[f"{model.service_model.service_name}:{model.name}"] += 1

    with moto_scene("nimbus-weight-", hook) as scene:
        scene.build()
        fetch(scene.app, "/explore/repos")      # per-process costs off the measured page
        counting[0] = True
        status, body, headers = fetch(scene.app, PAGE)
        counting[0] = False
        rows = [{"path": PAGE, "status": status, "bytes": len(body),
                 "encoding": headers.get("content-encoding", "")}]
        import gzip

        html = gzip.decompress(body) if rows[0]["encoding"] == "gzip" else body
        for path in dict.fromkeys(ASSET.findall(html.decode("utf-8", "replace"))):
            status, asset, asset_headers = fetch(scene.app, path)
            rows.append({"path": path, "status": status, "bytes": len(asset),
                         "encoding": asset_headers.get("content-encoding", "")})
    total = sum(r["bytes"] for r in rows)
    failed = [r for r in rows if r["status"] != 200]
    return {"rows": rows, "total_bytes": total, "budget_bytes": BUDGET_BYTES,
            "page_aws_calls": dict(calls), "page_aws_call_count": sum(calls.values()),
            "exit_status": 1 if failed or total > BUDGET_BYTES else 0}


def show(result: dict) -> None:
    for row in result["rows"]:
        print(f"{row['path']:40} {row['status']}  {row['bytes']:>7} bytes  {row['encoding']}")
    verdict = "ok" if result["exit_status"] == 0 else "OVER or failed"
    print(f"first visit: {result['total_bytes']} bytes as sent (budget {BUDGET_BYTES}): "
          f"{verdict}")
    print(f"AWS calls of the page: {result['page_aws_call_count']} {result['page_aws_calls']}")


def main() -> int:
    return _harness.report(__doc__, run, show)


if __name__ == "__main__":
    sys.exit(main())
