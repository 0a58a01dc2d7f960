"""The search domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach the index through
the domain's face (``chalicelib/search/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import (BooleanAttribute, NumberAttribute, NumberSetAttribute,
                                 UnicodeAttribute, UnicodeSetAttribute)

from chalicelib.store.table import Item


class RepoEntry(Item, discriminator="searchrepo"):
    """One repository in one list of the repository index: a sort list (all repositories
    in one order) or a gram list (the repositories whose name holds a two- or three-letter
    gram, by name).  It carries what a search filters and sorts on, so a page is one
    Query with the rest decided by DynamoDB's filter, and the key to read the repository
    itself."""
    repo_id = NumberAttribute()
    repo_pk = UnicodeAttribute()
    lname = UnicodeAttribute()
    ldesc = UnicodeAttribute(default="")       # on the sort lists only (includeDesc)
    # Its topics as "|a|b|" (a keyword matches inside a topic, as inside the name).
    ltopics = UnicodeAttribute(default="")
    owner_id = NumberAttribute()
    # Who may find it through the index: pub (everyone), lim (signed-in users: a public
    # repository of a limited owner), hid (private, or a private owner's: site admins;
    # others reach theirs through their own lists).
    vis = UnicodeAttribute()
    private = BooleanAttribute(default=False)
    fork = BooleanAttribute(default=False)
    mirror = BooleanAttribute(default=False)
    template = BooleanAttribute(default=False)
    archived = BooleanAttribute(default=False)
    updated = NumberAttribute(default=0)
    size = NumberAttribute(default=0)


class RepoIndexDoc(Item, discriminator="searchrepodoc"):
    """Which entries a repository has in the index (JSON list of [pk, sk]), so the next
    indexing removes the ones it no longer has; ``version`` orders two indexings."""
    entries = UnicodeAttribute(default="[]")
    version = NumberAttribute(default=0)


class IssueEntry(Item, discriminator="searchissue"):
    """One issue or pull request in one list of the issue index (``issue_index_store``):
    every issue's list, its owner's, its poster's, assignees', mentioned users',
    requested and past reviewers', and the lists of each word of its title, body and
    comments (instance-wide and the repository's).  Sort keys are newest first.  It
    carries what the filters ask, so DynamoDB's filter decides and a page is one Query;
    ``words`` (on the word lists only) lets a keyword of several words be matched on the
    list of one of them."""
    issue_pk = UnicodeAttribute()
    repo_id = NumberAttribute()
    repo_pk = UnicodeAttribute()
    number = NumberAttribute()
    owner_id = NumberAttribute()
    vis = UnicodeAttribute()            # pub | lim | hid, as the repository index says
    closed = BooleanAttribute(default=False)
    pull = BooleanAttribute(default=False)
    updated = NumberAttribute(default=0)
    labels = UnicodeSetAttribute(null=True)      # label names
    milestone = UnicodeAttribute(default="")     # milestone title
    poster_id = NumberAttribute(default=0)
    assignees = NumberSetAttribute(null=True)
    mentioned = NumberSetAttribute(null=True)
    review_requested = NumberSetAttribute(null=True)
    reviewed = NumberSetAttribute(null=True)
    words = UnicodeSetAttribute(null=True)


class IssueIndexDoc(Item, discriminator="searchissuedoc"):
    """Which entries one issue has in the index (JSON list of [pk, sk]); kept under the
    repository's partition of documents so a repository's issues can be found (and
    removed) without its issue items.  ``version`` orders two indexings; ``vis`` is what
    the entries were written with (a change of the repository's visibility rewrites
    them)."""
    number = NumberAttribute()
    entries = UnicodeAttribute(default="[]")
    vis = UnicodeAttribute(default="")
    version = NumberAttribute(default=0)


class AccountEntry(Item, discriminator="searchaccount"):
    """One user or organization in one gram list of the account index (every two- and
    three-letter piece of its name, full name and e-mail), by name.  It carries what
    userSearch matches and who may find it, so DynamoDB's filter decides."""
    account_id = NumberAttribute()
    account_type = UnicodeAttribute()          # user | organization
    lname = UnicodeAttribute()
    lfull = UnicodeAttribute(default="")
    lemail = UnicodeAttribute(default="")
    email_public = BooleanAttribute(default=False)
    vis = UnicodeAttribute()                   # public | limited | private


class AccountIndexDoc(Item, discriminator="searchaccountdoc"):
    """Which entries an account has in the index; ``version`` orders two indexings."""
    entries = UnicodeAttribute(default="[]")
    version = NumberAttribute(default=0)


class keys:  # noqa: N801 - a namespace of key builders
    """Key layouts of the search domain's items (docs/data-model.md)."""

    @staticmethod
    def sort_list(order: str) -> str:
        return f"SRCHR#S#{order}"

    @staticmethod
    def gram_list(gram: str, order: str = "name") -> str:
        """A gram's list in name order (``SRCHR#G#``) or creation order (``SRCHR#GI#``)."""
        return f"SRCHR#G#{gram}" if order == "name" else f"SRCHR#GI#{gram}"

    @staticmethod
    def topic_list(topic: str) -> str:
        return f"SRCHR#T#{topic}"

    @staticmethod
    def doc(repo_id: int) -> tuple[str, str]:
        return f"SRCHR#D#{int(repo_id)}", "DOC"

    @staticmethod
    def issue_list(kind: str, value: object = "") -> str:
        """An issue list: ``all``; ``owner`` (an account id); ``poster``, ``assignee``,
        ``mentioned``, ``review_requested``, ``reviewed`` (a user id); ``word`` (a word);
        ``repo_word`` (``<repo id>#<word>``)."""
        return f"SRCHI#{kind}#{value}"

    @staticmethod
    def issue_doc(repo_id: int, issue_id: int) -> tuple[str, str]:
        return f"SRCHI#D#{int(repo_id)}", f"{int(issue_id):015d}"

    @staticmethod
    def issue_docs(repo_id: int) -> str:
        return f"SRCHI#D#{int(repo_id)}"

    @staticmethod
    def account_gram_list(gram: str) -> str:
        return f"SRCHU#G#{gram}"

    @staticmethod
    def account_doc(account_id: int) -> tuple[str, str]:
        return f"SRCHU#D#{int(account_id)}", "DOC"
