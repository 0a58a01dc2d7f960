"""An in-memory project source (``chalicelib.migrations.project.Source``) for the
migration tests, and a pump that runs queued migration steps as the worker would."""
from __future__ import annotations

from dataclasses import dataclass, field

from chalicelib.migrations.project import (
    Asset,
    Branch,
    Comment,
    Issue,
    Label,
    Milestone,
    Page,
    Person,
    ProjectRepo,
    PullRequest,
    Reaction,
    Release,
)

ALICE = Person(1, "alice-src", "alice@example.com")     # matches local alice by e-mail
STRANGER = Person(77, "stranger", "stranger@elsewhere.test")
BASE = 1_700_000_000


@dataclass
class FakeSource:
    issues_n: int = 5
    pulls_n: int = 2
    comments_per_issue: int = 2
    fail_on: str = ""                    # a method that raises (with the token in it)
    fail_with: type = RuntimeError       # what it raises (a ServiceError fails at once)
    wiki_url: str = ""                   # the source's wiki, if it has one
    delay: float = 0.0                   # seconds each comment list takes (a slow source)
    head_sha: str = "a" * 40             # the pull requests' head commit
    calls: list = field(default_factory=list)

    def _check(self, name: str) -> None:
        self.calls.append(name)
        if name == self.fail_on:
            raise self.fail_with("source said no to token s3cret-token-value")

    def repository(self) -> ProjectRepo:
        self._check("repository")
        return ProjectRepo(name="proj", owner="src", default_branch="main")

    def labels(self) -> list[Label]:
        self._check("labels")
        return [Label("bug", "ee0701", "Something is wrong"), Label("feature", "84b6eb")]

    def milestones(self) -> list[Milestone]:
        self._check("milestones")
        return [Milestone("v1", "first", "open", created=BASE),
                Milestone("v0", "", "closed", created=BASE, closed=BASE + 50)]

    def numbers(self) -> tuple[list[int], list[int]]:
        """Issues and pulls interleaved: pulls take every third number."""
        total = self.issues_n + self.pulls_n
        pulls = [n for n in range(1, total + 1) if n % 3 == 0][:self.pulls_n]
        issues = [n for n in range(1, total + 1) if n not in pulls][:self.issues_n]
        return issues, pulls

    def issues(self, page: int, per_page: int) -> Page:
        self._check("issues")
        numbers = self.numbers()[0]
        chunk = numbers[(page - 1) * per_page: page * per_page]
        items = [Issue(number=n, title=f"issue {n}", author=ALICE if n % 2 else STRANGER,
                       body=f"body of {n}\n\n*verbatim*", state="closed" if n % 4 == 0 else "open",
                       created=BASE + n, updated=BASE + n + 10,
                       closed=BASE + n + 20 if n % 4 == 0 else 0,
                       labels=("bug",) if n % 2 else (), milestone="v1" if n == 1 else "",
                       reactions=(Reaction(STRANGER, "heart", BASE + n + 5),
                                  Reaction(ALICE, "+1")),     # no time: the issue's
                       comment_count=self.comments_per_issue) for n in chunk]
        return Page(items, page * per_page >= len(numbers))

    def comments(self, issue_number: int) -> list[Comment]:
        self._check("comments")
        if self.delay:
            import time

            time.sleep(self.delay)
        return [Comment(issue_number, issue_number * 100 + k, STRANGER if k % 2 else ALICE,
                        f"comment {k} on {issue_number}", created=BASE + issue_number + k,
                        reactions=(Reaction(STRANGER, "laugh"),) if k == 0 else ())
                for k in range(self.comments_per_issue)]

    def pull_requests(self, page: int, per_page: int) -> Page:
        self._check("pull_requests")
        numbers = self.numbers()[1]
        chunk = numbers[(page - 1) * per_page: page * per_page]
        items = []
        for k, n in enumerate(chunk):
            merged = k % 2 == 1
            items.append(PullRequest(
                number=n, title=f"pull {n}", author=STRANGER,
                head=Branch(f"feature-{n}", self.head_sha), base=Branch("main", "b" * 40),
                body=f"pull body {n}", state="closed" if merged else "open", merged=merged,
                merged_at=BASE + n + 30 if merged else 0,
                merge_commit_sha="c" * 40 if merged else "", created=BASE + n,
                updated=BASE + n + 40, closed=BASE + n + 30 if merged else 0,
                comment_count=1))
        return Page(items, page * per_page >= len(numbers))

    def reviews(self, pull_number: int) -> list:
        return []

    def releases(self, page: int, per_page: int) -> Page:
        self._check("releases")
        items = [Release(tag_name="v1.0", name="One", body="notes", author=ALICE,
                         created=BASE + 500, published=BASE + 500,
                         assets=(Asset(9, "app.bin", 6, "http://x/app.bin"),))] \
            if page == 1 else []
        return Page(items, True)

    def asset_stream(self, asset: Asset):
        self._check("asset_stream")
        yield b"abc"
        yield b"def"

    def wiki_clone_url(self) -> str:
        return self.wiki_url


def pump(limit: int = 500) -> int:
    """Run every queued migration step (and the steps they queue); how many ran."""
    from chalicelib import events, migrations
    from tests.conftest import drain_outbox

    ran = 0
    while ran < limit:
        due = [e for e in drain_outbox() if isinstance(e, events.MigrationStepDue)]
        if not due:
            return ran
        for event in due:
            migrations.on_event(event)
            ran += 1
    return ran
