"""A repository's issue templates and issue config, read from its default branch
(Forgejo's repoGetIssueTemplates, repoGetIssueConfig, repoValidateIssueConfig).

Only the template directories are read: the branch's root tree, the few trees on the
way to each directory in ``issue_templates.TEMPLATE_DIRS`` that exists, and the files
in them that may be templates — never the whole repository.  A file's size is read from
its pack entry before the file is (``ObjectSizes``), so an oversized one costs no
download.  The caller's right to read the repository is checked by ``current_repo``
(404 to those who may not see it).
"""
from __future__ import annotations

import posixpath
import stat
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from chalicelib.issues import issue_templates
from chalicelib.issues.issue_forms import TemplateError

if TYPE_CHECKING:
    from chalicelib.repos import Repo

# Files looked at per request: a directory of thousands of files is read this far (in
# Forgejo's order); the rest are not parsed.  And bytes parsed per request (PyYAML is
# pure Python, about a second per MiB): files past it are refused as too large.
MAX_TEMPLATE_FILES = 100
MAX_TOTAL_BYTES = 4 * 1024 * 1024


@dataclass
class TemplateList:
    """The valid templates, in Forgejo's order, and why each invalid file is not."""
    templates: list[dict] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)


class _Branch:
    """The default branch's tree, its subtrees read once each, on first use."""

    def __init__(self, git, tree_id: bytes):
        self.git = git
        self.trees = {"": git[tree_id]}

    def tree(self, path: str):
        """The tree at ``path``, or None when there is no directory there."""
        if path in self.trees:
            return self.trees[path]
        parent_path, name = posixpath.split(path)
        parent = self.tree(parent_path)
        found = None
        if parent is not None:
            try:
                mode, sha = parent[name.encode()]
            except KeyError:
                mode = sha = None
            if mode is not None and stat.S_ISDIR(mode):
                found = self.git[sha]
        self.trees[path] = found
        return found

    def entry(self, path: str) -> tuple[int, bytes] | None:
        """(mode, id) of what ``path`` names, or None."""
        parent_path, name = posixpath.split(path)
        parent = self.tree(parent_path)
        if parent is None:
            return None
        try:
            return parent[name.encode()]
        except KeyError:
            return None

    def blob(self, mode: int, sha: bytes, sizes, room: int = issue_templates.MAX_FILE_BYTES
             ) -> bytes:
        """A regular file's bytes, if not too large to parse (nor larger than ``room``)."""
        if not stat.S_ISREG(mode):
            raise TemplateError("not a regular file")
        size = sizes.size(sha)
        if size is not None and size > min(room, issue_templates.MAX_FILE_BYTES):
            raise issue_templates.too_large(size)
        return self.git[sha].as_raw_string()


def _default_branch(repo: Repo) -> _Branch | None:
    """The default branch's tree; None for an empty repository or a missing branch."""
    if repo.empty:
        return None
    from chalicelib.gitstore import repo as gitrepo

    git = gitrepo.open_repo(int(repo.id), int(repo.pool_id),
                            getattr(repo, "object_format", None) or "sha1")
    try:
        commit_id = git.refs[f"refs/heads/{repo.default_branch}".encode()]
        return _Branch(git, git[commit_id].tree)
    except (KeyError, AttributeError):
        return None


def list_templates(repo: Repo) -> TemplateList:
    """The repository's issue templates, as Forgejo lists them."""
    from chalicelib.gitstore.object_sizes import ObjectSizes

    found = TemplateList()
    branch = _default_branch(repo)
    if branch is None:
        return found
    looked_at, room = 0, MAX_TOTAL_BYTES
    with ObjectSizes(branch.git.object_store) as sizes:
        for directory in issue_templates.TEMPLATE_DIRS:
            tree = branch.tree(directory)
            if tree is None:
                continue
            for item in tree.iteritems():
                name = item.path.decode("utf-8", "replace")
                if not issue_templates.kind_of(name):
                    continue
                looked_at += 1
                if looked_at > MAX_TEMPLATE_FILES:
                    return found
                path = f"{directory}/{name}"
                try:
                    content = branch.blob(item.mode, item.sha, sizes, room)
                    room -= len(content)
                    found.templates.append(issue_templates.parse_template(path, content))
                except TemplateError as exc:
                    found.errors[path] = str(exc)
    return found


def read_config(repo: Repo) -> tuple[dict, str | None]:
    """The repository's issue config and, when its file is not valid, why (the config is
    then the default, as Forgejo answers it)."""
    from chalicelib.gitstore.object_sizes import ObjectSizes

    branch = _default_branch(repo)
    if branch is None:
        return issue_templates.default_config(), None
    for path in issue_templates.CONFIG_FILES:
        entry = branch.entry(path)
        if entry is None:
            continue
        try:
            with ObjectSizes(branch.git.object_store) as sizes:
                content = branch.blob(entry[0], entry[1], sizes)
            return issue_templates.parse_config(content), None
        except TemplateError as exc:
            return issue_templates.default_config(), str(exc)
    return issue_templates.default_config(), None
