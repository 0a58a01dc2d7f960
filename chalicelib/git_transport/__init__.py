"""Git over smart HTTP for the ``git`` CLI, and pushes too large for one request (a bundle
uploaded to S3).

Operations (``large_push_routes.py``): createLargePush, applyLargePush.
Operations (``routes.py``): gitInfoRefs, gitUploadPack, gitReceivePack.

| module | what it holds |
|---|---|
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
})
