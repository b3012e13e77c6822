"""Loading plugins: entry points of the `anchorcheck` group, each imported when first needed, isolated from each other.

A plugin may declare what it registers, in a plain dict its distribution
names under the `anchorcheck.provides` entry-point group (same entry-point
name as in `anchorcheck`):

    {"kinds": ["pkg"], "ecosystems": ["pypi"], "formats": ["markdown"],
     "languages": {"python": {"extensions": [".py", ".pyi"], "filenames": []}},
     "runners": {"npm": ["npm", "pnpm", "npx"]}, "hooks": ["verify_anchor"]}

The registry then knows those names from the start, and the plugin module is
imported only when one of them is used: a `pkg:` anchor, a `.py` file to
parse, a command `npm` runs, a memory file to read. A plugin that declares
nothing (or something unreadable) is imported at once, as it always was, so
no existing plugin breaks. `anchorcheck plugins` imports them all.

A plugin that fails to import, misspells a hook or raises while registering
is left out with a warning naming it; the rest load. The environment variable
ANCHORCHECK_PLUGINS (comma-separated entry-point names) restricts which load.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pluggy

from anchorcheck.model import anchors, hookspecs
from anchorcheck.model.anchors import Anchor
from anchorcheck.base.entrypoints import entry_points
from anchorcheck.model.registry import AnchorKind, Declared, Registry, RegistrationError, Runner, Table

if TYPE_CHECKING:
    from anchorcheck.repo.config import Config

ENTRY_POINT_GROUP = "anchorcheck"
PROVIDES_GROUP = "anchorcheck.provides"
BUILTIN_PACKAGE = "anchorcheck_plugins"  # the plugins that ship with anchorcheck
ONLY_ENV = "ANCHORCHECK_PLUGINS"

_REGISTRATION_HOOKS = {
    "register_anchor_kinds": ("kinds", "prefix"),
    "register_languages": ("languages", "name"),
    "register_ecosystems": ("ecosystems", "name"),
    "register_memory_formats": ("formats", "name"),
    "register_runners": ("runners", "name"),
}
_HOOK_OF_TABLE = {table: hook for hook, (table, _) in _REGISTRATION_HOOKS.items()}
_DISPATCH_HOOKS = frozenset({"verify_anchor"})
_PARSED_HELD = 4096  # anchor texts whose parse a plugin set keeps


class PluginWarning(UserWarning):
    """A plugin was left out; the message names it and says why."""


class PluginInfo:
    """What `anchorcheck plugins` shows about one loaded, declared or failed plugin.

    `hooks` are the hooks the plugin implements (those it declared, until it
    is imported); `distribution` and `version` are read from its
    distribution's metadata when first asked for.
    """

    __slots__ = ("name", "module", "hooks", "error", "entry_point")  # a plain class, not a dataclass: nothing compares or copies it, and a dataclass's generated methods cost every check ~0.5 ms at import

    def __init__(self, name: str, module: str, entry_point: Any = None) -> None:
        self.name = name
        self.module = module
        self.hooks: list[str] = []
        self.error: str | None = None
        self.entry_point = entry_point

    @property
    def distribution(self) -> str | None:
        return _identity(self.entry_point)[0]

    @property
    def version(self) -> str | None:
        return _identity(self.entry_point)[1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "module": self.module,
            "distribution": self.distribution,
            "version": self.version,
            "hooks": self.hooks,
            "error": self.error,
        }


# Reading a distribution's METADATA parses an email message: once per distribution, and only for
# whoever shows it (`anchorcheck plugins`), never on the way to a check.
_IDENTITIES: dict[object, tuple[str | None, str | None]] = {}


def _identity(ep: Any) -> tuple[str | None, str | None]:
    if ep is None:
        return None, None
    key = getattr(ep, "dist_path", None) or id(ep.dist)  # importlib's entry points share one dist object
    if key not in _IDENTITIES:
        meta = ep.dist.metadata if ep.dist is not None else None
        _IDENTITIES[key] = (meta["Name"], meta["Version"]) if meta else (None, None)
    return _IDENTITIES[key]


class PluginSet:
    """A plugin manager together with what its plugins registered or declared.

    Declared plugins are imported on demand, through the registry's tables
    (`load`) or `hook_impls`; `load_all()` imports every one of them.
    """

    def __init__(self, manager: pluggy.PluginManager, registry: Registry, infos: list[PluginInfo]) -> None:
        self.manager = manager
        self.registry = registry
        self.infos = infos
        self._waiting: dict[str, Any] = {}  # entry-point name -> entry point, declared and not imported yet
        self._hooks: dict[str, list[str]] = {}  # dispatch hook -> declared plugins that implement it
        self._lock = threading.RLock()  # a parse pool's threads may ask for the same language at once
        self._parsed: dict[str, Anchor] = {}  # anchor text -> its parse (`parse`)
        for table in registry.tables():
            table.load = self.load

    def parse(self, text: str) -> Anchor:
        """An anchor's text parsed against the registered kinds, once per text: a long-lived Verifier
        parsed every anchor again at each recall (a tenth of a recall after an edit). What a kind parses
        a value into is immutable (a string, a named tuple, a frozen dataclass), so one parse serves
        every check; a text that does not parse raises each time. Kinds are only ever added (a declared
        plugin loaded on first use), never changed, so a parse stays what it was."""
        anchor = self._parsed.get(text)
        if anchor is None:
            anchor = anchors.parse_anchor(text, self.registry.kinds)
            if len(self._parsed) >= _PARSED_HELD:
                self._parsed.clear()
            self._parsed[text] = anchor
        return anchor

    def hook_impls(self, hook: str) -> list[pluggy.HookImpl]:
        """Implementations in pluggy's call order (the first one called is first)."""
        self.load(self._hooks.get(hook, ()))
        return list(reversed(getattr(self.manager.hook, hook).get_hookimpls()))

    def load(self, names: Iterable[str]) -> None:
        """Import the declared plugins named (in that order) and collect what they register."""
        with self._lock:
            for name in names:
                ep = self._waiting.pop(name, None)
                if ep is None:
                    continue
                info = next(i for i in self.infos if i.name == name)
                plugin = _import(ep, info)
                if plugin is not None:
                    _register_all(self.manager, [(plugin, info)], self.registry)
                    _rank_runners(self)  # a runner it registered undeclared takes its rank too
                for table in self.registry.tables():
                    for key in table.settle(name):
                        if info.error is None:
                            warnings.warn(
                                f"plugin {name!r} declared {table.name[:-1]} {key!r} but did not register it", PluginWarning, stacklevel=2
                            )

    def load_all(self) -> None:
        """Import every declared plugin (what a full listing needs)."""
        self.load(list(self._waiting))

    def declare(self, ep: Any, info: PluginInfo, provides: dict[str, Any]) -> None:
        """Put what a plugin declared in the registry, and keep its entry point for when one of it is used."""
        self._waiting[info.name] = ep
        info.hooks = sorted({hook for table, hook in _HOOK_OF_TABLE.items() if provides.get(table)} | set(provides.get("hooks", ())))
        for hook in provides.get("hooks", ()):
            self._hooks.setdefault(hook, []).append(info.name)
        plugins = (info.name,)
        for key in provides.get("kinds", ()):
            self.registry.kinds.declare(key, Declared(plugins))
        ecosystems = provides.get("ecosystems", ())
        for key in ecosystems:
            languages = ecosystems[key].get("languages", ()) if isinstance(ecosystems, dict) else ()
            self.registry.ecosystems.declare(key, Declared(plugins, languages=tuple(languages)))
        for key in provides.get("formats", ()):
            self.registry.formats.declare(key, Declared(plugins))
        for key, files in provides.get("languages", {}).items():
            declared = Declared(plugins, tuple(files.get("extensions", ())), tuple(files.get("filenames", ())),
                                source_roots=tuple(files.get("source_roots", ())))
            self.registry.languages.declare(key, declared)
        for key, programs in provides.get("runners", {}).items():
            self.registry.runners.declare(key, Declared(plugins, programs=tuple(programs)))


