"""Resources, templates, prompts, completion and subscriptions answer to the caller (issue 33,
item 1): a caller whose policy hides ``admin_*`` neither lists nor reads ``admin://keys``, nor
gets or completes the ``admin_runbook`` prompt; a hidden item is answered with the words of a
missing one; functions get the caller's context; reads and gets are in the call log with the
caller. Over a real stateful HTTP server with callers on 127.0.0.1, read by the SDK client.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from adapters.mcp_server import build_server, http_app, load_callers
from tests.support.serving import serving
from toolkit import ToolContext, ToolRegistry, mcp_prompt, mcp_resource, mcp_tool
from toolkit.catalog.served_view import ServedView
from toolkit.policy import CallRequest, Decision
from toolkit.records.call_log import CallLog, read_calls

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.filterwarnings("ignore:resources/subscribe is removed"),
]

ADMIN = "admin-token-0123456789abcdef"
GUEST = "guest-token-0123456789abcdef"


@mcp_resource("admin://keys")
def admin_keys() -> str:
    """The signing keys."""
    return "sk-admin-keys"


@mcp_resource("admin://users/{user}", completions={"user": lambda v, c: ["root", "ops"]})
def admin_user(user: str) -> str:
    """One account's secrets."""
    return f"secrets of {user}"


def _tenant_projects(value: str, arguments: dict[str, str], caller: ToolContext) -> list[str]:
    """A completer scoped by its caller: each tenant completes its own projects only."""
    projects = {"acme": ["apollo", "atlas"], "globex": ["gamma"]}
    return [p for p in projects.get(str(caller.get("tenant")), []) if p.startswith(value)]


@mcp_resource("projects://{project}", completions={"project": _tenant_projects})
def project(project: str) -> str:
    """One project of the caller's tenant."""
    return project


@mcp_resource("me://whoami")
def whoami(context: ToolContext) -> str:
    """Who reads this."""
    return f"{context.get('caller')}@{context.get('tenant')}"


@mcp_prompt
def admin_runbook(step: str = "1") -> str:
    """How to rotate the keys.

    Args:
        step: Which step.
    """
    return f"rotate the keys, step {step}"


@mcp_prompt
def greet(context: ToolContext) -> str:
    """Say hello to the caller."""
    return f"hello {context.get('caller')}"


@mcp_tool
def list_orders() -> list[str]:
    """List orders."""
    return []


def admins_only(request: CallRequest) -> Decision:
    if request.tool.startswith("admin_"):
        return "allow" if "admin" in request.context.get("scopes", []) else "deny"
    return "allow"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    mp = pytest.MonkeyPatch()
    mp.setenv("ADMIN_TOKEN", ADMIN)
    mp.setenv("GUEST_TOKEN", GUEST)
    callers = load_callers(
        {
            "callers": {
                "admin": {"token": "${ADMIN_TOKEN}", "tenant": "acme", "scopes": ["admin"]},
                "guest": {"token": "${GUEST_TOKEN}", "tenant": "globex", "scopes": ["read"]},
            }
        }
    )
    registry = ToolRegistry(policy=admins_only)
    registry.register(list_orders)
    for fn in (admin_keys, admin_user, whoami, project):
        registry.resources.register(fn)
    for fn in (admin_runbook, greet):
        registry.prompts.register(fn)
    db = tmp_path_factory.mktemp("log") / "calls.db"
    log = CallLog(db, flush_interval=0.01).attach(registry)
    app = http_app(build_server(registry, callers=callers), stateless=False)
    with serving(app) as url:
        yield url, db
    log.close()
    mp.undo()


def _client(url: str, token: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=20)
    return Client(streamable_http_client(f"{url}/mcp", http_client=http), mode="legacy")


async def _refusal(call: object) -> str:
    with pytest.raises(MCPError) as refused:
        await call  # type: ignore[misc]
    return str(refused.value)


async def test_a_guest_neither_lists_nor_reads_nor_gets_the_admin_items(
    served: tuple[str, Path],
) -> None:
    url, _ = served
    async with _client(url, GUEST) as guest:
        resources = [str(r.uri) for r in (await guest.list_resources()).resources]
        templates = [
            t.uri_template for t in (await guest.list_resource_templates()).resource_templates
        ]
        prompts = [p.name for p in (await guest.list_prompts()).prompts]
        hidden_read = await _refusal(guest.read_resource("admin://keys"))
        missing_read = await _refusal(guest.read_resource("admin://nothing"))
        template_read = await _refusal(guest.read_resource("admin://users/root"))
        hidden_get = await _refusal(guest.get_prompt("admin_runbook", {}))
        missing_get = await _refusal(guest.get_prompt("admin_runbooks", {}))
        completion = await _refusal(
            guest.complete(
                types.PromptReference(name="admin_runbook"), {"name": "step", "value": ""}
            )
        )
        template_completion = await _refusal(
            guest.complete(
                types.ResourceTemplateReference(uri="admin://users/{user}"),
                {"name": "user", "value": "r"},
            )
        )
        subscribe = await _refusal(guest.subscribe_resource("admin://keys"))
        me = await guest.read_resource("me://whoami")
        hello = await guest.get_prompt("greet", {})
    assert resources == ["me://whoami"]
    # (result://{call_id} is served because the call log keeps cut results for every worker.)
    assert templates == ["projects://{project}", "result://{call_id}"]
    assert prompts == ["greet"]
    # A hidden item is answered in the words of a missing one.
    assert hidden_read.replace("admin://keys", "X") == missing_read.replace("admin://nothing", "X")
    assert "No resource has the URI" in template_read
    assert hidden_get.replace("admin_runbook", "X") == missing_get.replace("admin_runbooks", "X")
    assert "Prompts: greet." in hidden_get
    for text in (completion, template_completion, subscribe):
        assert re.search(r"No (prompt|resource)", text), text
    for text in (hidden_read, hidden_get, completion, subscribe):
        assert "rotate" not in text and "sk-admin" not in text
    # The functions got the caller's context.
    assert isinstance(me.contents[0], types.TextResourceContents)
    assert me.contents[0].text == "guest@globex"
    assert isinstance(hello.messages[0].content, types.TextContent)
    assert hello.messages[0].content.text == "hello guest"


