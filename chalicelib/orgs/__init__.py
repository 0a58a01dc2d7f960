"""Organizations: the organization, its members, teams and their repositories.

Operations (``routes.py``): orgCreate, adminCreateOrg, orgGet, orgEdit, orgDelete,
orgListCurrentUserOrgs, orgListUserOrgs, orgListRepos, orgListMembers, orgIsMember,
orgDeleteMember, orgListPublicMembers, orgIsPublicMember, orgPublicizeMember,
orgConcealMember, orgListTeams, orgCreateTeam, orgGetTeam, orgEditTeam, orgDeleteTeam,
orgListTeamMembers, orgListTeamMember, orgAddTeamMember, orgRemoveTeamMember,
orgListTeamRepos, orgListTeamRepo, orgAddTeamRepository, orgRemoveTeamRepository.

| module | what it holds |
|---|---|
| ``options`` | The request bodies of the organizations domain, declared once: the edge checks them … |
| ``records`` | Organization and Team records (fj:services/convert/convert.go), field for field. |
| ``routes`` | Organizations: the organization itself, its members, teams and repositories. |
| ``service`` | Organizations and their members (teams: ``orgs.teams``). |
| ``store`` | Organizations and their memberships in the table. |
| ``team_store`` | Teams of an organization in the table. |
| ``teams`` | Teams of an organization: the teams themselves, their members and repositories. |

Registered by ``chalicelib/areas.py``.  Repository permissions read memberships and team
grants from this domain's store (a crossing named in ``.importlinter``).
"""
