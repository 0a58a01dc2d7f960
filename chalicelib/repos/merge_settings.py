"""A repository's pull request settings: which merge styles are allowed and the
defaults (Forgejo's ``PullRequestsConfig``), kept as JSON on the repository record and
edited through ``PATCH /repos/{owner}/{repo}``."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from chalicelib.errors import InvalidInput

if TYPE_CHECKING:
    from chalicelib.repos.store import Repo

MERGE_STYLES = ("merge", "rebase", "rebase-merge", "squash", "fast-forward-only",
                "manually-merged")
UPDATE_STYLES = ("merge", "rebase")
# EditRepoOption field -> (type, default); the style each allow_* governs is in STYLE_SWITCH.
DEFAULTS: dict[str, object] = {
    "ignore_whitespace_conflicts": False,
    "allow_merge_commits": True,
    "allow_rebase": True,
    "allow_rebase_explicit": True,
    "allow_squash_merge": True,
    "allow_fast_forward_only_merge": True,
    "allow_manual_merge": False,
    "autodetect_manual_merge": False,
    "allow_rebase_update": True,
    "default_delete_branch_after_merge": False,
    "default_merge_style": "merge",
    "default_update_style": "merge",
    "default_allow_maintainer_edit": False,
}
STYLE_SWITCH = {"merge": "allow_merge_commits", "rebase": "allow_rebase",
                "rebase-merge": "allow_rebase_explicit", "squash": "allow_squash_merge",
                "fast-forward-only": "allow_fast_forward_only_merge",
                "manually-merged": "allow_manual_merge"}


def settings_of(repo: Repo) -> dict:
    """Every setting, stored values over the defaults (odd stored values are ignored)."""
    try:
        stored = json.loads(repo.merge_settings or "{}")
    except ValueError:
        stored = {}
    out = dict(DEFAULTS)
    for name, value in (stored if isinstance(stored, dict) else {}).items():
        if name in DEFAULTS and type(value) is type(DEFAULTS[name]):
            out[name] = value
    return out


def edited(repo: Repo, data: dict) -> str | None:
    """The settings JSON after applying an EditRepoOption, or None if it names none."""
    given = {name: data[name] for name in DEFAULTS if data.get(name) is not None}
    if not given:
        return None
    current = settings_of(repo)
    for name, value in given.items():
        if type(value) is not type(DEFAULTS[name]):
            kind = "true or false" if isinstance(DEFAULTS[name], bool) else "a string"
            raise InvalidInput(f"[{name}]: expected {kind}")
        current[name] = value
    if current["default_merge_style"] not in MERGE_STYLES:
        raise InvalidInput(f"[default_merge_style]: must be one of {', '.join(MERGE_STYLES)}")
    if current["default_update_style"] not in UPDATE_STYLES:
        raise InvalidInput(f"[default_update_style]: must be one of {', '.join(UPDATE_STYLES)}")
    return json.dumps(current, sort_keys=True, separators=(",", ":"))


def style_allowed(repo: Repo, style: str) -> bool:
    return bool(settings_of(repo).get(STYLE_SWITCH.get(style, ""), False))
