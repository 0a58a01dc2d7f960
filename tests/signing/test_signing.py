"""Instance signing: keys in SSM, signed initial commits checked by the real git CLI,
the signing-key endpoints, verification of Branch records, users' GPG keys."""
from __future__ import annotations

import os
import shutil
import subprocess
import warnings

import pytest

GIT = shutil.which("git")
GPG = shutil.which("gpg")
SSH_KEYGEN = shutil.which("ssh-keygen")
SSH_FORMAT_ENV = "NIMBUS__REPOSITORY_0X2E_SIGNING__FORMAT"
SSH_KEY_ENV = "NIMBUS__REPOSITORY_0X2E_SIGNING__SIGNING_KEY"


@pytest.fixture(autouse=True)
def fresh_signing():
    from chalicelib.signing import service as signing
    from chalicelib.signing import verify as signing_verify
    from chalicelib.settings import reset_settings_cache

    def reset():
        reset_settings_cache()
        signing.reset_cache()
        signing_verify._instance_pgp_ok.cache_clear()  # noqa: SLF001
    reset()
    yield
    reset()


@pytest.fixture
def alice(api):
    api.create_user("alice")
    return api.create_token("alice")


def _export_commit(repo_name: str, sha: str, dest) -> None:
    """Copy the commit (and its tree and blobs) from the store into a local git repo."""
    from dulwich.repo import Repo as LocalRepo

    from chalicelib.gitstore import repo as gitrepo
    from chalicelib.repos import store as repo_store

    repo = repo_store.get("alice", repo_name)
    git = gitrepo.open_repo(int(repo.id), int(repo.pool_id))
    local = LocalRepo.init(str(dest), mkdir=True)
    commit = git[sha.encode()]
    tree = git[commit.tree]
    objects = [commit, tree] + [git[entry.sha] for entry in tree.iteritems()]
    for obj in objects:
        local.object_store.add_object(obj)


def _git(env, *args, cwd):
    return subprocess.run([GIT, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=60)


def _env(tmp_path):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            "HOME": str(home), "GNUPGHOME": str(tmp_path / "gnupg")}


# --- OpenPGP -------------------------------------------------------------------------------

def test_signing_keys_are_the_same_armored_key(api, alice):
    instance = api.get("/signing-key.gpg")
    assert instance.status == 200
    assert instance.body.startswith(b"-----BEGIN PGP PUBLIC KEY BLOCK-----")
    assert instance.headers["content-type"].startswith("text/plain")
    assert api.post("/user/repos", token=alice, json={"name": "r"}).status == 201
    repo = api.get("/repos/alice/r/signing-key.gpg", token=alice)
    assert repo.status == 200 and repo.body == instance.body
    assert api.get("/repos/alice/missing/signing-key.gpg", token=alice).status == 404
    # The key lives in SSM (SecureString), so every container signs with the same key.
    from chalicelib.aws import client

    param = client("ssm").get_parameter(Name="/nimbus/signing-key", WithDecryption=True)
    assert param["Parameter"]["Type"] == "SecureString"
    assert "PRIVATE KEY BLOCK" in param["Parameter"]["Value"]
    assert api.get("/signing-key.ssh").status == 404


def test_generation_race_keeps_the_first_key(api, monkeypatch):
    from chalicelib.aws import client
    from chalicelib.signing import service as signing

    winner = signing.generate_pgp_key("Nimbus", "noreply@nimbus.invalid")
    client("ssm").put_parameter(Name="/nimbus/signing-key", Value=winner, Type="SecureString")
    from chalicelib import aws

    real = aws.read_secret
    calls = []

    def racing_read(name):  # the first read misses: the other container wins meanwhile
        calls.append(name)
        return None if len(calls) == 1 else real(name)

    monkeypatch.setattr(aws, "read_secret", racing_read)
    key = signing.signing_key()
    assert len(calls) == 2   # put_parameter failed with ParameterAlreadyExists, then re-read
    assert key.public_text == signing._pgp_from_armor(winner).public_text  # noqa: SLF001


def test_gpg_export_failure_is_a_labelled_500(api, monkeypatch):
    from chalicelib.signing import service as signing

    def broken(*a, **kw):
        raise signing.SigningKeyError("SSM unavailable")

    monkeypatch.setattr(signing, "_load_or_create_pgp", broken)
    r = api.get("/signing-key.gpg")
    assert r.status == 500 and r.json["message"].startswith("gpg export: ")


