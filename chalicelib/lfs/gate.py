"""What a push must satisfy about Git LFS: every pointer its pack brings names an object
the pool holds, with that size and (checked when it was verified) that SHA-256.

git-lfs uploads a push's objects before git sends the pack (its pre-push hook), so a
push that names an object storage lacks is a client that skipped LFS, or pointers
copied from elsewhere: accepting it would publish files nobody can check out.  The
refusal is a pre-receive one (``git_transport``), after the branch rules, and
``needs.add`` records what the repository now needs in the same step, before its refs
move (see ``needs``).  A push that brings no pointer costs nothing here: the pack's
indexing found them (``gitstore.lfs_pointers``).
"""
from __future__ import annotations

from collections.abc import Mapping

from chalicelib.lfs import needs
from chalicelib.repos import Repo
from chalicelib.settings import get_settings

# How many missing objects a refusal names; the rest are counted.
SHOWN = 5


def admit(repo: Repo, pointers: Mapping[str, int]) -> str | None:
    """None when the push may go on (its needs recorded), else why not."""
    if not pointers or not get_settings().server.LFS_START_SERVER:
        return None
    missing = needs.add(repo, pointers)
    if not missing:
        return None
    named = ", ".join(f"{oid} ({int(pointers[oid])} bytes)" for oid in missing[:SHOWN])
    more = f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
    return (f"Git LFS objects this push points at are not stored here: {named}{more}. "
            "Upload them first (git lfs push --all origin), then push again.")
