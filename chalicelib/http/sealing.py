"""Values sealed with the instance secret: encrypted and authenticated before they reach
the table or a page, readable only by this instance.

Fernet (AES-128-CBC with an HMAC-SHA256 tag): a sealed value cannot be read or altered
without the key.  Each use derives its own key (HKDF-SHA256 with its own ``info``) from
the secret the web sessions keep in SSM (``http.sessions``), so no new parameter or IAM
grant is needed, nothing secret lives in the settings, and a value sealed for one use
never opens as another's.  Replacing that secret makes every sealed value unreadable:
each user of this module says what that means for its values.

Users: repositories' remote credentials (``repo_admin.secrets``), two-factor secrets
and enrolments (``accounts.two_factor``); ``derived_key`` gives a use its own HMAC key
(recovery codes are kept as HMACs).  ``cryptography`` is imported on first use only.
"""
from __future__ import annotations

import base64
import threading

__all__ = ["Sealer", "Unreadable", "derived_key"]

_lock = threading.Lock()


class Unreadable(ValueError):
    """A sealed value that does not open: altered, sealed for another use, or sealed
    under an instance secret that has since been replaced."""


def derived_key(info: bytes, length: int = 32) -> bytes:
    """A key for one use (``info`` names it), derived from the instance secret."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    from chalicelib.http import sessions

    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None,
                info=info).derive(sessions.signing_key())


class Sealer:
    """Seals and opens values for the use ``info`` names."""

    def __init__(self, info: bytes):
        self.info = info
        self._made: tuple[bytes, object] | None = None   # (instance secret, Fernet)

    def _fernet(self):
        """The cipher for the current instance secret (a test's fresh secret is a new
        one, so it is checked on every use; reading it costs nothing once cached)."""
        from chalicelib.http import sessions

        secret = sessions.signing_key()
        made = self._made
        if made is not None and made[0] == secret:
            return made[1]
        from cryptography.fernet import Fernet

        with _lock:
            fernet = Fernet(base64.urlsafe_b64encode(derived_key(self.info)))
            self._made = (secret, fernet)
        return fernet

    def seal(self, plain: bytes) -> str:
        return self._fernet().encrypt(plain).decode()

    def open(self, sealed: str) -> bytes:
        """The plain bytes of ``seal``'s result; ``Unreadable`` when it does not open."""
        from cryptography.fernet import InvalidToken

        try:
            return self._fernet().decrypt(sealed.encode())
        except (InvalidToken, ValueError, TypeError):
            raise Unreadable("the sealed value cannot be opened") from None
