"""An optional custom domain: a CloudFront distribution in front of the stack's API
(``infra/template.py`` merges it; ``infra/README.md``, "A custom domain", is the runbook).

Two stack parameters turn it on, both or neither: ``DomainName`` (e.g. git.example.com)
and ``CertificateArn``, an ACM certificate for that name in us-east-1 (CloudFront reads
certificates only from there, whatever the stack's region).  Empty, the stack has no
distribution and is served at API Gateway's own URL, as before.

What the distribution does:
- one origin, the API's stage (``https://<api>.execute-api.<region>.amazonaws.com/api``):
  API Gateway already routes POST to the streaming function (its integration streams,
  ``streaming_resources``), so clones and pushes keep their streamed answers and their
  15 minutes; the stack has no function URL to route to apart;
- nothing is cached: CloudFront's managed ``CachingDisabled`` policy, and every viewer
  header but Host, every cookie and query string forwarded (``AllViewerExceptHostHeader``:
  API Gateway answers only to its own host name; with caching off, CloudFront forwards
  ``Authorization`` too), for every method.  Git's smart HTTP (``/{owner}/{repo}.git/...``)
  and Git LFS (``.../info/lfs/...``) are requests like the others and pass through the one
  behaviour unchanged; answers are not compressed again (packs already are);
- viewers on HTTP are redirected to HTTPS; TLS 1.2 at least; HTTP/2 and 3, IPv6;
- ``PriceClass_100``: the edges of North America and Europe, whose data transfer out is
  CloudFront's lowest price ($0.085/GB past the free 1 TB a month; bench/cost.py).

The API Gateway URL stays reachable: the distribution adds a name, it does not hide
the origin.  So the distribution proves itself with a secret header (``X-Nimbus-Edge``,
the ``EdgeSecret`` parameter the deploy makes): only then is the viewer's address, which
CloudFront adds to ``X-Forwarded-For``, taken as the client's — the sign-in throttle and
rate limits count people, not edges.
"""
from __future__ import annotations

DOMAIN_PARAMETER = "DomainName"
CERTIFICATE_PARAMETER = "CertificateArn"
# A secret the distribution sends to the API in ``EDGE_HEADER`` and the functions know as
# ``[server] EDGE_SECRET``: only requests that came through it have their viewer's address
# believed (chalicelib/http/gateway.py ``client_address``).  infra/deploy.py makes one.
EDGE_SECRET_PARAMETER = "EdgeSecret"
EDGE_HEADER = "X-Nimbus-Edge"
EDGE_SECRET_VARIABLE = "NIMBUS__SERVER__EDGE_SECRET"
HAS_DOMAIN = "HasDomain"
DISTRIBUTION = "Distribution"
# CloudFront's managed policies (the same ids in every account).
CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
ALL_VIEWER_EXCEPT_HOST_HEADER = "b689b0a8-53d0-40ab-baf2-68738e2966ac"
# The longest CloudFront waits for the origin's first byte, and between two packets,
# without a quota increase: a clone's pack streams its progress long before that.
ORIGIN_READ_TIMEOUT = 60
API_STAGE = "api"      # chalice's api_gateway_stage (.chalice/config.json)
METHODS = ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"]


def parameters() -> dict:
    return {
        DOMAIN_PARAMETER: {
            "Type": "String", "Default": "",
            "AllowedPattern": "^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}"
                              "[a-z0-9])?)+)?$",
            "Description": "Custom domain served by CloudFront, e.g. git.example.com "
                           "(empty: none; needs CertificateArn)"},
        CERTIFICATE_PARAMETER: {
            "Type": "String", "Default": "",
            "AllowedPattern": "^(arn:aws[a-z-]*:acm:us-east-1:[0-9]{12}:certificate/[0-9a-f-]+)?$",
            "Description": "ACM certificate for DomainName, in us-east-1 (empty: no domain)"},
        EDGE_SECRET_PARAMETER: {
            "Type": "String", "Default": "", "NoEcho": True,
            "AllowedPattern": "^[A-Za-z0-9_-]*$",
            "Description": "Shared by the distribution and the functions (made by the deploy)"},
    }


def edge_secret_variable() -> dict:
    """The functions' ``[server] EDGE_SECRET``: the parameter's value with a domain, else
    empty (no distribution: every address is the connection's own)."""
    return {"Fn::If": [HAS_DOMAIN, {"Ref": EDGE_SECRET_PARAMETER}, ""]}


def conditions() -> dict:
    def given(name: str) -> dict:
        return {"Fn::Not": [{"Fn::Equals": [{"Ref": name}, ""]}]}

    return {HAS_DOMAIN: {"Fn::And": [given(DOMAIN_PARAMETER), given(CERTIFICATE_PARAMETER)]}}


def resources() -> dict:
    origin = {
        "Id": "api",
        "DomainName": {"Fn::Sub": "${RestAPI}.execute-api.${AWS::Region}.${AWS::URLSuffix}"},
        "OriginPath": "/" + API_STAGE,
        "CustomOriginConfig": {"OriginProtocolPolicy": "https-only",
                               "OriginSSLProtocols": ["TLSv1.2"],
                               "OriginReadTimeout": ORIGIN_READ_TIMEOUT,
                               "OriginKeepaliveTimeout": 60},
        "OriginCustomHeaders": [{"HeaderName": EDGE_HEADER,
                                 "HeaderValue": {"Ref": EDGE_SECRET_PARAMETER}}]}
    behaviour = {"TargetOriginId": "api", "ViewerProtocolPolicy": "redirect-to-https",
                 "AllowedMethods": METHODS, "CachedMethods": ["GET", "HEAD"],
                 "CachePolicyId": CACHING_DISABLED,
                 "OriginRequestPolicyId": ALL_VIEWER_EXCEPT_HOST_HEADER, "Compress": False}
    return {DISTRIBUTION: {"Type": "AWS::CloudFront::Distribution", "Condition": HAS_DOMAIN,
                           "Properties": {"DistributionConfig": {
        "Enabled": True, "Comment": {"Fn::Sub": "Nimbus (stack ${AWS::StackName})"},
        "Aliases": [{"Ref": DOMAIN_PARAMETER}],
        "ViewerCertificate": {"AcmCertificateArn": {"Ref": CERTIFICATE_PARAMETER},
                              "SslSupportMethod": "sni-only",
                              "MinimumProtocolVersion": "TLSv1.2_2021"},
        "HttpVersion": "http2and3", "IPV6Enabled": True, "PriceClass": "PriceClass_100",
        "Origins": [origin], "DefaultCacheBehavior": behaviour}}}}


def outputs() -> dict:
    return {
        "DistributionDomainName": {
            "Condition": HAS_DOMAIN,
            "Description": "Point DomainName here (a CNAME, or a Route 53 alias record)",
            "Value": {"Fn::GetAtt": [DISTRIBUTION, "DomainName"]}},
        "CustomDomainURL": {
            "Condition": HAS_DOMAIN,
            "Value": {"Fn::Sub": "https://${" + DOMAIN_PARAMETER + "}/"}},
    }
