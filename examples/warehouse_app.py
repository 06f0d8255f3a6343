"""Alias of :mod:`adapters.demo.warehouse_app` under its older name."""

import sys

import adapters.demo.warehouse_app as _module

sys.modules[__name__] = _module
