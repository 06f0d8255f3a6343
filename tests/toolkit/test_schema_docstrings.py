"""Descriptions from docstrings in every style, and their precedence."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tests.support.schema_helpers import build
from toolkit.schema import parse_docstring


def google(bin_code: str, limit: int = 10) -> None:
    """Look up a bin.

    The bin must exist in the caller's warehouse.

    Note:
        Do not retry when the bin is unknown.

    Args:
        bin_code (str): Code of the bin,
            for example ``B-01``.

            A second paragraph about the code.
        limit: At most this many rows.

    Returns:
        The bin, as JSON.

    Raises:
        KeyError: The bin does not exist.

    Examples:
        >>> google("B-01")
    """


def numpy_style(bin_code: str, limit: int = 10) -> None:
    """Look up a bin.

    Parameters
    ----------
    bin_code : str
        Code of the bin.
    limit : int, optional
        At most this many rows.

    Other Parameters
    ----------------
    extra : int
        Not a parameter of this function.
    """


def rest_style(bin_code: str, limit: int = 10) -> None:
    """Look up a bin.

    :param bin_code: Code of the bin.
    :param int limit: At most this many rows.
    :returns: The bin.
    :raises KeyError: The bin does not exist.
    """


def epydoc_style(bin_code: str, limit: int = 10) -> None:
    """Look up a bin.

    @param bin_code: Code of the bin.
    @param limit: At most this many rows.
    """


def opens_with_args(bin_code: str, limit: int = 10) -> None:
    """Args:
    bin_code: Code of the bin.
    limit: At most this many rows.
    """


def opens_with_args_on_next_line(bin_code: str, limit: int = 10) -> None:
    """
    Args:
        bin_code: Code of the bin.
        limit: At most this many rows.
    """


def keyword_args(bin_code: str, *, limit: int = 10) -> None:
    """Look up a bin.

    Args:
        bin_code: Code of the bin.

    Keyword Args:
        limit: At most this many rows.
    """


def undocumented(bin_code: str) -> None:
    pass


def param_descriptions(fn: object) -> dict[str, str]:
    props = build(fn).input_schema["properties"]  # type: ignore[arg-type]
    return {name: p.get("description", "") for name, p in props.items()}


def test_google_description_keeps_body_and_notes_but_not_sections() -> None:
    description = build(google).description
    assert description.startswith("Look up a bin.\n\nThe bin must exist in the caller's warehouse.")
    assert "Do not retry when the bin is unknown." in description
    assert description.endswith("Returns: The bin, as JSON.")
    for leaked in ("Args:", "Raises", "KeyError", "Examples", ">>>", "bin_code"):
        assert leaked not in description


def test_google_params_with_types_and_paragraphs() -> None:
    assert param_descriptions(google) == {
        "bin_code": "Code of the bin, for example `B-01`.\n\nA second paragraph about the code.",
        "limit": "At most this many rows.",
    }


def test_numpy_rest_and_epydoc() -> None:
    for fn in (numpy_style, rest_style, epydoc_style):
        assert param_descriptions(fn) == {
            "bin_code": "Code of the bin.",
            "limit": "At most this many rows.",
        }, fn.__name__
        assert build(fn).description.startswith("Look up a bin."), fn.__name__
        assert ":param" not in build(fn).description
        assert "Parameters" not in build(fn).description


def test_docstring_that_opens_with_args() -> None:
    for fn in (opens_with_args, opens_with_args_on_next_line):
        assert param_descriptions(fn) == {
            "bin_code": "Code of the bin.",
            "limit": "At most this many rows.",
        }, fn.__name__
        assert build(fn).description == ""


def test_keyword_args_section() -> None:
    assert param_descriptions(keyword_args)["limit"] == "At most this many rows."


def test_no_docstring() -> None:
    built = build(undocumented)
    assert built.description == ""
    assert "description" not in built.input_schema["properties"]["bin_code"]


def test_long_returns_is_left_out() -> None:
    info = parse_docstring("Do it.\n\nReturns:\n    " + "word " * 60)
    assert info.description == "Do it."
    assert info.returns is not None and info.returns.startswith("word word")


def test_precedence_argument_then_field_then_docstring() -> None:
    def fn(
        a: Annotated[str, Field(description="From Field.")],
        b: Annotated[str, "From Annotated."],
        c: str,
        d: str = Field("x", description="From default Field."),
    ) -> None:
        """Do it.

        Args:
            a: From docstring.
            b: From docstring.
            c: From docstring.
            d: From docstring.
        """

    assert param_descriptions(fn) == {
        "a": "From Field.",
        "b": "From Annotated.",
        "c": "From docstring.",
        "d": "From default Field.",
    }
    overridden = build(fn, param_descriptions={"a": "Override.", "c": "Override c."})
    assert overridden.input_schema["properties"]["a"]["description"] == "Override."
    assert overridden.input_schema["properties"]["c"]["description"] == "Override c."
    assert overridden.input_schema["properties"]["b"]["description"] == "From Annotated."


def test_description_argument_wins() -> None:
    assert build(google, description="Custom.").description == "Custom."


def test_numpy_returns_and_rest_markup_do_not_leak_into_the_description() -> None:
    doc = """Count the :class:`~warehouse.models.Bin` rows with ``status``.

    See :func:`reset <pkg.store.reset>` and :py:meth:`Store.reset`.

    Parameters
    ----------
    status : str
        Only bins in this state, see :data:`STATES`.

    Returns
    -------
    int
        How many bins.
    """
    info = parse_docstring(doc)
    assert info.description == (
        "Count the `Bin` rows with `status`.\n\nSee `reset` and `Store.reset`.\n\n"
        "Returns: How many bins."
    )
    assert info.params == {"status": "Only bins in this state, see `STATES`."}
    assert "-------" not in info.description and ":class:" not in info.description
