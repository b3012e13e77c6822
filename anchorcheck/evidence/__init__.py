"""Source and package evidence: the source index, facts, caches, the scan arena, the parse pool, stored results, freshness."""
