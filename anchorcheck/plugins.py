"""Loading plugins: entry points of the `anchorcheck` group, isolated from each other.

A plugin that fails to import, misspells a hook or raises while registering
is left out with a warning naming it; the rest load. The environment variable
ANCHORCHECK_PLUGINS (comma-separated entry-point names) restricts which load.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import metadata
from typing import Any

import pluggy

from anchorcheck import hookspecs
from anchorcheck.registry import Registry, RegistrationError

ENTRY_POINT_GROUP = "anchorcheck"
BUILTIN_PACKAGE = "anchorcheck_plugins"  # the plugins that ship with anchorcheck
ONLY_ENV = "ANCHORCHECK_PLUGINS"

_REGISTRATION_HOOKS = {
    "register_anchor_kinds": ("kinds", "prefix"),
    "register_languages": ("languages", "name"),
    "register_ecosystems": ("ecosystems", "name"),
    "register_memory_formats": ("formats", "name"),
    "register_runners": ("runners", "name"),
}


class PluginWarning(UserWarning):
    """A plugin was left out; the message names it and says why."""


@dataclass
class PluginInfo:
    """What `anchorcheck plugins` shows about one loaded (or failed) plugin."""

    name: str
    module: str
    distribution: str | None = None
    version: str | None = None
    hooks: list[str] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "module": self.module,
            "distribution": self.distribution,
            "version": self.version,
            "hooks": self.hooks,
            "error": self.error,
        }


@dataclass
class PluginSet:
    """A plugin manager together with what its plugins registered."""

    manager: pluggy.PluginManager
    registry: Registry
    infos: list[PluginInfo]

    def hook_impls(self, hook: str) -> list[pluggy.HookImpl]:
        """Implementations in pluggy's call order (the first one called is first)."""
        return list(reversed(getattr(self.manager.hook, hook).get_hookimpls()))


def only_from_env() -> list[str] | None:
    """The names ANCHORCHECK_PLUGINS allows, or None when it is unset (load everything)."""
    raw = os.environ.get(ONLY_ENV)
    if raw is None:
        return None
    return [name.strip() for name in raw.split(",") if name.strip()]


def load_plugins(
    only: Iterable[str] | None = None, extra: Sequence[object] = ()
) -> PluginSet:
    """Load entry-point plugins (restricted to `only` when given) plus `extra` plugin objects."""
    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    allowed = set(only) if only is not None else None
    infos: list[PluginInfo] = []
    # Reading a distribution's METADATA parses an email message: once per distribution, not per
    # entry point (anchorcheck's own 21 cost 30 ms of every start twice over).
    identities: dict[int, tuple[str | None, str | None]] = {}
    for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if allowed is not None and ep.name not in allowed:
            continue
        dist = getattr(ep, "dist", None)
        if id(dist) not in identities:
            meta = dist.metadata if dist else None
            identities[id(dist)] = (meta["Name"], meta["Version"]) if meta else (None, None)
        distribution, version = identities[id(dist)]
        info = PluginInfo(name=ep.name, module=ep.value, distribution=distribution, version=version)
        infos.append(info)
        try:
            plugin = ep.load()
        except Exception as exc:  # a broken plugin must not stop the others
            _fail(info, f"failed to import: {type(exc).__name__}: {exc}")
            continue
        _register(manager, plugin, info)
    for index, plugin in enumerate(extra):
        name = getattr(plugin, "__name__", None) or f"{type(plugin).__name__}-{index}"
        info = PluginInfo(name=name, module=name)
        infos.append(info)
        _register(manager, plugin, info)
    registry = Registry()
    for hook, (table, key) in _REGISTRATION_HOOKS.items():
        _collect(manager, hook, table, key, registry, infos)
    _rank_runners(registry, infos)
    return PluginSet(manager, registry, infos)


def _register(manager: pluggy.PluginManager, plugin: object, info: PluginInfo) -> None:
    try:
        manager.register(plugin, name=info.name)
        manager.check_pending()
    except (pluggy.PluginValidationError, ValueError) as exc:
        if manager.is_registered(plugin):
            manager.unregister(plugin)
        _fail(info, str(exc))
        return
    info.hooks = sorted(caller.name for caller in manager.get_hookcallers(plugin) or [])


def _collect(
    manager: pluggy.PluginManager,
    hook: str,
    table: str,
    key: str,
    registry: Registry,
    infos: list[PluginInfo],
) -> None:
    by_name = {info.name: info for info in infos}
    for impl in reversed(getattr(manager.hook, hook).get_hookimpls()):
        register = _registrar(registry, table, key, impl.plugin_name)
        try:
            impl.function(register=register)
        except Exception as exc:  # isolate: the plugin's other registrations still count
            info = by_name.get(impl.plugin_name)
            message = f"{hook} raised {type(exc).__name__}: {exc}"
            if info is not None:
                _fail(info, message)
            else:
                warnings.warn(f"plugin {impl.plugin_name!r}: {message}", PluginWarning, stacklevel=2)


def _registrar(registry: Registry, table: str, key: str, plugin_name: str) -> Callable[[Any], None]:
    def register(item: Any) -> None:
        item = replace(item, plugin=plugin_name)
        try:
            registry.add(table, getattr(item, key), item)
        except RegistrationError as exc:
            warnings.warn(str(exc), PluginWarning, stacklevel=2)

    return register


def _rank_runners(registry: Registry, infos: list[PluginInfo]) -> None:
    """Order the runners so that `Registry.runner_for` gives a program two runners claim to the one a user
    chose: a plugin installed beside anchorcheck (or passed in code) before a built-in one, and between two
    of the same sort the plugin whose name sorts first; warn once per such pair, naming both plugins."""
    builtin = {info.name for info in infos if info.module.startswith(BUILTIN_PACKAGE + ".")}
    ranked = sorted(registry.runners.values(), key=lambda r: (r.plugin in builtin, r.plugin))
    registry.runners = {runner.name: runner for runner in ranked}
    for index, winner in enumerate(ranked):
        for loser in ranked[index + 1:]:
            shared = [p for p in loser.programs if p in winner.programs]
            if shared:
                warnings.warn(
                    f"runners {winner.name!r} (plugin {winner.plugin!r}) and {loser.name!r} (plugin {loser.plugin!r}) "
                    f"both claim {', '.join(shared)}: {winner.plugin!r} checks {'it' if len(shared) == 1 else 'them'}; "
                    f"leave one plugin out (the `plugins` setting or {ONLY_ENV}) to choose",
                    PluginWarning,
                    stacklevel=3,
                )


def _fail(info: PluginInfo, message: str) -> None:
    info.error = message
    warnings.warn(f"plugin {info.name!r} not loaded: {message}", PluginWarning, stacklevel=3)


@lru_cache(maxsize=4)
def _default(only: tuple[str, ...] | None) -> PluginSet:
    return load_plugins(only)


def default_plugins(only: Iterable[str] | None = None) -> PluginSet:
    """The process-wide (cached) plugin set for `only`, by default ANCHORCHECK_PLUGINS."""
    if only is None:
        only = only_from_env()
    return _default(tuple(sorted(only)) if only is not None else None)


def default_registry() -> Registry:
    return default_plugins().registry
