"""Tests of the commit statuses domain (chalicelib/statuses)."""
