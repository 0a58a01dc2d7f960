"""A repository from a template, on the in-memory twin (the fast layer): the variable
table and its transformers, globs, paths; what ``generateRepo`` refuses before writing
anything; the copied git content (one commit, expanded files, the template file left
out), topics, labels, branch rules, webhooks (with their secrets, for the template's
admins) and the avatar; and that a failure part-way leaves nothing."""
from __future__ import annotations

import base64
import datetime
import io

import pytest
from PIL import Image

from chalicelib import issues, protection, repos, webhooks
from chalicelib.avatars import links, object_store
from chalicelib.avatars import service as avatars_service
from chalicelib.avatars.options import UpdateRepoAvatarOption
from chalicelib.errors import (
    ConflictError,
    InvalidInput,
    NotFoundError,
    PermissionDenied,
)
from chalicelib.repo_admin import generation, service, template_vars
from chalicelib.repo_admin.lifecycle_options import GenerateRepoOption
from chalicelib.repo_admin.options import EditRepoOption
from chalicelib.settings import overridden
from chalicelib.webhooks import copies
from chalicelib.webhooks import store as hook_store
from tests import memory_scene as scene

pytestmark = pytest.mark.fast

NEW = template_vars.Side(owner="Acme-Corp", name="myNewRepo", description="A new thing",
                         link="/Acme-Corp/myNewRepo", https_url="http://h/Acme-Corp/myNewRepo.git",
                         ssh_url="git@h:Acme-Corp/myNewRepo.git")
TEMPLATE = template_vars.Side(owner="alice", name="go-service_template", description="tmpl",
                              link="/alice/go-service_template",
                              https_url="http://h/alice/go-service_template.git",
                              ssh_url="git@h:alice/go-service_template.git")
VALUES = template_vars.variables(NEW, TEMPLATE, datetime.date(2026, 3, 7))


def png(size) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (30, 140, 60)).save(out, format="PNG")
    return out.getvalue()


@pytest.mark.parametrize("name, value", [
    ("REPO_NAME", "myNewRepo"), ("REPO_OWNER", "Acme-Corp"),
    ("REPO_DESCRIPTION", "A new thing"), ("REPO_LINK", "/Acme-Corp/myNewRepo"),
    ("REPO_HTTPS_URL", "http://h/Acme-Corp/myNewRepo.git"),
    ("REPO_SSH_URL", "git@h:Acme-Corp/myNewRepo.git"),
    ("TEMPLATE_NAME", "go-service_template"), ("TEMPLATE_OWNER", "alice"),
    ("TEMPLATE_LINK", "/alice/go-service_template"),
    ("TEMPLATE_HTTPS_URL", "http://h/alice/go-service_template.git"),
    ("TEMPLATE_SSH_URL", "git@h:alice/go-service_template.git"),
    ("YEAR", "2026"), ("MONTH", "03"), ("DAY", "07"), ("MONTH_ENGLISH", "March"),
    ("REPO_NAME_SNAKE", "my_new_repo"), ("REPO_NAME_KEBAB", "my-new-repo"),
    ("REPO_NAME_CAMEL", "myNewRepo"), ("REPO_NAME_PASCAL", "MyNewRepo"),
    ("REPO_NAME_LOWER", "mynewrepo"), ("REPO_NAME_UPPER", "MYNEWREPO"),
    ("REPO_NAME_TITLE", "Mynewrepo"),
    ("REPO_OWNER_SNAKE", "acme_corp"), ("REPO_OWNER_PASCAL", "AcmeCorp"),
    ("REPO_OWNER_CAMEL", "acmeCorp"), ("REPO_OWNER_TITLE", "Acme-Corp"),
    ("TEMPLATE_NAME_SNAKE", "go_service_template"), ("TEMPLATE_NAME_KEBAB", "go-service-template"),
    ("TEMPLATE_NAME_PASCAL", "GoServiceTemplate"), ("TEMPLATE_NAME_CAMEL", "goServiceTemplate"),
    ("TEMPLATE_NAME_UPPER", "GO-SERVICE_TEMPLATE"), ("TEMPLATE_OWNER_TITLE", "Alice"),
    ("MONTH_ENGLISH_UPPER", "MARCH"),
])
def test_the_variable_table(name, value):
    assert VALUES[name] == value
    assert template_vars.expand(f"<${name}>", VALUES) == f"<{value}>"
    assert template_vars.expand(f"<${{{name}}}>", VALUES) == f"<{value}>"


def test_words_split_as_the_transformers_expect():
    assert template_vars.snake("HTTPServer") == "http_server"
    assert template_vars.kebab("some repo name") == "some-repo-name"
    assert template_vars.pascal("my_repo-v2") == "MyRepoV2"
    assert template_vars.title("hello WORLD") == "Hello World"


def test_unknown_names_and_plain_dollars_stay_as_written():
    text = "echo $HOME ${PATH} $ 5$ $REPO_NAMEX"
    assert template_vars.expand(text, VALUES) == text