class _Manager(pluggy.PluginManager):
    """pluggy's manager, which looks at a plugin module's hook functions only, not at each of its globals."""

    def parse_hookimpl_opts(self, plugin: object, name: str) -> Any:
        if isinstance(plugin, ModuleType) and not hasattr(vars(plugin).get(name), f"{self.project_name}_impl"):
            return None  # an import or a constant: pluggy's static lookup of every one costs more than the module
        return super().parse_hookimpl_opts(plugin, name)


def only_from_env() -> list[str] | None:
    """The names ANCHORCHECK_PLUGINS allows, or None when it is unset (load everything)."""
    raw = os.environ.get(ONLY_ENV)
    if raw is None:
        return None
    return [name.strip() for name in raw.split(",") if name.strip()]


def load_plugins(
    only: Iterable[str] | None = None, extra: Sequence[object] = ()
) -> PluginSet:
    """The plugin set of entry-point plugins (restricted to `only` when given) plus `extra` plugin objects.

    Plugins that declare what they provide are imported on first use; the
    others, and `extra`, at once.
    """
    manager = _Manager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    allowed = set(only) if only is not None else None
    found = entry_points(ENTRY_POINT_GROUP, PROVIDES_GROUP)
    declarations = {ep.name: ep for ep in found[PROVIDES_GROUP]}
    plugins = PluginSet(manager, Registry(), [])
    now: list[tuple[object, PluginInfo]] = []
    for ep in sorted(found[ENTRY_POINT_GROUP], key=lambda e: e.name, reverse=True):
        if allowed is not None and ep.name not in allowed:
            continue
        info = PluginInfo(name=ep.name, module=ep.value, entry_point=ep)
        plugins.infos.insert(0, info)
        provides = _declaration(declarations.get(ep.name))
        if provides is not None:
            plugins.declare(ep, info, provides)
            continue
        plugin = _import(ep, info)
        if plugin is not None:
            now.insert(0, (plugin, info))
    for index, plugin in enumerate(extra):
        name = getattr(plugin, "__name__", None) or f"{type(plugin).__name__}-{index}"
        info = PluginInfo(name=name, module=name)
        plugins.infos.append(info)
        now.append((plugin, info))
    _register_all(manager, now, plugins.registry)
    _rank_runners(plugins)
    _warn_shared_programs(plugins.registry.runners)
    return plugins


