"""Build the contamination corpus as a git repository and apply its drift history.

`build(dest)` copies `project/` into `dest`, commits it as the base (tagged
`v1.0`), then applies one commit per drift step: the kinds of change that make
remembered facts go stale in real projects. Every edit is an exact text
replacement that must match, so a change to `project/` that a step no longer
fits fails loudly here instead of silently producing a weaker benchmark.
Commit dates and authors are fixed, so the history is reproducible.

    python corpora/contamination/drift.py /tmp/orders     # build it and print the steps
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parent / "project"
BASE_TAG = "v1.0"


@dataclass(frozen=True)
class Step:
    """One commit of the history: `base` first, then the drift steps in order."""

    name: str
    summary: str
    commit: str


def _edit(root: Path, path: str, old: str, new: str) -> None:
    target = root / path
    text = target.read_text(encoding="utf-8")
    if text.count(old) != 1:
        raise ValueError(f"{path}: expected exactly one occurrence of {old[:60]!r}")
    target.write_text(text.replace(old, new), encoding="utf-8")


def _write(root: Path, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


_MEMCACHED_CACHE = '''"""Orders cached in Memcached as JSON, with a TTL so that a missed invalidation heals itself."""

from __future__ import annotations

import json
from typing import Any

from pymemcache.client.base import Client

_PREFIX = "order:"


class OrderCache:
    def __init__(self, address: str, ttl: int) -> None:
        host, _, port = address.partition(":")
        self._client = Client((host, int(port or 11211)))
        self._ttl = ttl

    def get(self, order_id: str) -> dict[str, Any] | None:
        raw = self._client.get(_PREFIX + order_id)
        return None if raw is None else json.loads(raw)

    def put(self, order_id: str, order: dict[str, Any]) -> None:
        self._client.set(_PREFIX + order_id, json.dumps(order, sort_keys=True), expire=self._ttl)

    def invalidate(self, order_id: str) -> None:
        self._client.delete(_PREFIX + order_id)
'''

_REDIS_LOCK = '''[[package]]
name = "redis"
version = "5.2.0"
source = { registry = "https://index.invalid/simple" }
sdist = { url = "https://files.index.invalid/packages/'''

_PYMEMCACHE_LOCK = '''[[package]]
name = "pymemcache"
version = "4.0.0"
source = { registry = "https://index.invalid/simple" }
sdist = { url = "https://files.index.invalid/packages/d9/b6/pymemcache-4.0.0.tar.gz", hash = "sha256:27bf9bd1bbc1e20f83633208620d56de50f14185055e49504f4f5e94e94aff94", size = 70176 }
wheels = [
    { url = "https://files.index.invalid/packages/41/ba/pymemcache-4.0.0-py2.py3-none-any.whl", hash = "sha256:f507bc20e0dc8d562f8df9d872107a278df049fa496805c1431b926f3ddd0eab", size = 60772 },
]

'''


def swap_cache(root: Path) -> None:
    """Dependency swapped: the cache moves from Redis to Memcached (pymemcache)."""
    _edit(root, "pyproject.toml", '    "redis>=5.0,<6",\n', "")
    _edit(root, "pyproject.toml", '    "psycopg[binary]>=3.1,<4",\n', '    "psycopg[binary]>=3.1,<4",\n    "pymemcache>=4.0,<5",\n')
    lock = (root / "uv.lock").read_text(encoding="utf-8")
    start = lock.index(_REDIS_LOCK)
    end = lock.index("[[package]]", start + 1)
    lock = lock[:start] + lock[end:]
    before = lock.index('[[package]]\nname = "pytest"')
    lock = lock[:before] + _PYMEMCACHE_LOCK + lock[before:]
    lock = lock.replace('    { name = "redis" },\n', '    { name = "pymemcache" },\n')
    lock = lock.replace('    { name = "redis", specifier = ">=5.0,<6" },\n', '    { name = "pymemcache", specifier = ">=4.0,<5" },\n')
    (root / "uv.lock").write_text(lock, encoding="utf-8")
    (root / "src/ordersvc/cache/redis_cache.py").unlink()
    _write(root, "src/ordersvc/cache/memcached.py", _MEMCACHED_CACHE)
    _edit(root, "src/ordersvc/cache/__init__.py", "ordersvc.cache.redis_cache", "ordersvc.cache.memcached")
    _edit(root, "src/ordersvc/config.py", '"redis://localhost:6379/0"', '"localhost:11211"')
    _edit(root, ".env.example", "redis://localhost:6379/0", "localhost:11211")
    _edit(root, "README.md", "caches\nthem in Redis", "caches\nthem in Memcached")


_CONNECTION = '''"""One place that opens a channel, so the publisher and the worker declare the exchange alike."""

from __future__ import annotations

import pika

EXCHANGE = "orders"


def open_channel(amqp_url: str):
    connection = pika.BlockingConnection(pika.URLParameters(amqp_url))
    channel = connection.channel()
    channel.exchange_declare(exchange=EXCHANGE, exchange_type="topic", durable=True)
    return channel
'''


def refactor_queue(root: Path) -> None:
    """Module refactored: channel set-up moves out of OrderPublisher into queue/connection.py."""
    _write(root, "src/ordersvc/queue/connection.py", _CONNECTION)
    _edit(
        root,
        "src/ordersvc/queue/publisher.py",
        'import msgpack\nimport pika\n\nEXCHANGE = "orders"\n',
        "import msgpack\nimport pika\n\nfrom ordersvc.queue.connection import EXCHANGE, open_channel\n",
    )
    _edit(
        root,
        "src/ordersvc/queue/publisher.py",
        """    def _connect(self):
        connection = pika.BlockingConnection(pika.URLParameters(self._url))
        channel = connection.channel()
        channel.exchange_declare(exchange=EXCHANGE, exchange_type="topic", durable=True)
        return channel

