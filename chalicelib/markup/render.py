"""Markdown to safe HTML, as Forgejo's ``/markdown`` and ``/markup`` render it
(``shared/spec/webhooks-markdown.md`` part B), with mistune 3 and an nh3 allow-list.

Modes: ``markdown`` is the raw path (GFM block/inline syntax + sanitizer, soft breaks as
``<br>``); ``comment`` and ``gfm`` add Forgejo's post-processing: wiki links, bare URL,
``www.`` and e-mail autolinks, ``@mentions``, issue references and commit SHAs, XHTML-style
void tags.  ``comment`` keeps soft breaks as ``<br/>``; ``gfm`` is a document (no breaks,
and only cross-repository ``owner/repo#N`` references are linked, as in Forgejo).

Safety: mistune renders with ``escape=False`` (raw HTML passes, as goldmark's WithUnsafe),
and everything it produces goes through :func:`sanitize` (nh3 = ammonia): no script,
style, iframe, form or object, no event handlers, no ``javascript:``/``vbscript:``/
``data:`` URLs, ``rel="nofollow"`` on every link.  Never call ``mistune.html`` on user
input (it does not sanitize).

mistune and nh3 are imported inside :func:`render`, never at module import: requests that
do not render markdown pay nothing for them.
"""
from __future__ import annotations

import html as htmllib
import re
from dataclasses import dataclass
from typing import Callable, Iterable
from urllib.parse import quote, urlsplit

from chalicelib.markup.sanitize import PREFIX, sanitize

MODES = ("markdown", "comment", "gfm", "file")
MARKDOWN_EXTENSIONS = (".md", ".markdown", ".mdown", ".mkd", ".livemd")
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".bmp", ".ico", ".avif")

_SCHEME = re.compile(r"^[a-zA-Z][\w+.-]*:")
_MENTION_CANDIDATE = re.compile(r"(?<![\w.@/`])@([A-Za-z0-9](?:[\w.-]*[A-Za-z0-9_])?)")


@dataclass
class RenderContext:
    """What the caller knows about where the text lives."""
    mode: str = "markdown"
    base: str = ""                   # absolute base URL of relative links ("" = site root)
    app_url: str = "http://localhost/"
    wiki: bool = False
    branch_path: str = ""
    owner: str = ""                  # the repository of Context, when it names one
    repo: str = ""
    # Lower-case names -> which @mentions exist and are visible (None: link none).
    mentionable: Callable[[set[str]], set[str]] | None = None
    # Candidate SHAs -> {candidate: full sha} of those that exist in the repository.
    commits: Callable[[set[str]], dict[str, str]] | None = None
    dir_auto: bool = True            # production Forgejo writes dir="auto" on p, h*, lists

    @property
    def post_process(self) -> bool:
        return self.mode in ("comment", "gfm", "file")

    @property
    def hard_breaks(self) -> bool:
        return self.mode in ("markdown", "comment")


def base_url(context: str, app_url: str) -> str:
    """Forgejo's base: "" when Context is a prefix of the sub-URL, as given when it is an
    absolute http(s) URL, else joined to AppURL."""
    context = context or ""
    sub = urlsplit(app_url).path or "/"
    if sub.startswith(context) and not context.startswith(("http://", "https://")) \
            and (context in ("", "/") or sub.startswith(context.rstrip("/") + "/")):
        return ""
    if re.match(r"^https?://", context):
        return context.rstrip("/")
    return app_url.rstrip("/") + "/" + context.strip("/")


def repo_of_context(context: str, app_url: str) -> tuple[str, str]:
    """(owner, repo) named by Context (``owner/repo`` or a URL on this instance)."""
    path = context or ""
    if path.startswith(app_url):
        path = path[len(app_url):]
    elif re.match(r"^https?://", path):
        return "", ""
    parts = [p for p in path.strip("/").split("/") if p]
    if len(parts) >= 2:
        return parts[0], parts[1]
    return "", ""


def _join(base: str, *parts: str) -> str:
    out = base.rstrip("/")
    for part in parts:
        part = part.strip("/")
        if part:
            out += "/" + part
    return out if out else "/"


