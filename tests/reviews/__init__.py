"""Tests of the code review domain (chalicelib/reviews)."""
