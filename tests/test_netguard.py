"""Outbound URL policy: migration clone addresses and webhook targets (no network used).

Names resolve through a fake resolver; the only socket opened is to a local test server.
"""
import http.server
import socket
import threading

import pytest

from chalicelib import netguard
from chalicelib.errors import InvalidInput
from chalicelib.settings import load_settings

DNS = {
    "github.com": ["140.82.112.3"],
    "gitlab.com": ["172.65.251.78"],
    "api.gitlab.com": ["172.65.251.78"],
    "codeberg.org": ["217.197.91.145", "2001:67c:1401:20f0::1"],
    "v6only.example.org": ["2606:4700::1111"],
    "localhost": ["127.0.0.1", "::1"],
    "intranet.test": ["10.1.2.3"],
    "home.test": ["192.168.1.10"],
    "docker.test": ["172.17.0.2"],
    "ula.test": ["fd12:3456::1"],
    "metadata.test": ["169.254.169.254"],
    "linklocal6.test": ["fe80::1%eth0"],
    "cgnat.test": ["100.64.0.1"],
    "zero.test": ["0.0.0.0"],
    "mapped.test": ["::ffff:127.0.0.1"],
    "multicast.test": ["224.0.0.251"],
    "split.test": ["140.82.112.4", "127.0.0.1"],
    "git.corp.test": ["10.9.9.9"],
    "bad.example.com": ["93.184.216.34"],
    "good.example.com": ["93.184.216.35"],
}


class FakeResolver:
    def __init__(self, table=None):
        self.table = DNS if table is None else table
        self.calls = []

    def __call__(self, host):
        self.calls.append(host)
        key = host.rstrip(".")
        if key not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return list(self.table[key])


def settings(**keys):
    env = {}
    for key, value in keys.items():
        section, name = key.split("__")
        env[f"NIMBUS__{section.upper()}__{name.upper()}"] = value
    return load_settings(env)


DEFAULT = settings()
LOCALNETS = settings(migrations__allow_localnetworks="true")


def migrate(url, s=DEFAULT, resolver=None):
    return netguard.check_migration_url(url, s, resolver=resolver or FakeResolver())


def refused(url, s=DEFAULT, message=netguard.DISALLOWED_HOSTS):
    with pytest.raises(InvalidInput) as info:
        migrate(url, s)
    assert info.value.message == message, info.value.message
    return info.value


# --- defaults: external only ---------------------------------------------------------

@pytest.mark.parametrize("url", [
    "https://github.com/go-gitea/gitea.git",
    "http://140.82.112.3/owner/repo",
    "git://github.com/owner/repo.git",
    "https://[2606:4700::1111]/x",
    "https://v6only.example.org/x",
    "https://codeberg.org/forgejo/forgejo.git",
])
def test_external_hosts_are_allowed_by_default(url):
    assert migrate(url) == url


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/x", "http://127.8.9.10:3000/x", "http://localhost/x",
    "http://10.0.0.1/x", "http://172.16.5.4/x", "http://192.168.0.1/x",
    "http://intranet.test/x", "http://home.test/x", "http://docker.test/x",
    "http://169.254.169.254/latest/meta-data/", "http://metadata.test/latest/",
    "http://[::1]/x", "http://[fc00::1]/x", "http://[fd00:ec2::254]/x", "http://ula.test/x",
    "http://[fe80::1]/x", "http://linklocal6.test/x",
    "http://[::ffff:127.0.0.1]/x", "http://[::ffff:10.0.0.1]/x", "http://mapped.test/x",
    "http://100.64.0.1/x", "http://cgnat.test/x",
    "http://0.0.0.0/x", "http://zero.test/x", "http://[::]/x",
    "http://224.0.0.251/x", "http://multicast.test/x", "http://[ff02::1]/x",
    "http://240.0.0.1/x", "http://255.255.255.255/x",
    "http://192.0.2.1/x", "http://198.18.0.1/x", "http://[2001:db8::1]/x",
    "http://[64:ff9b::7f00:1]/x", "http://[2002:7f00:1::]/x",
])
def test_non_external_addresses_are_refused_by_default(url):
    refused(url)


def test_every_resolved_address_must_pass():
    refused("https://split.test/repo.git")