def test_signing_key_none_answers_empty_and_does_not_sign(api, alice, monkeypatch):
    from chalicelib.settings import reset_settings_cache

    monkeypatch.setenv(SSH_KEY_ENV, "none")
    reset_settings_cache()
    r = api.get("/signing-key.gpg")
    assert r.status == 200 and r.body == b""
    api.post("/user/repos", token=alice, json={"name": "plain", "auto_init": True})
    branch = api.get("/repos/alice/plain/branches/main", token=alice).json
    assert branch["commit"]["verification"] == {
        "verified": False, "reason": "gpg.error.not_signed_commit", "signature": "",
        "signer": None, "payload": ""}


@pytest.mark.skipif(not (GIT and GPG), reason="needs git and gpg")
def test_git_verifies_the_signed_initial_commit_openpgp(api, alice, tmp_path):
    assert api.post("/user/repos", token=alice, json={"name": "signed", "auto_init": True,
                                                      "license": "MIT"}).status == 201
    branch = api.get("/repos/alice/signed/branches/main", token=alice).json
    verification = branch["commit"]["verification"]
    key = api.get("/signing-key.gpg").body
    assert verification["verified"] is True, verification
    assert verification["signer"] == {"name": "Nimbus", "email": "noreply@nimbus.invalid",
                                      "username": ""}
    assert verification["reason"].startswith("Nimbus / ")
    assert verification["signature"].startswith("-----BEGIN PGP SIGNATURE-----")
    assert verification["payload"].startswith("tree ")

    env = _env(tmp_path)
    (tmp_path / "gnupg").mkdir(mode=0o700)
    (tmp_path / "key.asc").write_bytes(key)
    done = subprocess.run([GPG, "--batch", "--import", str(tmp_path / "key.asc")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    _export_commit("signed", branch["commit"]["id"], tmp_path / "check")
    done = _git(env, "verify-commit", "-v", branch["commit"]["id"], cwd=tmp_path / "check")
    assert done.returncode == 0, done.stderr
    assert "Good signature" in done.stderr
    assert verification["reason"].split(" / ")[1][-8:] in done.stderr.replace(" ", "")


# --- SSH -----------------------------------------------------------------------------------

def _ssh_keypair(tmp_path, kind="ed25519"):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    private = {"ed25519": lambda: ed25519.Ed25519PrivateKey.generate(),
               "rsa": lambda: rsa.generate_private_key(65537, 3072),
               "ecdsa": lambda: ec.generate_private_key(ec.SECP256R1())}[kind]()
    path = tmp_path / f"signing_{kind}"
    path.write_bytes(private.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.OpenSSH,
                                           serialization.NoEncryption()))
    path.chmod(0o600)
    public = private.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                               serialization.PublicFormat.OpenSSH)
    (tmp_path / f"signing_{kind}.pub").write_bytes(public + b" nimbus@test\n")
    return private, path, public.decode()


def _use_ssh(monkeypatch, pub_path):
    from chalicelib.settings import reset_settings_cache

    monkeypatch.setenv(SSH_FORMAT_ENV, "ssh")
    monkeypatch.setenv(SSH_KEY_ENV, str(pub_path))
    reset_settings_cache()


@pytest.mark.skipif(not (GIT and SSH_KEYGEN), reason="needs git and ssh-keygen")
def test_git_verifies_the_signed_initial_commit_ssh(api, alice, tmp_path, monkeypatch):
    assert api.get("/signing-key.ssh").status == 404       # not configured yet
    _, path, public = _ssh_keypair(tmp_path)
    _use_ssh(monkeypatch, f"{path}.pub")
    r = api.get("/signing-key.ssh")
    assert r.status == 200 and r.body.decode() == public + "\n"   # comment dropped
    assert api.get("/signing-key.gpg").body == b""

    assert api.post("/user/repos", token=alice, json={"name": "ssh", "auto_init": True}).status \
        == 201
    branch = api.get("/repos/alice/ssh/branches/main", token=alice).json
    verification = branch["commit"]["verification"]
    assert verification["signature"].startswith("-----BEGIN SSH SIGNATURE-----")
    assert verification["verified"] is True, verification
    assert verification["reason"].startswith("Nimbus / SHA256:")
    assert verification["signer"]["name"] == "Nimbus"

    env = _env(tmp_path)
    signers = tmp_path / "allowed_signers"
    signers.write_text(f"alice@example.com {public}\n")
    _export_commit("ssh", branch["commit"]["id"], tmp_path / "check")
    done = _git(env, "-c", f"gpg.ssh.allowedSignersFile={signers}", "verify-commit",
                branch["commit"]["id"], cwd=tmp_path / "check")
    assert done.returncode == 0, done.stderr
    assert 'Good "git" signature' in done.stderr


