"""Fixtures for the leaderboard tests: every store test runs on SQLite and, when
``REPTILE_TANK_TEST_PG_URL`` names a PostgreSQL server, on PostgreSQL too (one fresh schema per
test); without that variable the PostgreSQL variant is skipped with a visible reason."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from leaderboard import Store
from leaderboard.store import resolve_url
from service.store import schema_history

PG_ENV = "REPTILE_TANK_TEST_PG_URL"
BACKENDS = ("sqlite", "postgresql")


def _pg_schema_url(base: str) -> Iterator[str]:
    """Create a private schema on the test server, yield a URL that uses it, drop it after."""
    url = resolve_url(base)
    schema = f"rt_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    except sa.exc.OperationalError as error:
        admin.dispose()
        pytest.skip(f"PostgreSQL at {PG_ENV} not reachable: {str(error).splitlines()[0]}")
    try:
        scoped = url.update_query_dict({"options": f"-csearch_path={schema}"})
        yield scoped.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """A URL of an empty database: a SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
        return
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"PostgreSQL variant: set {PG_ENV} to a server URL to run it")
    yield from _pg_schema_url(base)


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    """An opened, migrated, empty store on each backend."""
    opened = Store(store_url, history=schema_history())
    try:
        yield opened
    finally:
        opened.close()
