"""Which PyPI distribution provides an import, and which imports a distribution provides.

`import yaml` comes from PyYAML, `sklearn` from scikit-learn and
`google.cloud.storage` from google-cloud-storage. The answer must not depend
on what happens to be installed where anchorcheck runs, so it is built from,
in order of trust:

1. the project's own statements: `[tool.anchorcheck.plugin.pypi] import-names`
   and deptry's `[tool.deptry] package_module_name_map` in the root
   pyproject.toml, and the distributions of the root project and its uv
   workspace members with the packages each ships (the build backend's
   `packages` setting, else its src/ or flat layout);
2. a shipped table of well-known mismatches and namespace families
   (google-cloud-*, azure-*) mapped at submodule level;
3. identity with PEP 503 normalization (`import redis` -> redis,
   `import typing_extensions` -> typing-extensions).

This is the stable API the source-evidence helpers call: the two functions
below and `is_standard_library`. Names returned are PEP 503 normalized
distribution names, or dotted module names.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from anchorcheck.plugin import toml_loads, UnsafePathError
from anchorcheck_plugins.ecosystems.discovery import member_dirs
from anchorcheck_plugins.ecosystems.pypi_common import canonical
from anchorcheck_plugins.ecosystems.pypi_pyproject import workspace_members

if TYPE_CHECKING:
    from anchorcheck.plugin import Context

# distribution (any spelling) -> the top-level modules (or namespace submodules) it provides.
KNOWN: Mapping[str, tuple[str, ...]] = {
    "pyyaml": ("yaml",),
    "scikit-learn": ("sklearn",),
    "scikit-image": ("skimage",),
    "pillow": ("PIL",),
    "opencv-python": ("cv2",),
    "opencv-python-headless": ("cv2",),
    "opencv-contrib-python": ("cv2",),
    "opencv-contrib-python-headless": ("cv2",),
    "beautifulsoup4": ("bs4",),
    "python-dotenv": ("dotenv",),
    "protobuf": ("google.protobuf",),
    "googleapis-common-protos": ("google.api", "google.rpc", "google.type", "google.longrunning"),
    "google-api-core": ("google.api_core",),
    "google-auth": ("google.auth", "google.oauth2"),
    "google-api-python-client": ("googleapiclient",),
    "grpcio": ("grpc",),
    "grpcio-tools": ("grpc_tools",),
    "python-dateutil": ("dateutil",),
    "pyjwt": ("jwt",),
    "python-jose": ("jose",),
    "pymysql": ("pymysql",),
    "mysqlclient": ("MySQLdb",),
    "mysql-connector-python": ("mysql.connector",),
    "psycopg2-binary": ("psycopg2",),
    "psycopg-binary": ("psycopg",),
    "pyserial": ("serial",),
    "pyusb": ("usb",),
    "pycryptodome": ("Crypto",),
    "pycryptodomex": ("Cryptodome",),
    "pyopenssl": ("OpenSSL",),
    "python-magic": ("magic",),
    "python-multipart": ("multipart", "python_multipart"),
    "python-slugify": ("slugify",),
    "python-json-logger": ("pythonjsonlogger",),
    "python-docx": ("docx",),
    "python-pptx": ("pptx",),
    "pymupdf": ("fitz", "pymupdf"),
    "pygobject": ("gi",),
    "pywin32": ("win32api", "win32con", "win32com", "pywintypes"),
    "attrs": ("attr", "attrs"),
    "setuptools": ("setuptools", "pkg_resources", "_distutils_hack"),
    "typing-extensions": ("typing_extensions",),
    "msgpack-python": ("msgpack",),
    "pyzmq": ("zmq",),
    "ruamel-yaml": ("ruamel.yaml",),
    "dnspython": ("dns",),
    "email-validator": ("email_validator",),
    "markdown-it-py": ("markdown_it",),
    "pytest-asyncio": ("pytest_asyncio",),
    "faiss-cpu": ("faiss",),
    "faiss-gpu": ("faiss",),
    "tensorflow-gpu": ("tensorflow",),
    "tensorflow-cpu": ("tensorflow",),
    "torch": ("torch",),
    "pytorch-lightning": ("pytorch_lightning",),
    "lightning": ("lightning",),
    "huggingface-hub": ("huggingface_hub",),
    "sentence-transformers": ("sentence_transformers",),
    "opensearch-py": ("opensearchpy",),
    "elasticsearch-dsl": ("elasticsearch_dsl",),
    "apache-airflow": ("airflow",),
    "apache-beam": ("apache_beam",),
    "pyspark": ("pyspark",),
    "django-rest-framework": ("rest_framework",),
    "djangorestframework": ("rest_framework",),
    "django-cors-headers": ("corsheaders",),
    "django-environ": ("environ",),
    "flask-sqlalchemy": ("flask_sqlalchemy",),
    "sqlalchemy-utils": ("sqlalchemy_utils",),
    "pydantic-settings": ("pydantic_settings",),
    "discord-py": ("discord",),
    "python-telegram-bot": ("telegram",),
    "websocket-client": ("websocket",),
    "pyinstaller": ("PyInstaller",),
    "ipython": ("IPython",),
    "jupyter-core": ("jupyter_core",),
    "pyqt5": ("PyQt5",),
    "pyqt6": ("PyQt6",),
    "pyside6": ("PySide6",),
    "wxpython": ("wx",),
    "pygithub": ("github",),
    "python-gitlab": ("gitlab",),
    "gitpython": ("git",),
    "ldap3": ("ldap3",),
    "python-ldap": ("ldap",),
    "boto3-stubs": ("mypy_boto3",),
    "types-pyyaml": ("yaml-stubs",),
    "types-requests": ("requests-stubs",),
    "azure-core": ("azure.core",),
    "azure-identity": ("azure.identity",),
    "azure-cosmos": ("azure.cosmos",),
    "azure-storage-blob": ("azure.storage.blob",),
    "azure-storage-queue": ("azure.storage.queue",),
    "azure-storage-file-share": ("azure.storage.fileshare",),
    "azure-storage-file-datalake": ("azure.storage.filedatalake",),
    "azure-keyvault-secrets": ("azure.keyvault.secrets",),
    "azure-servicebus": ("azure.servicebus",),
    "azure-eventhub": ("azure.eventhub",),
    "azure-functions": ("azure.functions",),
    "google-cloud-pubsub": ("google.cloud.pubsub", "google.cloud.pubsub_v1", "google.pubsub", "google.pubsub_v1"),
    "google-cloud-storage": ("google.cloud.storage",),
    "google-cloud-bigquery": ("google.cloud.bigquery",),
    "google-cloud-core": ("google.cloud.client", "google.cloud.environment_vars", "google.cloud.obsolete"),
    "google-cloud-aiplatform": ("google.cloud.aiplatform", "vertexai"),
    "google-genai": ("google.genai",),
    "google-generativeai": ("google.generativeai",),
}

# Families whose distributions all live in one namespace package, one submodule each:
# (distribution prefix, namespace, how the rest of the name becomes the submodule).
_NAMESPACE_FAMILIES = (("google-cloud-", "google.cloud.", "_"), ("azure-", "azure.", "."))
# azure submodules that are themselves namespaces (azure.mgmt.compute, azure.storage.blob).
_AZURE_NESTED = frozenset({"mgmt", "storage", "keyvault", "ai", "monitor", "search", "data", "communication"})


def _table() -> tuple[dict[str, tuple[str, ...]], dict[str, list[str]]]:
    forward = {canonical(name): modules for name, modules in KNOWN.items()}
    backward: dict[str, list[str]] = {}
    for dist, modules in forward.items():
        for module in modules:
            backward.setdefault(module, []).append(dist)
    return forward, backward


_FORWARD, _BACKWARD = _table()


def is_standard_library(module: str) -> bool:
    """Whether the top-level module ships with CPython (`sqlite3`, `os.path`), so no distribution provides it."""
    return module.split(".", 1)[0] in sys.stdlib_module_names


def imports_for_distribution(name: str, context: Context | None = None) -> list[str]:
    """The modules a distribution provides, most trusted source first (never empty).

    `imports_for_distribution("PyYAML") == ["yaml"]`;
    `imports_for_distribution("google-cloud-storage") == ["google.cloud.storage"]`.
    """
    dist = canonical(name)
    project = _project_map(context).get(dist)
    if project:
        return list(project)
    if dist in _FORWARD:
        return list(_FORWARD[dist])
    for prefix, namespace, joiner in _NAMESPACE_FAMILIES:
        if dist.startswith(prefix) and len(dist) > len(prefix):
            return [namespace + dist[len(prefix):].replace("-", joiner)]
    return [dist.replace("-", "_")]


def distributions_for_import(module: str, context: Context | None = None) -> list[str]:
    """The distributions that may provide `module` (dotted), most trusted first.

    The longest known prefix wins (`google.cloud.storage.blob` ->
    google-cloud-storage); a standard-library module gives []; otherwise the
    identity fallback on the top-level name. Several answers mean the module
    is provided by alternatives (cv2: opencv-python or its headless builds).
    """
    if not module or is_standard_library(module):
        return []
    parts = module.split(".")
    project = _project_backward(context)
    for table in (project, _BACKWARD):
        for end in range(len(parts), 0, -1):
            found = table.get(".".join(parts[:end]))
            if found:
                return list(found)
    for prefix, namespace, _ in _NAMESPACE_FAMILIES:
        ns_parts = namespace.rstrip(".").split(".")
        tail = parts[len(ns_parts):]
        if parts[: len(ns_parts)] == ns_parts and tail:
            take = 2 if prefix == "azure-" and tail[0] in _AZURE_NESTED and len(tail) > 1 else 1
            return [canonical(prefix + "-".join(tail[:take]))]
    return [canonical(parts[0])]


# -- the project's own metadata ---------------------------------------------------


def _project_map(context: Context | None) -> dict[str, tuple[str, ...]]:
    if context is None:
        return {}
    return context.memo(("pypi_import_names", "project"), lambda: _read_project_map(context))


def _project_backward(context: Context | None) -> dict[str, list[str]]:
    backward: dict[str, list[str]] = {}
    for dist, modules in _project_map(context).items():
        for module in modules:
            backward.setdefault(module, []).append(dist)
    return backward


def _read_project_map(context: Context) -> dict[str, tuple[str, ...]]:
    """The root project and its uv workspace members, then deptry's map, then our own setting."""
    found: dict[str, tuple[str, ...]] = {}
    root = _pyproject_at(context, "")
    try:
        globs, exclude = workspace_members(context, "")
        members = member_dirs(context, "", globs, "pyproject.toml", exclude)
    except UnsafePathError:  # a pyproject.toml symlinked out of the repository: the root alone
        members = []
    for directory in ["", *members]:
        own = _own_distribution(context, root if not directory else _pyproject_at(context, directory), directory)
        if own:
            found[own[0]] = own[1]
    found.update(_name_map(_get(root, "tool", "deptry", "package_module_name_map")))
    found.update(_name_map(context.settings("pypi").get("import-names", {})))
    return found


