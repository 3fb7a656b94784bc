"""Fixtures of the security suite: a secret file and a local HTTP server that
hostile files point at, to prove irexec never reads the one nor calls the other."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from hostile_files import Env
from traps import Secret, Tripwire


@pytest.fixture(scope="session")
def tripwire() -> Iterator[Tripwire]:
    server = Tripwire()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def secret(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Secret]:
    trap = Secret(tmp_path_factory.mktemp("secret"))
    yield trap
    trap.close()


@pytest.fixture(scope="session")
def attack_env(secret: Secret, tripwire: Tripwire) -> Env:
    return Env(secret.path, tripwire.url)