async def test_an_admin_lists_reads_gets_and_completes_them(served: tuple[str, Path]) -> None:
    url, _ = served
    async with _client(url, ADMIN) as admin:
        resources = {str(r.uri) for r in (await admin.list_resources()).resources}
        keys = await admin.read_resource("admin://keys")
        runbook = await admin.get_prompt("admin_runbook", {"step": "2"})
        users = await admin.complete(
            types.ResourceTemplateReference(uri="admin://users/{user}"),
            {"name": "user", "value": ""},
        )
        await admin.subscribe_resource("admin://keys")
    assert resources == {"admin://keys", "me://whoami"}
    assert isinstance(keys.contents[0], types.TextResourceContents)
    assert keys.contents[0].text == "sk-admin-keys"
    assert isinstance(runbook.messages[0].content, types.TextContent)
    assert runbook.messages[0].content.text == "rotate the keys, step 2"
    assert users.completion.values == ["root", "ops"]


async def test_reads_and_gets_are_in_the_call_log_with_the_caller(
    served: tuple[str, Path],
) -> None:
    url, db = served
    async with _client(url, GUEST) as guest:
        await guest.read_resource("me://whoami")
        await _refusal(guest.read_resource("admin://keys"))
    async with _client(url, ADMIN) as admin:
        await admin.get_prompt("admin_runbook", {})
    wanted = {("resource:whoami", "guest"), ("resource:admin_keys", "guest")}
    wanted.add(("prompt:admin_runbook", "admin"))
    with anyio.fail_after(20):
        while True:
            rows = read_calls(db, limit=100)
            seen = {(r.tool, r.caller): r for r in rows}
            if wanted <= set(seen):
                break
            await anyio.sleep(0.05)
    assert seen[("resource:whoami", "guest")].outcome == "ok"
    refused = seen[("resource:admin_keys", "guest")]
    assert (refused.outcome, refused.code, refused.decision) == ("error", "NOT_FOUND", "deny")
    assert seen[("prompt:admin_runbook", "admin")].outcome == "ok"


async def test_a_listen_stream_hears_only_of_uris_the_caller_may_read(
    served: tuple[str, Path],
) -> None:
    url, _ = served
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {GUEST}"}, timeout=20)
    transport = streamable_http_client(f"{url}/mcp", http_client=http)
    async with Client(transport, mode="auto") as guest:
        wanted = ["admin://keys", "me://whoami", "admin://nothing"]
        async with guest.listen(resource_subscriptions=wanted) as subscription:
            honored = subscription.honored.resource_subscriptions
    # The hidden URI is left out exactly as one that no resource serves.
    assert honored == ["me://whoami"]


async def test_a_policy_that_cannot_answer_without_arguments_hides_them_too() -> None:
    def by_amount(request: CallRequest) -> Decision:
        return "allow" if request.arguments["amount"] < 10 else "deny"

    async def async_admins(request: CallRequest) -> Decision:
        return admins_only(request)

    registry = ToolRegistry(policy=by_amount)
    registry.resources.register(whoami)
    registry.prompts.register(greet)
    view = ServedView(registry, ToolContext(values={"caller": "bob"}))
    assert await view.resources() == [] and await view.prompts() == []
    guest = ServedView(registry, ToolContext(values={"scopes": []}), policy=async_admins)
    registry.resources.register(admin_keys)
    assert [r.uri for r in await guest.resources()] == ["me://whoami"]


async def test_a_completer_gets_the_callers_context(served: tuple[str, Path]) -> None:
    url, _ = served
    ref = types.ResourceTemplateReference(uri="projects://{project}")
    async with _client(url, GUEST) as guest:
        globex = await guest.complete(ref, {"name": "project", "value": ""})
    async with _client(url, ADMIN) as admin:
        acme = await admin.complete(ref, {"name": "project", "value": "a"})
    assert globex.completion.values == ["gamma"]
    assert acme.completion.values == ["apollo", "atlas"]


async def test_metrics_label_reads_and_gets_by_their_item_and_made_up_ones_unknown() -> None:
    from toolkit.records import UNKNOWN_TOOL, tool_label

    registry = ToolRegistry()
    registry.resources.register(whoami)
    registry.resources.register(project)
    registry.prompts.register(greet)
    view = ServedView(registry, ToolContext(values={"caller": "bob"}))
    await view.read("me://whoami")
    await view.read("projects://apollo")
    await view.render("greet", {})
    for made_up in (view.read("made-up://x"), view.render("made_up", {})):
        with pytest.raises(Exception, match=r"No resource|No prompt|no prompt"):
            await made_up
    labels = [tool_label(record, registry) for record in registry.records]
    assert labels == [
        "resource:whoami",
        "resource:project",
        "prompt:greet",
        UNKNOWN_TOOL,
        UNKNOWN_TOOL,
    ]
