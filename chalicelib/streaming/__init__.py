"""The streaming entry point: the Lambda function behind API Gateway's POST method
with ``responseTransferMode: STREAM`` (infra/template.py).  ``handler`` turns a proxy
event into a status, headers and body chunks; ``bootstrap`` speaks the Lambda Runtime
API's streaming mode in AWS; the local runtime serves ``handler``'s chunks itself.
Why a custom runtime loop rather than the Lambda Web Adapter: docs/git-at-scale.md.
"""
