"""``multipart/form-data`` request bodies, parsed with python-multipart (a maintained
streaming parser: Chalice has none, and the stdlib's ``cgi`` left with Python 3.13).

Imported only by the routes that take uploads, so the library stays off the cold-start
path.  The body is already in memory (a Lambda request is at most 6 MB), so the parts
are collected as bytes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from chalicelib.http.errors import BadRequest

MAX_PARTS = 16          # an upload form has two fields; more is not a client of ours


@dataclass
class Part:
    name: str
    filename: str | None                 # set for file fields
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] = field(default_factory=list)

    @property
    def data(self) -> bytes:
        return b"".join(self.chunks)

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


@dataclass
class Form:
    parts: list[Part]

    def file(self, name: str) -> Part | None:
        return next((p for p in self.parts if p.name == name and p.filename is not None), None)

    def value(self, name: str) -> str:
        found = next((p for p in self.parts if p.name == name and p.filename is None), None)
        return found.text if found is not None else ""


def parse(content_type: str, body: bytes) -> Form:
    """The parts of ``body``; 400 for a body that is not the multipart form it claims."""
    from python_multipart.multipart import MultipartParser, parse_options_header

    _, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if not boundary:
        raise BadRequest("multipart/form-data without a boundary")
    parts: list[Part] = []
    header: dict[str, bytearray] = {"field": bytearray(), "value": bytearray()}
    current: dict = {}

    def on_part_begin() -> None:
        if len(parts) >= MAX_PARTS:
            raise BadRequest(f"more than {MAX_PARTS} parts in a multipart form")
        current["part"] = Part("", None)
        current["headers"] = {}

    def on_header_field(data: bytes, start: int, end: int) -> None:
        header["field"] += data[start:end]

    def on_header_value(data: bytes, start: int, end: int) -> None:
        header["value"] += data[start:end]

    def on_header_end() -> None:
        name = bytes(header["field"]).decode("latin-1").strip().lower()
        current["headers"][name] = bytes(header["value"]).decode("utf-8", "replace").strip()
        header["field"], header["value"] = bytearray(), bytearray()

    def on_headers_finished() -> None:
        part = current["part"]
        part.headers = current["headers"]
        _, disposition = parse_options_header(part.headers.get("content-disposition", ""))
        part.name = disposition.get(b"name", b"").decode("utf-8", "replace")
        filename = disposition.get(b"filename")
        part.filename = filename.decode("utf-8", "replace") if filename is not None else None

    def on_part_data(data: bytes, start: int, end: int) -> None:
        current["part"].chunks.append(data[start:end])

    def on_part_end() -> None:
        parts.append(current.pop("part"))

    parser = MultipartParser(boundary, {
        "on_part_begin": on_part_begin, "on_header_field": on_header_field,
        "on_header_value": on_header_value, "on_header_end": on_header_end,
        "on_headers_finished": on_headers_finished, "on_part_data": on_part_data,
        "on_part_end": on_part_end})
    try:
        parser.write(body)
        parser.finalize()
    except BadRequest:
        raise
    except Exception as exc:  # noqa: BLE001 - the library's parse errors, whatever their kind
        raise BadRequest(f"malformed multipart/form-data body: {exc}") from None
    return Form(parts)
