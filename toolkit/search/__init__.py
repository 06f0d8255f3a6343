"""Find the few tools that matter among thousands: a BM25 index over every tool's text.

The ranker is SQLite's FTS5 (in the standard library's ``sqlite3``): an in-memory table with
one column per field, the Porter stemmer, and ``bm25()`` with a weight per column. What we add
is what goes into the columns (a tool name split into words, parameter names and descriptions,
tags, a few common synonyms of the name's verbs) and how a free-text question becomes a query.

The index is lazy: nothing is built until the first search, and after that only the tools
added, removed or replaced since the last search are re-indexed.

With an :class:`Embedder` (``registry.configure_search(embedder=...)``), each tool's text is
also embedded once and every search fuses the BM25 ranking with cosine similarity to the
question (see ``toolkit/search/_semantic.py``), so questions that share no word with a tool find it.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolkit.calls.spec import ToolSpec
from toolkit.search._semantic import Embedder, Fusion, SemanticIndex, embed_text, fuse
from toolkit.tool import Tool

__all__ = [
    "FIELD_WEIGHTS",
    "Embedder",
    "Fusion",
    "SearchHit",
    "Searchable",
    "ToolIndex",
    "ToolSearchUnavailable",
    "embedding_text",
    "fts5_available",
    "split_name",
    "tool_fields",
]

#: BM25 weight of each indexed field, in column order. A word of the name counts most, then the
#: tags and the description; parameters and synonyms help recall without steering the ranking.
FIELD_WEIGHTS: dict[str, float] = {
    "name": 6.0,
    "tags": 3.0,
    "description": 2.0,
    "params": 1.0,
    "aka": 1.5,
}

log = logging.getLogger("toolkit.search")

_TOKENIZER = "porter unicode61 remove_diacritics 2"
_MAX_FIELD = 8000  # characters kept per field: a hostile description cannot bloat the index
_MAX_TERMS = 48  # distinct query words used; the rest of a pasted wall of text is ignored
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_INNER_CAPITAL = re.compile(r"[a-z0-9][A-Z]")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

# Words that say nothing about which tool is meant ("can you please show me all my ...").
_STOPWORD_TEXT = """a an and are as at be been by can could do does for from i i'd i'm in
    into is it its me my of on or our please should so than that the their them then there these
    this those to us was we what when where which who will with would you your want need like
    just please"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# Verbs of tool names and the everyday words people use for them. Applied to the *name* of a
# tool at index time (document expansion), so "look up the order" finds ``get_order``.
_SYNONYMS: dict[str, str] = {
    "get": "fetch retrieve show look find read view see open details info",
    "fetch": "get retrieve download load",
    "read": "get open view show load",
    "list": "all show browse enumerate every overview",
    "search": "find look query lookup locate",
    "find": "search look locate lookup",
    "query": "search find lookup filter",
    "create": "add new make open register insert start setup",
    "add": "create new insert append attach",
    "insert": "add create new",
    "update": "change edit modify set rename patch adjust",
    "set": "change update assign configure",
    "patch": "update change modify edit",
    "edit": "change update modify",
    "delete": "remove erase drop destroy cancel purge",
    "remove": "delete drop erase detach",
    "cancel": "stop abort revoke void",
    "send": "email message notify post deliver dispatch",
    "post": "send publish submit",
    "upload": "attach put store send",
    "download": "fetch export save get",
    "export": "download extract dump save csv spreadsheet excel file",
    "import": "upload load ingest bring",
    "count": "number how many total tally",
    "calculate": "compute estimate work out figure",
    "compute": "calculate estimate",
    "estimate": "calculate predict quote approximate",
    "convert": "transform change translate",
    "translate": "convert language",
    "summarize": "summary digest overview recap",
    "schedule": "book plan arrange calendar",
    "book": "reserve schedule",
    "check": "verify validate test status",
    "validate": "check verify",
    "verify": "check confirm validate",
    "archive": "store shelve retire hide keep deactivate",
    "restore": "recover undelete bring back",
    "approve": "accept confirm sign off authorize",
    "reject": "decline deny refuse",
    "assign": "give allocate delegate",
    "move": "transfer relocate",
    "transfer": "move send",
    "refund": "reimburse money back return",
    "notify": "alert message tell send",
    "track": "follow trace status where",
    "stats": "statistics metrics numbers",
    "info": "information details",
    "history": "audit trail log changes changelog versions revisions changed",
    "log": "record note write history",
}


