"""Alias of :mod:`adapters.demo.warehouse`: the same modules under their older names."""

import sys

import adapters.demo.warehouse as _package
from adapters.demo.warehouse import bins, models, reports, stock, store

for _module in (bins, models, reports, stock, store):
    sys.modules[f"{__name__}.{_module.__name__.rsplit('.', 1)[1]}"] = _module
sys.modules[__name__] = _package
