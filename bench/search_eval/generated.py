"""A large catalog in the shape of real business APIs: domains × entities × operations.

Each domain is a system an enterprise connects (CRM, helpdesk, payroll…); each entity has the
fields its API takes and a word people use for it instead of the API's noun; each operation
has a description template and question templates that a user would type. Questions are
built from the *user* words (never the tool name), so a ranker must bridge vocabulary.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Entity:
    noun: str  # what the API calls it
    plural: str
    said: str  # what people call it
    said_plural: str
    fields: tuple[tuple[str, str], ...]


def _domains() -> dict[str, tuple[str, str, list[Entity]]]:
    """domain key → (system in descriptions, how users refer to it, entities), from
    ``domains.json``."""
    raw = json.loads((HERE / "domains.json").read_text())
    return {
        key: (
            d["system"],
            d["where"],
            [
                Entity(n, p, s, sp, tuple((f, t) for f, t in fields))
                for n, p, s, sp, fields in d["entities"]
            ],
        )
        for key, d in raw.items()
    }


DOMAINS = _domains()

# operation → (verb in the API name, description template, question templates). In the
# templates {E}/{Es} are the API's noun, {S}/{Ss} the user's word, {SYS} the system, {WHERE}
# the user's words for it, {F} a field, {V} a made-up value.
OPERATIONS: dict[str, tuple[str, list[str]]] = {
    "list": (
        "List {Es} in {SYS}, filtered by {F}.",
        [
            "show me all the {Ss} {WHERE}",
            "which {Ss} do we have {WHERE}?",
            "give me every {S} with {F} {V}",
        ],
    ),
    "get": (
        "Get one {E} of {SYS} by its id, with all its details.",
        [
            "pull up the details of {S} {V}",
            "open {S} {V} {WHERE}",
            "what do we know about {S} {V}?",
        ],
    ),
    "create": (
        "Create a new {E} in {SYS}.",
        [
            "make a new {S} {WHERE} with {F} {V}",
            "I need to set up a {S}",
            "add another {S} {WHERE}",
        ],
    ),
    "update": (
        "Update fields of an existing {E} in {SYS}, such as {F}.",
        ["change the {F} of {S} {V}", "edit {S} {V}: {F} is wrong", "modify that {S} {WHERE}"],
    ),
    "delete": (
        "Delete a {E} from {SYS} permanently.",
        [
            "get rid of {S} {V} for good",
            "remove that {S} {WHERE}, it was a mistake",
            "erase {S} {V}",
        ],
    ),
    "search": (
        "Full-text search over {Es} in {SYS}.",
        [
            "look for {Ss} mentioning {V}",
            "find any {S} that talks about {V} {WHERE}",
            "hunt down the {S} about {V}",
        ],
    ),
    "export": (
        "Export {Es} of {SYS} as a CSV file.",
        [
            "download all {Ss} into a spreadsheet",
            "I want the {Ss} {WHERE} as csv",
            "dump the {Ss} to a file for excel",
        ],
    ),
    "count": (
        "Count {Es} in {SYS}, grouped by {F}.",
        ["how many {Ss} are there {WHERE}?", "number of {Ss} per {F}", "tally up the {Ss} by {F}"],
    ),
    "archive": (
        "Archive a {E} in {SYS}: hidden from lists, kept for audit.",
        [
            "put {S} {V} away but keep it for the records",
            "hide {S} {V} without deleting it",
            "shelve that old {S}",
        ],
    ),
    "history": (
        "Change history of a {E} in {SYS}: who changed what and when.",
        [
            "who changed {S} {V} and when?",
            "show the audit trail of {S} {V}",
            "what edits were made to that {S}?",
        ],
    ),
}

VALUES = ["4471", "Q-993", "Berlin", "Northwind", "overdue", "blue", "priority", "July", "alpha"]


def build(
    seed: int = 7, questions_per_tool: float = 0.18
) -> tuple[list[dict[str, Any]], list[tuple[str, str, bool]]]:
    """The generated tool specs, and ``(question, expected tool name, paraphrased)`` triples
    for a sample; a paraphrased question names the entity by the user's word, not the API's."""
    rng = random.Random(seed)
    specs: list[dict[str, Any]] = []
    pairs: list[tuple[str, str, bool]] = []
    for domain, (system, where, entities) in DOMAINS.items():
        for entity in entities:
            for op, (description, templates) in OPERATIONS.items():
                field = entity.fields[rng.randrange(len(entity.fields))]
                name = f"{domain}_{op}_{entity.plural if op in {'list', 'search', 'export', 'count'} else entity.noun}"
                text = description.format(
                    E=entity.noun.replace("_", " "),
                    Es=entity.plural.replace("_", " "),
                    SYS=system,
                    F=field[0].replace("_", " "),
                )
                props: dict[str, Any] = {
                    f: {"type": "string", "description": d} for f, d in entity.fields
                }
                if op in {"get", "update", "delete", "archive", "history"}:
                    props = {
                        "id": {
                            "type": "string",
                            "description": f"The {entity.noun.replace('_', ' ')} id.",
                        },
                        **props,
                    }
                if op == "search":
                    props = {"query": {"type": "string", "description": "Words to look for."}}
                specs.append(
                    {
                        "name": name,
                        "description": text,
                        "tags": [domain],
                        "input_schema": {"type": "object", "properties": props},
                        "source": f"generated {domain}",
                    }
                )
                if rng.random() < questions_per_tool:
                    template = templates[rng.randrange(len(templates))]
                    use_said = rng.random() < 0.5
                    question = template.format(
                        S=entity.said if use_said else entity.noun.replace("_", " "),
                        Ss=entity.said_plural if use_said else entity.plural.replace("_", " "),
                        WHERE=where if rng.random() < 0.6 else "",
                        F=field[1].lower(),
                        V=rng.choice(VALUES),
                    )
                    pairs.append((" ".join(question.split()), name, use_said))
    return specs, pairs
