"""Property test: random open/close/comment/label/milestone/delete sequences, then every
counter is checked against a recount of the items themselves."""
import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chalicelib.issues import store

OPS = st.lists(st.tuples(
    st.sampled_from(["create", "close", "reopen", "comment", "uncomment", "label", "unlabel",
                     "milestone", "demilestone", "delete", "delete_label", "close_milestone"]),
    st.integers(min_value=0, max_value=30)), min_size=1, max_size=25)

_serial = itertools.count()


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=OPS)
def test_counters_match_a_recount(fast_api, monkeypatch, ops):
    api = fast_api
    monkeypatch.setattr(store, "BUCKET", 3)   # small buckets: pages span several
    if not hasattr(api, "token"):
        api.create_user("owner")
        api.token = api.create_token("owner")
    token = api.token
    name = f"r{next(_serial)}"
    assert api.post("/user/repos", token=token, json={"name": name}).status == 201
    R = f"/repos/owner/{name}"
    labels = [api.post(f"{R}/labels", token=token, json={"name": n, "color": "#00aa00"}).json["id"]
              for n in ("a", "b")]
    milestones = [api.post(f"{R}/milestones", token=token, json={"title": t}).json["id"]
                  for t in ("m1", "m2")]
    numbers: list[int] = []      # issues that exist
    comments: list[int] = []

    def pick(k, seq):
        return seq[k % len(seq)] if seq else None

    for op, k in ops:
        n = pick(k, numbers)
        if op == "create":
            extra = {"milestone": milestones[k % 2]} if milestones and k % 3 == 0 else {}
            r = api.post(f"{R}/issues", token=token, json={"title": f"i{k}", "closed": k % 4 == 1,
                                                           **extra})
            assert r.status == 201, r
            numbers.append(r.json["number"])
        elif n is None:
            continue
        elif op in ("close", "reopen"):
            r = api.patch(f"{R}/issues/{n}", token=token,
                          json={"state": "closed" if op == "close" else "open"})
            assert r.status == 201, r
        elif op == "comment":
            r = api.post(f"{R}/issues/{n}/comments", token=token, json={"body": f"c{k}"})
            assert r.status == 201, r
            comments.append(r.json["id"])
        elif op == "uncomment" and comments:
            cid = pick(k, comments)
            r = api.delete(f"{R}/issues/comments/{cid}", token=token)
            assert r.status in (204, 404), r      # 404: its issue was deleted
            comments.remove(cid)
        elif op == "label" and labels:
            assert api.post(f"{R}/issues/{n}/labels", token=token,
                            json={"labels": [pick(k, labels)]}).status == 200
        elif op == "unlabel" and labels:
            assert api.delete(f"{R}/issues/{n}/labels/{pick(k, labels)}", token=token).status == 204
        elif op == "milestone" and milestones:
            assert api.patch(f"{R}/issues/{n}", token=token,
                             json={"milestone": pick(k, milestones)}).status == 201
        elif op == "demilestone":
            assert api.patch(f"{R}/issues/{n}", token=token, json={"milestone": 0}).status == 201
        elif op == "delete":
            assert api.delete(f"{R}/issues/{n}", token=token).status == 204
            numbers.remove(n)
        elif op == "delete_label" and labels:
            label = pick(k, labels)
            assert api.delete(f"{R}/labels/{label}", token=token).status == 204
            labels.remove(label)
        elif op == "close_milestone" and milestones:
            assert api.patch(f"{R}/milestones/{pick(k, milestones)}", token=token,
                             json={"state": "closed"}).status == 200

    # Recount from the items themselves.
    repo = api.get(R, token=token).json
    issues = {n: api.get(f"{R}/issues/{n}", token=token).json for n in numbers}
    assert all(i["number"] == n for n, i in issues.items())
    open_numbers = sorted((n for n, i in issues.items() if i["state"] == "open"), reverse=True)
    closed_numbers = sorted((n for n, i in issues.items() if i["state"] == "closed"), reverse=True)
    assert repo["open_issues_count"] == len(open_numbers)

    for state, expected in (("open", open_numbers), ("closed", closed_numbers),
                            ("all", sorted(numbers, reverse=True))):
        seen, page = [], 1
        while True:
            r = api.get(f"{R}/issues?state={state}&limit=2&page={page}", token=token)
            assert r.headers["x-total-count"] == str(len(expected)), (state, r.headers)
            if not r.json:
                break
            seen += [i["number"] for i in r.json]
            page += 1
        assert seen == expected, state

    all_comments = 0
    for n, issue in issues.items():
        listed = api.get(f"{R}/issues/{n}/comments", token=token).json
        assert issue["comments"] == len(listed)
        all_comments += len(listed)
        assert {lb["id"] for lb in issue["labels"]} <= set(labels)
    assert api.get(f"{R}/issues/comments", token=token).headers["x-total-count"] == str(all_comments)

    for mid in milestones:
        m = api.get(f"{R}/milestones/{mid}", token=token).json
        members = [i for i in issues.values() if i["milestone"] and i["milestone"]["id"] == mid]
        assert m["open_issues"] == sum(i["state"] == "open" for i in members)
        assert m["closed_issues"] == sum(i["state"] == "closed" for i in members)

    tracker = store.get_tracker(repo["id"], consistent=True)
    assert tracker.total("oc", "ip") == len(numbers)
    assert all(n >= 0 for n in tracker.counts.values())
