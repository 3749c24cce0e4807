"""MkDocs hook (mkdocs.yml `hooks:`): the example reports become part of the site, generated at build time by
the commands themselves (scripts/docs_examples.py), so the pages embed what this sgdma writes today.
SGDMA_DOCS_EXAMPLES=DIR reuses reports already written there (DIR/<name>/report.html)."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parent))
import docs_examples  # noqa: E402

_tmp = None


def on_files(files, config):
    global _tmp
    given = os.environ.get("SGDMA_DOCS_EXAMPLES")
    if given and all((Path(given) / n / "report.html").exists() for n in docs_examples.EXAMPLES) and \
            (Path(given) / "compare" / "compare.html").exists():
        reports = {n: Path(given) / n / "report.html" for n in docs_examples.EXAMPLES}
        reports["compare"] = Path(given) / "compare" / "compare.html"
    else:
        _tmp = tempfile.TemporaryDirectory(prefix="sgdma-docs-")
        reports = docs_examples.run(Path(given or _tmp.name))
    for name, path in reports.items():
        files.append(File.generated(config, f"examples/{name}/{path.name}", abs_src_path=str(path)))
    return files


def on_page_content(html, page, config, files):
    # mkdocs-click 0.9 tests a default against None; click >= 8.3 marks "no default" with its UNSET sentinel,
    # which the options tables would print verbatim
    return html.replace("<code>Sentinel.UNSET</code>", "None")


def on_post_build(config):
    if _tmp is not None:
        _tmp.cleanup()
