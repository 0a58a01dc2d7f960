"""The API areas; importing one registers its routes in the route table.

The order is the routes' precedence (first match wins).  Domain packages
(``chalicelib.webhooks``, ``statuses``, ``releases``, ``quota``, ``signing``) are listed
by their routes modules like the areas.
"""
from chalicelib.api import admin, git_http  # noqa: F401
from chalicelib.webhooks import routes as webhook_routes  # noqa: F401,E402  (the webhooks domain)
from chalicelib.api import misc, orgs, repo_access, repo_content, repos, repo_admin, swagger, users  # noqa: F401,E402
from chalicelib.api import issues  # noqa: F401,E402  (after repos: it reuses its helpers)
from chalicelib.api import pulls  # noqa: F401,E402  (after issues: it reuses its renderer)
from chalicelib.signing import key_routes as signing_key_routes  # noqa: F401,E402  (the signing domain)
from chalicelib.api import markdown  # noqa: F401,E402
from chalicelib.signing import routes as signing_routes  # noqa: F401,E402
from chalicelib.statuses import routes as statuses  # noqa: F401,E402  (commit statuses)
from chalicelib.releases import routes as releases  # noqa: F401,E402  (releases, attachments)
from chalicelib.releases import asset_routes as release_assets  # noqa: F401,E402  (releases, attachments)
from chalicelib.webhooks import delivery_routes  # noqa: F401,E402  (after webhook_routes: it reuses its scopes)
from chalicelib.quota import routes as quota_routes, admin_routes  # noqa: F401,E402  (the quota domain)
from chalicelib.api import commits  # noqa: F401,E402  (commits: issue 14)
from chalicelib.api import contents  # noqa: F401,E402  (contents API: issue 14; after repo_content)
from chalicelib.api import branch_admin  # noqa: F401,E402  (branch writes: issue 14)
from chalicelib.api import languages  # noqa: F401,E402  (language statistics)
from chalicelib.api import tags  # noqa: F401,E402  (repository tags)
from chalicelib.api import git_data  # noqa: F401,E402  (git trees, blobs, refs, tags, notes)
from chalicelib.api import large_push  # noqa: F401,E402  (bundle pushes through S3: docs/git-at-scale.md)
from chalicelib.web import actions_repos, actions_issues, actions_pulls, actions_releases, actions_tokens, patches  # noqa: F401,E402  (web forms: docs/web.md; before the pages, whose /{owner}/{repo}… patterns would match their literal paths first)
from chalicelib.web import account_pages, assets, pages, repo_pages, issue_pages  # noqa: F401,E402  (web pages: docs/web.md; after every API area)
from chalicelib.web import not_found  # noqa: F401,E402  (any other page below a repository: last)
