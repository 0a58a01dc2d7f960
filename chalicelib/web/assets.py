"""Static assets at ``/assets/<name>``, served by the function itself.

Pages name each asset with ``?v=<content hash>`` (``view.asset_url``): a request
carrying the current hash is answered with a year-long immutable cache lifetime, so a
browser (and any cache in front) fetches each version once; any other request gets a
short lifetime.  Why the function and not S3/CloudFront: docs/web.md.
"""
from __future__ import annotations

from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web.view import STATIC_TYPES, compress, page, static_file

IMMUTABLE = "public, max-age=31536000, immutable"


@page("GET", "/assets/{name}", "webAsset", anonymous=True)
def asset(req: ApiRequest, web) -> ApiResponse:
    name = req.params["name"]
    found = static_file(name)
    if found is None:
        return ApiResponse.text("Not found\n", status=404)
    data, digest = found
    cache = IMMUTABLE if req.arg("v") == digest else "public, max-age=300"
    response = ApiResponse(status=200, body=data, headers={
        "Content-Type": STATIC_TYPES["." + name.rsplit(".", 1)[-1]],
        "Cache-Control": cache, "ETag": f'"{digest}"'})
    return compress(req, response)