def _declaration(ep: Any) -> dict[str, Any] | None:
    """A plugin's declaration of what it provides, or None (import it now) when it has none or it is unreadable."""
    if ep is None:
        return None
    try:
        provides = ep.load()
    except Exception as exc:  # noqa: BLE001 - an unreadable declaration only costs laziness
        warnings.warn(f"plugin {ep.name!r}: its declaration is unreadable ({type(exc).__name__}: {exc}), imported at once", PluginWarning, stacklevel=3)
        return None
    problem = _malformed(provides)
    if problem:
        warnings.warn(f"plugin {ep.name!r}: its declaration {problem}, imported at once", PluginWarning, stacklevel=3)
        return None
    return provides  # type: ignore[no-any-return]


def _malformed(provides: object) -> str | None:
    if not isinstance(provides, dict):
        return f"is a {type(provides).__name__}, not a dict"
    unknown = set(provides) - {*_HOOK_OF_TABLE, "hooks"}
    if unknown:
        return f"has unknown keys {sorted(unknown)}"
    for table in ("kinds", "formats"):
        if not _strings(provides.get(table, [])):
            return f"{table!r} is not a list of names"
    ecosystems = provides.get("ecosystems", [])
    if not _strings(ecosystems) and not (
        isinstance(ecosystems, dict)
        and all(isinstance(v, dict) and set(v) <= {"languages"} and _strings(v.get("languages", [])) for v in ecosystems.values())
    ):
        return "'ecosystems' is neither a list of names nor {name: {'languages': [...]}}"
    if not _strings(provides.get("hooks", [])) or not set(provides.get("hooks", [])) <= _DISPATCH_HOOKS:
        return f"'hooks' is not a list of {sorted(_DISPATCH_HOOKS)}"
    languages, runners = provides.get("languages", {}), provides.get("runners", {})
    if not isinstance(languages, dict) or not all(
        isinstance(files, dict) and set(files) <= {"extensions", "filenames", "source_roots"} and all(_strings(v) for v in files.values())
        for files in languages.values()
    ):
        return "'languages' is not {name: {'extensions': [...], 'filenames': [...], 'source_roots': [...]}}"
    if not isinstance(runners, dict) or not all(_strings(programs) for programs in runners.values()):
        return "'runners' is not {name: [program, ...]}"
    return None


