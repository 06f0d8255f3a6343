"""Response templates keep their limits against hostile templates and hostile data.

Each attack below ran unchecked before (seconds past a 0.5 s limit, hundreds of MiB): now it
is refused before the memory is taken. Effects are counted with tracemalloc (peak bytes
allocated during the render), never timed.
"""

from __future__ import annotations

import re
import threading
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
from jinja2 import TemplateError
from jinja2.sandbox import SecurityError

from adapters.http import HttpToolset, ResponseTemplate, TemplateLimitError
from adapters.langgraph.templates import compile_arguments
from tests.support.orders_service import Recorder, one_tool, serving_orders
from toolkit import ToolRegistry

TEXT = "x" * 3000
ROWS = list(range(3000))
DOUBLING = (
    "{% set ns = namespace(s='ab') %}{% for i in range(40) %}"
    "{% set ns.s = ns.s OP ns.s %}{% endfor %}{{ ns.s|length }}"
)

ATTACKS: dict[str, tuple[str, dict[str, Any], str]] = {
    "nested loops over a string": (
        "{% for a in s %}{% for b in s %}.{% endfor %}{% endfor %}",
        {"s": TEXT},
        "loop iterations",
    ),
    "nested loops over a list": (
        "{% for a in xs %}{% for b in xs %}{% endfor %}{% endfor %}",
        {"xs": ROWS},
        "loop iterations",
    ),
    "sequence filters over a string": (
        "{% for a in s %}{{ s|list|length }}{% endfor %}",
        {"s": TEXT},
        "loop iterations",
    ),
    "lipsum(100000)": ("{% set x = lipsum(100000) %}", {}, "lipsum()"),
    "center(300000000)": ("{% set x = 'a'|center(300000000) %}", {}, "center filter"),
    "str.ljust": ("{% set x = 'a'.ljust(300000000) %}", {}, "str.ljust()"),
    "str.format width": ("{% set x = '{:>300000000}'.format(1) %}", {}, "str.format()"),
    "'%' width": ("{% set x = '%300000000d' % 1 %}", {}, "'%' formatting"),
    "format filter width": ("{% set x = '%300000000d'|format(1) %}", {}, "format filter"),
    "'~' doubling": (DOUBLING.replace("OP", "~"), {}, "'~'"),
    "'+' doubling": (DOUBLING.replace("OP", "+"), {}, "'+'"),
    "'*' of a list": ("{% set x = [s] * 100000 %}", {"s": TEXT}, "'*'"),
    "nested literals": (
        "{% set a = [s] %}" + "{% set a = [a, a] %}" * 40 + "{{ a|length }}",
        {"s": TEXT},
        "a list or dict",
    ),
    "join with a long separator": ("{{ xs|join(s * 30) }}", {"xs": ROWS, "s": TEXT}, "join"),
    "replace of the empty string": ("{{ s|replace('', s) }}", {"s": TEXT}, "replace filter"),
    "indent width": ("{{ s|indent(300000000) }}", {"s": "a\nb"}, "indent filter"),
    "batch padding": ("{{ [1]|batch(300000000, 0)|list }}", {}, "batch filter"),
    "expandtabs": ("{{ (s ~ '\t' * 99).expandtabs(300000) }}", {"s": ""}, "expandtabs"),
    "text captured by set": (
        "{% set x %}{% for i in range(9000) %}{{ s }}{% endfor %}{% endset %}",
        {"s": TEXT},
        "output produced",
    ),
    "text captured by a filter block": (
        "{% filter upper %}{% for i in range(9000) %}{{ s }}{% endfor %}{% endfilter %}",
        {"s": TEXT},
        "output produced",
    ),
    "exponential macro": (
        "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}"
        "{% set x = f(40) %}",
        {},
        "loop iterations",
    ),
    "recursive loop": (
        "{% for c in s recursive %}{% if loop.depth < 4 %}{{ loop(s) }}{% endif %}{% endfor %}",
        {"s": TEXT},
        "loop iterations",
    ),
    "huge range": ("{{ 'x' in range(10**18) }}", {}, "range()"),
    "huge power": ("{{ ((9 ** 64) ** 64) ** 64 }}", {}, "bits"),
    "int.to_bytes": ("{{ (1).to_bytes(300000000, 'big')|length }}", {}, "int.to_bytes()"),
    "str.translate": ("{{ s.translate({120: s}) }}", {"s": TEXT}, "str.translate()"),
    "sum of lists": ("{{ xs|sum(start=[]) }}", {"xs": [[1] * 100] * 100}, "sum filter"),
    "list mutation": ("{{ xs.extend(xs) }}", {"xs": ROWS}, "unsafe"),
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_a_hostile_template_is_stopped_before_it_takes_the_memory(name: str) -> None:
    source, data, words = ATTACKS[name]
    template = ResponseTemplate(source, max_iterations=20_000, max_output=100_000, max_seconds=120)
    tracemalloc.start()
    try:
        with pytest.raises((TemplateLimitError, SecurityError)) as caught:
            template.render_strict(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert words in str(caught.value)
    assert peak < 16 * 2**20, f"{name}: {peak / 2**20:.1f} MiB allocated"
    note = template.render(data).splitlines()[-1]
    assert note.startswith("(response template failed:") and words in note


def test_the_deadline_holds_for_work_below_the_iteration_limit() -> None:
    # 2^40 macro calls would take hours; iterations are unlimited here, so the clock stops it.
    template = ResponseTemplate(
        "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}"
        "{{ f(40) }}",
        max_iterations=10**12,
        max_seconds=0.05,
    )
    with pytest.raises(TemplateLimitError, match="render time"):
        template.render_strict({})


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("{% for i in items %}{{ i.name }}={{ i.price }};{% endfor %}", "a=1;b=2;"),
        ("{{ items|map(attribute='name')|join(', ') }}", "a, b"),
        ("{{ items|sort(attribute='price', reverse=true)|first }}", "{'name': 'b', 'price': 2}"),
        ("{{ '%-4s|' % name }}{{ '{:>5}'.format(name) }}", "ab  |   ab"),
        ("{{ name|center(6) }}|{{ name ~ '!' * 3 }}|{{ [1, 2] + [3] }}", "  ab  |ab!!!|[1, 2, 3]"),
        (
            "{% set ns = namespace(n=0) %}{% for i in range(5) %}{% set ns.n = ns.n + i %}"
            "{% endfor %}{{ ns.n }} {{ items|sum(attribute='price') }}",
            "10 3",
        ),
        (
            "{{ data|tojson }}",
            '{"items": [{"name": "a", "price": 1}, {"name": "b", "price": 2}], "name": "ab"}',
        ),
        (
            "{% macro row(i) %}[{{ i.name|upper }}]{% endmacro %}{% for i in items %}"
            "{{ row(i) }}{% endfor %}",
            "[A][B]",
        ),
    ],
)
def test_ordinary_templates_render_as_before(source: str, expected: str) -> None:
    data = {"items": [{"name": "a", "price": 1}, {"name": "b", "price": 2}], "name": "ab"}
    assert ResponseTemplate(source).render_strict(data) == expected


