"""Reading an untrusted OpenAPI document: bounded ``$ref`` expansion and shape checks.

Rule: loading a document costs a bounded amount of work and memory, whatever it holds. Every
node that expansion produces counts against one budget per document (:data:`MAX_NODES`), and
nesting is bounded (:data:`MAX_DEPTH`), so a reference bomb (each schema referencing the next
twice), YAML aliases that share a subtree, or a deep nesting fail fast with
:class:`HttpConfigError` naming the path in the document where the limit was reached. A
reference cycle (a recursive schema) is cut where it repeats: the repeated schema becomes
``{}`` (any value). A node of the wrong shape is an :class:`HttpConfigError` naming its path,
never a ``TypeError`` or ``AttributeError``.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from adapters.http._config import HttpConfigError

__all__ = ["MAX_DEPTH", "MAX_NODES", "BudgetError", "Refs", "mapping", "pointer", "sequence"]

#: Nodes that expanding one document may produce (all its operations together).
MAX_NODES = 200_000
#: Nesting of one expanded value (and of ``$ref`` chains).
MAX_DEPTH = 64


class BudgetError(HttpConfigError):
    """The document is too large or too deep to expand: loading stops at once."""


def pointer(where: str, key: object) -> str:
    """``where`` extended by ``key`` as a JSON pointer (``~`` and ``/`` escaped)."""
    return f"{where}/{str(key).replace('~', '~0').replace('/', '~1')}"


def mapping(node: Any, where: str) -> Mapping[str, Any]:
    """``node`` if it is an object.

    Raises:
        HttpConfigError: It is not, naming ``where``.
    """
    if not isinstance(node, Mapping):
        raise HttpConfigError([f"{where}: expected an object, got {_kind(node)}"])
    return node


def sequence(node: Any, where: str) -> list[Any]:
    """``node`` if it is an array.

    Raises:
        HttpConfigError: It is not, naming ``where``.
    """
    if not isinstance(node, list):
        raise HttpConfigError([f"{where}: expected an array, got {_kind(node)}"])
    return node


class Refs:
    """Local ``$ref`` resolution and expansion for one document, within one budget.

    Args:
        document: The whole document (``$ref`` targets are looked up in it).
        max_nodes: Nodes expansion may produce in all.
        max_depth: Nesting allowed in one expanded value.
    """

    def __init__(
        self, document: Mapping[str, Any], *, max_nodes: int = MAX_NODES, max_depth: int = MAX_DEPTH
    ) -> None:
        self.document = document
        self.max_nodes = max_nodes
        self.max_depth = max_depth
        self.nodes = 0

    def resolve(self, node: Any, where: str) -> tuple[Any, str]:
        """Follow ``node``'s own ``$ref`` chain (not the refs inside it): the target and its path.

        Raises:
            HttpConfigError: A ref that is not local, points to nothing, or loops.
        """
        seen: list[str] = []
        while isinstance(node, Mapping) and "$ref" in node:
            ref = self._ref(node, where)
            if ref in seen or len(seen) >= self.max_depth:
                raise HttpConfigError([f"{where}: $ref {ref!r} refers back to itself"])
            seen.append(ref)
            node, where = self._target(ref, where), ref
        return node, where

    def expand(self, node: Any, where: str) -> Any:
        """A fresh copy of ``node`` with every local ``$ref`` replaced by its target.

        Raises:
            BudgetError: The expansion goes past the node budget or the depth limit.
            HttpConfigError: A ref that is not local or points to nothing, or a value that
                is not JSON.
        """
        return self._expand(node, where, 0, ())

    def _expand(self, node: Any, where: str, depth: int, stack: tuple[str, ...]) -> Any:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise BudgetError(
                [
                    f"{where}: expanding the document's $refs goes past {self.max_nodes} nodes "
                    "(a reference bomb, or a very large API); keep fewer operations with "
                    "include=/exclude=, or simplify the schemas"
                ]
            )
        if depth > self.max_depth:
            raise BudgetError(
                [f"{where}: nested more than {self.max_depth} levels deep; simplify the schema"]
            )
        if isinstance(node, Mapping):
            if "$ref" in node:
                ref = self._ref(node, where)
                if ref in stack:
                    return {}  # a recursive schema: cut where it repeats
                target = self._target(ref, where)
                return self._expand(target, ref, depth + 1, (*stack, ref))
            return {
                str(k): self._expand(v, pointer(where, k), depth + 1, stack)
                for k, v in node.items()
            }
        if isinstance(node, list):
            return [
                self._expand(v, pointer(where, i), depth + 1, stack) for i, v in enumerate(node)
            ]
        if node is None or isinstance(node, str | int | float):
            return node
        if isinstance(node, datetime.date):  # YAML reads 2024-01-01 as a date
            return node.isoformat()
        raise HttpConfigError([f"{where}: {_kind(node)} is not a JSON value"])

    def _ref(self, node: Mapping[str, Any], where: str) -> str:
        ref = node["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise HttpConfigError(
                [f"{where}: only local $refs ('#/...') are supported, got {ref!r}"]
            )
        return ref

    def _target(self, ref: str, where: str) -> Any:
        target: Any = self.document
        for raw in ref[2:].split("/") if len(ref) > 2 else []:
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(target, Mapping) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                raise HttpConfigError([f"{where}: $ref {ref!r} points to nothing in the document"])
        return target


def _kind(node: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if node is None:
        return "null"
    return names.get(type(node), type(node).__name__)