class ToolSearchUnavailable(RuntimeError):
    """This Python's ``sqlite3`` was built without FTS5, which tool search needs."""


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result.

    Attributes:
        tool: The tool found.
        score: Its BM25 score, or with an embedder its fused score (higher is better; only
            comparable within one search).
    """

    tool: Tool
    score: float


def fts5_available() -> bool:
    """Whether this Python's ``sqlite3`` has the FTS5 extension that tool search needs."""
    try:
        db = sqlite3.connect(":memory:")
        try:
            db.execute(f"CREATE VIRTUAL TABLE probe USING fts5(x, tokenize='{_TOKENIZER}')")
        finally:
            db.close()
    except sqlite3.Error:
        return False
    return True


def split_name(name: str) -> list[str]:
    """A tool name as lower-case words: ``crm.getUserByID`` → ``["crm", "get", "user", "by", "id"]``.

    Snake case, kebab case, dots, namespaces and camel case are all split; digits stand alone.
    """
    words: list[str] = []
    for chunk in _WORD.findall(name):
        words.extend(w.lower() for w in _CAMEL.findall(chunk) or [chunk])
    return words


def tool_fields(spec: ToolSpec) -> dict[str, str]:
    """The text of each indexed field of a tool, by field name (see :data:`FIELD_WEIGHTS`)."""
    name_words = split_name(spec.name)
    title = spec.annotations.title or ""
    aka = " ".join(_SYNONYMS[w] for w in dict.fromkeys(name_words) if w in _SYNONYMS)
    params: list[str] = []
    _schema_words(spec.input_schema, params, depth=0)
    return {
        "name": " ".join(name_words),
        "tags": " ".join(" ".join(split_name(t)) for t in sorted(spec.tags)),
        "description": f"{title} {spec.description or ''}"[:_MAX_FIELD],
        "params": " ".join(params)[:_MAX_FIELD],
        "aka": aka,
    }


def embedding_text(spec: ToolSpec) -> str:
    """The text of a tool that an embedder is given: its name's words, description and
    parameters, cut at 2,000 characters."""
    return embed_text(tool_fields(spec))


