"""Pictures: the identicon drawn for a key, and an upload decoded and made a bounded PNG.

Pillow is imported inside the functions that need it: it is heavy, and only avatar
requests use it (``bench/cold_start.py`` keeps it off every other cold start).

Everything served is a PNG this module encoded, never the bytes a client sent: an upload
is decoded (PNG, JPEG, GIF or WebP only), its EXIF orientation applied, cropped to the
centred square and scaled down to at most ``SIZE`` pixels a side, as Forgejo prepares
avatars (``modules/avatar``), so a picture that is also HTML or a script is never
served as it came.
"""
from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass

from chalicelib.errors import InvalidInput

# Forgejo's avatar size (``avatar.DefaultAvatarSize``): uploads are scaled down to it and
# identicons drawn at it.
SIZE = 290
GRID = 5                       # identicon cells per side, mirrored left to right
FORMATS = ("PNG", "JPEG", "GIF", "WEBP")
BACKGROUND = (240, 240, 240)
NOT_AN_IMAGE = "image is not a PNG, JPEG, GIF or WebP picture"


@dataclass(frozen=True)
class Picture:
    png: bytes
    digest: str              # SHA-256 of ``png``: the URL's and the object's name


def picture(png: bytes) -> Picture:
    return Picture(png, hashlib.sha256(png).hexdigest())


def _encoded(image) -> bytes:
    """The pixels as a PNG, and nothing else: what the upload carried besides (an ICC
    profile, EXIF, text chunks) would otherwise be copied into the file served."""
    image.info = {}
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def identicon_cells(seed: str) -> tuple[tuple[int, int, int], list[tuple[int, int]]]:
    """The colour and the filled cells (column, row) of ``seed``'s identicon: a 5x5 grid
    symmetric about its middle column, from the seed's SHA-256 (the first 15 bits fill
    the three left columns, the next bytes give the hue and lightness)."""
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    bits = int.from_bytes(digest[:4], "big")
    half = (GRID + 1) // 2
    cells = []
    for column in range(half):
        for row in range(GRID):
            if bits >> (column * GRID + row) & 1:
                cells.append((column, row))
                if column != GRID - 1 - column:
                    cells.append((GRID - 1 - column, row))
    if not cells:                     # an empty grid would be no picture at all
        cells.append((half - 1, GRID // 2))
    import colorsys

    hue = int.from_bytes(digest[4:6], "big") / 65536
    lightness = 0.40 + digest[6] / 255 * 0.20
    red, green, blue = colorsys.hls_to_rgb(hue, lightness, 0.65)
    return (round(red * 255), round(green * 255), round(blue * 255)), sorted(cells)


def identicon(seed: str) -> bytes:
    """The identicon PNG of ``seed``, ``SIZE`` pixels square: the same bytes every time."""
    from PIL import Image, ImageDraw

    colour, cells = identicon_cells(seed)
    cell = SIZE // (GRID + 1)
    margin = (SIZE - cell * GRID) // 2
    image = Image.new("RGB", (SIZE, SIZE), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for column, row in cells:
        left, top = margin + column * cell, margin + row * cell
        draw.rectangle((left, top, left + cell - 1, top + cell - 1), fill=colour)
    return _encoded(image)


def normalized(data: bytes, *, max_width: int, max_height: int) -> Picture:
    """An upload as the PNG that is stored and served (``InvalidInput`` when ``data`` is
    not a picture of an accepted format, or its size is past the limits)."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        image = Image.open(io.BytesIO(data), formats=FORMATS)
        # The header's size, before any pixel is decoded: a small file may claim a huge
        # picture (a decompression bomb).
        width, height = image.size
        if width > max_width or height > max_height:
            raise InvalidInput(f"image of {width}x{height} pixels is larger than the "
                               f"maximum of {max_width}x{max_height}")
        image.seek(0)                 # the first frame of an animation
        image.load()
        image = ImageOps.exif_transpose(image)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError,
            Image.DecompressionBombError):
        raise InvalidInput(NOT_AN_IMAGE) from None
    if image.mode not in ("RGB", "RGBA"):
        image = image.convert("RGBA" if "A" in image.mode or "transparency" in image.info
                              else "RGB")
    side = min(image.size)
    left, top = (image.width - side) // 2, (image.height - side) // 2
    image = image.crop((left, top, left + side, top + side))
    if side > SIZE:
        image = image.resize((SIZE, SIZE), Image.Resampling.LANCZOS)
    return picture(_encoded(image))
