"""The rules every text a client sends must meet, in one place.

Checked on every JSON request body before a handler sees it (``api.http.ApiRequest.json``),
so create and edit routes share them and a refused request writes nothing and takes no
number.  The table of limits is documented in ``docs/compatibility.md``.

- Text is valid Unicode: a lone UTF-16 surrogate (JSON ``"\\ud800"``) cannot be stored
  as UTF-8 by DynamoDB, nor sent back; it is refused with 422 naming the field.
- Every text field has a maximum: Forgejo's binding ``MaxSize`` where it has one, 65,536
  characters (GitHub's) for bodies, ``DEFAULT_MAX`` for anything not named.  Every stored
  item must fit DynamoDB's 400 KB limit, and a repository's labels and milestones share
  one tracker item, so their descriptions are kept short.
- JSON nesting is bounded (``MAX_DEPTH``): deeper input is refused with 400 rather than
  recursing through it.
"""
from __future__ import annotations

import re

from chalicelib.errors import BadInput, InvalidInput

BODY_MAX = 65_536            # GitHub's limit for issue and comment bodies
DEFAULT_MAX = 65_536         # any text field not named below
MAX_DEPTH = 32               # the deepest Forgejo option object is 3 levels
MAX_REQUEST_BODY = 6 * 1024 * 1024   # Lambda's own request payload limit

_NAME, _FULL_NAME, _EMAIL, _DESCRIPTION = 40, 100, 254, 255
_REPO = {"name": 100, "description": 2048, "website": 1024, "default_branch": 255,
         "gitignores": 1024, "license": 255, "readme": 255, "issue_labels": 255,
         "trust_model": 32, "object_format_name": 32}
_ACCOUNT = {"username": _NAME, "login_name": 255, "full_name": _FULL_NAME, "email": _EMAIL,
            "password": 255, "website": 255, "location": 50, "description": _DESCRIPTION,
            "pronouns": 50, "visibility": 32}
_LABEL = {"name": 50, "description": 200, "color": 16, "labels": 50}
_MILESTONE = {"title": 50, "description": 2048, "state": 16, "due_on": 64}
_ISSUE = {"title": 255, "body": BODY_MAX, "ref": 255, "assignee": _NAME, "assignees": _NAME,
          "labels": 50, "state": 16}
_KEY = {"title": 50, "key": 16_384}
_HOOK = {"url": 2048, "content_type": 16, "secret": 255, "branch_filter": 1024,
         "authorization_header": 1024, "type": 32, "events": 64}
_TEAM = {"name": 255, "description": _DESCRIPTION, "permission": 16, "units": 64}
_CONTENTS = {"content": MAX_REQUEST_BODY, "message": BODY_MAX, "branch": 255,
             "new_branch": 255, "sha": 64, "from_path": 4096, "author.name": _FULL_NAME,
             "author.email": _EMAIL, "committer.name": _FULL_NAME, "committer.email": _EMAIL,
             "dates.author": 64, "dates.committer": 64}