def test_paths_get_values_safe_for_file_names():
    values = {**VALUES, "REPO_DESCRIPTION": "a/b\\c..d"}
    assert template_vars.expand_path("cmd/$REPO_NAME_KEBAB/main.go", values) == \
        "cmd/my-new-repo/main.go"
    assert template_vars.expand_path("docs/${REPO_DESCRIPTION}.md", values) == "docs/a_b_c_d.md"


@pytest.mark.parametrize("glob, path, matched", [
    ("*.md", "README.md", True), ("*.md", "docs/x.md", False), ("**.md", "docs/x.md", True),
    ("**/*.go", "cmd/a/main.go", True), ("src/**", "src/a/b.txt", True),
    ("README.?d", "README.md", True), ("[Rr]EADME.md", "rEADME.md", True),
    ("*.{go,mod}", "go.mod", True), ("*.{go,mod}", "go.sum", False),
    ("[!a]*", "abc", False), ("a\\*b", "a*b", True),
])
def test_globs(glob, path, matched):
    assert bool(template_vars.glob_pattern(glob).match(path)) is matched


def test_the_template_file_takes_one_pattern_a_line_with_comments():
    globs = template_vars.parse_globs("# expand these\n\n*.md\n  go.mod  \n")
    assert template_vars.matches(globs, "go.mod") and template_vars.matches(globs, "a.md")
    assert not template_vars.matches(globs, "main.go")


# generateRepo's rules ---------------------------------------------------------------------

@pytest.fixture
def people(memory):
    return {"alice": scene.user("alice"), "bob": scene.user("bob"),
            "root": scene.user("root", admin=True)}


def template_of(alice, name="tmpl", **fields):
    view = scene.repo(alice, name, auto_init=True, **fields)
    service.edit_repo(scene.caller(alice), view, EditRepoOption(template=True))
    return repos.view_of(repos.repo_by_id(int(view.repo.id)), scene.caller(alice))


def generate(account, template, **fields):
    seen = repos.view_of(repos.repo_by_id(int(template.repo.id)), scene.caller(account))
    option = GenerateRepoOption(**{"owner": account.login, "name": "made", **fields})
    return generation.generate(scene.caller(account), seen, option)


def test_what_is_refused_before_anything_is_written(people):
    alice, bob = people["alice"], people["bob"]
    plain = scene.repo(alice, "plain", auto_init=True)
    with pytest.raises(InvalidInput, match="this is not a template repo"):
        generate(alice, plain, git_content=True)
    template = template_of(alice)
    assert repos.repo_by_id(int(template.repo.id)).template is True      # stored
    with pytest.raises(InvalidInput, match="must select at least one template item"):
        generate(alice, template)
    with pytest.raises(NotFoundError):
        generate(alice, template, owner="nobody", git_content=True)
    with pytest.raises(PermissionDenied, match="Only admin"):
        generate(alice, template, owner="bob", git_content=True)
    with pytest.raises(InvalidInput, match=r"\[Name\]"):
        generate(alice, template, name="bad name", git_content=True)
    with pytest.raises(ConflictError, match="same name"):
        generate(alice, template, name="plain", git_content=True)
    scene.repo(bob, "seen")
    assert scene.fresh(alice).num_repos == 2 and scene.fresh(bob).num_repos == 1


def test_topics_labels_and_branch_rules_are_copied(people):
    alice = people["alice"]
    template = template_of(alice)
    repos.replace_repo_topics(template, ["go", "service"])
    ctx = issues.issue_context(scene.caller(alice), template)
    issues.create_label(ctx, issues.CreateLabelOption(name="bug", color="#ff0000",
                                                      description="broken"))
    protection.create_branch_rule(template, scene.caller(alice),
                                  protection.CreateBranchProtectionOption(rule_name="main",
                                                                          required_approvals=2))
    made = generate(alice, template, topics=True, labels=True, protected_branch=True)
    stored = repos.repo_by_id(int(made.repo.id))
    assert sorted(stored.topics) == ["go", "service"] and stored.template is False
    new_ctx = issues.issue_context(scene.caller(alice), repos.view_of(stored, scene.caller(alice)))
    assert [(label["name"], label["description"]) for _, label in issues.list_labels(new_ctx)] \
        == [("bug", "broken")]
    rules = protection.protection_of(int(stored.id)).ordered_branch_rules()
    assert [(r.rule_name, r.required_approvals) for r in rules] == [("main", 2)]


def test_a_failure_part_way_leaves_nothing(people, monkeypatch):
    alice = people["alice"]
    template = template_of(alice)
    repos.replace_repo_topics(template, ["go"])

    def broken(*args, **kwargs):
        raise RuntimeError("the topic store failed")

    monkeypatch.setattr(repos, "replace_repo_topics", broken)
    with pytest.raises(RuntimeError):
        generate(alice, template, git_content=True, topics=True)
    assert repos.repo_by_name("alice", "made") is None
    assert scene.fresh(alice).num_repos == 1


def hook_on(alice, template, url, **fields):
    return webhooks.create_hook(alice, webhooks.repo_hook_scope(template),
                                webhooks.CreateHookOption(**{"type": "forgejo", "config": {
                                    "url": url, "content_type": "json"}, **fields}))


