"""The few pieces of SQL that DuckDB and PostgreSQL spell differently, each in one place.

Queries are written in the SQL both engines accept (``CAST(x AS DOUBLE
PRECISION)``, ``strpos``, ``bool_or``, window functions in a subquery rather
than QUALIFY...). Where no common spelling exists, a query asks its store's
dialect for the fragment: reading a field of a JSON column, testing a JSON list
for a value, matching a regular expression, and the type names of the schema.
"""
from __future__ import annotations

import re
from typing import Any, Union


class DuckDBDialect:
    name = "duckdb"

    def ddl(self, sql: str) -> str:
        """A migration's DDL as this engine takes it (the migrations are written for DuckDB)."""
        return sql

    def json_text(self, expr: str, key: Union[str, int]) -> str:
        """The field ``key`` (a name, or a list position) of the JSON in ``expr``, as text."""
        path = f"$[{key}]" if isinstance(key, int) else f"$.{_field(key)}"
        return f"json_extract_string({expr}, '{path}')"

    def json_list_has(self, expr: str) -> str:
        """True when the JSON list of strings in ``expr`` holds the next parameter."""
        return f"list_contains(CAST({expr} AS VARCHAR[]), ?)"

    def regex_found(self, expr: str) -> str:
        """True when the next parameter (a regular expression) matches somewhere in ``expr``."""
        return f"regexp_matches({expr}, ?)"


class PostgresDialect(DuckDBDialect):
    name = "postgresql"
    _DOUBLE = re.compile(r"\bDOUBLE\b(?!\s+PRECISION)")

    def ddl(self, sql: str) -> str:
        return self._DOUBLE.sub("DOUBLE PRECISION", sql)

    def json_text(self, expr: str, key: Union[str, int]) -> str:
        field = str(key) if isinstance(key, int) else f"'{_field(key)}'"
        return f"(CAST({expr} AS json) ->> {field})"

    def json_list_has(self, expr: str) -> str:
        return f"jsonb_exists(CAST({expr} AS jsonb), ?)"

    def regex_found(self, expr: str) -> str:
        return f"({expr} ~ ?)"


DUCKDB = DuckDBDialect()
POSTGRES = PostgresDialect()


def dialect_of(handle: Any) -> DuckDBDialect:
    """The dialect of a store or of a cursor a store gave out (DuckDB's own cursors carry none)."""
    return getattr(handle, "dialect", DUCKDB)


def _field(key: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        raise ValueError(f"JSON field names in queries are plain words, not {key!r}")
    return key
