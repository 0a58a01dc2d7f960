"""What the tests of Git LFS share: ``tokens`` (alice owns ``alice/open``, bob writes to
it, eve is a stranger: their tokens) for the tests under moto; and for the git-lfs
end-to-end tests a local runtime per test module (under
tests/git_transport's 1 MiB limits, ROOT_URL left as ``make run`` has it so the verify
action's URL reaches the runtime itself; a module adds settings and users with
``RUNTIME_SETTINGS`` and ``RUNTIME_USERS``), and git's environment with git-lfs's
filters installed."""
from __future__ import annotations

import pytest

from chalicelib.settings import ServerSettings
from tests.git_transport.test_git_http import git, git_env  # noqa: F401 - git_env: a fixture
from tests.git_transport.test_git_streaming import LIMITS
from tests.pulls.test_pulls_git import runtime_with_users


@pytest.fixture(scope="module")
def server(request, tmp_path_factory):
    settings = {**LIMITS, "NIMBUS__SERVER__ROOT_URL": ServerSettings().ROOT_URL,
                **getattr(request.module, "RUNTIME_SETTINGS", {})}
    users = getattr(request.module, "RUNTIME_USERS", ("alice", "eve"))
    name = request.module.__name__.rsplit(".", 1)[-1]
    with runtime_with_users(tmp_path_factory.mktemp(name), settings, users=users,
                            events=False) as runtime:
        yield runtime


@pytest.fixture
def env(git_env):  # noqa: F811 - the imported fixture
    """test_git_http's git environment with git-lfs's filters in its global config."""
    git(git_env, "lfs", "install", "--skip-repo")
    return git_env


@pytest.fixture
def tokens(api):
    from tests.conftest import owner_and_writer
    found = owner_and_writer(api)
    api.create_user("eve")
    found["eve"] = api.create_token("eve")
    return found
