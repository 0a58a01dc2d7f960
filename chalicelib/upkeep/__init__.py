"""The operator's upkeep tools (``admin deadletters``, ``admin health``): what the queues
dead-lettered and putting it back, and what is behind.  Run by ``chalicelib.cli``
against the local runtime or AWS; never part of the Lambda package (infra/package.py
leaves it out).  docs/operations.md says how to use them.

| module | what it holds |
|---|---|
| ``dead_letters`` | The dead-letter queues: their messages described without their bodies, and replay. |
| ``health`` | What is behind: the outbox, the queues and their dead letters, the schedules' last runs. |
| ``commands`` | The CLI commands (``chalicelib.cli`` adds them to ``admin``). |
"""
