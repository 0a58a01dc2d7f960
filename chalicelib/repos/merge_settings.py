"""A repository's pull request settings: which merge styles are allowed and the
defaults (Forgejo's ``PullRequestsConfig``), kept as JSON on the repository record and
edited through ``PATCH /repos/{owner}/{repo}``."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from chalicelib.errors import InvalidInput

if TYPE_CHECKING:
    from chalicelib.repo_admin import EditRepoOption
    from chalicelib.repos.store import Repo

MERGE_STYLES = ("merge", "rebase", "rebase-merge", "squash", "fast-forward-only",
                "manually-merged")
UPDATE_STYLES = ("merge", "rebase")
# EditRepoOption field -> default (of the type the edge checks); the style each allow_*
# governs is in STYLE_SWITCH.
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


def edited(repo: Repo, option: EditRepoOption) -> str | None:
    """The settings JSON after applying an edit (repoEdit), or None if it names none.
    A setting left out or null is neither true/false nor a text: it stays as it is."""
    given = {name: value for name in DEFAULTS
             if isinstance(value := getattr(option, name), (bool, str))}
    if not given:
        return None
    current = settings_of(repo)
    current.update(given)
    if current["default_merge_style"] not in MERGE_STYLES:
        raise InvalidInput(f"[default_merge_style]: must be one of {', '.join(MERGE_STYLES)}")
    if current["default_update_style"] not in UPDATE_STYLES:
        raise InvalidInput(f"[default_update_style]: must be one of {', '.join(UPDATE_STYLES)}")
    return json.dumps(current, sort_keys=True, separators=(",", ":"))


def style_allowed(repo: Repo, style: str) -> bool:
    return bool(settings_of(repo).get(STYLE_SWITCH.get(style, ""), False))