def _get(table: Any, *keys: str) -> Any:
    """A nested value, or None when any level is missing or not a table (the file may be malformed)."""
    for key in keys:
        if not isinstance(table, dict):
            return None
        table = table.get(key)
    return table


def _name_map(table: Any) -> dict[str, tuple[str, ...]]:
    """`{dist = "mod"}` or `{dist = ["mod", ...]}`; entries of other types are ignored."""
    out: dict[str, tuple[str, ...]] = {}
    if not isinstance(table, dict):
        return out
    for dist, modules in table.items():
        if isinstance(modules, str):
            modules = [modules]
        if isinstance(modules, list) and modules and all(isinstance(m, str) for m in modules):
            out[canonical(str(dist))] = tuple(modules)
    return out


def _pyproject_at(context: Context, directory: str) -> dict[str, Any]:
    try:
        data = context.repo.read_bytes(f"{directory}/pyproject.toml" if directory else "pyproject.toml")
        parsed = toml_loads(data.decode("utf-8-sig"))
    except (OSError, ValueError, UnsafePathError):  # absent or broken (LimitError too): the pypi ecosystem reports that
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _own_distribution(context: Context, pyproject: dict[str, Any], directory: str) -> tuple[str, tuple[str, ...]] | None:
    """A project's own distribution and its top-level packages, read from build config, then layout."""
    name = _get(pyproject, "project", "name") or _get(pyproject, "tool", "poetry", "name")
    if not isinstance(name, str) or not name:
        return None
    packages = _configured_packages(pyproject) or _layout_packages(context, directory)
    dist = canonical(name)
    return dist, tuple(packages) if packages else (dist.replace("-", "_"),)


