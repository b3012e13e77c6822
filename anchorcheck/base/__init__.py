"""Tools that know nothing of anchors: lazy regexes, globs, bounded parsing, the memo, entry points, the code signature."""
