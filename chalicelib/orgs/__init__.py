"""Organizations: the organization, its members, teams and their repositories.

Operations (``block_routes.py``): orgListBlockedUsers, orgBlockUser, orgUnblockUser.
Operations (``people_routes.py``): orgGetAll, adminGetAllOrgs, userListTeams, teamSearch,
orgGetUserPermissions.
Operations (``repo_team_routes.py``): repoListTeams, repoCheckTeam, repoAddTeam,
repoDeleteTeam.
Operations (``routes.py``): orgCreate, adminCreateOrg, orgGet, orgEdit, orgDelete,
renameOrg, orgListCurrentUserOrgs, orgListUserOrgs, orgListRepos, orgListMembers,
orgIsMember, orgDeleteMember, orgListPublicMembers, orgIsPublicMember, orgPublicizeMember,
orgConcealMember, orgListTeams, orgCreateTeam, orgGetTeam, orgEditTeam, orgDeleteTeam,
orgListTeamMembers, orgListTeamMember, orgAddTeamMember, orgRemoveTeamMember,
orgListTeamRepos, orgListTeamRepo, orgAddTeamRepository, orgRemoveTeamRepository.

| module | what it holds |
|---|---|
| ``block_routes`` | An organization's blocks: block, unblock, list (Forgejo's ``organization`` tag and scope; its owners … |
| ``listing`` | Lists of organizations: everyone's (``orgGetAll``) and the site admin's (``adminGetAllOrgs``), read from … |
| ``models`` | The orgs domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the organizations domain, declared once: the edge checks them … |
| ``people`` | People and their teams across organizations: a user's teams (``userListTeams``), a search of an … |
| ``people_records`` | OrganizationPermissions records (fj:routers/api/v1/org/org.go). |
| ``people_routes`` | Organizations as lists and people in them: every organization (everyone's and the site admin's list), a … |
| ``records`` | Organization and Team records (fj:services/convert/convert.go), field for field. |
| ``repo_team_routes`` | A repository's teams (Forgejo's ``repository`` tag): list, check, add, remove. |
| ``repo_teams`` | A repository's teams, seen from the repository (Forgejo's ``repository`` tag): which teams of the owning … |
| ``request`` | What every route under ``/orgs/{org}`` reads from its request: the organization as the caller may see it, … |
| ``routes`` | Organizations: the organization itself, its members, teams and repositories. |
| ``service`` | Organizations and their members (teams: ``orgs.teams``). |
| ``store`` | Organizations and their memberships in the table. |
| ``team_store`` | Teams of an organization in the table. |
| ``teams`` | Teams of an organization: the teams themselves, their members and repositories. |

Registered by ``chalicelib/areas.py``.  Repository permissions read memberships and team
grants from this domain's store (a crossing named in ``.importlinter``).
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "OrgMember":            "models",
    "CreateTeamOption":     "options",
    "organization_record":  "records.organization",
    "team_record":          "records.team",
    "ORG":                  "request",
    "current_org":          "request",
    "get_org":              "service",
    "get_user_or_org":      "service",
    "people_of":            "service",
    "shown_memberships":    "service",
    "orgs_of":              "service",
    "get_member":           "store",
    "organization_ids_of":  "store",
    "member_key":           "store",
    "memberships_of":       "store.organizations_of",
    "teams_of_user":        "people.teams_of",
    "is_team_member":       "team_store.is_member",
    "list_team_members":    "team_store.list_members",
    "list_teams":           "team_store",
    "team_covers":          "team_store.covers",
    "team_in_org":          "team_store.get_in_org",
    "teams_in_org":         "team_store.get_many_in_org",
    "team_by_id":           "team_store.get",
    "stage_team_repo_links": "team_store.stage_repo_links",
    "find_team":            "teams",
    "named_team_repo_ids":  "teams",
    "team_preload_keys":    "teams.preload_keys",
    "team_preload_more_keys": "teams.preload_more_keys",
    # The web pages of organizations (chalicelib/web/org_*.py) call the API's services.
    "CreateOrgOption":      "options",
    "EditOrgOption":        "options",
    "EditTeamOption":       "options",
    "create_org":           "service",
    "edit_org":             "service",
    "delete_org":           "service",
    "org_members":          "service.members",
    "remove_org_member":    "service.remove_member",
    "member_accounts":      "teams",
    "is_org_member":        "teams.is_member",
    "org_teams":            "teams.list_teams",
    "create_team":          "teams",
    "edit_team":            "teams",
    "delete_team":          "teams",
    "team_members":         "teams",
    "add_team_member":      "teams",
    "remove_team_member":   "teams",
    "team_repositories":    "teams",
    "find_org_repo":        "teams",
    "add_team_repo":        "teams",
    "remove_team_repo":     "teams",
})
