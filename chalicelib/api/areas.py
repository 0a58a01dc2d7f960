"""The API areas; importing one registers its routes in the route table."""
from chalicelib.api import admin, git_http, hooks, misc, orgs, repo_access, repo_content, repos, swagger, users  # noqa: F401