# Maxima per swagger body definition (the route's ``body``), keys as lower-case JSON
# names (Go's decoder matches them case-insensitively).  A nested field is "outer.inner";
# a list of strings is limited per element.
FIELD_MAXIMA: dict[str, dict[str, int]] = {
    "CreateUserOption": _ACCOUNT,
    "EditUserOption": _ACCOUNT,
    "CreateOrgOption": _ACCOUNT,
    "EditOrgOption": _ACCOUNT,
    "CreateRepoOption": _REPO,
    "EditRepoOption": _REPO,
    "CreateForkOption": {"name": 100, "organization": _NAME},
    "MigrateRepoOptions": dict(_REPO, clone_addr=2048, repo_name=100, repo_owner=_NAME,
                               auth_username=255, auth_password=255, auth_token=255,
                               service=32, uid=32),
    "CreateIssueOption": _ISSUE,
    "EditIssueOption": _ISSUE,
    "CreatePullRequestOption": dict(_ISSUE, head=512, base=255),
    "EditPullRequestOption": dict(_ISSUE, base=255),
    # Go field names, lower-cased (the decoder matches case-insensitively).
    "MergePullRequestOption": {"do": 32, "mergetitlefield": 255, "mergemessagefield": BODY_MAX,
                               "mergecommitid": 64, "head_commit_id": 64},
    "CreateIssueCommentOption": {"body": BODY_MAX},
    "EditIssueCommentOption": {"body": BODY_MAX},
    "IssueLabelsOption": _LABEL,
    "CreateLabelOption": _LABEL,
    "EditLabelOption": _LABEL,
    "CreateMilestoneOption": _MILESTONE,
    "EditMilestoneOption": _MILESTONE,
    "AddTimeOption": {"user_name": _NAME, "created": 64},
    "CreateKeyOption": _KEY,
    "CreateGPGKeyOption": {"armored_public_key": BODY_MAX, "armored_signature": BODY_MAX},
    "CreateAccessTokenOption": {"name": 255, "scopes": 64},
    "CreateHookOption": dict(_HOOK, **{f"config.{k}": v for k, v in _HOOK.items()}),
    "EditHookOption": dict(_HOOK, **{f"config.{k}": v for k, v in _HOOK.items()}),
    "CreateTeamOption": _TEAM,
    "EditTeamOption": _TEAM,
    "AddCollaboratorOption": {"permission": 16},
    # Rendering stores nothing: documents may be long.
    "MarkdownOption": {"text": 1_048_576, "context": 1024, "mode": 16},
    "MarkupOption": {"text": 1_048_576, "context": 1024, "mode": 16, "filepath": 1024},
    # Forgejo keeps these as TEXT; the latest status of every context of a commit shares
    # one summary item (services/statuses.py), so they stay short.
    "CreateStatusOption": {"state": 16, "target_url": 2048, "description": 1024,
                           "context": 255},
    # Quota names become keys (store/quota.py); subjects are short words.
    "CreateQuotaRuleOptions": {"name": 255, "subjects": 64},
    "EditQuotaRuleOptions": {"subjects": 64},
    "CreateQuotaGroupOptions": {"name": 255, "rules.name": 255, "rules.subjects": 64},
    "SetUserQuotaGroupsOptions": {"groups": 255},
    # Releases: a tag name is a sort key (tag claims); notes are bodies.
    "CreateReleaseOption": {"tag_name": 255, "target_commitish": 255, "name": 255,
                            "body": BODY_MAX},
    "EditReleaseOption": {"tag_name": 255, "target_commitish": 255, "name": 255,
                          "body": BODY_MAX},
    "EditAttachmentOptions": {"name": 255, "browser_download_url": 2048},
    # The contents API: file content is base64, up to the request limit itself.
    **{name: _CONTENTS for name in ("CreateFileOptions", "UpdateFileOptions",
                                    "DeleteFileOptions")},
    "ChangeFilesOptions": {**_CONTENTS, "files.content": MAX_REQUEST_BODY,
                           "files.path": 4096, "files.from_path": 4096, "files.sha": 64,
                           "files.operation": 16},
}

_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(text: str) -> bool:
    """Python keeps a lone surrogate from JSON as a code point that UTF-8 cannot encode
    (a valid pair is already combined into one character by the JSON decoder)."""
    return _SURROGATE.search(text) is not None


def scrub(text: str) -> str:
    """The text with every lone surrogate replaced by U+FFFD (for rendering and repair)."""
    return _SURROGATE.sub("\ufffd", text)


def field_label(path: str) -> str:
    """Forgejo names a field by its Go name: ``full_name`` -> ``FullName``."""
    return ".".join("".join(part.capitalize() for part in segment.split("_"))
                    for segment in path.split(".")) or "[]"


def check_text(value: str, field: str, maximum: int = DEFAULT_MAX) -> str:
    """One text field: valid Unicode and at most ``maximum`` characters."""
    if has_lone_surrogate(value):
        raise InvalidInput(f"[{field_label(field)}]: invalid Unicode (lone surrogate)")
    if len(value) > maximum:
        raise InvalidInput(f"[{field_label(field)}]: MaxSize")
    return value


def check_body(data, definition: str | None = None) -> None:
    """Every text in a parsed JSON body, walked without recursion (depth is bounded)."""
    maxima = FIELD_MAXIMA.get(definition or "", {})
    stack: list[tuple[object, str, int]] = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BadInput(f"[]: JSON nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, str):
            check_text(value, path, maxima.get(path.lower(), DEFAULT_MAX))
        elif isinstance(value, dict):
            for key, inner in value.items():
                check_text(key, path, 255)
                stack.append((inner, f"{path}.{key}" if path else key, depth + 1))
        elif isinstance(value, list):
            stack.extend((inner, path, depth + 1) for inner in value)
