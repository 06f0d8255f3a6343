"""Keeping secrets out of messages, records and logs."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import Any

from pydantic_core import to_jsonable_python

MASK = "***"

#: Parameter names whose values are secrets (matched anywhere in the name, any case).
SECRET_NAME = re.compile(
    r"pass(word|wd|phrase)?|pwd|token|secret|api[_-]?key|apikey|auth|credential|private[_-]?key|cookie",
    re.IGNORECASE,
)

_MAX_INT_BITS = 4096

# Shorter values are too likely to occur by chance in ordinary text.
_MIN_SECRET_LEN = 4


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Whether a parameter called ``name`` holds a secret."""
    return bool(SECRET_NAME.search(name))


def redact_arguments(value: Any) -> Any:
    """A copy of ``value`` with the values of secret-named keys masked, at any depth."""
    if isinstance(value, dict):
        return {
            k: MASK if isinstance(k, str) and is_secret_name(k) else redact_arguments(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact_arguments(v) for v in value]
    if isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
        return f"<integer of {value.bit_length()} bits>"  # past what str() and JSON may print
    return value


def secret_values(arguments: Any) -> list[str]:
    """The string values of secret-named keys in ``arguments``, at any depth."""
    found: list[str] = []
    if isinstance(arguments, dict):
        for k, v in arguments.items():
            if isinstance(k, str) and is_secret_name(k) and isinstance(v, str | int):
                found.append(str(v))
            else:
                found.extend(secret_values(v))
    elif isinstance(arguments, list):
        for v in arguments:
            found.extend(secret_values(v))
    return found


def redact_text(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each secret replaced by ``***`` (longest first)."""
    for secret in sorted({s for s in secrets if len(s) >= _MIN_SECRET_LEN}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


# -- secrets in free text ------------------------------------------------------------------------
# Exception messages and tracebacks are written by libraries that know nothing of secrets. These
# patterns catch the common ways a secret ends up in such text; the value is masked, the key or
# scheme stays so the reader still knows what was there.

_KEY = (
    r"[\w.-]*(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|credential|session[_-]?id|cookie)[\w.-]*"
)
_TEXT_PATTERNS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    # PEM private keys, whole block
    (
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
            re.DOTALL,
        ),
        MASK,
    ),
    # scheme://user:password@host
    (re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*):[^/\s@]+@"), rf"\1:{MASK}@"),
    # Authorization: Bearer xyz / Authorization=Basic xyz
    (
        re.compile(
            r"(?i)(\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|digest)?\s*)"
            r"[^\s,;'\"]+"
        ),
        rf"\1{MASK}",
    ),
    (re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{6,}"), rf"\1{MASK}"),
    # password=..., "api_key": "...", token: ...
    (
        re.compile(rf"(?i)(\b{_KEY}[\"']?\s*[:=]\s*)(\"[^\"]*\"|'[^']*'|[^\s,;&}}\])]+)"),
        lambda m: m[1] + (m[2][0] + MASK + m[2][0] if m[2][0] in "\"'" else MASK),
    ),
    # query parameters named key, sig or signature (?key=…, &x-amz-signature=…)
    (
        re.compile(r"(?i)([?&][\w.-]*(?:key|sig|signature)=)[^&#\s'\"]+"),
        rf"\1{MASK}",
    ),
    # well-known key formats
    (
        re.compile(
            r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"  # AWS access key id
            r"|\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bgithub_pat_\w{20,}"  # GitHub
            r"|\bglpat-[\w-]{20,}"  # GitLab
            r"|\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"  # model providers
            r"|\bxox[abprs]-[A-Za-z0-9-]{10,}"  # Slack
            r"|\bAIza[0-9A-Za-z_-]{35}"  # Google API key
            r"|\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}"  # Stripe
            r"|\beyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,}"  # JWT
        ),
        MASK,
    ),
)


# What every pattern above needs somewhere in the text: most text has none of it and is returned
# after one search instead of six substitutions.
_MAY_HOLD_SECRET = re.compile(
    r"[:=]|(?i:bearer)|-----BEGIN|AKIA|ASIA|gh[pousr]_|github_pat_|glpat-|sk-|xox[abprs]-|AIza"
    r"|[rs]k_(?:live|test)_|eyJ"
)
#: Every pattern above needs a character that is not a letter or digit (``:``, ``=``, ``/``,
#: ``-``, ``_``, ``.``, a space), except the bare key formats, the shortest of which (an AWS
#: key id) has 20 characters: a shorter string of letters and digits holds none of them.
_SHORTEST_ALNUM_SECRET = 20


def scrub_secrets(text: str) -> str:
    """``text`` with secrets in common shapes masked: key=value pairs with secret-like keys,
    ``Authorization`` headers and bearer tokens, passwords in URLs, well-known key formats.

    Example:
        >>> scrub_secrets("login failed for postgres://app:hunter22@db/x, token=abc123")
        'login failed for postgres://app:***@db/x, token=***'
    """
    if len(text) < _SHORTEST_ALNUM_SECRET and text.isalnum():
        return text  # an id, a code, a word: no pattern above matches it
    if _MAY_HOLD_SECRET.search(text) is None:
        return text
    for pattern, replacement in _TEXT_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def jsonable(args: Any) -> Any:
    """Validated values (enums, models, dates) as JSON data; never raises."""
    try:
        return to_jsonable_python(args, fallback=str)
    except (Exception, RecursionError):
        return None


_PLAIN = (str, float, bool, type(None))

#: ``is_secret_name`` of the argument names seen last, read with one dict lookup per name.
_SECRET_NAMES: dict[str, bool] = {}
_SECRET_NAMES_KEPT = 1024
_NAME_KEPT_CHARS = 64


def masked_arguments(args: Any, clean: Callable[[str], str] = scrub_secrets) -> Any:
    """The arguments as a record keeps them, even when unreadable: JSON data, the values of
    secret-named keys masked, and every string value passed through ``clean``.

    Rule: argument values reach a call record (and so the call log, metrics and spans, which
    read records) only after the processor's scrubber and the registry's ``secrets``, which
    the invoker's ``clean`` applies: ``{"q": "password=hunter2"}`` is kept as
    ``{"q": "password=***"}``.
    """
    if type(args) is dict:  # the usual flat arguments of plain values: no copy unless cleaned
        out = args
        for key, value in args.items():
            kind = type(value)
            if type(key) is not str or (
                kind not in _PLAIN and not (kind is int and value.bit_length() <= 64)
            ):
                break  # a nested or unusual value: the deep copy below
            secret = _SECRET_NAMES.get(key)
            if secret is None:
                secret = is_secret_name(key)
                if len(key) <= _NAME_KEPT_CHARS:  # names come from callers: keep a few short ones
                    if len(_SECRET_NAMES) >= _SECRET_NAMES_KEPT:
                        _SECRET_NAMES.clear()
                    _SECRET_NAMES[key] = secret
            if secret:  # an API token: masked (the mask is ours, not the caller's text)
                fresh: Any = MASK
            elif kind is str:
                fresh = clean(value)
                if fresh == value:
                    continue
            else:
                continue
            if out is args:
                out = dict(args)
            out[key] = fresh
        else:
            return out
    if isinstance(args, bytes | bytearray):
        args = bytes(args).decode("utf-8", "replace")
    if isinstance(args, str):
        return clean(scrub_secrets(args))
    try:
        return _cleaned(redact_arguments(to_jsonable_python(args, fallback=str)), clean)
    except (Exception, RecursionError):
        return "<arguments that cannot be recorded>"


def _cleaned(value: Any, clean: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {k: _cleaned(v, clean) for k, v in value.items()}
    if isinstance(value, list):
        return [_cleaned(v, clean) for v in value]
    return value
