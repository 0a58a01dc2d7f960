"""Nimbus: a Forgejo-compatible git hosting service on AWS Lambda."""

__version__ = "0.1.0"
# The Forgejo/Gitea API level we speak; clients (the Gitea Go SDK) gate features on it.
API_COMPAT_VERSION = "1.22.0"
