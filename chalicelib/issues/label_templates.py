"""The label sets a new repository may start with (``issue_labels`` on creation, and the
``/label/templates`` lists): Forgejo's ``Default`` and ``Advanced`` sets, their names,
colours and descriptions as Forgejo ships them."""
from __future__ import annotations

# name -> ((label name, colour, description, exclusive), ...)
SETS: dict[str, tuple[tuple[str, str, str, bool], ...]] = {
    "Default": (
        ("bug", "ee0701", "Something is not working", False),
        ("duplicate", "cccccc", "This issue or pull request already exists", False),
        ("enhancement", "84b6eb", "New feature", False),
        ("help wanted", "128a0c", "Need some help", False),
        ("invalid", "e6e6e6", "Something is wrong", False),
        ("question", "cc317c", "More information is needed", False),
        ("wontfix", "ffffff", "This won't be fixed", False),
    ),
    "Advanced": (
        ("Kind/Bug", "ee0701", "Something is not working", False),
        ("Kind/Feature", "0288d1", "New functionality", False),
        ("Kind/Enhancement", "84b6eb", "Improve existing functionality", False),
        ("Kind/Security", "9c27b0", "This is security issue", False),
        ("Kind/Testing", "795548", "Issue or pull request related to testing", False),
        ("Kind/Breaking", "c62828", "Breaking change that won't be backward compatible", False),
        ("Kind/Documentation", "37474f", "Documentation changes", False),
        ("Reviewed/Duplicate", "616161", "This issue or pull request already exists", True),
        ("Reviewed/Invalid", "546e7a", "Invalid issue", True),
        ("Reviewed/Confirmed", "795548", "Issue has been confirmed", True),
        ("Reviewed/Won't Fix", "eeeeee", "This issue won't be fixed", True),
        ("Status/Need More Info", "424242",
         "Feedback is required to reproduce issue or to continue work", True),
        ("Status/Blocked", "880e4f", "Something is blocking this issue or pull request", True),
        ("Status/Abandoned", "222222", "Somebody has started to work on this but abandoned work",
         True),
        ("Priority/Critical", "b71c1c", "The priority is critical", True),
        ("Priority/High", "d32f2f", "The priority is high", True),
        ("Priority/Medium", "e64a19", "The priority is medium", True),
        ("Priority/Low", "4caf50", "The priority is low", True),
    ),
}


def labels_of(name: str) -> list[dict] | None:
    """The set's labels as tracker entries (None for a set that does not exist)."""
    found = SETS.get(name)
    if found is None:
        return None
    return [{"name": label, "color": f"#{color}", "description": description,
             "exclusive": exclusive, "archived": False}
            for label, color, description, exclusive in found]


def template_record(entry: dict) -> dict:
    """A LabelTemplate (Forgejo's: the colour without its '#')."""
    return {"name": entry["name"], "color": entry["color"].lstrip("#"),
            "description": entry["description"], "exclusive": entry["exclusive"]}
