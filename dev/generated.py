"""What the generators share: write the files they make, or check that they are current."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None, description: str, wanted: Callable[[], dict[Path, str]],
         write_command: str) -> int:
    """``--write`` writes every file whose text differs from ``wanted()``; ``--check``
    exits 1 (naming them and ``write_command``) when any differs."""
    parser = argparse.ArgumentParser(description=description)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    stale = {path: text for path, text in wanted().items() if path.read_text() != text}
    if args.check:
        if stale:
            names = ", ".join(str(path.relative_to(ROOT)) for path in stale)
            print(f"not current ({names}): run `{write_command}`", file=sys.stderr)
        return 1 if stale else 0
    for path, text in stale.items():
        path.write_text(text)
    print(f"wrote {len(stale)} file(s)")
    return 0
