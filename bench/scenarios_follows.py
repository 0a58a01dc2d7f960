"""Scenarios and budgets for followers and following, and for users' e-mail addresses.

A follow (or unfollow) is the caller's token and account, the followed user by name
(one Query of the name index) and one transaction: 4.  A page of a named user's list
is that user by name, one Query of its follows and one batched read of the page's
accounts: 3 anonymous (the caller's token and account add 2).  The caller's own lists
need no name lookup: 4 with the token.

E-mail addresses: the user's list is one Query after the token and account; an add
one transaction (the claims decide, nothing is read); a delete reads the user's
addresses (one Query) first.  The site admin's list of every address is one Query of
the address index and one batched read of the page's accounts.
"""
from __future__ import annotations

from scene import USER, Req, Scene, after

ME = USER[0]

BUDGETS = {
    ("userCurrentPutFollow", "token"): 4,
    ("userCurrentDeleteFollow", "token"): 4,
    ("userCurrentCheckFollowing", "token"): 4,
    ("userCheckFollowing", "anon"): 3,
    ("userListFollowers", "anon"): 3,
    ("userListFollowing", "anon"): 3,
    ("userCurrentListFollowers", "token"): 4,
    ("userCurrentListFollowing", "token"): 4,
    ("userListEmails", "token"): 3,
    ("userAddEmail", "token"): 3,
    ("userDeleteEmail", "token"): 4,
    ("adminGetAllEmails", "admin"): 4,
    ("adminSearchEmails", "admin"): 4,
    ("adminListUserEmails", "admin"): 4,
    ("adminDeleteUserEmails", "admin"): 5,
}


def followed(s: Scene) -> str:
    """A user alice follows, who follows her back (made once)."""
    def make() -> str:
        name = s.new_user()
        s.must("PUT", f"/user/following/{name}", "token", expect=204)
        s.must("PUT", f"/user/following/{ME}", "admin", expect=204)
        return name
    return s.once("followed", make)


def new_followed(s: Scene) -> str:
    name = s.new_user()
    s.must("PUT", f"/user/following/{name}", "token", expect=204)
    return name


def new_address(s: Scene) -> str:
    """An address alice adds (not counted), for a scenario to delete."""
    address = f"{s.unique('mail')}@bench.test"
    s.must("POST", "/user/emails", "token", {"emails": [address]})
    return address


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "userCurrentPutFollow": lambda s: [Req("PUT", f"/user/following/{s.new_user()}",
                                               "token", expect=204)],
        "userCurrentDeleteFollow": lambda s: [Req("DELETE", f"/user/following/{new_followed(s)}",
                                                  "token", expect=204)],
        "userCurrentCheckFollowing": lambda s: [Req("GET", f"/user/following/{followed(s)}",
                                                    "token", expect=204)],
        "userCheckFollowing": lambda s: [Req("GET", f"/users/{ME}/following/{followed(s)}",
                                             expect=204)],
        "userListFollowers": lambda s: after(followed(s), [
            Req("GET", f"/users/{ME}/followers"), Req("GET", f"/users/{ME}/followers", "token")]),
        "userListFollowing": lambda s: after(followed(s), [Req("GET", f"/users/{ME}/following")]),
        "userCurrentListFollowers": lambda s: after(followed(s), [
            Req("GET", "/user/followers", "token")]),
        "userCurrentListFollowing": lambda s: after(followed(s), [
            Req("GET", "/user/following", "token")]),
        # E-mail addresses ---------------------------------------------------------------
        "userListEmails": lambda s: [Req("GET", "/user/emails", "token")],
        "userAddEmail": lambda s: [Req("POST", "/user/emails", "token",
                                       {"emails": [f"{s.unique('mail')}@bench.test"]}, 201)],
        "userDeleteEmail": lambda s: [Req("DELETE", "/user/emails", "token",
                                          {"emails": [new_address(s)]}, 204)],
        "adminGetAllEmails": lambda s: [Req("GET", "/admin/emails", "admin")],
        "adminSearchEmails": lambda s: [Req("GET", "/admin/emails/search?q=example",
                                            "admin")],
        "adminListUserEmails": lambda s: [Req("GET", f"/admin/users/{ME}/emails", "admin")],
        "adminDeleteUserEmails": lambda s: [Req("DELETE", f"/admin/users/{ME}/emails", "admin",
                                                {"emails": [new_address(s)]}, 204)],
    }
