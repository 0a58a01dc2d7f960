"""DynamoDB through PynamoDB and chalicelib's models (store/table.py), against moto and
the twin: saves and updates with conditions, transactions that cancel (PynamoDB's
``cancellation_reasons``), queries on the table and its indexes, batch gets and
writes (tests/twin/differential.py)."""
from __future__ import annotations

from pynamodb.connection import Connection
from pynamodb.transactions import TransactWrite

from tests.twin.differential import Record, assert_same


def setup_table():
    from chalicelib import aws
    from chalicelib.settings import get_settings
    from infra.bootstrap import ensure_table

    ensure_table(get_settings())
    return aws


def attributes(model) -> dict:
    return None if model is None else model.attribute_values


def test_models_saves_updates_conditions_and_queries():
    def scenario():
        from chalicelib.accounts.models import Account
        from chalicelib.repos.models import Repo
        from chalicelib.store.table import Counter, Item

        setup_table()
        log = Record()
        account = Account("acct#1", "profile", id=1, login="Ann", lower_name="ann", created=1,
                          updated=1, gsi1pk="login", gsi1sk="ann")
        log.call(account.save, condition=Item.pk.does_not_exist())
        log.call(account.save, condition=Item.pk.does_not_exist())
        log.call(lambda: attributes(Account.get("acct#1", "profile", consistent_read=True)))
        log.call(Account.get, "acct#1", "missing")
        log.call(account.update, actions=[Account.version.add(1), Account.full_name.set("A"),
                                          Account.location.remove()],
                 condition=Account.version == 1)
        log.call(account.update, actions=[Account.version.add(1)],
                 condition=Account.version == 1)
        log.note(attributes(account))
        counter = Counter("counter", "issues")
        for _ in range(3):
            log.call(counter.update, actions=[Counter.value.add(1)])
        log.note(counter.value)
        for n in range(7):
            Repo(f"repo#{n % 2}", f"r{n}", id=n, owner_id=1, owner_login="ann", name=f"r{n}",
                 lower_name=f"r{n}", default_branch="main", pool_id=n, gsi1pk="repos",
                 created=1, updated=1, gsi1sk=f"{n % 3}",
                 team_ids={1, 2} if n % 2 else None).save()
        log.note([r.name for r in Repo.query("repo#1", Repo.sk > "r2")])
        log.note([r.name for r in Repo.query("repo#0", scan_index_forward=False, page_size=2)])
        log.note([r.name for r in Repo.query("repo#0", filter_condition=Repo.id > 2, limit=1)])
        log.note([(r.gsi1sk, r.name) for r in Repo.gsi1.query("repos", page_size=2)])
        log.note(Repo.count("repo#1", Repo.sk.startswith("r")))
        log.note(sorted(r.name for r in Repo.batch_get([("repo#0", "r0"), ("repo#1", "r1"),
                                                         ("repo#9", "r9")])))
        with Repo.batch_write() as batch:
            for n in range(0, 7, 2):
                batch.delete(Repo(f"repo#{n % 2}", f"r{n}"))
        log.note(sorted(r.name for r in Repo.scan()))
        log.note(sorted(r.name for r in Repo.scan(Repo.team_ids.contains(2))))
        return log
    assert_same(scenario)


def test_transactions_through_pynamodb():
    def scenario():
        from chalicelib.store.table import Counter, Item, connection

        setup_table()
        log = Record()
        first, second = Counter("tx", "a", value=1), Counter("tx", "b", value=1)

        def transact(*operations):
            with TransactWrite(connection=connection()) as tx:
                for operation in operations:
                    operation(tx)

        log.call(transact, lambda tx: tx.save(first, condition=Item.pk.does_not_exist()),
                 lambda tx: tx.save(second))
        log.call(transact,
                 lambda tx: tx.condition_check(Counter, "tx", "a",
                                               condition=Counter.value == 1),
                 lambda tx: tx.save(Counter("tx", "b", value=5),
                                    condition=Item.pk.does_not_exist()),
                 lambda tx: tx.update(Counter("tx", "c"), actions=[Counter.value.add(1)]))
        log.call(transact, lambda tx: tx.delete(first, condition=Counter.value == 2),
                 lambda tx: tx.update(second, actions=[Counter.value.add(1)],
                                      condition=Counter.value == 1))
        log.note([c.value for c in Counter.batch_get([("tx", "a"), ("tx", "b"), ("tx", "c")])])
        log.call(lambda: Connection(region="us-east-1").describe_table("nimbus")["TableStatus"])
        return log
    assert_same(scenario)
