"""Git over smart HTTP for the ``git`` CLI, and pushes too large for one request (a bundle
uploaded to S3).

Operations (``large_push_routes.py``): createLargePush, applyLargePush.
Operations (``routes.py``): gitInfoRefs, gitUploadPack, gitReceivePack.

| module | what it holds |
|---|---|
| ``http_answers`` | The answers of git smart HTTP (protocol v0/v1, v2 for fetches) to a request whose git the caller may use: … |
| ``large_push`` | Pushes too big for one request: the client uploads a ``git bundle`` to S3 through a presigned PUT, then … |
| ``large_push_routes`` | Pushes too big for one request (docs/git-at-scale.md): a presigned upload of a ``git bundle``, then … |
| ``routes`` | Git smart HTTP (protocol v0) at ``/{owner}/{repo}[.git]/…``, for the git CLI. |
| ``service`` | Git smart HTTP for a repository the caller may use (``git_transport/routes.py`` decides who may; this … |

Registered by ``chalicelib/areas.py``; the streaming entry point
(``chalicelib/streaming``) serves the same routes.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "STREAM_BUDGET":  "service",
    "GitTarget":      "service",
    "GIT_ROUTE":      "http_answers.GIT",
    "authorize_git":  "http_answers.authorize",
    "git_plain_error": "http_answers.plain",
    "serve_info_refs": "http_answers.info_refs",
    "serve_upload_pack": "http_answers.upload_pack",
    "serve_receive_pack": "http_answers.receive_pack",
})
