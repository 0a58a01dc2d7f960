"""What an ID token and ``/login/oauth/userinfo`` say about the user (Forgejo's claims):
``profile`` gives the names, profile page, picture, website, locale and update time;
``email`` the address and whether the account is active; ``groups`` the organizations
and ``org:team`` names the user belongs to (public memberships only, unless the grant
may read organizations)."""
from __future__ import annotations

from chalicelib import accounts, orgs
from chalicelib.oauth2 import scopes
from chalicelib.settings import get_settings


def _display_name(user) -> str:
    return (user.full_name or "").strip() or user.login


def groups(user, *, private_too: bool) -> list[str]:
    """Organization names, then ``org:team`` for each of the user's teams there."""
    found: list[str] = []
    teams = orgs.teams_of_user(user)
    for org, member in orgs.memberships_of(int(user.id)):
        if org is None or member is None or not (member.public or private_too):
            continue
        found.append(org.login)
        found += [f"{org.login}:{team.lower_name}" for team, team_org in teams
                  if int(team_org.id) == int(org.id)]
    return found


def id_token_claims(user, words) -> dict:
    words = set(words or [])
    made: dict = {}
    if "profile" in words:
        made.update(name=_display_name(user), preferred_username=user.login,
                    profile=get_settings().app_url + user.login,
                    picture=accounts.avatar_url(user), website=user.website or "",
                    locale=user.language or "", updated_at=int(user.updated or 0))
    if "email" in words:
        made.update(email=user.email, email_verified=bool(user.active))
    if "groups" in words:
        api = scopes.api_scopes(words)
        made["groups"] = groups(user, private_too=scopes.sees_private_groups(api))
    return made


def userinfo(user, api_scopes: list[str]) -> dict:
    """``/login/oauth/userinfo`` (Forgejo's fields, whatever the grant's words)."""
    answer = {"sub": str(int(user.id)), "name": _display_name(user),
              "preferred_username": user.login, "email": user.email,
              "picture": accounts.avatar_url(user)}
    found = groups(user, private_too=scopes.sees_private_groups(api_scopes))
    if found:
        answer["groups"] = found
    return answer
