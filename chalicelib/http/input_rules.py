"""The rules every text a client sends must meet, in one place.

Checked on every JSON request body before a handler sees it (``http.message.ApiRequest.json``),
so create and edit routes share them and a refused request writes nothing and takes no
number.  The table of limits is documented in ``docs/compatibility.md``.

- Text is valid Unicode: a lone UTF-16 surrogate (JSON ``"\\ud800"``) cannot be stored
  as UTF-8 by DynamoDB, nor sent back; it is refused with 422 naming the field.
- Every text field has a maximum: Forgejo's binding ``MaxSize`` where it has one, 65,536
  characters (GitHub's) for bodies, ``DEFAULT_MAX`` for anything not named.  Every stored
  item must fit DynamoDB's 400 KB limit, and a repository's labels and milestones share
  one tracker item, so their descriptions are kept short.
- A URL a page renders as a link (a website, a status's target) follows Forgejo's
  ``ValidUrl`` rule (``check_url``): empty, or an http(s) URL, else 422 ``[Field]: Url``.
- JSON nesting is bounded (``MAX_DEPTH``): deeper input is refused with 400 rather than
  recursing through it.
- No text holds NUL (git, C clients and Postgres-backed receivers cannot carry it);
  single-line fields (``SINGLE_LINE``: names, titles, refs, identities) hold no C0
  control character at all, tab and newline included; bodies and multi-line
  descriptions keep the others (logs pasted into issues carry escape sequences).
  Either is refused with 422 naming the field.
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
    # one summary item (statuses/service.py), so they stay short.
    "CreateStatusOption": {"state": 16, "target_url": 2048, "description": 1024,
                           "context": 255},
    # Quota names become keys (quota/store.py); subjects are short words.
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

# Single-line fields per swagger body definition (lower-case JSON names, nested as
# "outer.inner"): what is shown or used as one line -- names, titles, refs, git
# identities (a newline there would forge a commit header), header values.
_ONE_LINE_ACCOUNT = ("username", "login_name", "full_name", "email", "website", "location",
                     "pronouns", "visibility")
_ONE_LINE_REPO = ("name", "default_branch", "website", "gitignores", "license", "readme",
                  "issue_labels", "trust_model", "object_format_name")
_ONE_LINE_HOOK = ("type", "events", "branch_filter", "authorization_header", "content_type")
_ONE_LINE_CONTENTS = ("branch", "new_branch", "sha", "author.name", "author.email",
                      "committer.name", "committer.email", "dates.author", "dates.committer")
SINGLE_LINE: dict[str, frozenset[str]] = {name: frozenset(fields) for name, fields in {
    "CreateUserOption": _ONE_LINE_ACCOUNT,
    "EditUserOption": _ONE_LINE_ACCOUNT,
    "CreateOrgOption": _ONE_LINE_ACCOUNT,
    "EditOrgOption": _ONE_LINE_ACCOUNT,
    "CreateRepoOption": _ONE_LINE_REPO,
    "EditRepoOption": _ONE_LINE_REPO,
    "CreateForkOption": ("name", "organization"),
    "MigrateRepoOptions": (*_ONE_LINE_REPO, "repo_name", "repo_owner", "clone_addr",
                           "auth_username", "service", "uid"),
    "CreateIssueOption": ("title", "ref", "assignee", "assignees"),
    "EditIssueOption": ("title", "ref", "assignee", "assignees", "state"),
    "CreatePullRequestOption": ("title", "head", "base", "assignee", "assignees"),
    "EditPullRequestOption": ("title", "base", "assignee", "assignees", "state"),
    "MergePullRequestOption": ("do", "mergetitlefield", "mergecommitid", "head_commit_id"),
    "IssueLabelsOption": ("labels",),
    # A label's description is a one-line input in Forgejo; a milestone's is a text area.
    "CreateLabelOption": ("name", "color", "description"),
    "EditLabelOption": ("name", "color", "description"),
    "CreateMilestoneOption": ("title", "state"),
    "EditMilestoneOption": ("title", "state"),
    "AddTimeOption": ("user_name", "created"),
    "CreateKeyOption": ("title",),
    "CreateAccessTokenOption": ("name", "scopes"),
    "CreateHookOption": (*_ONE_LINE_HOOK, *(f"config.{k}" for k in _ONE_LINE_HOOK)),
    "EditHookOption": (*_ONE_LINE_HOOK, *(f"config.{k}" for k in _ONE_LINE_HOOK)),
    "CreateTeamOption": ("name", "permission", "units"),
    "EditTeamOption": ("name", "permission", "units"),
    "AddCollaboratorOption": ("permission",),
    "CreateStatusOption": ("state", "context"),
    "CreateQuotaRuleOptions": ("name", "subjects"),
    "EditQuotaRuleOptions": ("subjects",),
    "CreateQuotaGroupOptions": ("name", "rules.name", "rules.subjects"),
    "SetUserQuotaGroupsOptions": ("groups",),
    "CreateReleaseOption": ("tag_name", "target_commitish", "name"),
    "EditReleaseOption": ("tag_name", "target_commitish", "name"),
    "CreateTagOption": ("tag_name", "target"),
    "CreateBranchRepoOption": ("new_branch_name", "old_branch_name", "old_ref_name"),
    "UpdateBranchRepoOption": ("name",),
    "EditAttachmentOptions": ("name",),
    **{name: _ONE_LINE_CONTENTS for name in ("CreateFileOptions", "UpdateFileOptions",
                                             "DeleteFileOptions")},
    "ChangeFilesOptions": (*_ONE_LINE_CONTENTS, "files.sha", "files.operation"),
}.items()}

_SURROGATE = re.compile("[\ud800-\udfff]")
_NUL = re.compile("\x00")
_C0 = re.compile("[\x00-\x1f]")


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


def check_text(value: str, field: str, maximum: int = DEFAULT_MAX, *,
               single_line: bool = False) -> str:
    """One text field: valid Unicode, at most ``maximum`` characters, no NUL, and no
    control character at all when ``single_line``."""
    if has_lone_surrogate(value):
        raise InvalidInput(f"[{field_label(field)}]: invalid Unicode (lone surrogate)")
    if (_C0 if single_line else _NUL).search(value):
        what = "control characters" if single_line and "\x00" not in value else "NUL"
        raise InvalidInput(f"[{field_label(field)}]: must not contain {what}")
    if len(value) > maximum:
        raise InvalidInput(f"[{field_label(field)}]: MaxSize")
    return value


# Go's url package (``url.ParseRequestURI``, which Forgejo's ``IsValidURL`` calls):
# what a scheme, a host and user info may hold, and what a valid ``%`` escape is.
_URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_URL_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_HOST_MARKS = frozenset("-_.~!$&'()*+,;=:[]<>\"%")
_USERINFO_MARKS = frozenset("-._:~!$&'()*+,;=%@")


def _valid_host(host: str) -> bool:
    """Go's ``parseHost``: an optional numeric port after the last colon (after the
    bracket of an IPv6 literal), no ASCII character outside its set, escapes only of
    non-ASCII bytes (``%25`` aside)."""
    if host.startswith("["):
        end = host.rfind("]")
        if end < 0:
            return False
        port = host[end + 1:]
    else:
        port = host[host.rfind(":"):] if ":" in host else ""
    if port and not (port[0] == ":" and _digits(port[1:])):
        return False
    for at, char in enumerate(host):
        if char == "%":
            escape = host[at:at + 3]
            if _BAD_ESCAPE.match(escape) or (int(escape[1], 16) < 8 and escape != "%25"):
                return False
        elif char.isascii() and not char.isalnum() and char not in _HOST_MARKS:
            return False
    return True


def _digits(text: str) -> bool:
    """Go's port rule: ASCII digits only, none at all allowed."""
    return text == "" or (text.isascii() and text.isdigit())