def heading_slug(text: str) -> str:
    """Forgejo's CleanValue: keep letters, digits and ``_`` (lower-cased); each run of other
    characters becomes one ``-`` between kept characters."""
    out, pending = [], False
    for ch in text.strip():
        if ch.isalnum() or ch == "_":
            if pending and out:
                out.append("-")
            pending = False
            out.append(ch.lower())
        else:
            pending = True
    return "".join(out)


def _strip_tags(text: str) -> str:
    return htmllib.unescape(re.sub(r"<[^>]*>", "", text))


def _make_renderer(ctx: RenderContext):
    from mistune.renderers.html import HTMLRenderer
    from mistune.util import escape as esc
    from mistune.util import safe_entity

    dir_attr = ' dir="auto"' if ctx.dir_auto else ""

    class ForgejoRenderer(HTMLRenderer):
        def __init__(self):
            super().__init__(escape=False)
            self.ids: dict[str, int] = {}

        def _unique(self, slug: str) -> str:
            slug = slug or "heading"
            n = self.ids.get(slug)
            self.ids[slug] = 0 if n is None else n + 1
            return slug if n is None else f"{slug}-{n + 1}"

        def _url(self, url: str, *, image: bool = False) -> str:
            url = url.strip()
            if url.startswith("#"):
                return "#" + PREFIX + url[1:] if not url[1:].startswith(PREFIX) else url
            if _SCHEME.match(url) or url.startswith("//"):
                return self.safe_url(url)
            if ctx.wiki:
                return _join(ctx.base, "wiki/raw" if image else "wiki", url)
            if ctx.branch_path:
                return _join(ctx.base, "media" if image else "src", ctx.branch_path, url)
            return _join(ctx.base, url)

        def paragraph(self, text: str) -> str:
            return f"<p{dir_attr}>{text}</p>\n"

        def heading(self, text: str, level: int, **attrs) -> str:
            slug = PREFIX + self._unique(heading_slug(_strip_tags(text)))
            return f'<h{level} id="{slug}"{dir_attr}>{text}</h{level}>\n'

        def list(self, text: str, ordered: bool, **attrs) -> str:
            if ordered:
                start = attrs.get("start")
                extra = f' start="{start}"' if start is not None and start != 1 else ""
                return f"<ol{extra}{dir_attr}>\n{text}</ol>\n"
            return f"<ul{dir_attr}>\n{text}</ul>\n"

        def softbreak(self) -> str:
            return "<br>\n" if ctx.hard_breaks else "\n"

        def block_code(self, code: str, info: str | None = None) -> str:
            lang = ""
            if info:
                lang = info.strip().split(None, 1)[0] if info.strip() else ""
                if lang.startswith("{"):
                    m = re.search(r"\.([\w+#-]+)", lang)
                    lang = m.group(1) if m else ""
                lang = re.split(r"[,{]", lang)[0]
                lang = re.sub(r"[^\w+#.-]", "", lang)
            pre = "code-block is-loading" if lang in ("mermaid", "math") else "code-block"
            return (f'<pre class="{pre}"><code class="chroma language-{lang or "text"} display">'
                    f"{esc(code)}</code></pre>\n")

        def link(self, text: str, url: str, title: str | None = None) -> str:
            # An image inside a link is not wrapped in a link of its own.
            text = re.sub(r'<a href="[^"]*" target="_blank" rel="nofollow noopener">'
                          r'(<img [^>]*>)</a>', r"\1", text)
            attrs = f' href="{self._url(url)}"'
            if title:
                attrs += f' title="{safe_entity(title)}"'
            return f"<a{attrs}>{text}</a>"

        def image(self, text: str, url: str, title: str | None = None) -> str:
            src = self._url(url, image=True)  # mistune hands URLs over HTML-escaped
            img = f'<img src="{src}" alt="{esc(_strip_tags(text))}"'
            if title:
                img += f' title="{safe_entity(title)}"'
            img += ' loading="lazy">'
            return f'<a href="{src}" target="_blank" rel="nofollow noopener">{img}</a>'

        # GFM plugins, in Forgejo's shapes.
        def task_list_item(self, text: str, checked: bool = False) -> str:
            box = '<input type="checkbox" disabled=""' + (' checked=""' if checked else "") + ">"
            if text.startswith("<p"):
                text = re.sub(r"^(<p[^>]*>)", lambda m: m.group(1) + box, text, count=1)
            else:
                text = box + text
            return f'<li class="task-list-item">{text}</li>\n'

        def table_cell(self, text: str, align: str | None = None, head: bool = False) -> str:
            tag = "th" if head else "td"
            return f'<{tag}{f" align={chr(34)}{align}{chr(34)}" if align else ""}>{text}</{tag}>\n'

        def footnote_ref(self, key: str, index: int) -> str:
            slug = PREFIX + (heading_slug(key) or str(index))
            return f'<sup id="fnref:{slug}"><a href="#fn:{slug}">{index}</a></sup>'

        def footnotes(self, text: str) -> str:
            return f"<div>\n<hr>\n<ol>\n{text}</ol>\n</div>\n"

        def footnote_item(self, text: str, key: str, index: int) -> str:
            slug = PREFIX + (heading_slug(key) or str(index))
            back = f' <a href="#fnref:{slug}">\u21a9\ufe0e</a>'
            text = text.rstrip()
            text = text[:-4] + back + "</p>" if text.endswith("</p>") else text + back
            return f'<li id="fn:{slug}">\n{text}\n</li>\n'

        # Forgejo's post-processing, as inline rules (never inside code or links).
        def wiki_link(self, name: str, link: str) -> str:
            if link.lower().endswith(IMAGE_EXTENSIONS):
                src = esc(_join(ctx.base, "wiki/raw" if ctx.wiki else "media", link)
                          if (ctx.wiki or ctx.branch_path) else _join(ctx.base, link))
                title = esc(link.rsplit("/", 1)[-1])
                return f'<a href="{src}"><img src="{src}" title="{title}" alt=""></a>'
            href = _join(ctx.base, "wiki" if ctx.wiki else "src", quote(link, safe="/#?=&"))
            return f'<a href="{esc(href)}">{esc(name)}</a>'

        def plain_link(self, text: str, href: str, cls: str = "") -> str:
            klass = f' class="{cls}"' if cls else ""
            return f'<a href="{esc(href)}"{klass}>{esc(text)}</a>'

        def sha_link(self, text: str, href: str) -> str:
            return f'<a href="{esc(href)}"><code>{esc(text[:10])}</code></a>'

    return ForgejoRenderer()


