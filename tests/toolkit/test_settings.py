"""``RegistrySettings``: one value for how a registry runs calls, shared by its views."""

from __future__ import annotations

import dataclasses

import pytest

from toolkit import ErrorCode, ExceptionProcessor, RegistrySettings, ToolRegistry, mcp_tool
from toolkit.policy import CallRequest, Decision


@mcp_tool(tags={"stock"})
def loose_count(sku: str) -> int:
    """Count a SKU.

    Args:
        sku: The SKU.
    """
    return "twelve"  # type: ignore[return-value]  # breaks its own output schema


@mcp_tool(tags={"stock"})
def leak(sku: str) -> str:
    """Fail with a secret in the message.

    Args:
        sku: The SKU.
    """
    raise RuntimeError(f"upstream refused key sk-live-9f8e7d for {sku}")


def _deny(request: CallRequest) -> Decision:
    return "deny"


def _allow(request: CallRequest) -> Decision:
    return "allow"


def test_keywords_build_the_settings_and_override_a_given_settings_value() -> None:
    processor = ExceptionProcessor()
    base = RegistrySettings(processor=processor, timeout=5.0, secrets=["sk-live-9f8e7d"])  # type: ignore[arg-type]
    assert base.secrets == ("sk-live-9f8e7d",)  # a list is kept as a tuple
    registry = ToolRegistry(base, timeout=None, strict_output=True)
    assert registry.settings == base.replace(timeout=None, strict_output=True)
    assert ToolRegistry(timeout=1.5).settings.timeout == 1.5
    assert ToolRegistry(processor=processor).settings == RegistrySettings(processor=processor)


def test_settings_are_frozen_and_replace_names_an_unknown_field() -> None:
    settings = RegistrySettings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.timeout = None  # type: ignore[misc]
    with pytest.raises(TypeError, match="timeuot"):
        settings.replace(timeuot=3)  # type: ignore[call-arg]


def test_a_filtered_view_runs_calls_with_every_setting_of_its_registry() -> None:
    registry = ToolRegistry(strict_output=True, policy=_deny, secrets=("sk-live-9f8e7d",))
    registry.register(loose_count)
    registry.register(leak)
    view = registry.filter(tags={"stock"})
    assert view.settings is registry.settings  # one value, nothing copied field by field

    denied = view.call_sync("loose_count", {"sku": "A-1"})
    assert denied.error is not None and denied.error.code is ErrorCode.DENIED

    allowed = ToolRegistry(registry.settings.replace(policy=_allow))
    allowed.register(loose_count)
    allowed.register(leak)
    strict = allowed.filter(names=["loose_count"]).call_sync("loose_count", {"sku": "A-1"})
    assert strict.is_error  # strict_output reached the view (it was dropped before)
    masked = allowed.filter(names=["leak"]).call_sync("leak", {"sku": "A-1"})
    assert masked.is_error and "sk-live-9f8e7d" not in masked.content  # what the model reads


def test_configure_changes_later_calls_and_leaves_earlier_views_alone() -> None:
    registry = ToolRegistry()
    registry.register(loose_count)
    before = registry.filter(names=["loose_count"])
    assert not registry.call_sync("loose_count", {"sku": "A-1"}).is_error

    registry.configure(strict_output=True, timeout=None)
    assert registry.settings.timeout is None
    assert registry.call_sync("loose_count", {"sku": "A-1"}).is_error
    assert not before.call_sync("loose_count", {"sku": "A-1"}).is_error


def test_configure_gives_resources_and_prompts_the_new_processor() -> None:
    registry = ToolRegistry()
    processor = ExceptionProcessor()
    registry.configure(processor=processor)
    assert registry.processor is processor
    assert registry.resources.processor is processor
    assert registry.prompts.processor is processor
