"""The documentation site builds with warnings as errors, a broken link fails it, and every command has its
page with options generated from the command."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("mkdocs", reason="the docs tools are not installed (pip install '.[docs]')")
pytest.importorskip("mkdocs_click", reason="mkdocs-click is not installed (pip install '.[docs]')")
pytest.importorskip("mkdocstrings", reason="mkdocstrings is not installed (pip install '.[docs]')")


def _build(config: Path, site: Path, examples: Path) -> subprocess.CompletedProcess:
    import sgdma

    # the sgdma under test (a checkout built in place, or the installed package CI tests), never src/ blindly:
    # an installed run has no compiled extension in src/
    here = str(Path(sgdma.__file__).resolve().parents[1])
    env = {**os.environ, "SGDMA_DOCS_EXAMPLES": str(examples), "NO_MKDOCS_2_WARNING": "1",
           "PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("site")
    r = _build(ROOT / "mkdocs.yml", tmp / "site", tmp / "examples")
    assert r.returncode == 0, r.stderr[-3000:]
    return tmp


def test_every_command_has_a_page_in_the_nav():
    from sgdma.cli import COMMANDS

    nav = (ROOT / "mkdocs.yml").read_text()
    for name, (module, attr) in COMMANDS.items():
        page = ROOT / "docs" / "commands" / f"{name}.md"
        assert page.exists(), f"no docs/commands/{name}.md"
        text = page.read_text()
        assert f":module: {module}" in text and f":command: {attr}" in text, name
        assert f"commands/{name}.md" in nav, name


def test_site_has_every_page_options_api_and_examples(built):
    site = built / "site"
    capture = (site / "commands" / "capture" / "index.html").read_text()
    assert "--find-max-rate" in capture and "--out" in capture            # options from the click command
    for page in (site / "commands").glob("*/index.html"):                   # "no default" reads None, not click's sentinel
        assert "UNSET" not in page.read_text(), page.parent.name
    api = (site / "api" / "index.html").read_text()
    assert "run_capture" in api and "Highest sample rate sustained without overflow" in api     # from docstrings
    for page in ("architecture", "performance", "fidelity", "getting-started", "reports"):
        assert (site / page / "index.html").exists(), page
    sys.path.insert(0, str(ROOT / "scripts"))
    import docs_examples

    for name in docs_examples.EXAMPLES:
        assert (site / "examples" / name / "report.html").stat().st_size > 100_000, name
        assert (ROOT / "docs" / "screenshots" / f"{name}.png").exists(), name
    assert "What moved" in (site / "examples" / "compare" / "compare.html").read_text()


def test_a_broken_link_fails_the_build(built, tmp_path):
    import yaml

    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs)
    (docs / "fidelity.md").write_text((docs / "fidelity.md").read_text() + "\n[gone](no-such-page.md)\n")
    cfg = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    cfg.update(docs_dir=str(docs), hooks=[str(ROOT / "scripts" / "docs_hooks.py")])
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(cfg))
    r = _build(tmp_path / "mkdocs.yml", tmp_path / "site", built / "examples")
    assert r.returncode != 0 and "no-such-page.md" in r.stderr
