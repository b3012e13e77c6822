"""`anchorcheck plugins` — what is loaded: plugins with versions and hooks, and what they registered."""

from __future__ import annotations

import argparse
import json
import sys

from anchorcheck.verify.loading import default_plugins


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("plugins", help="list the loaded plugins")
    parser.add_argument("--format", default="text", choices=["text", "json"])
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    loaded = default_plugins()
    loaded.load_all()  # a listing shows everything, declared or not
    registry = loaded.registry
    registered = {
        "kinds": {k: v.plugin for k, v in sorted(registry.kinds.items())},
        "languages": {k: v.plugin for k, v in sorted(registry.languages.items())},
        "ecosystems": {k: v.plugin for k, v in sorted(registry.ecosystems.items())},
        "formats": {k: v.plugin for k, v in sorted(registry.formats.items())},
        "runners": {k: v.plugin for k, v in sorted(registry.runners.items())},
    }
    if args.format == "json":
        data = {"plugins": [info.to_dict() for info in loaded.infos], **registered}
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for info in loaded.infos:
        version = f" {info.version}" if info.version else ""
        dist = f" ({info.distribution}{version})" if info.distribution else ""
        status = f"  FAILED: {info.error}" if info.error else f"  hooks: {', '.join(info.hooks)}"
        print(f"{info.name}{dist}{status}")
    for table, items in registered.items():
        if items:
            print(f"{table}: " + ", ".join(f"{name} [{plugin}]" for name, plugin in items.items()))
    return 0
