"""A set of HTTP endpoint tools sharing pooled connections: :class:`HttpToolset`."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

import httpx
import yaml

from adapters.http._client import endpoint_client, endpoint_sync_client
from adapters.http._config import HttpConfigError, HttpToolConfig, parse_tool_configs
from adapters.http._template import ResponseTemplate
from adapters.http._tool import HttpTool
from adapters.network import NetworkPolicy
from toolkit.registry import ToolRegistry
from toolkit.tool import Tool
from toolkit.toolsets.toolset import BaseToolset
from toolkit.views import html_safe, html_table

__all__ = ["HttpToolset", "load_http_file"]


class HttpToolset(BaseToolset):
    """HTTP endpoints as tools, with one connection pool per event loop.

    Build it with :meth:`from_file`, :meth:`from_config` or :meth:`from_openapi`; every
    constructor checks every tool first and raises one :class:`HttpConfigError` listing all
    problems, so nothing is half-loaded. Close it (``close``/``aclose``, ``with``/``async
    with``) to release its connections. It is a :class:`toolkit.Toolset`:
    ``registry.add_toolset_sync(toolset)`` (or ``register_into``) adds its tools.

    Args:
        configs: Tool name -> config, already checked.
        network_policy: Which hosts requests may reach (default: any but cloud metadata).
        source: Where the configs came from (shown in the tools' specs).
    """

    def __init__(
        self,
        configs: Mapping[str, HttpToolConfig],
        *,
        network_policy: NetworkPolicy | None = None,
        source: str = "",
    ) -> None:
        self.network_policy = network_policy or NetworkPolicy()
        self._source = source
        self._clients: dict[asyncio.AbstractEventLoop, httpx.AsyncClient] = {}
        self._sync_client: httpx.Client | None = None
        self._sync_lock = threading.Lock()
        problems: list[str] = []
        templates: dict[str, ResponseTemplate | None] = {}
        for name, config in configs.items():
            problems.extend(config.problems(name))
            templates[name] = None
            if config.response_template is not None:
                problem = ResponseTemplate.syntax_problem(config.response_template)
                if problem:
                    problems.append(f"{name}.response_template: does not compile ({problem})")
                else:
                    templates[name] = ResponseTemplate(config.response_template)
        if problems:
            raise HttpConfigError(problems)
        self.tools: list[HttpTool] = [
            HttpTool(
                name,
                config,
                client=self._client,
                network_policy=self.network_policy,
                template=templates[name],
                source=f"http:{source}#{name}" if source else "",
                sync_client=self._blocking_client,
            )
            for name, config in configs.items()
        ]

    @classmethod
    def from_config(
        cls,
        configs: Mapping[str, Any],
        *,
        network_policy: NetworkPolicy | None = None,
        source: str = "config",
    ) -> HttpToolset:
        """Tools from ``name -> config`` (a dict, ``{"HTTP": dict}`` or :class:`HttpToolConfig`).

        ``{"httpTools": {...}}`` is accepted too, and so is an ``openapi`` section (see
        :meth:`from_file`).

        Raises:
            HttpConfigError: Every problem of every tool.
        """
        policy = network_policy or NetworkPolicy()
        parsed = _collect(configs, source=source, base_dir=Path.cwd(), policy=policy)
        return cls(parsed, network_policy=policy, source=source)

    @classmethod
    def from_file(
        cls, path: str | Path, *, network_policy: NetworkPolicy | None = None
    ) -> HttpToolset:
        """Tools from a YAML or JSON file holding ``{"httpTools": {name: config}}``.

        The file may also hold ``"openapi": {"spec": <path or URL>, "base_url": ...,
        "include": [...], "exclude": [...], "timeout_seconds": ..., "max_response_bytes": ...}``
        (or a list of those): one tool per operation.

        Raises:
            HttpConfigError: The file cannot be read or parsed, or any tool is invalid.
        """
        data = load_http_file(path, require=False)
        if "httpTools" not in data and "openapi" not in data:
            raise HttpConfigError(
                [
                    f"{path}: no 'httpTools' (or 'openapi') section; write "
                    '{"httpTools": {"name": {...}}}'
                ]
            )
        policy = network_policy or NetworkPolicy()
        parsed = _collect(data, source=str(path), base_dir=Path(path).parent, policy=policy)
        return cls(parsed, network_policy=policy, source=str(path))

    @classmethod
    def from_openapi(
        cls,
        spec: Mapping[str, Any] | str | Path,
        base_url: str | None = None,
        include: list[str] | None = None,
        exclude: list[str] | None = None,
        *,
        network_policy: NetworkPolicy | None = None,
        timeout_seconds: float | None = None,
        max_response_bytes: int | None = None,
    ) -> HttpToolset:
        """One tool per operation of an OpenAPI 3.0/3.1 document (a dict, a path or a URL).

        Args:
            spec: The document, a file path (JSON or YAML), or an http(s) URL to fetch.
            base_url: The API's base URL (default: the document's first ``servers`` entry,
                resolved against the URL it was fetched from).
            include: Keep only operations whose operationId or a tag is listed.
            exclude: Drop operations whose operationId or a tag is listed.
            network_policy: Applies to fetching the document and to every request.
            timeout_seconds: Every operation's total deadline per attempt (default 30 s).
            max_response_bytes: Every operation's cap on decoded answers (default 10 MB).

        Raises:
            HttpConfigError: The document cannot be read, has no usable base URL, or an
                operation cannot become a tool.
        """
        from adapters.http._openapi import load_openapi, openapi_configs

        policy = network_policy or NetworkPolicy()
        document, origin = load_openapi(spec, policy)
        limits = {"timeout_seconds": timeout_seconds, "max_response_bytes": max_response_bytes}
        configs = openapi_configs(
            document,
            base_url=base_url,
            origin=origin,
            include=include,
            exclude=exclude,
            limits={k: v for k, v in limits.items() if v is not None},
        )
        return cls(configs, network_policy=policy, source=origin or "openapi")

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = endpoint_client(self.network_policy, server=self._source or "HTTP tools")
            self._clients[loop] = client
        return client

    def _blocking_client(self) -> httpx.Client:
        """The pooled blocking client of ``call_sync`` (one for every thread)."""
        client = self._sync_client
        if client is None:
            with self._sync_lock:
                client = self._sync_client
                if client is None:
                    server = self._source or "HTTP tools"
                    client = endpoint_sync_client(self.network_policy, server=server)
                    self._sync_client = client
        return client

    async def get_tools(self) -> list[Tool]:
        """The endpoint tools (their list never changes)."""
        return list(self.tools)

    def register_into(self, registry: ToolRegistry, namespace: str | None = None) -> list[str]:
        """Add every tool to ``registry`` (names prefixed ``<namespace>_`` if given).

        Returns:
            The registry names added.
        """
        names = []
        for tool in self.tools:
            named = tool.renamed(f"{namespace}_{tool.name}") if namespace else tool
            registry.add(named)
            names.append(named.name)
        return names

    async def aclose(self) -> None:
        """Close the pooled connections of every event loop they were opened on, and the
        blocking client's."""
        self._close_blocking()
        clients, self._clients = self._clients, {}
        here = asyncio.get_running_loop()
        for loop, client in clients.items():
            if loop is here:
                await client.aclose()
            elif not loop.is_closed():
                # Not awaited: that loop may be blocked waiting for this one (close() from
                # a notebook cell); its connections close as soon as it runs again.
                asyncio.run_coroutine_threadsafe(client.aclose(), loop)

    def close(self) -> None:
        """Close the pooled connections (from sync code, or a notebook cell)."""
        self._close_blocking()
        if not self._clients:
            return
        from toolkit import run_sync

        run_sync(self.aclose)

    def _close_blocking(self) -> None:
        with self._sync_lock:
            client, self._sync_client = self._sync_client, None
        if client is not None:
            client.close()

    def _repr_html_(self) -> str:
        return html_safe("HTTP toolset", self._tools_html)

    def _tools_html(self) -> str:
        rows = [_tool_row(tool) for tool in self.tools]
        n = len(rows)
        return html_table(
            ("tool", "request", "description", "parameters"),
            rows,
            f"HTTP toolset: {n} tool" + ("" if n == 1 else "s"),
            widths=("16%", "24%", "30%", "30%"),  # the description and parameters get room
        )

    def __repr__(self) -> str:
        return f"HttpToolset({[t.name for t in self.tools]!r})"


