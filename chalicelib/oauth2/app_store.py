"""OAuth2 applications in the table: the owner's item and the client-id copy the
protocol reads, always written together (one transaction, conditional on the version
read, so two edits racing cannot interleave their halves)."""
from __future__ import annotations

from chalicelib.oauth2.models import OAuthApp, OAuthClient, keys
from chalicelib.store import unit_of_work
from chalicelib.store.table import Item

__all__ = [
    "OAuthApp",
    "OAuthClient",
    "app_key",
    "client",
    "get",
    "list_for_owner",
    "new_app",
    "prefetch_clients",
    "stage_create",
    "stage_delete",
    "stage_save",
]


def new_app(**values) -> OAuthApp:
    return OAuthApp(*keys.app(int(values["owner_id"]), int(values["id"])), **values)


def get(owner_id: int, app_id: int) -> OAuthApp | None:
    return unit_of_work.get(OAuthApp, keys.app(owner_id, app_id))


def list_for_owner(owner_id: int) -> list[OAuthApp]:
    found = Item.query(keys.account_partition(owner_id), Item.sk.startswith(keys.APP_PREFIX))
    return [item for item in found if type(item) is OAuthApp]


def by_client_id(client_id: str, *, consistent: bool = False) -> OAuthClient | None:
    """The application by client id (one GetItem, or none after a preload)."""
    if not client_id or len(client_id) > 100:
        return None
    return unit_of_work.get(OAuthClient, keys.client_item(client_id), consistent=consistent)


def _client_copy(app: OAuthApp) -> OAuthClient:
    values = {name: getattr(app, name) for name in (
        "id", "owner_id", "name", "client_id", "secret_hash", "redirect_uris", "confidential",
        "created", "updated", "version")}
    return OAuthClient(*keys.client_item(app.client_id), **values)


def stage_create(app: OAuthApp) -> None:
    uow = unit_of_work.current()
    uow.put(app, label="application", must_not_exist=True)
    uow.put(_client_copy(app), label="client id", must_not_exist=True)


def stage_save(app: OAuthApp, read_version: int) -> None:
    """Both copies, on condition that nobody saved the application since it was read."""
    uow = unit_of_work.current()
    uow.put(app, label="application", condition=OAuthApp.version == read_version)
    uow.put(_client_copy(app), label="client id")


def stage_delete(app: OAuthApp) -> None:
    uow = unit_of_work.current()
    uow.delete(app, label="application", condition=OAuthApp.version == int(app.version))
    uow.delete(OAuthClient(*keys.client_item(app.client_id)), label="client id")


def prefetch_clients(client_ids) -> None:
    """Read many applications by client id in one batch (a user's grants list)."""
    unit_of_work.prefetch([keys.client_item(c) for c in client_ids if c])


def app_key(owner_id: int, app_id: int) -> tuple[str, str]:
    return keys.app(owner_id, app_id)
