"""Dump and restore of a whole instance (``admin dump``, ``admin restore``): the operator's
tool, run by ``chalicelib.cli`` against the local runtime or AWS, never part of the
Lambda package (infra/package.py leaves it out).  docs/operations.md, "Backups", says
how to use it and why a dump taken while writes run restores to a working instance.

| module | what it holds |
|---|---|
| ``archive`` | The dump's one file: members, the manifest with every member's SHA-256, and checking an archive whole before a restore. |
| ``items`` | Table items in DynamoDB's own JSON; the consistent Scan, the batched reads and writes. |
| ``cut`` | The consistent cut: which items are read again after the scan, which objects an item names. |
| ``objects`` | The bucket's objects: what a dump leaves out, copying them into the archive and back. |
| ``secrets`` | The SSM parameters of the instance's keys: names always, values when asked for. |
| ``dump`` | ``admin dump``: the table, the closing reads, the objects, the manifest. |
| ``restore`` | ``admin restore``: refusals first, then everything written into an empty instance. |
| ``commands`` | The two CLI commands (``chalicelib.cli`` adds them to ``admin``). |
"""
