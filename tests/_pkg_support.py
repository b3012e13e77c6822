"""Shared helpers for the package-evidence tests: the real-manifest corpus and small fixture repos."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorcheck import Verifier
from anchorcheck.repo.config import Config
from anchorcheck.evidence.packages import PackageIndex
from tests.conftest import shared_corpus
from tests.conftest import write_tree as write

__all__ = ["MANIFESTS", "corpus", "index", "names", "needs_corpus", "verdict", "verifier", "write"]


MANIFESTS = shared_corpus("manifests")
needs_corpus = pytest.mark.skipif(MANIFESTS is None, reason="shared/corpora/manifests is not beside the checkout")


def corpus(name: str) -> Path:
    assert MANIFESTS is not None
    return MANIFESTS / name


def verifier(root: Path) -> Verifier:
    """A Verifier with default settings, so a fixture's pyproject.toml is read only as a manifest."""
    return Verifier(root, config=Config())


def index(root: Path, ecosystem: str, scope: str | None = None) -> PackageIndex:
    v = verifier(root)
    return v.registry.ecosystems[ecosystem].read(v.context, scope)


def names(idx: PackageIndex, relation: str, group: str | None = None, member: str | None = None) -> set[str]:
    """The names declared with a relation (and group, and member when given)."""
    return {
        d.name
        for d in idx.declarations
        if d.relation == relation and (group is None or d.group == group) and (member is None or d.member == member)
    }


def verdict(root: Path, anchor: str) -> str:
    return verifier(root).check(anchor).verdict.value