def _configured_packages(pyproject: dict[str, Any]) -> list[str]:
    candidates: list[Any] = []
    for keys in (("tool", "hatch", "build", "targets", "wheel", "packages"), ("tool", "setuptools", "packages")):
        value = _get(pyproject, *keys)
        candidates += value if isinstance(value, list) else []
    poetry_packages = _get(pyproject, "tool", "poetry", "packages")
    for entry in poetry_packages if isinstance(poetry_packages, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("include"), str):
            candidates.append(entry["include"])
    names = []
    for item in candidates:
        if isinstance(item, str) and item.strip("/"):
            top = item.strip("/").rsplit("/", 1)[-1].split(".")[0]
            if top.isidentifier() and top not in names:
                names.append(top)
    return names


def _layout_packages(context: Context, directory: str) -> list[str]:
    """Packages of a src/ or flat layout: `src/NAME/__init__.py` or `NAME/__init__.py` under the project."""
    prefix = f"{directory}/" if directory else ""
    names = []
    # Listed paths, not `files`: a package is a package whatever its `__init__.py` holds (no read each).
    for path in context.repo.paths(directory or None, named=["__init__.py"]):
        parts = path[len(prefix):].split("/")
        if (len(parts) == 3 and parts[0] == "src") or (len(parts) == 2 and parts[0] not in ("tests", "test", "docs")):
            top = parts[-2]
            if top.isidentifier() and top not in names:
                names.append(top)
    return names
