"""Tests of the signing domain (chalicelib/signing)."""
