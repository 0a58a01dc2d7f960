"""Whose address a request has (``gateway.client_address``): the connection's, or behind
the stack's own CloudFront the viewer's — only when the distribution's secret came along,
so a forged ``X-Forwarded-For`` sent to API Gateway's own URL changes nothing."""
from __future__ import annotations

from chalicelib.http.gateway import client_address
from chalicelib.http.message import Headers

SECRET = "s3cr3t-edge-value"
EDGE = "130.176.1.2"


def headers(**given: str) -> Headers:
    return Headers((name.replace("_", "-"), value) for name, value in given.items())


def test_without_a_distribution_the_connection_is_the_client():
    sent = headers(x_forwarded_for="203.0.113.9, " + EDGE, x_nimbus_edge=SECRET)
    assert client_address(sent, EDGE, "") == EDGE


def test_through_the_distribution_the_viewer_is_the_client():
    assert client_address(headers(x_forwarded_for="198.51.100.7, " + EDGE,
                                  x_nimbus_edge=SECRET), EDGE, SECRET) == "198.51.100.7"
    # What the client put in front of CloudFront's entry is not believed.
    assert client_address(headers(x_forwarded_for="10.0.0.1, 198.51.100.7, " + EDGE,
                                  x_nimbus_edge=SECRET), EDGE, SECRET) == "198.51.100.7"


def test_a_forged_or_missing_secret_is_the_connection():
    forged = headers(x_forwarded_for="198.51.100.7, 203.0.113.9", x_nimbus_edge="guess")
    assert client_address(forged, "203.0.113.9", SECRET) == "203.0.113.9"
    assert client_address(headers(x_forwarded_for="198.51.100.7, 203.0.113.9"),
                          "203.0.113.9", SECRET) == "203.0.113.9"
    assert client_address(headers(x_nimbus_edge=SECRET), EDGE, SECRET) == EDGE
