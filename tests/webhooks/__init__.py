"""Tests of the webhooks domain (chalicelib/webhooks)."""
