"""Markdown rendering cost, and what markdown and signing add to requests that skip them.

1. Render time of a ~100 KB markdown document (headings, lists, tables, code, links,
   mentions, issue references, raw HTML) in each mode, through ``chalicelib.markup.render.render``
   (mistune + nh3), after one warm-up render; min and median of ``--runs``.
2. Cold-import cost: a fresh interpreter imports ``app`` and the route modules (what the
   first request of any Lambda pays) and reports which of mistune, nh3 and pgpy got
   imported (target: none) and the import time of the new modules
   (``chalicelib.markup.render``, ``chalicelib.markup.routes``, ``chalicelib.signing.routes``,
   ``chalicelib.signing.key_routes``, ``chalicelib.signing.service*``).
3. For reference, the one-off cost paid by the first request that does render or verify:
   importing mistune + nh3, and pgpy.

    .venv/bin/python bench/markdown_render.py [--runs 9] [--kb 100] [--json]

Exit status 1 if mistune, nh3 or pgpy is imported on the cold-start path.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time

import _harness

HEAVY = ("mistune", "nh3", "pgpy")
OURS = ("chalicelib.markup.render", "chalicelib.markup.routes", "chalicelib.signing.routes",
        "chalicelib.signing.key_routes", "chalicelib.signing.service",
        "chalicelib.signing.ssh", "chalicelib.signing.verify",
        "chalicelib.signing.gpg_keys")
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)")

SECTION = """\
## Section {n}: what is {n}?

Some **bold** and _italic_ text with `code`, a [link](docs/page-{n}.md), a bare URL
https://example.com/{n}?a=1&b=2, a mention @alice and a reference #{n} and owner/repo#{n}.
Soft line break here
and an e-mail someone{n}@example.com.

- [x] done item {n}
- [ ] open item with ~~strike~~
  1. nested ordered
  2. second

| left | right | centre |
|:-----|------:|:------:|
| a{n} | b{n}  | c{n}   |
| <b>raw</b> | <script>alert({n})</script> | <img src=x onerror=alert({n})> |

```python
def f{n}(x):
    return x * {n}  # <not a tag>
```

> quoted text with a footnote[^f{n}]

[^f{n}]: the footnote {n}.

"""


def document(kb: int) -> str:
    parts, n = [], 0
    while sum(len(p) for p in parts) < kb * 1024:
        parts.append(SECTION.format(n=n))
        n += 1
    return "".join(parts)


def render_times(text: str, runs: int) -> dict:
    from chalicelib.markup import render as markup

    out = {}
    for mode in ("markdown", "comment", "gfm"):
        ctx = markup.RenderContext(mode=mode, base="http://nimbus.test/owner/repo",
                                   app_url="http://nimbus.test/", owner="owner", repo="repo",
                                   mentionable=lambda names: {"alice"} & names)
        html = markup.render(text, ctx)   # warm-up: imports and regex compilation
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            markup.render(text, ctx)
            times.append((time.perf_counter() - start) * 1e3)
        out[mode] = {"min_ms": round(min(times), 1), "median_ms": round(statistics.median(times), 1),
                     "output_kb": round(len(html) / 1024, 1)}
    return out


def import_tree(probe: str) -> list[tuple[str, int, int]]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", probe],
                          cwd=_harness.REPO_ROOT, env=_harness.lambda_env(),
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    return [(m.group(4), int(m.group(1)), int(m.group(2)))
            for m in map(_LINE.match, done.stderr.splitlines()) if m]


def cold_import() -> dict:
    nodes = import_tree("import app; from chalicelib.http.routes import load_routes; load_routes()")
    names = {name for name, _, _ in nodes}
    heavy = [m for m in HEAVY if m in {n.split(".")[0] for n in names}]
    ours_self_ms = sum(s for name, s, _ in nodes if name in OURS) / 1e3
    return {"heavy_imported": heavy, "new_modules_self_ms": round(ours_self_ms, 2),
            "new_modules_present": sorted(n for n in OURS if n in names)}


def first_use_cost() -> dict:
    out = {}
    for label, probe in (("mistune+nh3", "import mistune, nh3"), ("pgpy", "import pgpy")):
        nodes = import_tree(probe)
        out[label] = round(sum(c for name, _, c in nodes if "." not in name
                               and name.split(".")[0] in HEAVY) / 1e3, 1)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--kb", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    _harness.use_repo()
    text = document(args.kb)
    result = {"document_kb": round(len(text.encode()) / 1024, 1),
              "render": render_times(text, args.runs), "cold_start": cold_import(),
              "first_use_import_ms": first_use_cost()}
    result["ok"] = not result["cold_start"]["heavy_imported"]
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"render of a {result['document_kb']} KB markdown document "
              f"({args.runs} runs after a warm-up):")
        for mode, r in result["render"].items():
            print(f"  {mode:9} min {r['min_ms']:7.1f} ms  median {r['median_ms']:7.1f} ms  "
                  f"-> {r['output_kb']} KB of HTML")
        cold = result["cold_start"]
        print(f"cold start (import app + route modules): heavy modules imported: "
              f"{', '.join(cold['heavy_imported']) or 'none'}; our new modules' own import "
              f"time {cold['new_modules_self_ms']} ms ({len(cold['new_modules_present'])} "
              "modules: route registration only)")
        first = result["first_use_import_ms"]
        print(f"paid once by the first request that needs them: mistune+nh3 "
              f"{first['mistune+nh3']} ms, pgpy {first['pgpy']} ms (import)")
        print("ok" if result["ok"] else "FAIL: a heavy module is imported at cold start")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
