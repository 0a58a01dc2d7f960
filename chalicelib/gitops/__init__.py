"""Git operations on a repository's object store, without a work tree: dulwich's own
split, porcelain (here) over plumbing (``chalicelib.gitstore``: S3 objects, DynamoDB
refs, smart HTTP).

Every function takes a dulwich object store (``NimbusRepo.object_store``, or a
``MemoryObjectStore`` in tests); none moves a ref or touches the table: the services
do that (a ref move is a compare-and-swap through ``gitstore``).  Nothing here imports
chalice, pynamodb or the services, so callers pass in what needs them (a commit
``Signer``).

* ``objects``   - ``staged()``: new objects kept back and written as one pack at the end
* ``trees``     - a tree from file edits (create, update/move, delete, write) on a base
* ``commits``   - ``Identity``, ``write_commit`` (signed through a ``Signer``), ``commit_edits``
* ``tags``      - annotated tag objects (signed through a ``Signer``) and tag records
* ``merge``     - merge bases, ancestry, three-way tree and commit merges with conflicts
* ``pull_merge`` - a pull request's merge in each Forgejo style (merge, rebase,
  rebase-merge, squash, fast-forward-only) and the default merge messages
* ``diff``      - changed files, status and line counts between commits or trees
* ``linecount`` - added/deleted lines of one file change, as git counts them
* ``archives``  - zip, tar.gz and bundle archives of a commit
* ``errors``    - typed errors, each also a ``chalicelib.errors`` kind

Modules import dulwich at their top: import them where they are used, not at a
service's module level, so the API Lambda's cold start does not pay for dulwich.
"""