def _post_processing_plugin(ctx: RenderContext, mentionable: set[str],
                            commits: dict[str, str]):
    """Inline rules for Forgejo's post-processors (B4), registered on one Markdown."""
    app = ctx.app_url.rstrip("/") + "/"

    def plugin(md):
        def add(name, pattern, func, before="link"):
            md.inline.register(name, pattern, func, before=before)

        def wiki(inline, m, state):
            if state.in_link:
                inline.process_text(m.group(0), state)
                return m.end()
            inner = m.group("wk_body")
            name, _, link = inner.partition("|")
            link = (link or name).strip()
            state.append_token({"type": "wiki_link",
                                "attrs": {"name": name.strip(), "link": link}})
            return m.end()

        def email(inline, m, state):
            text = m.group(0)
            if state.in_link:
                inline.process_text(text, state)
                return m.end()
            state.append_token({"type": "plain_link", "attrs": {
                "text": text, "href": "mailto:" + text}})
            return m.end()

        def www(inline, m, state):
            text = m.group(0)
            if state.in_link:
                inline.process_text(text, state)
                return m.end()
            state.append_token({"type": "plain_link", "attrs": {
                "text": text, "href": "http://" + text}})
            return m.end()

        def mention(inline, m, state):
            name = m.group("mn_name")
            if state.in_link or name.lower() not in mentionable:
                inline.process_text(m.group(0), state)
                return m.end()
            state.append_token({"type": "plain_link", "attrs": {
                "text": "@" + name, "href": app + quote(name), "cls": "mention"}})
            return m.end()

        def issue(inline, m, state):
            owner, repo = m.group("is_owner"), m.group("is_repo")
            sign, number = m.group("is_sign"), m.group("is_num")
            cross = bool(owner and repo)
            if not cross:
                owner, repo = ctx.owner, ctx.repo
            linkable = cross or (ctx.owner and (ctx.mode == "comment" or ctx.wiki))
            if state.in_link or not linkable:
                inline.process_text(m.group(0), state)
                return m.end()
            kind = "pulls" if sign == "!" else "issues"
            state.append_token({"type": "plain_link", "attrs": {
                "text": m.group(0), "href": f"{app}{owner}/{repo}/{kind}/{number}",
                "cls": "ref-issue"}})
            return m.end()

        def sha(inline, m, state):
            text = m.group("sh_sha")
            full = commits.get(text.lower())
            if state.in_link or not full or not ctx.owner:
                inline.process_text(text, state)
                return m.end()
            state.append_token({"type": "sha_link", "attrs": {
                "text": text, "href": f"{app}{ctx.owner}/{ctx.repo}/commit/{full}"}})
            return m.end()

        add("fj_wiki", r"\[\[(?P<wk_body>[^\]\[\n]+)\]\]", wiki)
        add("fj_email", r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
                        r"(?![\w-])", email)
        add("fj_www", r"(?<![\w/.@])www\.[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"
                      r"(?:[/?#][^\s<]*[^\s<.,:;\"')\]])?", www)
        add("fj_mention", r"(?<![\w.@/`])@(?P<mn_name>[A-Za-z0-9](?:[\w.-]*[A-Za-z0-9_])?)",
            mention)
        add("fj_issue", r"(?<![\w/#!])(?:(?P<is_owner>[\w.-]+)/(?P<is_repo>[\w.-]+))?"
                        r"(?P<is_sign>[#!])(?P<is_num>\d+)(?![\w#])", issue)
        add("fj_sha", r"(?<![\w/@#])(?P<sh_sha>[0-9a-f]{7,64})(?![\w/])", sha)
        md.renderer.register("wiki_link", lambda r, **a: r.wiki_link(**a))
        md.renderer.register("plain_link", lambda r, **a: r.plain_link(**a))
        md.renderer.register("sha_link", lambda r, **a: r.sha_link(**a))
    return plugin


