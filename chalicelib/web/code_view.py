"""What the code pages show beside the records: ages ("3 days ago") with their exact
time, the language bar, a README rendered under a listing, and a listing's header (the
directory's latest commit and the branch's commit count).

No routes: ``pages`` (the repository home and ``/src``) and ``blame_pages`` call it.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from urllib.parse import quote

from markupsafe import escape

from chalicelib import contents, languages
from chalicelib.http.message import ApiRequest
from chalicelib.web import present

# Linguist's colours of the languages most repositories hold (its languages.yml);
# any other language takes a colour of PALETTE chosen by its name.
COLOURS = {
    "Python": "#3572A5", "JavaScript": "#f1e05a", "TypeScript": "#3178c6", "Go": "#00ADD8",
    "Rust": "#dea584", "Java": "#b07219", "C": "#555555", "C++": "#f34b7d", "C#": "#178600",
    "Ruby": "#701516", "PHP": "#4F5D95", "Shell": "#89e051", "HTML": "#e34c26",
    "CSS": "#563d7c", "SCSS": "#c6538c", "Markdown": "#083fa1", "Kotlin": "#A97BFF",
    "Swift": "#F05138", "Makefile": "#427819", "Dockerfile": "#384d54", "Lua": "#000080",
    "Perl": "#0298c3", "Scala": "#c22d40", "Elixir": "#6e4a7e", "Haskell": "#5e5086",
    "Vue": "#41b883", "Dart": "#00B4AB", "Jupyter Notebook": "#DA5B0B", "TeX": "#3D6117",
    "Nix": "#7e7eff", "Objective-C": "#438eff", "R": "#198CE7", "Clojure": "#db5855",
    "Erlang": "#B83998", "OCaml": "#ef7a08", "Zig": "#ec915c", "Groovy": "#4298b8",
    "PowerShell": "#012456", "Vim Script": "#199f4b", "Emacs Lisp": "#c065db",
}
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac")
MAX_LANGUAGES = 8          # the rest are one "Other" segment, as Forgejo's bar does
UNITS = ((365 * 86400, "year"), (30 * 86400, "month"), (7 * 86400, "week"),
         (86400, "day"), (3600, "hour"), (60, "minute"))


@dataclass(frozen=True)
class Stamp:
    """A time as pages show it: ``ago`` in words, ``iso`` for ``<time datetime>``,
    ``exact`` for its ``title``."""
    ago: str
    iso: str
    exact: str


def stamp(when, tz: int = 0, now: datetime | None = None) -> Stamp | None:
    """``when``: unix seconds (with the offset ``tz`` in seconds) or an RFC 3339 text."""
    if when in (None, "", 0):
        return None
    if isinstance(when, str):
        try:
            moment = datetime.fromisoformat(when.replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        moment = datetime.fromtimestamp(int(when), timezone(timedelta(seconds=int(tz))))
    now = now or datetime.now(timezone.utc)
    return Stamp(_ago((now - moment).total_seconds()), moment.isoformat(),
                 moment.strftime("%Y-%m-%d %H:%M:%S %z"))


def _ago(seconds: float) -> str:
    if seconds < 0:
        return "in the future"
    for size, unit in UNITS:
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    return "just now"


def language_bar(view) -> list[dict]:
    """The segments of the language bar: name, percent (one decimal), colour; largest
    first.  From the figures the API serves (one stored item, no tree walked)."""
    sizes = {name: size for name, size in languages.repo_languages(view).items() if size > 0}
    total = sum(sizes.values())
    if not total:
        return []
    ordered = sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0]))
    shown, rest = ordered[:MAX_LANGUAGES], ordered[MAX_LANGUAGES:]
    if rest:
        shown.append(("Other", sum(size for _, size in rest)))
    return [{"name": name, "percent": round(size * 100 / total, 1), "colour": colour(name)}
            for name, size in shown]


def colour(name: str) -> str:
    if name == "Other":
        return "#9e9e9e"
    return COLOURS.get(name) or PALETTE[zlib.crc32(name.encode()) % len(PALETTE)]


def readme_html(req: ApiRequest, view, git, commit_id: str, readme, ref_path: str) -> str:
    """A listing's README as HTML: markdown rendered (links relative to the ref, as the
    file page's), any other text in ``<pre>``; "" for a binary or oversized file."""
    _, file = contents.get_contents(view, readme.path, commit_id, git=git)
    data = file.content or b""
    text = present.as_text(data) if len(data) <= present.MAX_SHOWN else None
    if text is None:
        return ""
    if readme.name.lower().endswith(present.MARKDOWN):
        return present.markdown(req, view, [text], mode="file", branch_path=ref_path)[0]
    return f"<pre class=\"plain\">{escape(text)}</pre>"


def listing_values(req: ApiRequest, view, git, listing, kind: str, ref: str) -> dict:
    """What ``code_macros.listing`` and the README block read for a directory."""
    entries = listing.entries
    readme = present.readme_of(entries)
    html = ""
    if readme is not None:
        html = readme_html(req, view, git, listing.at.commit_id, readme,
                           f"{kind}/{quote(ref)}")
    count = None
    if kind in ("branch", "tag"):
        count = contents.count_commits(git, listing.at.commit_id)
    return {"entries": entries, "directory": listing.directory, "readme": readme,
            "readme_html": html, "commit_count": count, "stamp": stamp}
