"""The HTTP kernel: what every route of every area goes through, and nothing of any area.

| module | what it holds |
|---|---|
| ``gateway`` | API Gateway proxy event -> route -> handler -> proxy result; errors as Forgejo's JSON |
| ``router`` | the route table, ``Route`` and its declarations (credentials, scope), ``route``/``alias`` |
| ``route_index``, ``route_index_data`` | the generated index: a request imports only its area's module |
| ``routes`` | ``load_routes``: the table with every area loaded (swagger, CLI, tests, bench) |
| ``auth`` | credentials (tokens, Basic, the session cookie where a route takes it), Sudo, scopes |
| ``ratelimit`` | token buckets per address and per credential |
| ``message`` | ``ApiRequest``, ``ApiResponse``, ``Headers`` |
| ``errors`` | the API's error answers in Forgejo's shapes |
| ``paging``, ``multipart`` | page/limit with Link and X-Total-Count; multipart/form-data bodies |

The areas (``chalicelib.api``, ``chalicelib.web``) import the kernel; the kernel imports
no area: it finds them by name (``route_index_data``).  docs/architecture.md draws it.
"""
