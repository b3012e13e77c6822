"""The hypothesis side of the fuzz targets: one bounded property per parser, shared by tests/test_fuzz_*.py."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._fuzz_targets import Target, exercise, mutate

# Per parser: a few dozen inputs keep the whole fuzz part of the suite near a minute on a loaded
# machine; benchmarks/hostile.py runs the campaign of 20,000 per parser. A parse of a few KB that
# takes seconds is the super-linear kind of bug the campaign hunted.
EXAMPLES = 25
DEADLINE = timedelta(seconds=5)


def _input(target: Target) -> st.SearchStrategy[bytes]:
    built = st.builds(
        lambda rng, pick: target.generate(rng) if pick < 0 or not target.seeds else mutate(rng, target.seeds[pick % len(target.seeds)]),
        st.randoms(use_true_random=False),
        st.integers(min_value=-1, max_value=10_000),
    )
    return st.one_of(st.binary(max_size=512), built)


def fuzz(target: Target, root: Path) -> None:
    """Run the target on generated and mutated inputs: no error but the documented one, each within the deadline."""

    # Derandomized: the same inputs on every run, so the suite never meets a new slow input by chance
    # (the campaign is where new inputs are tried).
    @settings(
        max_examples=EXAMPLES, deadline=DEADLINE, database=None, derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(_input(target))
    def run(data: bytes) -> None:
        exercise(target, root, data)

    run()