def test_unresolvable_host_is_refused():
    refused("https://no-such-host.test/repo.git")
    empty = FakeResolver({"empty.test": []})
    with pytest.raises(InvalidInput, match="disallowed hosts"):
        migrate("https://empty.test/r", resolver=empty)


def test_resolver_garbage_is_ignored_not_trusted():
    odd = FakeResolver({"odd.test": ["not-an-ip", "127.0.0.1"]})
    with pytest.raises(InvalidInput, match="disallowed hosts"):
        migrate("https://odd.test/r", resolver=odd)


# --- ALLOW_LOCALNETWORKS ---------------------------------------------------------------

@pytest.mark.parametrize("url", [
    "http://127.0.0.1:3000/x", "http://localhost/x", "http://[::1]/x",
    "http://10.0.0.1/x", "http://intranet.test/x", "http://192.168.0.1/x",
    "http://docker.test/x", "http://[fc00::1]/x", "http://ula.test/x",
    "http://[::ffff:127.0.0.1]/x", "https://github.com/x",
])
def test_allow_localnetworks_adds_private_and_loopback(url):
    assert migrate(url, LOCALNETS) == url


@pytest.mark.parametrize("url", [
    "http://169.254.169.254/latest/meta-data/", "http://metadata.test/",
    "http://[fe80::1]/x", "http://100.64.0.1/x", "http://0.0.0.0/x",
    "http://224.0.0.251/x", "http://[fd00:ec2::254]/latest/",
])
def test_allow_localnetworks_still_refuses_link_local_and_metadata(url):
    refused(url, LOCALNETS)


def test_allowed_domains_with_localnetworks_drops_implicit_external():
    s = settings(migrations__allowed_domains="github.com", migrations__allow_localnetworks="true")
    assert migrate("https://github.com/x", s)
    assert migrate("http://intranet.test/x", s)
    refused("https://gitlab.com/x", s)


# --- ALLOWED_DOMAINS / BLOCKED_DOMAINS ---------------------------------------------------

def test_allowed_domains_restricts_to_matching_hosts():
    s = settings(migrations__allowed_domains=" GitHub.com , *.GITLAB.com ")
    assert migrate("https://github.com/a/b", s)
    assert migrate("https://GITHUB.COM./a/b", s) == "https://github.com./a/b"
    assert migrate("https://api.gitlab.com/a/b", s)
    refused("https://gitlab.com/a/b", s)      # *.gitlab.com does not cover the apex
    refused("https://codeberg.org/a/b", s)
    refused("http://127.0.0.1/a/b", s)


def test_allowed_domains_by_name_trusts_private_addresses():
    s = settings(migrations__allowed_domains="git.corp.test")
    assert migrate("https://git.corp.test/team/repo.git", s)
    refused("https://intranet.test/team/repo.git", s)


def test_allowed_domains_can_name_ip_patterns():
    s = settings(migrations__allowed_domains="140.82.*")
    assert migrate("https://github.com/x", s)
    assert migrate("https://140.82.1.1/x", s)
    refused("https://gitlab.com/x", s)


def test_allowed_name_that_does_not_resolve_passes_but_cannot_be_dialled():
    s = settings(migrations__allowed_domains="*.proxy-only.test")
    url = "https://git.proxy-only.test/x.git"
    assert migrate(url, s) == url
    target = netguard.check_target(url, netguard.MIGRATION, s, resolver=FakeResolver())
    assert target.addresses == ()
    with pytest.raises(InvalidInput, match="no such host"):
        netguard.pinned_connection_target(url, s, resolver=FakeResolver())


def test_blocked_domains_wins_after_allow():
    s = settings(migrations__allowed_domains="*.example.com",
                 migrations__blocked_domains="bad.example.com")
    assert migrate("https://good.example.com/x", s)
    refused("https://bad.example.com/x", s)
    refused("https://BAD.example.com./x", s)   # case and trailing dot do not dodge it


def test_blocked_domains_alone_keeps_external_default():
    s = settings(migrations__blocked_domains="github.com, 172.65.*")
    refused("https://github.com/x", s)
    refused("https://gitlab.com/x", s)          # blocked through its resolved address
    assert migrate("https://codeberg.org/x", s)
    refused("http://127.0.0.1/x", s)            # still external-only


