#!/usr/bin/env bash
# The documentation site: regenerate docs/reference/{cli,settings,api,errors}.md from the code
# (devtools/reference), then build site/ with MkDocs Material, strict (any warning, such as a
# broken link or a page missing from the nav, fails the build). Offline: mkdocs.yml turns off
# everything that would fetch (fonts, the privacy and social plugins). A few seconds.
set -euo pipefail
export NO_MKDOCS_2_WARNING=1  # Material's end-of-life banner on every build: noise in CI logs
cd "$(dirname "$0")/.."
.venv/bin/python -m devtools.reference
.venv/bin/mkdocs build --strict --quiet
echo "built site/ ($(find site -name '*.html' | wc -l) pages)"