def test_values_may_be_as_large_as_the_response_itself() -> None:
    # The value limit is max_output plus the response's size: showing part of a large
    # response stays possible.
    data = {"rows": [{"text": TEXT} for _ in range(100)]}
    template = ResponseTemplate("{{ (rows|tojson)[:20] }}", max_output=1000)
    assert template.render_strict(data) == '[{"text": "' + "x" * 9


@pytest.fixture(scope="module")
def orders() -> Iterator[tuple[str, Recorder]]:
    with serving_orders() as served:
        yield served


@pytest.mark.anyio
async def test_rendering_does_not_run_on_the_event_loop(
    orders: tuple[str, Recorder], monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[threading.Thread] = []
    real_render = ResponseTemplate.render

    def render(self: ResponseTemplate, data: Any, arguments: Any = None) -> str:
        threads.append(threading.current_thread())
        return real_render(self, data, arguments)

    monkeypatch.setattr(ResponseTemplate, "render", render)
    config = one_tool(
        orders[0],
        endpoint="/users/u1/orders/{orderId}",
        parameters=[{"name": "orderId", "position": "path", "required": True}],
        response_template="{% for i in items %}{{ i.name }} {% endfor %}",
    )
    toolset = HttpToolset.from_config(config)
    registry = ToolRegistry()
    toolset.register_into(registry)
    async with toolset:
        result = await registry.call("t", {"orderId": "o1"})
    assert result.content == "widget gadget "
    assert threads and threads[0] is not threading.main_thread()


@pytest.mark.parametrize(
    ("template", "words"),
    [
        ("{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}", "loop iterations"),
        ("{{ s | center(300000000) }}", "center filter"),
        ("{{ lipsum(100000) }}", "lipsum()"),
    ],
)
def test_graph_node_templates_keep_the_same_limits(template: str, words: str) -> None:
    render = compile_arguments({"value": template})
    with pytest.raises(
        TemplateError, match=re.escape(f"Template {template!r}: ") + ".*" + re.escape(words)
    ):
        render({"s": TEXT})
