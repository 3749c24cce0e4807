"""docs/architecture.md matches the tree: every path it names exists, every C source folder is in it."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "architecture.md").read_text()


def test_every_path_in_the_architecture_doc_exists():
    paths = set(re.findall(r"\b((?:csrc|src|spec|scripts|tests|docs)/[A-Za-z0-9_./*-]+[A-Za-z0-9_*/])", DOC))
    assert len(paths) > 30
    missing = [p for p in sorted(paths) if not list(ROOT.glob(p.rstrip("/")))]
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_every_c_folder_and_python_subpackage_is_described():
    folders = [p.relative_to(ROOT).as_posix() for p in (ROOT / "csrc").rglob("*") if p.is_dir()]
    folders += [p.parent.relative_to(ROOT).as_posix() for p in (ROOT / "src" / "sgdma").glob("*/__init__.py")]
    missing = [f for f in folders if f + "/" not in DOC and f not in DOC]
    assert not missing, f"not in docs/architecture.md: {missing}"