def stored_hooks(repo_id):
    return hook_store.hooks_of("repo", int(repo_id))


def settings_of(hook):
    return {name: getattr(hook, name) for name in copies.COPIED}


def test_webhooks_are_copied_with_their_settings_and_secret(people):
    alice = people["alice"]
    template = template_of(alice)
    with overridden({"NIMBUS__WEBHOOK__ALLOWED_HOST_LIST": "loopback"}):
        hook_on(alice, template, "http://127.0.0.1:9/ci", events=["issues", "push"],
                branch_filter="{main,release/*}", authorization_header="Bearer ci-token",
                active=True, config={"url": "http://127.0.0.1:9/ci", "content_type": "form",
                                     "secret": "s3cr3t"})
    hook_on(alice, template, "https://chat.example.com/hook", type="slack", active=False,
            config={"url": "https://chat.example.com/hook", "content_type": "json",
                    "channel": "#builds", "username": "bot"})
    # The loopback URL is refused for a new hook now; the copy is made anyway, as
    # Forgejo copies (every delivery is checked at connect time).
    with pytest.raises(InvalidInput):
        hook_on(alice, template, "http://127.0.0.1:9/other")
    made = generate(alice, template, webhooks=True)
    originals, copied = stored_hooks(template.repo.id), stored_hooks(made.repo.id)
    assert [settings_of(h) for h in copied] == [settings_of(h) for h in originals]
    assert copied[0].secret == "s3cr3t" and copied[0].authorization_header == "Bearer ci-token"
    assert (copied[0].content_type, copied[0].branch_filter, copied[1].hook_type,
            copied[1].active) == ("form", "{main,release/*}", "slack", False)
    assert {h.owner_id for h in copied} == {int(made.repo.id)}
    assert not {h.id for h in copied} & {h.id for h in originals}
    assert len(stored_hooks(template.repo.id)) == 2            # the template keeps its own


def test_only_the_templates_admins_copy_its_webhooks(people):
    alice, bob = people["alice"], people["bob"]
    template = template_of(alice)
    hook_on(alice, template, "https://ci.example.com/x", config={
        "url": "https://ci.example.com/x", "content_type": "json", "secret": "s3cr3t"})
    with pytest.raises(PermissionDenied, match="webhooks needs admin access"):
        generate(bob, template, git_content=True, webhooks=True)
    assert repos.repo_by_name("bob", "made") is None
    made = generate(bob, template, git_content=True)            # the rest they may copy
    assert stored_hooks(made.repo.id) == []
    root = generate(people["root"], template, name="rooted", webhooks=True)
    assert [h.secret for h in stored_hooks(root.repo.id)] == ["s3cr3t"]


def test_the_avatar_is_copied(people):
    alice = people["alice"]
    template = template_of(alice)
    avatars_service.update_repo_avatar(template, UpdateRepoAvatarOption(
        image=base64.b64encode(png((40, 30))).decode()))
    digest = repos.repo_by_id(int(template.repo.id)).avatar
    made = generate(alice, template, avatar=True)
    assert made.repo.avatar == digest == repos.repo_by_id(int(made.repo.id)).avatar
    key = links.avatar_key(links.REPOSITORY, int(made.repo.id), digest)
    source = links.avatar_key(links.REPOSITORY, int(template.repo.id), digest)
    assert object_store.read(key.object_key) == object_store.read(source.object_key)
    assert avatars_service.served(key.path) == avatars_service.served(source.path)


def test_a_template_with_no_hooks_and_no_avatar_still_works(people):
    alice = people["alice"]
    template = template_of(alice)
    made = generate(alice, template, webhooks=True, avatar=True)
    stored = repos.repo_by_id(int(made.repo.id))
    assert stored is not None and stored.avatar == "" and stored_hooks(stored.id) == []


def test_a_failure_copying_hooks_and_avatar_leaves_nothing(people, monkeypatch):
    alice = people["alice"]
    template = template_of(alice)
    hook_on(alice, template, "https://ci.example.com/x")
    avatars_service.update_repo_avatar(template, UpdateRepoAvatarOption(
        image=base64.b64encode(png((20, 20))).decode()))
    digest = repos.repo_by_id(int(template.repo.id)).avatar
    made_ids, stage_fields = [], repos.stage_repo_fields

    def broken(repo, fields):       # fails once the hook copies are staged
        if "avatar" not in fields:
            return stage_fields(repo, fields)
        made_ids.append(int(repo.id))
        raise RuntimeError("the table failed")

    monkeypatch.setattr(repos, "stage_repo_fields", broken)
    with pytest.raises(RuntimeError):
        generate(alice, template, git_content=True, webhooks=True, avatar=True)
    assert repos.repo_by_name("alice", "made") is None
    assert scene.fresh(alice).num_repos == 1
    (repo_id,) = made_ids
    assert stored_hooks(repo_id) == []
    assert object_store.read(links.avatar_key(links.REPOSITORY, repo_id, digest)
                             .object_key) is None