def _port_only(host: str) -> str:
    """Go's ``portOnly`` (the first colon, unless a bracketed literal precedes one)."""
    if ":" not in host:
        return ""
    if "]:" in host:
        return host[host.index("]:") + 2:]
    return "" if "]" in host else host[host.index(":") + 1:]


def is_valid_url(value: str) -> bool:
    """Forgejo's ``IsValidURL``: Go's ``url.ParseRequestURI`` takes the text, its scheme
    is http or https (in any case) and the host's port, if any, is digits.  As in Go,
    a rootless ``http:x`` is an opaque URL and passes; it can only name an http(s)
    resource, so it is harmless as a link."""
    scheme, colon, rest = value.partition(":")
    if _URL_CONTROL.search(value) or not colon or not _URL_SCHEME.fullmatch(scheme) \
            or scheme.lower() not in ("http", "https"):
        return False
    rest = rest.partition("?")[0]           # Go does not check the query here
    if not rest.startswith("/"):
        return True
    host = ""
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path
        userinfo, at, host = authority.rpartition("@")
        if at and (_BAD_ESCAPE.search(userinfo) or not all(
                c.isascii() and (c.isalnum() or c in _USERINFO_MARKS) for c in userinfo)):
            return False
        if not _valid_host(host):
            return False
    return _BAD_ESCAPE.search(rest) is None and _digits(_port_only(host))


def check_url(value: str, field: str, label: str | None = None) -> str:
    """Forgejo's ``ValidUrl`` binding rule: an empty text passes (it clears the field),
    anything else must be an http(s) URL (``is_valid_url``), else 422 ``[Field]: Url``.
    ``label`` names the field where Go's name is not ``field_label``'s (``TargetURL``)."""
    if value and not is_valid_url(value):
        raise InvalidInput(f"[{label or field_label(field)}]: Url")
    return value


def check_body(data, definition: str | None = None) -> None:
    """Every text in a parsed JSON body, walked without recursion (depth is bounded)."""
    maxima = FIELD_MAXIMA.get(definition or "", {})
    one_line = SINGLE_LINE.get(definition or "", frozenset())
    stack: list[tuple[object, str, int]] = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BadInput(f"[]: JSON nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, str):
            check_text(value, path, maxima.get(path.lower(), DEFAULT_MAX),
                       single_line=path.lower() in one_line)
        elif isinstance(value, dict):
            for key, inner in value.items():
                check_text(key, path, 255)
                stack.append((inner, f"{path}.{key}" if path else key, depth + 1))
        elif isinstance(value, list):
            stack.extend((inner, path, depth + 1) for inner in value)
