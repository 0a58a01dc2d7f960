"""What pages show that records do not carry: rendered markdown, highlighted code,
and the ref a ``/src/...`` path names (diffs are ``diff_table``'s).

Markdown goes through the same renderer and sanitizer as the API's ``/markdown``
(``chalicelib.markup.render``); code through Pygments with CSS classes (the stylesheet holds
the light and dark colours), both imported on first use.
"""
from __future__ import annotations

from chalicelib import contents
from chalicelib.errors import NotFoundError
from chalicelib.http.message import ApiRequest
from chalicelib.repos import caller
from chalicelib.settings import get_settings

# Larger files and diffs are not highlighted (Pygments' time grows with the text).
MAX_HIGHLIGHT = 512 * 1024
MAX_SHOWN = 2 * 1024 * 1024
MARKDOWN = (".md", ".markdown", ".mdown", ".mkd", ".livemd")
README_NAMES = ("readme.md", "readme.markdown", "readme.mdown", "readme.mkd", "readme.txt",
                "readme")


def markdown_context(req: ApiRequest, view, *, mode: str = "comment", branch_path: str = ""):
    from chalicelib import markup

    app = get_settings().app_url
    owner, name = view.owner.login, view.repo.name

    def commits(shas: set[str]) -> dict[str, str]:
        full = sorted(s for s in shas if len(s) == 40)[:20]
        return {s: s for s in markup.existing_commits(caller(req), owner, name, full)}

    return markup.RenderContext(
        mode=mode, base=markup.base_url(f"{owner}/{name}", app), app_url=app,
        branch_path=branch_path, owner=owner, repo=name,
        mentionable=markup.public_logins, commits=commits)


def markdown(req: ApiRequest, view, texts: list[str], *, mode: str = "comment",
             branch_path: str = "") -> list[str]:
    """Sanitized HTML of each text (in order)."""
    from chalicelib import markup

    if not any(texts):
        return ["" for _ in texts]
    ctx = markdown_context(req, view, mode=mode, branch_path=branch_path)
    return markup.render_many(texts, ctx)


def as_text(data: bytes) -> str | None:
    if b"\x00" in data[:8000]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def highlight(name: str, text: str) -> str:
    """Highlighted HTML of a file, line numbers included; plain escaped text when large."""
    from pygments import highlight as run
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import TextLexer, get_lexer_for_filename
    from pygments.util import ClassNotFound

    if len(text) > MAX_HIGHLIGHT:
        lexer = TextLexer()
    else:
        try:
            lexer = get_lexer_for_filename(name, text, stripnl=False)
        except ClassNotFound:
            lexer = TextLexer(stripnl=False)
    return run(text, lexer, HtmlFormatter(cssclass="highlight", linenos="table",
                                          lineanchors="L", anchorlinenos=True, wrapcode=True))


def highlight_lines(name: str, lines: list[str]) -> list[str]:
    """Each line as escaped HTML with Pygments' classes (plain escaped text when the
    file is large or its kind unknown), one per line given."""
    import io

    from markupsafe import escape
    from pygments import lex
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    plain = [str(escape(line)) for line in lines]
    if not lines or sum(len(line) for line in lines) > MAX_HIGHLIGHT:
        return plain
    try:
        lexer = get_lexer_for_filename(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return plain
    out = io.StringIO()
    HtmlFormatter(nowrap=True).format(lex("\n".join(lines) + "\n", lexer), out)
    found = out.getvalue().split("\n")
    return found[:len(lines)] if len(found) >= len(lines) else plain


def resolve_src(view, kind: str, rest: str, git, *,
                listing: bool = False) -> tuple[object, object, str, str]:
    """(at, entry or entries, ref, path) for ``/src/{kind}/{rest}`` in the opened
    repository ``git``; with ``listing``, a directory comes as ``contents.Listing``
    (its entries and its own last commit, found by the same walk).

    A branch or tag name may hold slashes: the shortest prefix of ``rest`` that names
    a ref wins, as Forgejo resolves it."""
    parts = [p for p in rest.split("/") if p]
    if kind not in ("branch", "tag", "commit") or not parts:
        raise NotFoundError("unknown source path")
    splits = range(1, 2) if kind == "commit" else range(1, len(parts) + 1)
    for n in splits:
        ref, path = "/".join(parts[:n]), "/".join(parts[n:])
        qualified = {"branch": f"refs/heads/{ref}", "tag": f"refs/tags/{ref}"}.get(kind, ref)
        if listing:
            try:
                found = contents.list_directory(view, path, qualified, git=git)
                return found.at, found, ref, path
            except NotFoundError:
                pass        # a file, or no such ref: get_contents tells which
        try:
            at, found = contents.get_contents(view, path, qualified, git=git)
        except NotFoundError:
            continue
        return at, found, ref, path
    raise NotFoundError(f"path does not exist: {rest}")


def readme_of(entries) -> object | None:
    by_name = {e.name.lower(): e for e in entries if e.kind == "file"}
    return next((by_name[n] for n in README_NAMES if n in by_name), None)
