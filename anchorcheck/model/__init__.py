"""The vocabulary: the anchor grammar, verdicts and results, the registry, hook specifications, mistakes."""
