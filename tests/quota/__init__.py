"""Tests of the quota domain (chalicelib/quota)."""