def _tool_row(tool: HttpTool) -> list[str]:
    """One table row; a tool that cannot be described shows its error in its row."""
    try:
        spec = tool.spec
        request = dict(tool.view_facts())["request"]
        params = ", ".join(f"<code>{escape(p)}</code>" for p in spec.parameters) or "<i>none</i>"
        return [
            f"<b>{escape(spec.name)}</b>",
            f"<code>{escape(request)}</code>",
            escape(spec.description.split("\n\n")[0]),
            params,
        ]
    except Exception as exc:  # one broken tool must not hide the others
        problem = f"cannot be described: {type(exc).__name__}: {exc}"
        return [escape(tool.name), "", f"<span style='color:#b00'>{escape(problem)}</span>", ""]


def _collect(
    data: Mapping[str, Any], *, source: str, base_dir: Path, policy: NetworkPolicy
) -> dict[str, HttpToolConfig]:
    """Configs from ``httpTools`` (or a bare name map) plus any ``openapi`` sections."""
    from adapters.http._openapi import LIMITS, load_openapi, openapi_configs

    openapi = data.get("openapi") if isinstance(data.get("openapi"), Mapping | list) else None
    tools = data.get("httpTools", {} if openapi is not None else data)
    if not isinstance(tools, Mapping):
        raise HttpConfigError([f"{source}: 'httpTools' must be an object of name -> config"])
    parsed, problems = (
        parse_tool_configs(tools, source=source) if tools or openapi is None else ({}, [])
    )
    for entry in [openapi] if isinstance(openapi, Mapping) else (openapi or []):
        if not isinstance(entry, Mapping) or "spec" not in entry:
            problems.append(f"{source}: each 'openapi' entry needs a 'spec' (a path or URL)")
            continue
        spec = str(entry["spec"])
        if not spec.startswith(("http://", "https://")):
            spec = str(base_dir / spec)
        try:
            document, origin = load_openapi(spec, policy)
            found = openapi_configs(
                document,
                base_url=entry.get("base_url"),
                origin=origin,
                include=entry.get("include"),
                exclude=entry.get("exclude"),
                limits={k: entry[k] for k in LIMITS if k in entry},
            )
        except HttpConfigError as exc:
            problems.extend(exc.problems)
            continue
        for name in found.keys() & parsed.keys():
            problems.append(f"{name}: defined twice (httpTools and {spec}); exclude one")
        parsed.update(found)
    for name, config in parsed.items():
        if config.response_template is not None:
            found_problem = ResponseTemplate.syntax_problem(config.response_template)
            if found_problem:
                problems.append(f"{name}.response_template: does not compile ({found_problem})")
    if problems:
        raise HttpConfigError(problems)
    return parsed


def load_http_file(path: str | Path, *, require: bool = True) -> dict[str, Any]:
    """Read a YAML or JSON config file into a dict.

    Args:
        path: The file (``.json``, or YAML for any other suffix).
        require: Fail when the file has no ``httpTools`` section.

    Raises:
        HttpConfigError: The file is missing, unreadable, not an object or not valid YAML/JSON.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise HttpConfigError([f"{path}: cannot read the file ({exc.strerror})"]) from None
    try:
        data = json.loads(text) if file.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        line = str(exc).splitlines()[0]
        raise HttpConfigError([f"{path}: not valid JSON/YAML ({line})"]) from None
    if not isinstance(data, dict):
        raise HttpConfigError([f"{path}: expected an object with 'httpTools'"])
    if require and "httpTools" not in data:
        raise HttpConfigError(
            [f'{path}: no \'httpTools\' object found; write {{"httpTools": {{"name": {{...}}}}}}']
        )
    return data