def _markdown(ctx: RenderContext, mentionable: set[str], commits: dict[str, str]):
    import mistune

    plugins: list = ["strikethrough", "table", "task_lists", "footnotes", "def_list"]
    if ctx.post_process:
        plugins.append("url")
        plugins.append(_post_processing_plugin(ctx, mentionable, commits))
    return mistune.create_markdown(escape=False, renderer=_make_renderer(ctx), plugins=plugins)


# --- entry point -----------------------------------------------------------------------------

def candidates(text: str) -> tuple[set[str], set[str]]:
    """Mention names and SHA-like words worth looking up before rendering."""
    names = {m.group(1).lower() for m in _MENTION_CANDIDATE.finditer(text)}
    shas = {m.group(0).lower() for m in re.finditer(r"(?<![\w/@#])[0-9a-f]{7,64}(?![\w/])", text)}
    return names, shas


def render(text: str, ctx: RenderContext) -> str:
    """Render ``text`` under ``ctx``; the result is sanitized HTML."""
    if not text:
        return ""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    mentionable: set[str] = set()
    commits: dict[str, str] = {}
    if ctx.post_process:
        names, shas = candidates(text)
        if names and ctx.mentionable is not None:
            mentionable = {n.lower() for n in ctx.mentionable(names)}
        if shas and ctx.commits is not None and ctx.owner:
            commits = {k.lower(): v for k, v in ctx.commits(shas).items()}
    html = sanitize(_markdown(ctx, mentionable, commits)(text), xhtml=ctx.post_process)
    # Removed comments and raw blocks leave blank lines at the end; Forgejo's do not.
    return html.rstrip("\n") + "\n" if html.strip() else ""


def render_many(texts: Iterable[str], ctx: RenderContext) -> list[str]:
    return [render(t, ctx) for t in texts]
