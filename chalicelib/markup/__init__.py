"""Markdown and markup: ``render`` (mistune, sanitized: what pages and the API show) and
the rendering endpoints with their repository context.

Operations (``routes.py``): renderMarkdown, renderMarkdownRaw, renderMarkup,
repoRenderMarkdown, repoRenderMarkdownRaw, repoRenderMarkup.

| module | what it holds |
|---|---|
| ``context`` | What rendering markdown in a context needs to know (``markup/routes.py``): which @mentions name public … |
| ``options`` | The request bodies of the markup domain, declared once: the edge checks them (``markup_option``) and … |
| ``render`` | Markdown to safe HTML, as Forgejo's ``/markdown`` and ``/markup`` render it … |
| ``routes`` | Markdown rendering: ``/markdown``, ``/markdown/raw``, ``/markup`` and the repository routes … |
| ``sanitize`` | The sanitizer every rendered text passes through (nh3): which tags, attributes, classes and URL schemes … |

Registered by ``chalicelib/areas.py``.  The pages render with ``render``
(``chalicelib/web/present.py``).
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "existing_commits":  "context",
    "public_logins":     "context",
    "RenderContext":     "render",
    "base_url":          "render",
    "render_many":       "render",
})