def test_blocked_star_blocks_everything_and_allowed_star_allows_everything():
    refused("https://github.com/x", settings(migrations__blocked_domains="*"))
    anything = settings(migrations__allowed_domains="*")
    assert migrate("http://127.0.0.1/x", anything)
    assert migrate("http://10.0.0.1/x", anything)


# --- always refused ----------------------------------------------------------------------

def test_credential_endpoints_are_refused_even_when_everything_is_allowed():
    anything = settings(migrations__allowed_domains="*")
    refused("http://169.254.169.254/latest/", anything)
    refused("http://169.254.170.2/v2/credentials", anything)
    hooks = settings(webhook__allowed_host_list="*")
    with pytest.raises(InvalidInput, match="deny 'metadata.test"):
        netguard.check_webhook_url("http://metadata.test/", hooks, resolver=FakeResolver())


def test_lambda_runtime_api_is_refused(monkeypatch):
    monkeypatch.setenv("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")
    refused("http://127.0.0.1:9001/2018-06-01/runtime/invocation/next", LOCALNETS)
    assert migrate("http://127.0.0.1:9002/x", LOCALNETS)


# --- form of the address -----------------------------------------------------------------

def protocol_message(host):
    return (f"migration/cloning from '{host}' is not allowed: "
            "the provided url protocol is not allowed")


def invalid_message(host):
    return f"migration/cloning from '{host}' is not allowed: the provided url is invalid"


@pytest.mark.parametrize("url,host", [
    ("ssh://git@github.com/owner/repo.git", "github.com"),
    ("ssh://github.com:2222/owner/repo.git", "github.com:2222"),
    ("git@github.com:owner/repo.git", "github.com"),
    ("github.com:owner/repo.git", "github.com"),
    ("git+ssh://github.com/x", "github.com"),
    ("ftp://github.com/x", "github.com"),
    ("HTTPS+evil://github.com/x", "github.com"),
    ("http:github.com/x", "http"),
])
def test_only_http_https_git_protocols(url, host):
    refused(url, message=protocol_message(host))


@pytest.mark.parametrize("url", [
    "/srv/git/repo.git", "relative/repo", "file:///srv/git/repo.git", "FILE:/etc", "", "   ",
    "~/repo",
])
def test_local_paths_are_refused(url):
    refused(url, message=netguard.LOCAL_IMPORT_REFUSED)


@pytest.mark.parametrize("url", [
    "https://user:secret@github.com/x", "https://token@github.com/x",
    "http://@github.com/x", "git://user@github.com/x",
    "https://github.com\\@127.0.0.1/x",
])
def test_credentials_in_url_are_refused(url):
    refused(url, message=netguard.URL_HAS_CREDENTIALS)


def test_scheme_is_checked_before_credentials():
    refused("ssh://user:pw@github.com/x", message=protocol_message("github.com"))


@pytest.mark.parametrize("url", [
    "https://github.com/x\r\nHost: evil", "https://github.com/x\nfoo", "https://git\thub.com/x",
    "git://github.com:9418/x%0d%0aevil", "https://github.com/x%0A", "https://github.com/\x00",
])
def test_control_characters_are_refused(url):
    with pytest.raises(InvalidInput, match="the provided url is invalid") as info:
        migrate(url)
    assert "\n" not in info.value.message and "\r" not in info.value.message


@pytest.mark.parametrize("url,host", [
    ("http://127.1/x", "127.1"),
    ("http://2130706433/x", "2130706433"),
    ("http://0x7f000001/x", "0x7f000001"),
    ("http://0x7f.0.0.1/x", "0x7f.0.0.1"),
    ("http://017700000001/x", "017700000001"),
    ("http://010.0.0.1/x", "010.0.0.1"),
    ("https://github.com:99999/x", "github.com:99999"),
    ("https://github.com:0/x", "github.com:0"),
    ("https://github.com:http/x", "github.com:http"),
    ("https:///x", ""),
    ("http://[fe80::1%25eth0]/x", "[fe80::1%25eth0]"),
    ("http://[not-ipv6]/x", "http://[not-ipv6]/x"),
    ("http://%31%32%37.0.0.1/x", "%31%32%37.0.0.1"),
    ("http://under score.test/x", "under score.test"),
])
def test_malformed_hosts_and_ports(url, host):
    refused(url, message=invalid_message(host))


