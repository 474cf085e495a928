"""Data, installed with the package: the voice catalog (catalog.json), the subtitle style
presets (styles.json) and the pronunciation lexicons (lexicon/*.tsv). ``DIR`` is where they
are, in a checkout or in an installed wheel alike."""

from pathlib import Path

DIR = Path(__file__).resolve().parent
