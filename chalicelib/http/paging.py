"""Forgejo pagination: ``page``/``limit`` in, ``X-Total-Count`` and ``Link`` out."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence
from urllib.parse import urlencode

from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.settings import get_settings


@dataclass(frozen=True)
class Page:
    page: int
    limit: int

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.limit

    def slice(self, items: Sequence) -> list:
        return list(items[self.offset:self.offset + self.limit])


def _int(raw: str | None) -> int:
    try:
        return int(raw) if raw is not None else 0
    except ValueError:
        return 0


def page_of(req: ApiRequest) -> Page:
    """Missing, zero, negative or junk values fall back to the defaults; ``limit`` is
    clamped to MAX_RESPONSE_ITEMS without an error, as Forgejo does."""
    api = get_settings().api
    limit = _int(req.arg("limit"))
    if limit <= 0:
        limit = api.DEFAULT_PAGING_NUM
    limit = min(limit, api.MAX_RESPONSE_ITEMS)
    return Page(page=max(_int(req.arg("page")), 1), limit=limit)


def _link(req: ApiRequest, page: int) -> str:
    query = {k: v for k, v in req.query.items() if k != "page"}
    query["page"] = [str(page)]
    pairs = sorted((k, v) for k, values in query.items() for v in values)
    target = req.raw_path.lstrip("/")
    return f"<{get_settings().app_url}{target}?{urlencode(pairs)}>"


def set_headers(resp: ApiResponse, req: ApiRequest, page: Page, total: int) -> ApiResponse:
    last = max((total + page.limit - 1) // page.limit, 1)
    current = min(page.page, last)
    links = []
    if total > page.page * page.limit:
        links.append(f'{_link(req, current + 1)}; rel="next"')
    if current < last:
        links.append(f'{_link(req, last)}; rel="last"')
    if current > 1:
        links.append(f'{_link(req, 1)}; rel="first"')
        links.append(f'{_link(req, current - 1)}; rel="prev"')
    if links:
        resp.headers["Link"] = ",".join(links)
        resp.expose("Link")
    # Forgejo sets Link first, so the exposed list reads "Link, X-Total-Count".
    resp.headers["X-Total-Count"] = str(total)
    resp.expose("X-Total-Count")
    return resp


def paged_json(req: ApiRequest, items: Sequence, render) -> ApiResponse:
    """Page an in-memory list (small per-owner lists) and render each item."""
    page = page_of(req)
    resp = ApiResponse.json([render(item) for item in page.slice(items)])
    return set_headers(resp, req, page, len(items))