def test_normalization():
    r = FakeResolver({"xn--bcher-kva.example": ["93.184.216.34"]})
    assert migrate("  HTTPS://GitHub.COM/Owner/Repo.git  ") == "https://github.com/Owner/Repo.git"
    assert migrate("https://github.com:443/a?b=c#d") == "https://github.com:443/a?b=c#d"
    assert migrate("https://bücher.example/r", resolver=r) == "https://xn--bcher-kva.example/r"
    assert r.calls == ["xn--bcher-kva.example"]
    # fullwidth digits fold to an IP literal, which is then checked as one
    refused("http://１２７.０.０.１/x")


def test_ip_literals_are_not_looked_up():
    r = FakeResolver()
    assert migrate("https://140.82.112.3/x", resolver=r)
    assert r.calls == []


# --- webhooks ----------------------------------------------------------------------------

def hook(url, host_list=None, resolver=None):
    s = DEFAULT if host_list is None else settings(webhook__allowed_host_list=host_list)
    return netguard.check_webhook_url(url, s, resolver=resolver or FakeResolver())


def hook_refused(url, host_list=None):
    with pytest.raises(InvalidInput) as info:
        hook(url, host_list)
    return info.value.message


def test_webhook_default_is_external():
    assert hook("https://github.com/hook") == "https://github.com/hook"
    message = hook_refused("http://localhost:8080/hook")
    assert message == ("webhook can only call allowed HTTP servers (check your "
                       "webhook.ALLOWED_HOST_LIST setting), deny 'localhost(127.0.0.1:8080)'")
    assert hook_refused("http://[::1]/hook").endswith("deny '::1([::1]:80)'")
    assert "deny 'intranet.test(10.1.2.3:443)'" in hook_refused("https://intranet.test/")
    assert "deny" in hook_refused("http://metadata.test/")
    assert "deny" in hook_refused("http://mapped.test/")
    assert "deny" in hook_refused("http://10.0.0.1/", "  ")      # blank means external


def test_webhook_builtins():
    assert hook("http://localhost/h", "loopback")
    assert "deny" in hook_refused("http://intranet.test/h", "loopback")
    assert "deny" in hook_refused("https://github.com/h", "loopback")
    assert hook("http://intranet.test/h", "private")
    assert hook("http://ula.test/h", "private")
    assert "deny" in hook_refused("http://localhost/h", "private")
    assert "deny" in hook_refused("http://cgnat.test/h", "private")
    both = "external, loopback"
    assert hook("https://github.com/h", both) and hook("http://localhost/h", both)
    for url in ("http://localhost/h", "http://intranet.test/h", "http://cgnat.test/h",
                "http://[fe80::1]/h", "https://github.com/h"):
        assert hook(url, "*")


def test_webhook_cidrs_and_globs():
    assert hook("http://intranet.test/h", "10.0.0.0/8")
    assert hook("http://[fd12:3456::1]/h", "fd12:3456::/32")
    assert "deny" in hook_refused("http://home.test/h", "10.0.0.0/8")
    assert "deny" in hook_refused("https://github.com/h", "10.0.0.0/8")   # no external then
    assert hook("http://git.corp.test/h", "*.CORP.test")                   # name match wins
    assert hook("http://home.test/h", "192.168.1.*")                       # IP text glob
    assert "deny" in hook_refused("http://intranet.test/h", "*.corp.test")
    assert hook("http://intranet.test/h", "10.1.2.3/32,*.corp.test")


def test_webhook_url_form():
    for url in ("ftp://github.com/h", "git://github.com/h", "github.com/h", "/h", "",
                "http://", "http://github.com:70000/", "http://github.com/\r\n",
                " https://github.com/h"):
        assert hook_refused(url) == netguard.INVALID_WEBHOOK_URL, url
    assert netguard.validate_webhook_url("https://User:Pw@Example.COM/h") == \
        "https://User:Pw@Example.COM/h"
    with pytest.raises(InvalidInput, match="^Invalid url$"):
        netguard.validate_webhook_url("ssh://example.com/h")
    # userinfo is allowed on webhooks (sent as Basic auth); it is kept
    assert hook("https://u:p@github.com/h") == "https://u:p@github.com/h"


def test_webhook_unresolvable_host():
    assert hook_refused("https://nowhere.test/h") == "dial tcp: lookup nowhere.test: no such host"
    assert hook_refused("https://nowhere.test/h", "*.test").endswith("no such host")


