"""The tracker fields the issue and pull request forms share: labels (checkboxes of
the repository's labels), a milestone (a select), assignees and, on the compare page,
reviewers and teams to ask.

A form names labels and milestones by id and people by name.  Each value is checked
here against what the services would accept, before anything is written, so that a
value that names nothing is shown beside its field (``[Labels]: …``; ``show_form``
puts a message naming a field beside it) rather than silently dropped, as the API's
create drops unknown labels.  Who may set them is the services' rule: they ignore
these fields from someone who cannot write, as Forgejo does, so nothing is checked
then.  No routes here.
"""
from __future__ import annotations

from chalicelib import errors, reviews
from chalicelib.http.message import ApiRequest

# The services' field names (as their messages name them, lower-cased) -> the form's.
FIELDS = {"title": "title", "body": "content", "labels": "labels", "milestone": "milestone",
          "assignees": "assignees", "reviewers": "reviewers", "teamreviewers": "team_reviewers"}


def many(req: ApiRequest, name: str) -> list[str]:
    """Every value of a repeated field (checkboxes), and comma-separated ones split."""
    found = [part.strip() for value in req.form().get(name, [])
             for part in value.split(",") if part.strip()]
    return list(dict.fromkeys(found))


def label_ids(tracker, values: list[str]) -> list[int]:
    known = tracker.labels
    for value in values:
        if not value.isdigit() or int(value) not in known:
            raise errors.InvalidInput(f"[Labels]: label does not exist [id: {value}]")
    return [int(v) for v in values]


def milestone_id(tracker, value: str) -> int:
    if not value or value == "0":
        return 0
    if not value.isdigit() or int(value) not in tracker.milestones:
        raise errors.InvalidInput(f"[Milestone]: milestone does not exist [id: {value}]")
    return int(value)


def triage(req: ApiRequest, ctx, *, is_pull: bool = False) -> dict:
    """The labels, milestone and assignees a writer posted, checked: the option's
    fields (``labels``, ``milestone``, ``assignees``), empty for anyone else."""
    if not ctx.can_write:
        return {}
    tracker = ctx.tracker()
    return {"labels": label_ids(tracker, many(req, "labels")),
            "milestone": milestone_id(tracker, (req.form().get("milestone") or [""])[-1]),
            "assignees": many(req, "assignees")}


# The assignee rule's messages name no field; the form shows them beside "assignees".
_ASSIGNEE_MESSAGES = ("Assignee does not exist", "user does not have access")
# The review request rules' refusals of a reviewer, which name no field either.
_REVIEWER_MESSAGES = ("Reviewer can't read", "poster of pr can't be reviewer",
                      "Organization can't be added as reviewer")


def with_field(err: errors.ServiceError) -> errors.ServiceError:
    """``err``, its message prefixed with the field it is about when it names none."""
    message = getattr(err, "message", "") or str(err)
    if not isinstance(err, errors.InvalidInput) or message.startswith("["):
        return err
    if message.startswith(_ASSIGNEE_MESSAGES):
        return errors.InvalidInput(f"[Assignees]: {message}")
    if message.startswith(_REVIEWER_MESSAGES):
        return errors.InvalidInput(f"[Reviewers]: {message}")
    if message.startswith("Reviewing team"):
        return errors.InvalidInput(f"[TeamReviewers]: {message}")
    return err


def choices(ctx, *, people: bool = True) -> dict:
    """The choices the form offers: labels, open milestones and who may be assigned
    (the service behind repoGetAssignees), for writers only (others may not set them).
    Without ``people`` the assignees are typed names (the compare page, which reads
    the branches' commits already, keeps within its calls that way)."""
    if not ctx.can_write:
        return {"triage": False}
    tracker = ctx.tracker()
    return {"triage": True,
            "label_choices": sorted(((i, entry.get("name", ""), entry.get("color", ""))
                                     for i, entry in tracker.labels.items()),
                                    key=lambda t: t[1]),
            "milestone_choices": sorted(((i, m.get("title", ""))
                                         for i, m in tracker.milestones.items()
                                         if m.get("state") == "open"), key=lambda t: t[1]),
            "assignee_choices": [a.login for a in reviews.repo_assignees(ctx)] if people
            else None}


def chosen_values(req: ApiRequest) -> dict:
    """What the form posted, to show it again as it was."""
    return {"labels": many(req, "labels"),
            "milestone": (req.form().get("milestone") or [""])[-1],
            "assignees": many(req, "assignees"), "reviewers": many(req, "reviewers"),
            "team_reviewers": many(req, "team_reviewers")}
