"""A git history with the shape of a real project, made here in seconds (no download):
the guard's push and fetch run on it.

    .venv/bin/python bench/history_gen.py DEST [--commits 3000] [--seed 7]

``DEST`` becomes a bare repository written by ``git fast-import`` from a seeded random
walk, the same bytes for the same arguments:

- source files in nested folders, most commits editing a few lines of one to four
  files (so packs are mostly deltas, as a project's are), some adding files;
- a rename every 40 commits (sometimes with an edit), a deletion every 60;
- a topic branch every 150 commits, two to six commits long, merged back with a merge
  commit (so the history is not a line);
- a lightweight or annotated tag every 15 commits (200 tags at 3,000 commits);
- author dates one to ten hours apart, from 2019 on.
"""
from __future__ import annotations

import argparse
import random
import subprocess
import sys
from pathlib import Path

WORDS = ("request", "session", "adapter", "header", "cookie", "stream", "timeout", "retry",
         "proxy", "encode", "decode", "verify", "certificate", "response", "content", "chunk",
         "redirect", "history", "hook", "auth", "digest", "basic", "token", "cache", "pool")
FOLDERS = ("src/core", "src/core/io", "src/http", "src/http/auth", "src/util", "docs",
           "docs/api", "tests", "tests/unit", "tests/integration", "tools", "examples")
START = 1_546_300_800           # 2019-01-01


class Walk:
    """The working tree as the generator edits it: path -> list of lines."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.files: dict[str, list[str]] = {}
        self.made = 0

    def line(self) -> str:
        words = [self.rng.choice(WORDS) for _ in range(self.rng.randint(3, 9))]
        return f"    {words[0]}_{words[1]} = {'('.join(words[2:])}{')' * (len(words) - 3)}"

    def new_path(self) -> str:
        self.made += 1
        folder = self.rng.choice(FOLDERS)
        suffix = ".md" if folder.startswith("docs") else ".py"
        return f"{folder}/{self.rng.choice(WORDS)}_{self.made}{suffix}"

    def add(self) -> str:
        path = self.new_path()
        self.files[path] = [f"# {path}"] + [self.line() for _ in range(self.rng.randint(20, 160))]
        return path

    def edit(self, path: str) -> None:
        lines = self.files[path]
        for _ in range(self.rng.randint(1, 6)):
            at = self.rng.randrange(1, len(lines) + 1)
            choice = self.rng.random()
            if choice < 0.5 or len(lines) < 10:
                lines.insert(at, self.line())
            elif choice < 0.8:
                lines[min(at, len(lines) - 1)] = self.line()
            else:
                del lines[min(at, len(lines) - 1)]

    def blob(self, path: str) -> bytes:
        return ("\n".join(self.files[path]) + "\n").encode()


def _data(out: list[bytes], payload: bytes) -> None:
    out.append(b"data %d\n" % len(payload))
    out.append(payload)
    out.append(b"\n")


def _commit(out: list[bytes], walk: Walk, ref: str, mark: int, when: int, message: str,
            parents: list[int], changes: list[tuple[str, str]]) -> None:
    out.append(f"commit {ref}\nmark :{mark}\n".encode())
    person = walk.rng.choice(("Ada Lovelace <ada@example.com>", "Linus <linus@example.org>",
                              "Grace Hopper <grace@example.net>", "Ken <ken@example.com>"))
    out.append(f"author {person} {when} +0000\ncommitter {person} {when} +0000\n".encode())
    _data(out, message.encode())
    if parents:
        out.append(f"from :{parents[0]}\n".encode())
        for other in parents[1:]:
            out.append(f"merge :{other}\n".encode())
    for kind, path in changes:
        if kind == "M":
            out.append(f"M 100644 inline {path}\n".encode())
            _data(out, walk.blob(path))
        elif kind == "D":
            out.append(f"D {path}\n".encode())
        else:                                   # "R old\tnew"
            old, new = path.split("\t")
            out.append(f'R "{old}" "{new}"\n'.encode())


def stream(commits: int, seed: int) -> bytes:
    """The fast-import stream of the whole history."""
    rng = random.Random(seed)
    walk = Walk(rng)
    out: list[bytes] = []
    when, mark, tip = START, 0, 0
    initial = [("M", walk.add()) for _ in range(60)]
    made = 0

    def step(ref: str, parents: list[int]) -> int:
        nonlocal when, mark, made
        made += 1
        when += rng.randint(3600, 36_000)
        mark += 1
        changes: list[tuple[str, str]] = []
        if made % 40 == 0:
            old = rng.choice(sorted(walk.files))
            new = walk.new_path()
            walk.files[new] = walk.files.pop(old)
            changes.append(("R", f"{old}\t{new}"))
            if rng.random() < 0.5:
                walk.edit(new)
                changes.append(("M", new))
        elif made % 60 == 0 and len(walk.files) > 40:
            gone = rng.choice(sorted(walk.files))
            del walk.files[gone]
            changes.append(("D", gone))
        elif rng.random() < 0.08:
            changes.append(("M", walk.add()))
        else:
            for path in rng.sample(sorted(walk.files), rng.randint(1, 4)):
                walk.edit(path)
                changes.append(("M", path))
        verb = rng.choice(("Fix", "Add", "Handle", "Document", "Refactor", "Test"))
        _commit(out, walk, ref, mark, when, f"{verb} {rng.choice(WORDS)} "
                f"{rng.choice(WORDS)} ({made})\n", parents, changes)
        return mark

    mark += 1
    when += 3600
    made += 1
    _commit(out, walk, "refs/heads/main", mark, when, "Initial import\n", [], initial)
    tip = mark
    while made < commits:
        if made % 150 == 149:
            side = tip
            for _ in range(rng.randint(2, 6)):
                side = step("refs/heads/topic", [side])
            tip = step("refs/heads/main", [tip])
            mark += 1
            when += 600
            made += 1
            _commit(out, walk, "refs/heads/main", mark, when, f"Merge branch 'topic' ({made})\n",
                    [tip, side], [])
            tip = mark
        else:
            tip = step("refs/heads/main", [tip])
        if made % 15 == 0:
            name = f"v{made // 1000}.{made // 15 % 67}.{made % 15}"
            if rng.random() < 0.5:
                out.append(f"reset refs/tags/{name}\nfrom :{tip}\n\n".encode())
            else:
                out.append(f"tag {name}\nfrom :{tip}\ntagger Release Bot <bot@example.com> "
                           f"{when} +0000\n".encode())
                _data(out, f"Release {name}\n".encode())
    out.append(b"reset refs/heads/topic\nfrom 0000000000000000000000000000000000000000\n\n")
    return b"".join(out)


def generate(dest: Path, commits: int = 3000, seed: int = 7) -> Path:
    """A bare repository at ``dest`` holding the generated history; returns ``dest``."""
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(dest)],
                   check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=dest, input=stream(commits, seed),
                   check=True)
    subprocess.run(["git", "repack", "-adq"], cwd=dest, check=True)
    return dest


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("dest", type=Path)
    parser.add_argument("--commits", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    generate(args.dest, args.commits, args.seed)
    count = subprocess.run(["git", "rev-list", "--count", "--all"], cwd=args.dest, check=True,
                           capture_output=True, text=True).stdout.strip()
    tags = len(subprocess.run(["git", "tag"], cwd=args.dest, check=True, capture_output=True,
                              text=True).stdout.split())
    print(f"{args.dest}: {count} commits, {tags} tags")
    return 0


if __name__ == "__main__":
    sys.exit(main())
