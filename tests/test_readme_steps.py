"""README.md's first steps run in order on a fresh local runtime, as a new operator
types them: the blocks marked ``<!-- readme-step -->`` are read from the README itself
(so the README cannot drift from what works), joined into one shell session, and run
against ``python -m chalicelib.local`` as ``make run`` starts it, with no admin made
in advance.  Every command must succeed, curl's included (an HTTP error fails it)."""
from __future__ import annotations

import os
import re
import subprocess

from tests.local_server import REPO, served

MARKER = "<!-- readme-step -->"
README_URL = "http://127.0.0.1:8000"


def readme_steps(text: str) -> list[str]:
    """The commands of the marked ``sh`` blocks, in order, continuation lines joined."""
    blocks = re.findall(re.escape(MARKER) + r"\n```sh\n(.*?)\n```", text, flags=re.DOTALL)
    commands = []
    for block in blocks:
        joined = re.sub(r"\\\n\s*", "", block)
        commands += [line.strip() for line in joined.splitlines()
                     if line.strip() and not line.strip().startswith("#")]
    return commands


def test_the_marked_blocks_are_the_steps_an_operator_needs():
    text = (REPO / "README.md").read_text()
    steps = readme_steps(text)
    assert text.count(MARKER) == len(re.findall(re.escape(MARKER) + r"\n```sh\n", text)), \
        "every marker stands right before a ```sh block"
    def first(words: str) -> int:
        return next(i for i, step in enumerate(steps) if words in step)

    # The admin is made, then given a token by the CLI, then one over the API.
    assert first("admin user create") < first("generate-access-token") < \
        first("/users/admin/tokens"), steps
    assert first("/admin/cron") and first("admin health")


def test_the_readme_steps_run_in_order_on_a_fresh_runtime(tmp_path):
    steps = readme_steps((REPO / "README.md").read_text())
    with served(tmp_path / "state") as (_, base):
        script = "\n".join(["set -euo pipefail", *(
            # curl fails on an HTTP error; the README's own lines stay as they are.
            step.replace(README_URL, base).replace("curl ", "curl --fail-with-body -sS ", 1)
            for step in steps)])
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NIMBUS", "AWS_"))}
        # Other tests' runtimes may run beside this one: name it, as the README says.
        env["NIMBUS_DATA_DIR"] = str(tmp_path / "state")
        done = subprocess.run(["bash", "-x", "-c", script], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, \
        f"a README step failed:\n{done.stderr[-4000:]}\n{done.stdout[-2000:]}"
    out = done.stdout
    assert "created site admin admin" in out
    assert '"login":"admin"' in out.replace(" ", "")      # GET /user with the CLI's token
    assert '"name":"curl"' in out.replace(" ", "")        # the second token, its own name
    assert '"name":"lfs_collect"' in out.replace(" ", "")
    assert "nothing is behind" in out