# --- pinning ------------------------------------------------------------------------------

def test_pinned_connection_target_uses_the_checked_address():
    r = FakeResolver()
    assert netguard.pinned_connection_target("https://github.com/x", DEFAULT, resolver=r) == \
        ("140.82.112.3", 443)
    assert netguard.pinned_connection_target("git://github.com/x", DEFAULT, resolver=r) == \
        ("140.82.112.3", 9418)
    assert netguard.pinned_connection_target(
        "http://[::ffff:8c52:7003]:8080/x", DEFAULT, resolver=r) == ("140.82.112.3", 8080)
    assert r.calls == ["github.com", "github.com"]
    target = netguard.check_target("https://codeberg.org/a?b=1", netguard.MIGRATION, DEFAULT,
                                   resolver=r)
    assert target.addresses == ("217.197.91.145", "2001:67c:1401:20f0::1")
    assert target.request_path == "/a?b=1" and target.host == "codeberg.org"
    with pytest.raises(InvalidInput, match="disallowed hosts"):
        netguard.pinned_connection_target("http://localhost/x", DEFAULT, resolver=r)
    with pytest.raises(ValueError):
        netguard.check_target("https://github.com/", "mail", DEFAULT, resolver=r)


def test_check_target_accepts_injected_credentials():
    url = netguard.add_credentials(migrate("https://github.com/o/r.git"), "oauth2", "tok")
    target = netguard.check_target(url, netguard.MIGRATION, DEFAULT, resolver=FakeResolver())
    assert target.url == "https://oauth2:tok@github.com/o/r.git"
    assert target.request_path == "/o/r.git"


@pytest.fixture
def local_server():
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append((self.path, self.headers["Host"]))
            if self.path == "/redirect":
                self.send_response(302)
                self.send_header("Location", "http://169.254.169.254/latest/")
                self.end_headers()
                return
            body = b"pinned"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], seen
    server.shutdown()
    server.server_close()


def test_pinned_http_connection_dials_the_checked_ip_and_keeps_the_host_name(local_server):
    port, seen = local_server
    # The name exists only in the fake resolver: any second, real lookup would fail.
    r = FakeResolver({"hooks.nimbus.invalid": ["127.0.0.1"]})
    s = settings(webhook__allowed_host_list="loopback")
    target = netguard.check_target(f"http://hooks.nimbus.invalid:{port}/deliver?x=1",
                                   netguard.WEBHOOK, s, resolver=r)
    conn = target.open_connection(timeout=5)
    conn.request("GET", target.request_path)
    response = conn.getresponse()
    assert (response.status, response.read()) == (200, b"pinned")
    conn.close()
    assert seen == [("/deliver?x=1", f"hooks.nimbus.invalid:{port}")]
    assert r.calls == ["hooks.nimbus.invalid"]

    conn = target.open_connection(timeout=5)
    conn.request("GET", "/redirect")
    response = conn.getresponse()   # http.client never follows redirects
    assert response.status == 302
    conn.close()
    with pytest.raises(InvalidInput):
        netguard.check_target(response.getheader("Location"), netguard.WEBHOOK, s, resolver=r)


def test_pinned_connection_tries_each_checked_address(local_server):
    port, seen = local_server
    conn = netguard.PinnedHTTPConnection("hooks.nimbus.invalid", port, timeout=5,
                                         addresses=("::1", "127.0.0.1"))
    try:
        conn.request("GET", "/")
        assert conn.getresponse().status == 200
    finally:
        conn.close()
    with pytest.raises(NotImplementedError):
        conn.set_tunnel("proxy.test", 3128)
    with pytest.raises(ValueError):
        netguard.PinnedHTTPSConnection("x.test", 443, addresses=())


def test_https_connection_names_the_host_for_sni():
    target = netguard.check_target("https://github.com/x", netguard.WEBHOOK, DEFAULT,
                                   resolver=FakeResolver())
    conn = target.open_connection()
    assert isinstance(conn, netguard.PinnedHTTPSConnection)
    assert (conn.host, conn.port, conn._pinned) == ("github.com", 443, ("140.82.112.3",))
    git = netguard.check_target("git://github.com/x", netguard.MIGRATION, DEFAULT,
                                resolver=FakeResolver())
    with pytest.raises(ValueError):
        git.open_connection()


