"""Response templates: sandboxed, bounded, compiled once, never raising on render."""

from __future__ import annotations

import pytest

from adapters.http import ResponseTemplate, TemplateLimitError

ORDER = {"orderId": "o1", "status": "paid", "items": [{"name": "pen", "price": 2}]}


def test_a_template_renders_the_response_json() -> None:
    template = ResponseTemplate(
        "Order {{ orderId }} ({{ status }}):{% for i in items %} {{ i.name }}={{ i.price }}"
        "{% endfor %}"
    )
    assert template.render(ORDER) == "Order o1 (paid): pen=2"
    assert ResponseTemplate("{{ data | length }} rows").render([1, 2, 3]) == "3 rows"


def test_a_failed_render_returns_the_raw_json_and_a_note() -> None:
    text = ResponseTemplate("{{ missing.field }}").render(ORDER)
    raw, note = text.split("\n")
    assert raw.startswith('{"orderId": "o1"')
    assert note == "(response template failed: 'missing' is undefined)"


@pytest.mark.parametrize(
    ("source", "data", "words"),
    [
        ("{{ items.__class__.__mro__ }}", ORDER, "unsafe"),
        ("{{ ''.__class__.__subclasses__() }}", {}, "unsafe"),
        ("{% for i in range(10**7) %}{% endfor %}", {}, "loop iterations"),
        (
            "{% for a in xs %}{% for b in xs %}{% for c in xs %}{% endfor %}{% endfor %}"
            "{% endfor %}",
            {"xs": list(range(100))},
            "loop iterations",
        ),
        ("{{ 'x' * 10000000 }}", {}, "would be larger than"),
        ("{% for x in xs %}{{ 'y' * 5000 }}{% endfor %}", {"xs": list(range(100))}, "output"),
    ],
)
def test_limits_and_the_sandbox_stop_hostile_templates(
    source: str, data: object, words: str
) -> None:
    template = ResponseTemplate(source, max_iterations=100_000, max_output=100_000)
    with pytest.raises(Exception, match=words) as caught:
        template.render_strict(data)
    assert isinstance(caught.value, TemplateLimitError) or "unsafe" in str(caught.value)
    assert words in template.render(data).splitlines()[-1]


def test_render_time_is_bounded() -> None:
    template = ResponseTemplate(
        "{% for a in xs %}{% for b in xs %}{{ a }}{% endfor %}{% endfor %}",
        max_seconds=0.001,
        max_output=10**9,
        max_iterations=10**9,
    )
    with pytest.raises(TemplateLimitError, match="render time"):
        template.render_strict({"xs": list(range(3000))})


def test_syntax_errors_are_reported_with_their_line() -> None:
    assert ResponseTemplate.syntax_problem("ok\n\n{{ a }") is not None
    assert (ResponseTemplate.syntax_problem("ok\n\n{{ a }") or "").startswith("line 3:")
    assert ResponseTemplate.syntax_problem("{{ a }}") is None
