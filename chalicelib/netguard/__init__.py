"""Which user-supplied URLs the service may open a connection to.

Every outbound connection to an address a user gave us (migration clone addresses,
LFS endpoints, webhook targets) goes through this package, so the rules live in one
place:

* **Form.** Migrations take ``http``, ``https`` and ``git`` URLs only: ``ssh`` and
  scp-style ``user@host:path`` addresses, ``file:`` URLs and bare paths are refused,
  and so is a URL carrying ``user:password@`` (credentials travel in the separate
  ``auth_*`` fields and are added with :func:`add_credentials`).  Webhooks take
  ``http`` and ``https``.  Control characters (raw, or ``%0d``/``%0a``) are refused
  everywhere, because Python's ``urlsplit`` silently deletes CR/LF/TAB.
* **Host.** The host name is resolved and every address it resolves to must pass:
  migrations use ``[migrations] ALLOWED_DOMAINS`` / ``BLOCKED_DOMAINS`` /
  ``ALLOW_LOCALNETWORKS``; webhooks use ``[webhook] ALLOWED_HOST_LIST``.  Without an
  explicit allow list only *external* addresses are reachable (see
  :func:`is_external`).  A host name that an allow-list pattern names explicitly is
  trusted whatever it resolves to, as in Forgejo, so operators can allow a private
  server by name.
* **Always refused**, whatever the settings say (even ``*``): the cloud credential
  endpoints (EC2/ECS/EKS metadata addresses) and the Lambda runtime API endpoint
  named by ``AWS_LAMBDA_RUNTIME_API``.

Differences from Forgejo, on purpose: Forgejo accepts a host if *any* resolved
address is allowed; here *every* resolved address must be, so a name answering with
one public and one private address is refused.  Forgejo leaves IPv4 ``0.0.0.0/8``,
CGNAT, documentation and benchmark ranges in "external"; here they are not.

Callers that connect (the duties this package cannot do for them):

1. **Connect to the checked address, never re-resolve the name** (DNS rebinding: a
   second lookup can answer differently).  Use :func:`check_target` and
   ``Target.open_connection()`` (``http.client`` connections that dial the checked
   IPs but send the host name in ``Host``, SNI and certificate checks), or take
   ``(ip, port)`` from :func:`pinned_connection_target` for other clients.  With
   urllib3 that is ``HTTPSConnectionPool(ip, port, server_hostname=host,
   assert_hostname=host)`` plus a ``Host`` header.
2. **Do not follow redirects automatically.**  ``http.client`` never does; other
   clients must be configured not to.  A migration treats any 3xx as a failure (Forgejo
   clones with redirects prohibited).  A webhook that wants to follow a redirect must
   pass the ``Location`` (joined to the request URL) through :func:`check_target`
   again and connect to the new pinned address; at most 10 hops, like Go's client.
3. **Do not use proxies** with pinned connections (the proxy would resolve the name).
4. **Pass error texts through** :func:`redact` before logging or returning them.
"""
from chalicelib.netguard.checks import (
                                        check_migration_url,
                                        check_target,
                                        check_webhook_url,
                                        pinned_connection_target,
                                        system_resolver,
                                        validate_webhook_url,
)
from chalicelib.netguard.connections import (
                                        PinnedHTTPConnection,
                                        PinnedHTTPSConnection,
                                        Target,
)
from chalicelib.netguard.policy import (
                                        DISALLOWED_HOSTS,
                                        INVALID_WEBHOOK_URL,
                                        LOCAL_IMPORT_REFUSED,
                                        MIGRATION,
                                        URL_HAS_CREDENTIALS,
                                        WEBHOOK,
                                        HostList,
                                        Policy,
                                        is_external,
                                        is_loopback,
                                        is_private,
                                        migration_policy,
                                        parse_domain_list,
                                        parse_host_list,
                                        webhook_policy,
)
from chalicelib.netguard.urls import add_credentials, redact

__all__ = ["check_migration_url", "check_target", "check_webhook_url", "pinned_connection_target",
           "system_resolver", "validate_webhook_url", "PinnedHTTPConnection",
           "PinnedHTTPSConnection", "Target", "DISALLOWED_HOSTS", "INVALID_WEBHOOK_URL",
           "LOCAL_IMPORT_REFUSED", "MIGRATION", "URL_HAS_CREDENTIALS", "WEBHOOK", "HostList",
           "Policy", "is_external", "is_loopback", "is_private", "migration_policy",
           "parse_domain_list", "parse_host_list", "webhook_policy", "add_credentials", "redact"]