class ToolIndex:
    """A BM25 index over the tools of a mapping, kept in step with it lazily; hybrid with an
    embedder.

    The mapping is read, never written. Call :meth:`touch` with the name of every tool added,
    removed or replaced; the next :meth:`search` re-indexes just those. Safe to use from several
    threads (one lock around the in-memory database).

    Args:
        tools: The live ``name → Tool`` mapping to index (a registry's).
        weights: BM25 weight per field (default :data:`FIELD_WEIGHTS`).
        embedder: Also rank by meaning: each tool's name words, description and parameters
            are embedded once (lazily, again only when they change) and every query is
            embedded too. ``None``: BM25 only.
        fusion: How BM25 and cosine rankings merge: ``"mix"`` (the default: 0.2 of BM25 and
            0.8 of cosine, each scaled to 0..1 within the query) or ``"rrf"`` (reciprocal rank
            fusion); ``docs/search.md`` has the recall of each.

    Raises:
        ToolSearchUnavailable: This Python's ``sqlite3`` lacks FTS5.
    """

    def __init__(
        self,
        tools: Mapping[str, Tool],
        *,
        weights: Mapping[str, float] | None = None,
        embedder: Embedder | None = None,
        fusion: Fusion = "mix",
    ) -> None:
        self._tools = tools
        chosen = dict(FIELD_WEIGHTS if weights is None else weights)
        unknown = set(chosen) - set(FIELD_WEIGHTS)
        if unknown:
            raise ValueError(f"Unknown search fields {sorted(unknown)}; use {list(FIELD_WEIGHTS)}")
        self._weights = tuple(float(chosen.get(f, 0.0)) for f in FIELD_WEIGHTS)
        if fusion not in ("mix", "rrf"):
            raise ValueError(f"Unknown fusion {fusion!r}; use 'mix' or 'rrf'")
        self._fusion: Fusion = fusion
        self._semantic = None if embedder is None else SemanticIndex(embedder)
        self._texts: dict[str, str] = {}  # tool name → text to embed
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._rows: dict[str, int] = {}  # tool name → rowid
        self._indexed: dict[int, Tool] = {}  # rowid → the tool object indexed there
        self._pending: set[str] = set()
        self._next_row = 1

    def touch(self, name: str) -> None:
        """Note that the tool ``name`` was added, removed or replaced (applied on next search)."""
        with self._lock:
            if self._db is not None:
                self._pending.add(name)

    def search(
        self, query: str, *, k: int = 5, tags: Iterable[str] | None = None
    ) -> list[SearchHit]:
        """The ``k`` best tools for ``query``, best first.

        Args:
            query: Free text: a user's question, a task, keywords or a tool name.
            k: At most this many hits.
            tags: Only tools carrying at least one of these tags.

        Returns:
            Hits, best first; empty when no word of the query matches any tool (with an
            embedder: only for a query of stop words alone).
        """
        if k <= 0:
            return []
        terms = query_terms(query)
        if not terms:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)
        wanted = None if tags is None else set(tags)
        weights = ", ".join(repr(w) for w in self._weights)
        sql = f"SELECT rowid, bm25(tools, {weights}) AS r FROM tools WHERE tools MATCH ? ORDER BY r"
        limit = k if self._semantic is None else max(k, _FUSED_DEPTH)
        hits: list[SearchHit] = []
        with self._lock:
            db = self._sync()
            rows = db.execute(sql if wanted is not None else f"{sql} LIMIT {int(limit)}", (match,))
            lexical = [(self._indexed[rowid], -float(rank)) for rowid, rank in rows]
            ranking = self._fused(query, lexical)
            for tool, score in ranking:
                if wanted is not None and not (wanted & tool.spec.tags):
                    continue
                hits.append(SearchHit(tool, score))
                if len(hits) >= k:
                    break
        return hits

    def _fused(self, query: str, lexical: list[tuple[Tool, float]]) -> Iterable[tuple[Tool, float]]:
        """BM25's ranking, fused with cosine similarity when there is a working embedder (read
        lazily: a search stops after its ``k`` hits)."""
        if self._semantic is None:
            return lexical
        cosine = self._semantic.scores(query, self._texts.get)
        if cosine is None:  # the embedder failed (logged): BM25 alone
            return lexical
        order = fuse([(t.name, s) for t, s in lexical], cosine, self._fusion)
        return ((self._indexed[self._rows[name]], score) for name, score in order)

    def __len__(self) -> int:
        with self._lock:
            return len(self._sync_rows())

    # -- keeping in step -----------------------------------------------------------------------

    def _sync_rows(self) -> dict[str, int]:
        self._sync()
        return self._rows

    def _sync(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = _open()
            self._insert_many(list(self._tools.values()))
            self._pending.clear()
        elif self._pending:
            names, self._pending = self._pending, set()
            for name in names:
                self._delete(name)
            self._insert_many([t for n in names if (t := self._tools.get(n)) is not None])
        return self._db

    def _insert_many(self, tools: list[Tool]) -> None:
        assert self._db is not None
        batch: list[tuple[Any, ...]] = []
        for tool in tools:
            if tool.name in self._rows:
                self._delete(tool.name)
            try:
                fields = tool_fields(tool.spec)
            except Exception as exc:  # one broken tool must not take search down for all
                log.warning("tool %r is left out of search: %s", tool.name, exc)
                continue
            row = self._next_row
            self._next_row += 1
            self._rows[tool.name] = row
            self._indexed[row] = tool
            if self._semantic is not None:
                self._texts[tool.name] = embed_text(fields)
                self._semantic.mark(tool.name)
            batch.append((row, *(fields[f] for f in FIELD_WEIGHTS)))
        marks = ", ".join("?" * (len(FIELD_WEIGHTS) + 1))
        self._db.executemany(f"INSERT INTO tools(rowid, {_COLUMNS}) VALUES ({marks})", batch)

    def _delete(self, name: str) -> None:
        assert self._db is not None
        row = self._rows.pop(name, None)
        if self._semantic is not None:
            self._texts.pop(name, None)
            self._semantic.mark(name)
        if row is not None:
            del self._indexed[row]
            self._db.execute("DELETE FROM tools WHERE rowid = ?", (row,))


_COLUMNS = ", ".join(FIELD_WEIGHTS)
_FUSED_DEPTH = 100  # BM25 hits that take part in fusion with the cosine ranking


class Searchable:
    """Search for a class that keeps its tools in ``_tools`` (the registry mixes it in).

    Its owner calls :meth:`_touched` with the name of every tool added, removed or replaced.
    """

    _tools: dict[str, Tool]
    _index: ToolIndex | None = None  # built on the first search

    def search(self, query: str, *, k: int = 5, tags: Iterable[str] | None = None) -> list[Tool]:
        """The ``k`` tools that best match ``query``, best first, over every source.

        A BM25 ranking (SQLite FTS5) of each tool's name split into words, description,
        parameters and tags, fused with semantic similarity when :meth:`configure_search` gave
        an embedder. The index is built on the first search and follows every later add,
        remove and refresh (a remote server's ``list_changed``). See ``docs/search.md``.

        Args:
            query: Free text: the user's question, a task, keywords or a tool name.
            k: At most this many tools.
            tags: Only tools carrying at least one of these tags.

        Raises:
            ToolSearchUnavailable: This Python's ``sqlite3`` lacks FTS5.
        """
        return [hit.tool for hit in self.search_index.search(query, k=k, tags=tags)]

    async def search_async(
        self, query: str, *, k: int = 5, tags: Iterable[str] | None = None
    ) -> list[Tool]:
        """:meth:`search` for async code: the first search (which builds every tool's schema
        and the index) runs in a worker thread instead of blocking the event loop."""
        import anyio.to_thread

        return await anyio.to_thread.run_sync(lambda: self.search(query, k=k, tags=tags))

    def configure_search(
        self,
        *,
        embedder: Embedder | None = None,
        weights: Mapping[str, float] | None = None,
        fusion: Fusion = "mix",
    ) -> None:
        """Set how :meth:`search` ranks from now on (the index is rebuilt on the next search).

        Args:
            embedder: Rank by meaning too: any callable from a list of texts to one vector per
                text (a sentence-transformers model's ``encode``,
                ``adapters.langchain.embedder(...)`` around a LangChain ``Embeddings``).
                Each tool is embedded once, lazily. ``None``: BM25 only.
            weights: BM25 weight per field (default :data:`FIELD_WEIGHTS`).
            fusion: ``"mix"`` (weighted scores) or ``"rrf"`` (reciprocal rank fusion); see
                :class:`ToolIndex`.

        Example:
            >>> registry = ToolRegistry()  # doctest: +SKIP
            >>> registry.configure_search(embedder=model.encode)  # doctest: +SKIP
        """
        self._index = ToolIndex(self._tools, weights=weights, embedder=embedder, fusion=fusion)

    @property
    def search_index(self) -> ToolIndex:
        """The :class:`ToolIndex` behind :meth:`search` (its hits also carry scores)."""
        if self._index is None:
            self._index = ToolIndex(self._tools)
        return self._index

    def _touched(self, name: str) -> None:
        if self._index is not None:
            self._index.touch(name)


def query_terms(query: str) -> list[str]:
    """The distinct words of a query that can match a tool (lower case, no stop words)."""
    words: dict[str, None] = {}
    for chunk in _WORD.findall(query[: _MAX_FIELD * 2]):
        # "getOrder" is two words, "mp3" and "s3" one; a bare number names no tool
        parts = _CAMEL.findall(chunk) if _INNER_CAPITAL.search(chunk) else [chunk]
        for word in parts:
            low = word.lower()
            if low not in _STOPWORDS and not low.isdigit():
                words[low] = None
        if len(words) >= _MAX_TERMS:
            break
    return list(words)[:_MAX_TERMS]


def _open() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", check_same_thread=False)
    try:
        db.execute(f"CREATE VIRTUAL TABLE tools USING fts5({_COLUMNS}, tokenize='{_TOKENIZER}')")
    except sqlite3.OperationalError as exc:
        db.close()
        raise ToolSearchUnavailable(
            f"Tool search needs SQLite's FTS5 extension, which this Python's sqlite3 "
            f"(SQLite {sqlite3.sqlite_version}) was built without ({exc}). Use a Python build "
            "whose sqlite3 has FTS5 (python.org, Debian/Ubuntu and conda builds do)."
        ) from None
    return db


def _schema_words(node: Any, out: list[str], *, depth: int) -> None:
    """Parameter names, titles, descriptions and enum values of a JSON Schema, a few levels deep."""
    if depth > 4 or not isinstance(node, dict):
        return
    for key in ("title", "description"):
        text = node.get(key)
        if isinstance(text, str):
            out.append(text)
    enum = node.get("enum")
    if isinstance(enum, list):
        out.extend(str(v) for v in enum[:50] if isinstance(v, str | int | float))
    props = node.get("properties")
    if isinstance(props, dict):
        for pname, sub in list(props.items())[:100]:
            out.append(" ".join(split_name(str(pname))))
            _schema_words(sub, out, depth=depth + 1)
    for key in ("items", "additionalProperties"):
        _schema_words(node.get(key), out, depth=depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        subs = node.get(key)
        if isinstance(subs, list):
            for sub in subs[:10]:
                _schema_words(sub, out, depth=depth + 1)
    defs = node.get("$defs")
    if depth == 0 and isinstance(defs, dict):
        for sub in list(defs.values())[:50]:
            _schema_words(sub, out, depth=depth + 1)
