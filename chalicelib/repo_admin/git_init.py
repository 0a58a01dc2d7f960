"""A new repository's git side: HEAD, and with ``auto_init`` the initial commit
(README, optional .gitignore and LICENSE), written with ``chalicelib.gitops``."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib.contents import identity
from chalicelib.errors import InvalidInput

if TYPE_CHECKING:  # dulwich and the record classes stay off the cold-start path
    from chalicelib.accounts import Account
    from chalicelib.gitops.trees import FileEdit
    from chalicelib.repo_admin.options import CreateRepoOption
    from chalicelib.repos import Repo


# Our own short ignore lists: enough to start a project of each kind.
GITIGNORES = {
    "Python": "__pycache__/\n*.py[cod]\n.venv/\nvenv/\nbuild/\ndist/\n*.egg-info/\n.pytest_cache/\n",
    "Node": "node_modules/\nnpm-debug.log*\ndist/\ncoverage/\n.env\n",
    "Go": "*.exe\n*.test\n*.out\n/vendor/\n",
    "Java": "*.class\n*.jar\ntarget/\nbuild/\n.gradle/\n",
    "Rust": "/target/\n**/*.rs.bk\n",
    "C": "*.o\n*.a\n*.so\n*.out\nbuild/\n",
}
# License texts are the licenses' own standard wording.
LICENSES = {
    "MIT": (
        "MIT License\n\nCopyright (c) {year} {holder}\n\n"
        "Permission is hereby granted, free of charge, to any person obtaining a copy\n"
        "of this software and associated documentation files (the \"Software\"), to deal\n"
        "in the Software without restriction, including without limitation the rights\n"
        "to use, copy, modify, merge, publish, distribute, sublicense, and/or sell\n"
        "copies of the Software, and to permit persons to whom the Software is\n"
        "furnished to do so, subject to the following conditions:\n\n"
        "The above copyright notice and this permission notice shall be included in all\n"
        "copies or substantial portions of the Software.\n\n"
        "THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR\n"
        "IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,\n"
        "FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE\n"
        "AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER\n"
        "LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,\n"
        "OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE\n"
        "SOFTWARE.\n"),
    "ISC": (
        "ISC License\n\nCopyright (c) {year} {holder}\n\n"
        "Permission to use, copy, modify, and/or distribute this software for any\n"
        "purpose with or without fee is hereby granted, provided that the above\n"
        "copyright notice and this permission notice appear in all copies.\n\n"
        "THE SOFTWARE IS PROVIDED \"AS IS\" AND THE AUTHOR DISCLAIMS ALL WARRANTIES\n"
        "WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF\n"
        "MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR\n"
        "ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES\n"
        "WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN\n"
        "ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF\n"
        "OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.\n"),
}


@dataclass(frozen=True)
class InitPlan:
    readme: bool
    gitignores: tuple[str, ...]
    license: str | None


def _template(value, label: str) -> str:
    """A template's name: any empty value is none; one that is not a text is refused."""
    if value and not isinstance(value, str):
        raise InvalidInput(f"[{label}]: expected a string")
    return value or ""


def plan(option: CreateRepoOption) -> InitPlan:
    """Check the auto_init options before anything is written."""
    gitignores = _template(option.gitignores, "Gitignores")
    names = tuple(n.strip() for n in gitignores.split(",") if n.strip())
    for name in names:
        if name not in GITIGNORES:
            raise InvalidInput(f"[Gitignores]: unknown template {name!r}; available: "
                               f"{', '.join(sorted(GITIGNORES))}")
    license_name = _template(option.license, "License").strip() or None
    if license_name and license_name not in LICENSES:
        raise InvalidInput(f"[License]: unknown license {license_name!r}; available: "
                           f"{', '.join(sorted(LICENSES))}")
    readme = (_template(option.readme, "Readme") or "Default").strip()
    if readme != "Default":
        raise InvalidInput(f"[Readme]: unknown readme template {readme!r}; available: Default")
    return InitPlan(readme=True, gitignores=names, license=license_name)


def _files(repo: Repo, plan_: InitPlan, holder: str) -> list[FileEdit]:
    from chalicelib.gitops import trees

    readme = f"# {repo.name}\n"
    if repo.description:
        readme += f"\n{repo.description}\n"
    files = [trees.write("README.md", readme.encode())]
    if plan_.gitignores:
        files.append(trees.write(".gitignore",
                                 "\n".join(GITIGNORES[n] for n in plan_.gitignores).encode()))
    if plan_.license:
        text = LICENSES[plan_.license].format(year=time.gmtime().tm_year, holder=holder)
        files.append(trees.write("LICENSE", text.encode()))
    return files


def initialize(repo: Repo, plan_: InitPlan | None, *, author: Account | None) -> None:
    """Create HEAD; with a plan, also the initial commit on the default branch.

    The commit's objects go in one pack; the branch is then created with a
    compare-and-swap from "absent" (``pushes.apply_ref_updates``), so a concurrent
    writer of the same branch makes this fail rather than be overwritten."""
    from chalicelib import contents, signing
    from chalicelib.gitops import commits, objects
    from chalicelib.gitstore import repo as gitrepo

    git = gitrepo.init_repo(int(repo.id), int(repo.pool_id), repo.default_branch)
    if plan_ is None:
        return
    holder = (author.full_name or author.login) if author else ""
    with objects.staged(git.object_store) as staged:
        # [repository.signing] INITIAL_COMMIT decides whether the instance key signs it.
        commit = commits.commit_edits(
            staged, parent=None, edits=_files(repo, plan_, holder), author=identity(author),
            message="Initial commit", sign=signing.commit_signer("INITIAL_COMMIT", author))
    ref = f"refs/heads/{repo.default_branch}"
    contents.apply_ref_updates(repo, git, [(ref, None, commit.id.decode())], actor=author,
                             guard=contents.Guard.SYSTEM)
