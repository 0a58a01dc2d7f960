"""The sanitizer every rendered text passes through (nh3): which tags, attributes, classes
and URL schemes survive, as Forgejo's policy (modules/markup/sanitizer.go) allows them."""
from __future__ import annotations

import re

# Ids and names the renderer makes are prefixed, as Forgejo's are, so user content cannot
# take an id the page uses.
PREFIX = "user-content-"
_FOOTNOTE_ID = re.compile(r"^[^:]*:user-content-")
_VOID = re.compile(r'<(br|hr|img|input|wbr)((?:\s+[^\s=>/]+(?:="[^"]*")?)*)\s*>')
_A_TAG = re.compile(r'<a\s((?:[^\s=>/]+(?:="[^"]*")?\s*)*)>')


TAGS = {
    "h1", "h2", "h3", "h4", "h5", "h6", "br", "b", "i", "strong", "em", "a", "pre", "code",
    "img", "tt", "div", "ins", "del", "sup", "sub", "p", "ol", "ul", "table", "thead", "tbody",
    "tfoot", "blockquote", "label", "dl", "dt", "dd", "kbd", "q", "samp", "var", "hr", "ruby",
    "rt", "rp", "li", "tr", "td", "th", "s", "strike", "summary", "details", "caption",
    "figure", "figcaption", "abbr", "bdo", "cite", "dfn", "mark", "small", "span", "time",
    "video", "wbr", "input", "button",
}
GENERIC = {"align", "alt", "border", "colspan", "rowspan", "dir", "height", "width", "lang",
           "open", "title", "value", "start", "summary", "itemprop", "id", "class", "cite",
           "datetime", "abbr", "span", "headers", "scope", "reversed", "name", "valign"}
PER_TAG = {
    "a": {"href", "target"},
    "img": {"src", "loading"},
    "input": {"type", "checked", "disabled", "data-source-position"},
    "button": {"type"},
    "video": {"src", "autoplay", "controls", "poster", "muted", "loop"},
    "div": {"itemscope", "itemtype"},
    "span": {"data-alias", "aria-label", "style"},
    "p": {"style"}, "th": {"style"}, "td": {"style"},
    "ol": {"type"}, "li": {"value"},
}
# Every scheme Forgejo allows, spelt out (nh3 needs an allow-list): never javascript:,
# vbscript: or data:.
SCHEMES = {"http", "https", "mailto", "ftp", "ftps", "sftp", "ssh", "git", "irc", "ircs",
           "xmpp", "tel", "sms", "news", "nntp", "matrix", "magnet", "gopher", "geo", "webcal",
           "bitcoin", "svn", "ipfs", "ipns", "gemini", "jabber"}
_CLASSES = {
    "pre": re.compile(r"^code-block( is-loading)?$"),
    "code": re.compile(r"^((chroma )?language-[\w+#.-]+( display)?( is-loading)?|code-inner)$"),
    "span": re.compile(r"^(color-preview|emoji|icon(\s+[\w-]+)+|language-math (display|inline)"
                       r"|[a-z]{1,3}|issue-keyword)$"),
    "a": re.compile(r"^(ref-issue( ref-external-issue)?|mention|muted|text black)$"),
    "li": re.compile(r"^(task-list-item|checked|unchecked|indeterminate)$"),
    "i": re.compile(r"^icon(\s+[\w-]+)+$"),
    "img": re.compile(r"^emoji$"),
    "blockquote": re.compile(r"^attention-header attention-\w+$"),
    "p": re.compile(r"^attention-title$"),
    "strong": re.compile(r"^attention-\w+$"),
}


def _attribute_filter(tag: str, attr: str, value: str):
    if attr == "class":
        pattern = _CLASSES.get(tag)
        return value if pattern is not None and pattern.match(value) else None
    if attr == "id":
        return value if value.startswith(PREFIX) or _FOOTNOTE_ID.match(value) else PREFIX + value
    if attr == "href" and value.startswith("#"):
        frag = value[1:]
        return value if frag.startswith(PREFIX) or _FOOTNOTE_ID.match(frag) else "#" + PREFIX + frag
    if tag == "input" and attr == "type":
        return value if value.lower() == "checkbox" else None
    if tag == "button" and attr == "type":
        return "button"
    if tag == "img" and attr == "loading":
        return value if value == "lazy" else None
    if attr == "target":
        return value if value in ("_blank", "_self", "_parent", "_top") else None
    return value


def _rel(match: re.Match) -> str:
    attrs = match.group(1)
    if 'target="_blank"' in attrs:
        attrs = attrs.replace('rel="nofollow"', 'rel="nofollow noopener"')
    return f"<a {attrs.rstrip()}>"


def sanitize(html: str, *, xhtml: bool = False) -> str:
    """Forgejo's sanitizer policy (B5) with nh3."""
    import nh3

    attributes = {tag: set(GENERIC) | PER_TAG.get(tag, set()) for tag in TAGS}
    clean = nh3.clean(html, tags=TAGS, attributes=attributes, attribute_filter=_attribute_filter,
                      link_rel="nofollow", url_schemes=SCHEMES, strip_comments=True,
                      clean_content_tags={"script", "style"},
                      filter_style_properties={"color", "background-color"})
    clean = _A_TAG.sub(_rel, clean)
    if xhtml:
        clean = _VOID.sub(lambda m: f"<{m.group(1)}{m.group(2)}/>", clean)
    return clean
