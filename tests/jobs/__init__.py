"""Tests of the jobs platform (chalicelib/jobs) and the local runtime's event worker."""
