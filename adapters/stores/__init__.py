"""Call-log storage backends, behind the core's store protocol (``toolkit.records.CallStore``).

``toolkit.records.open_call_store`` picks one by the target's URL scheme and imports it when a
call log first uses it: :mod:`adapters.stores.sqlite` for a file path or ``sqlite:///path``
(the standard library's ``sqlite3``), :mod:`adapters.stores.postgres` for ``postgresql://``
(``psycopg`` 3, the ``[postgres]`` extra). Another database plugs in with
``toolkit.records.register_call_store``.
"""

__all__: list[str] = []
