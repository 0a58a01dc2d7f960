"""The real pyforgejo client from PyPI, unmodified, against the local server."""
import base64

import httpx
import pytest
from pyforgejo import PyforgejoApi

from chalicelib.local.runtime import LocalRuntime


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LocalRuntime(port=0, data_dir=tmp_path_factory.mktemp("pyforgejo"),
                      access_log=False) as runtime:
        from chalicelib.services.accounts import ensure_admin

        ensure_admin("boss", "boss-password", "boss@example.com")
        yield runtime


def _admin_token(url: str) -> str:
    basic = base64.b64encode(b"boss:boss-password").decode()
    r = httpx.post(f"{url}/api/v1/users/boss/tokens", headers={"Authorization": f"Basic {basic}"},
                   json={"name": "pyforgejo", "scopes": ["all"]})
    assert r.status_code == 201, r.text
    return r.json()["sha1"]


def test_pyforgejo_version_current_user_and_admin_create_user(server):
    client = PyforgejoApi(base_url=f"{server.url}/api/v1", api_key=_admin_token(server.url))

    version = client.miscellaneous.get_version()
    assert version.version.startswith("1.22.0+nimbus-")

    me = client.user.get_current()
    assert me.login == "boss" and me.is_admin is True and me.id > 0

    created = client.admin.create_user(username="newbie", email="newbie@example.com",
                                       password="newbie-password", must_change_password=False)
    assert created.login == "newbie" and created.email == "newbie@example.com"
    assert created.created is not None

    fetched = client.user.get(username="newbie")
    assert fetched.id == created.id