def test_ssh_export_failure_is_a_labelled_500(api, tmp_path, monkeypatch):
    _, path, _ = _ssh_keypair(tmp_path)
    _use_ssh(monkeypatch, f"{path}.pub")
    from chalicelib.settings import get_settings

    get_settings()                      # configured and valid at start ...
    os.remove(f"{path}.pub")            # ... then the file goes away
    r = api.get("/signing-key.ssh")
    assert r.status == 500 and r.json["message"].startswith("ssh export: ")


def test_missing_ssh_key_is_a_labelled_500(api, tmp_path, monkeypatch):
    _use_ssh(monkeypatch, str(tmp_path / "missing.pub"))
    r = api.get("/signing-key.ssh")
    assert r.status == 500 and r.json["message"].startswith("ssh export: ")
    assert "missing.pub" in r.json["message"]


@pytest.mark.skipif(not SSH_KEYGEN, reason="needs ssh-keygen")
@pytest.mark.parametrize("kind", ["ed25519", "rsa", "ecdsa"])
def test_sshsig_interoperates_with_ssh_keygen(tmp_path, kind):
    from chalicelib.signing import ssh as signing_ssh

    private, path, public = _ssh_keypair(tmp_path, kind)
    message = tmp_path / "msg"
    message.write_bytes(b"tree 1234\nauthor x\n\nhello\n")
    ours = signing_ssh.sign(private, message.read_bytes())
    (tmp_path / "ours.sig").write_text(ours)
    signers = tmp_path / "signers"
    signers.write_text(f"me {public}\n")
    done = subprocess.run([SSH_KEYGEN, "-Y", "verify", "-f", str(signers), "-I", "me", "-n", "git",
                           "-s", str(tmp_path / "ours.sig")], input=message.read_bytes(),
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([SSH_KEYGEN, "-Y", "sign", "-f", str(path), "-n", "git", str(message)],
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    theirs = (tmp_path / "msg.sig").read_text()
    assert signing_ssh.verify(theirs, message.read_bytes()) is not None
    assert signing_ssh.verify(theirs, b"tampered") is None


def test_git_ssh_rule():
    from chalicelib.signing import ssh as signing_ssh

    expected = bool(GIT and SSH_KEYGEN)  # git here is >= 2.34
    assert signing_ssh.git_can_sign_with_ssh() is expected
    assert signing_ssh.git_signing_config("openpgp") == {"gpg.format": "openpgp"}


# --- rules ---------------------------------------------------------------------------------

def test_rule_parsing():
    from chalicelib.signing.service import parse_rules

    assert parse_rules("pubkey, TwoFA , nonsense") == ("pubkey", "twofa")
    assert parse_rules("pubkey, always, twofa") == ("always",)
    assert parse_rules("never") == ("never",)
    assert parse_rules("") == ("never",)


def test_initial_commit_pubkey_rule(api, alice, monkeypatch):
    from chalicelib.settings import reset_settings_cache

    monkeypatch.setenv("NIMBUS__REPOSITORY_0X2E_SIGNING__INITIAL_COMMIT", "pubkey")
    reset_settings_cache()
    api.post("/user/repos", token=alice, json={"name": "a", "auto_init": True})
    assert api.get("/repos/alice/a/branches/main", token=alice).json["commit"][
        "verification"]["reason"] == "gpg.error.not_signed_commit"
    key = _user_pgp_key("alice@example.com")
    assert api.post("/user/gpg_keys", token=alice,
                    json={"armored_public_key": str(key.pubkey)}).status == 201
    api.post("/user/repos", token=alice, json={"name": "b", "auto_init": True})
    assert api.get("/repos/alice/b/branches/main", token=alice).json["commit"][
        "verification"]["verified"] is True


# --- users' keys and verification ----------------------------------------------------------

def _user_pgp_key(email):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy
        from pgpy.constants import (EllipticCurveOID, HashAlgorithm, KeyFlags,
                                    PubKeyAlgorithm)

        key = pgpy.PGPKey.new(PubKeyAlgorithm.EdDSA, EllipticCurveOID.Ed25519)
        key.add_uid(pgpy.PGPUID.new("Someone", email=email),
                    usage={KeyFlags.Sign, KeyFlags.Certify}, hashes=[HashAlgorithm.SHA256])
        return key


def _pgp_sign(key, payload: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return str(key.sign(payload.encode()))


def test_gpg_key_endpoints(api, alice):
    key = _user_pgp_key("alice@example.com")
    r = api.post("/user/gpg_keys", token=alice, json={"armored_public_key": str(key.pubkey)})
    assert r.status == 201, r
    record = r.json
    assert record["key_id"] == key.fingerprint.keyid.upper()
    assert record["emails"] == [{"email": "alice@example.com", "verified": True}]
    assert record["can_sign"] is True and record["can_certify"] is True
    from tests.accounts.test_users import assert_matches_forgejo

    assert_matches_forgejo(record, "GPGKey")
    assert api.post("/user/gpg_keys", token=alice,
                    json={"armored_public_key": str(key.pubkey)}).status == 422   # same id
    other = _user_pgp_key("someone-else@example.com")
    r = api.post("/user/gpg_keys", token=alice, json={"armored_public_key": str(other.pubkey)})
    assert r.status == 404 and "none of the emails" in r.body.decode()
    assert api.post("/user/gpg_keys", token=alice,
                    json={"armored_public_key": "garbage"}).status == 422
    assert api.post("/user/gpg_keys", token=alice, json={}).status == 422
    assert api.post("/user/gpg_keys", json={"armored_public_key": "x"}).status == 401
    assert [k["id"] for k in api.get("/user/gpg_keys", token=alice).json] == [record["id"]]
    assert [k["id"] for k in api.get("/users/alice/gpg_keys").json] == [record["id"]]
    assert api.get(f"/user/gpg_keys/{record['id']}", token=alice).json["key_id"] == \
        record["key_id"]
    assert api.delete(f"/user/gpg_keys/{record['id']}", token=alice).status == 204
    assert api.get(f"/user/gpg_keys/{record['id']}", token=alice).status == 404
    assert api.get("/users/nobody/gpg_keys").status == 404


def test_verification_with_users_keys(api, alice, tmp_path):
    from chalicelib.signing import ssh as signing_ssh
    from chalicelib.signing.verify import verify

    payload = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <alice@example.com> 1 +0000\n" \
              "committer A <alice@example.com> 1 +0000\n\nmsg\n"
    key = _user_pgp_key("alice@example.com")
    signature = _pgp_sign(key, payload)
    assert verify(signature, payload, "alice@example.com")["reason"] == "gpg.error.no_gpg_keys_found"
    api.post("/user/gpg_keys", token=alice, json={"armored_public_key": str(key.pubkey)})
    result = verify(signature, payload, "alice@example.com")
    assert result["verified"] is True
    assert result["reason"] == f"alice / {key.fingerprint.keyid.upper()}"
    assert result["signer"] == {"name": "alice", "email": "alice@example.com", "username": ""}
    assert verify(signature, payload + "x", "alice@example.com")["reason"] == \
        "gpg.error.probable_bad_signature"
    assert verify(signature, payload, "mallory@example.com")["verified"] is False
    assert verify("-----BEGIN PGP SIGNATURE-----\nnope\n-----END PGP SIGNATURE-----\n", payload,
                  "alice@example.com")["reason"] == "gpg.error.extract_sign"
    assert verify("", "", "alice@example.com")["reason"] == "gpg.error.not_signed_commit"

    private, _, public = _ssh_keypair(tmp_path)
    ssh_sig = signing_ssh.sign(private, payload.encode())
    assert verify(ssh_sig, payload, "alice@example.com")["reason"] == "gpg.error.no_gpg_keys_found"
    assert api.post("/user/keys", token=alice, json={"title": "k", "key": public}).status == 201
    result = verify(ssh_sig, payload, "alice@example.com")
    assert result["verified"] is True and result["reason"].startswith("alice / SHA256:")
    assert verify(ssh_sig, payload + "x", "alice@example.com")["verified"] is False
