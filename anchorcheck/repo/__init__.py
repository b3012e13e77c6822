"""The checkout: safe paths, git plumbing, listing, revisions, tree state, safe reading, settings, the plugin's Context."""
