"""Tests of the releases domain (chalicelib/releases)."""
