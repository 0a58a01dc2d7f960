"""An organization's labels in the table: one item per organization.

| item | pk | sk | attributes |
|---|---|---|---|
| organization labels | ``A#<org id>`` | ``ORGLABELS`` | ``labels`` (JSON {id: definition}), ``version`` |

One item, so that every issue request in a repository of the organization reads its
labels with the tracker (the key is in the issue routes' preload batch: no call of its
own), and so that every change is one conditional write: the whole new set, on
condition that ``version`` is still the one read (``attribute_not_exists`` for the
first).  Two owners creating labels at once: one lands, the other fails with
``ConditionFailed(LABEL)`` and builds again on a fresh read, so no label is lost.

A definition is what a repository label's is (``meta``): name, color, description,
exclusive, archived.  Ids come from the repository labels' sequence, so an id names
one label in the whole instance and an issue's ``label_ids`` may hold either kind.
The item lives in the organization's partition; nothing else refers to it but issues'
label ids, which readers skip once the label is gone.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field

from chalicelib.issues.models import OrgLabels
from chalicelib.store import unit_of_work
from chalicelib.store.keys import keys

log = logging.getLogger("nimbus.issues")

LABEL = "org labels"    # ConditionFailed label: another write landed since the read


def org_labels_key(org_id: int) -> tuple[str, str]:
    return keys.account_partition(org_id), "ORGLABELS"


@dataclass
class OrgLabelSet:
    """An organization's labels as read ({id: definition}) and the item's version (0:
    no item yet)."""
    labels: dict[int, dict] = field(default_factory=dict)
    version: int = 0


def _decode(text: str, version: int) -> OrgLabelSet:
    try:
        raw = json.loads(text or "{}")
        labels = {int(k): dict(v) for k, v in raw.items() if isinstance(v, dict)}
    except (ValueError, TypeError, AttributeError):
        # Kept readable: no labels, but the version, so the next write still conflicts
        # correctly (and replaces what could not be read).
        log.warning("unreadable organization labels (version %s)", version)
        labels = {}
    return OrgLabelSet(labels, version)


def get(org_id: int, *, consistent: bool = False) -> OrgLabelSet:
    """The organization's labels (none, version 0, before the first)."""
    item = unit_of_work.get(OrgLabels, org_labels_key(org_id), consistent=consistent)
    if item is None:
        return OrgLabelSet()
    return _decode(item.labels, int(item.version or 0))


def stage_put(org_id: int, read: OrgLabelSet, labels: dict[int, dict]) -> None:
    """Stage the whole new set, conditional on the version ``read`` came with."""
    text = json.dumps({str(i): labels[i] for i in sorted(labels)}, separators=(",", ":"),
                      sort_keys=True)
    item = OrgLabels(*org_labels_key(org_id), labels=text, version=read.version + 1)
    uow = unit_of_work.current()
    if read.version == 0:
        uow.put(item, label=LABEL, must_not_exist=True)
    else:
        uow.put(item, label=LABEL, condition=OrgLabels.version == read.version)