""",
        "",
    )
    _edit(root, "src/ordersvc/queue/publisher.py", "self._channel = self._connect()", "self._channel = open_channel(self._url)")
    _edit(
        root,
        "src/ordersvc/queue/consumer.py",
        "from ordersvc.queue.publisher import EXCHANGE\n",
        "from ordersvc.queue.connection import EXCHANGE, open_channel\n",
    )
    _edit(
        root,
        "src/ordersvc/queue/consumer.py",
        "    connection = pika.BlockingConnection(pika.URLParameters(amqp_url))\n    channel = connection.channel()\n",
        "    channel = open_channel(amqp_url)\n",
    )
    _edit(root, "src/ordersvc/queue/consumer.py", "import msgpack\nimport pika\n", "import msgpack\n")


def rename_store(root: Path) -> None:
    """File renamed: store.py becomes persistence.py; its importers follow."""
    (root / "src/ordersvc/store.py").rename(root / "src/ordersvc/persistence.py")
    _edit(root, "src/ordersvc/api.py", "from ordersvc.store import OrderStore", "from ordersvc.persistence import OrderStore")
    _edit(root, "tools/migrate_legacy.py", "from ordersvc.store import OrderStore", "from ordersvc.persistence import OrderStore")


def rename_env(root: Path) -> None:
    """Environment variable renamed: ORDERS_REDIS_URL is ORDERS_CACHE_URL now that the cache is not Redis."""
    _edit(root, "src/ordersvc/config.py", "    redis_url: str\n", "    cache_url: str\n")
    _edit(root, "src/ordersvc/config.py", 'redis_url=os.environ.get("ORDERS_REDIS_URL"', 'cache_url=os.environ.get("ORDERS_CACHE_URL"')
    _edit(root, "src/ordersvc/api.py", "settings.redis_url", "settings.cache_url")
    _edit(root, ".env.example", "ORDERS_REDIS_URL=", "ORDERS_CACHE_URL=")


def delete_function(root: Path) -> None:
    """Function deleted: the legacy CSV export is switched off."""
    api = root / "src/ordersvc/api.py"
    text = api.read_text(encoding="utf-8")
    start = text.index("def legacy_export():")
    end = text.index("_SERVICES: dict = {}")
    api.write_text(text[:start] + text[end:], encoding="utf-8")
    _edit(root, "src/ordersvc/api.py", '    app.add_url_rule("/export/orders.csv", view_func=legacy_export, methods=["GET"])\n', "")
    _edit(root, "src/ordersvc/api.py", "import csv\nimport io\n\n", "")


def update_lockfiles(root: Path) -> None:
    """Lockfiles updated: Flask 3.0.3 -> 3.1.0 (and Werkzeug with it), lru-cache 10.2.0 -> 10.4.3."""
    lock = (root / "uv.lock").read_text(encoding="utf-8")
    for name, old, new in (("flask", "3.0.3", "3.1.0"), ("werkzeug", "3.0.6", "3.1.3")):
        header = f'name = "{name}"\nversion = "{old}"\n'
        if lock.count(header) != 1:
            raise ValueError(f"uv.lock: no single {name} {old} entry")
        lock = lock.replace(header, f'name = "{name}"\nversion = "{new}"\n').replace(f"{name}-{old}", f"{name}-{new}")
    (root / "uv.lock").write_text(lock, encoding="utf-8")
    npm = root / "web/package-lock.json"
    text = npm.read_text(encoding="utf-8")
    if text.count("lru-cache-10.2.0") != 1:
        raise ValueError("web/package-lock.json: no single lru-cache 10.2.0 entry")
    text = text.replace('"version": "10.2.0"', '"version": "10.4.3"').replace("lru-cache-10.2.0", "lru-cache-10.4.3")
    npm.write_text(text, encoding="utf-8")


DRIFT: list[tuple[str, Callable[[Path], None]]] = [
    ("swap-cache", swap_cache),
    ("refactor-queue", refactor_queue),
    ("rename-store", rename_store),
    ("rename-env", rename_env),
    ("delete-function", delete_function),
    ("update-lockfiles", update_lockfiles),
]
STEP_NAMES = ["base", *(name for name, _ in DRIFT)]


def _git(root: Path, *args: str, when: int = 0) -> str:
    stamp = f"2026-11-{2 + when:02d}T10:00:00+00:00"
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="Commerce Team",
        GIT_AUTHOR_EMAIL="commerce@example.com",
        GIT_COMMITTER_NAME="Commerce Team",
        GIT_COMMITTER_EMAIL="commerce@example.com",
        GIT_AUTHOR_DATE=stamp,
        GIT_COMMITTER_DATE=stamp,
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
    )
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=True)
    return done.stdout.strip()


def _commit(root: Path, message: str, when: int) -> str:
    _git(root, "add", "-A", when=when)
    _git(root, "commit", "-q", "-m", message, when=when)
    return _git(root, "rev-parse", "HEAD", when=when)


def build(dest: Path, *, until: str | None = None) -> list[Step]:
    """Create the repository in `dest` (which must not exist) and apply the drift up to `until`."""
    dest = Path(dest)
    shutil.copytree(PROJECT, dest, ignore=shutil.ignore_patterns("__pycache__"))
    _git(dest, "init", "-q", "-b", "main")
    steps = [Step("base", "ordersvc 1.0", _commit(dest, "ordersvc 1.0", 0))]
    _git(dest, "tag", BASE_TAG)
    for when, (name, apply) in enumerate(DRIFT, start=1):
        if until is not None and steps[-1].name == until:
            break
        apply(dest)
        summary = (apply.__doc__ or name).strip().splitlines()[0]
        steps.append(Step(name, summary, _commit(dest, summary, when)))
    return steps


def checkout(root: Path, step: Step) -> None:
    """Put the work tree at one step of the history (detached), as an agent's checkout would be."""
    _git(root, "checkout", "-q", "--detach", step.commit)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: drift.py DEST")
    for step in build(Path(sys.argv[1])):
        print(f"{step.commit[:10]}  {step.name:18} {step.summary}")