def _strings(value: object) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)


def _import(ep: Any, info: PluginInfo) -> object | None:
    try:
        return ep.load()
    except Exception as exc:  # a broken plugin must not stop the others
        _fail(info, f"failed to import: {type(exc).__name__}: {exc}")
        return None


def _register_all(manager: pluggy.PluginManager, plugins: list[tuple[object, PluginInfo]], registry: Registry) -> None:
    """Register plugins with pluggy, then collect their registrations, table by table, in pluggy's call order."""
    names = set()
    for plugin, info in plugins:
        if _register(manager, plugin, info):
            names.add(info.name)
    by_name = {info.name: info for _, info in plugins}
    for hook, (table, key) in _REGISTRATION_HOOKS.items():
        for impl in reversed(getattr(manager.hook, hook).get_hookimpls()):
            if impl.plugin_name in names:
                _collect(impl, hook, table, key, registry, by_name.get(impl.plugin_name))


def _register(manager: pluggy.PluginManager, plugin: object, info: PluginInfo) -> bool:
    try:
        manager.register(plugin, name=info.name)
        manager.check_pending()
    except (pluggy.PluginValidationError, ValueError) as exc:
        if manager.is_registered(plugin):
            manager.unregister(plugin)
        _fail(info, str(exc))
        return False
    info.hooks = sorted(caller.name for caller in manager.get_hookcallers(plugin) or [])
    return True


def _collect(impl: pluggy.HookImpl, hook: str, table: str, key: str, registry: Registry, info: PluginInfo | None) -> None:
    register = _registrar(registry, table, key, impl.plugin_name)
    try:
        impl.function(register=register)
    except Exception as exc:  # isolate: the plugin's other registrations still count
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


def _rank_runners(plugins: PluginSet) -> None:
    """Order the runners so that `Registry.runner_for` gives a program two runners claim to the one a user
    chose: a plugin installed beside anchorcheck (or passed in code) before a built-in one, and between two
    of the same sort the plugin whose name sorts first. Declared runners are ranked by their declaration,
    unimported."""
    builtin = {info.name for info in plugins.infos if info.module.startswith(BUILTIN_PACKAGE + ".")}
    plugins.registry.runners.reorder(lambda entry: (_owner(entry) in builtin, _owner(entry)))


def _warn_shared_programs(runners: Table[Runner]) -> None:
    """Warn once per pair of runners that claim one program, naming both plugins (from declarations: no import)."""
    ranked = [(name, entry) for name, entry in runners.entries()]
    for index, (winner, first) in enumerate(ranked):
        for loser, second in ranked[index + 1:]:
            shared = [p for p in second.programs if p in first.programs]
            if shared:
                warnings.warn(
                    f"runners {winner!r} (plugin {_owner(first)!r}) and {loser!r} (plugin {_owner(second)!r}) "
                    f"both claim {', '.join(shared)}: {_owner(first)!r} checks {'it' if len(shared) == 1 else 'them'}; "
                    f"leave one plugin out (the `plugins` setting or {ONLY_ENV}) to choose",
                    PluginWarning,
                    stacklevel=4,
                )


def _owner(entry: Any) -> str:
    """The plugin a registry entry comes from, whether it is registered or only declared."""
    return str(entry.plugins[0] if isinstance(entry, Declared) else entry.plugin)


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


def parse_anchor(text: str, kinds: Mapping[str, AnchorKind] | None = None) -> Anchor:
    """`anchorcheck.parse_anchor`: one anchor against `kinds`, by default those the loaded plugins registered.

    The grammar (`anchorcheck.model.anchors.parse_anchor`) is handed its kinds; knowing which plugins
    are loaded is this layer's business, not the vocabulary's.
    """
    return anchors.parse_anchor(text, default_registry().kinds if kinds is None else kinds)


def plugins_for(only: Sequence[str] | None, config: Config, extra: Sequence[object]) -> PluginSet:
    """The plugins a Verifier loads: those named by ANCHORCHECK_PLUGINS, else by the configuration's
    `plugins` key, else every installed one; with `extra` plugin objects beside them."""
    if only is None:
        env = only_from_env()
        only = env if env is not None else config.plugins
    if not extra:
        return default_plugins(only)
    return load_plugins(only, extra)
