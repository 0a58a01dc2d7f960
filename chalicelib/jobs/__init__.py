"""Scheduled and queued work: plain functions that the Lambda entry points in app.py
and the local runtime's background threads both call."""