# --- credentials and redaction -------------------------------------------------------------

def test_add_credentials():
    add = netguard.add_credentials
    assert add("https://github.com/o/r.git", "alice", "s3cr:t/@?#%") == \
        "https://alice:s3cr%3At%2F%40%3F%23%25@github.com/o/r.git"
    assert add("https://github.com/o/r.git", "oauth2", "ghp_token") == \
        "https://oauth2:ghp_token@github.com/o/r.git"
    assert add("https://github.com/o/r.git", "", "") == "https://github.com/o/r.git"
    assert add("https://github.com/o/r.git", None, None) == "https://github.com/o/r.git"
    assert add("http://[::1]:3000/r", "ü ser", "") == "http://%C3%BC%20ser:@[::1]:3000/r"
    assert add("https://old:pw@github.com/r", "new", "pw2") == "https://new:pw2@github.com/r"
    assert add("git://github.com/r", "alice", "pw") == "git://github.com/r"
    with pytest.raises(InvalidInput, match="protocol is not allowed"):
        add("ssh://github.com/r", "alice", "pw")
    with pytest.raises(InvalidInput, match="control characters"):
        add("https://github.com/r", "alice", "pw\nevil")


def test_redact():
    text = ("fatal: unable to access 'https://oauth2:ghp_abc@github.com/o/r.git/': 403; "
            "retry http://u:p%40ss@[::1]:3000/x and git@github.com:o/r and https://h/x@y")
    assert netguard.redact(text) == (
        "fatal: unable to access 'https://github.com/o/r.git/': 403; "
        "retry http://[::1]:3000/x and git@github.com:o/r and https://h/x@y")
    assert netguard.redact("token s3cr:t and s3cr%3At", secrets=["s3cr:t", ""]) == \
        "token ****** and ******"
    assert netguard.redact("") == ""


def test_error_messages_never_echo_credentials():
    with pytest.raises(InvalidInput) as info:
        migrate("https://user:hunter2@github.com:99999/x\n")
    assert "hunter2" not in info.value.message
    with pytest.raises(InvalidInput) as info:
        migrate("ftp://user:hunter2@github.com/x")
    assert "hunter2" not in info.value.message


# --- address classes ------------------------------------------------------------------------

@pytest.mark.parametrize("text,external,private,loopback", [
    ("8.8.8.8", True, False, False),
    ("2606:4700::1111", True, False, False),
    ("10.0.0.1", False, True, False),
    ("172.31.255.255", False, True, False),
    ("172.32.0.1", True, False, False),
    ("192.168.255.1", False, True, False),
    ("fc00::1", False, True, False),
    ("fdff::1", False, True, False),
    ("127.0.0.1", False, False, True),
    ("::1", False, False, True),
    ("::ffff:127.0.0.1", False, False, True),
    ("::ffff:10.0.0.1", False, True, False),
    ("::ffff:8.8.8.8", True, False, False),
    ("169.254.169.254", False, False, False),
    ("fe80::1", False, False, False),
    ("100.64.0.1", False, False, False),
    ("100.128.0.1", True, False, False),
    ("0.0.0.0", False, False, False),
    ("::", False, False, False),
    ("239.1.1.1", False, False, False),
    ("ff05::2", False, False, False),
    ("64:ff9b::808:808", False, False, False),
])
def test_address_classes(text, external, private, loopback):
    import ipaddress
    ip = ipaddress.ip_address(text)
    assert (netguard.is_external(ip), netguard.is_private(ip), netguard.is_loopback(ip)) == \
        (external, private, loopback)


def test_control_character_inside_credentials_does_not_leak_them():
    with pytest.raises(InvalidInput) as info:
        migrate("https://user:hun\nter2@github.com/x")
    assert "hun" not in info.value.message and "ter2" not in info.value.message


def test_go_style_negated_class_in_patterns():
    s = settings(migrations__allowed_domains="git[^x].corp.test")
    table = FakeResolver({"gitx.corp.test": ["10.0.0.1"], "gita.corp.test": ["10.0.0.2"]})
    assert migrate("https://gita.corp.test/r", s, resolver=table)
    with pytest.raises(InvalidInput, match="disallowed hosts"):
        migrate("https://gitx.corp.test/r", s, resolver=table)
