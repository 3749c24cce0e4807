"""sgdma.hw.tomlcache: the parse of a TOML data file is tomllib's, and is re-done whenever the file's bytes change
(a stale cache is impossible: an entry is used only for the very source text it was parsed from)."""
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from sgdma.hw import presets, tomlcache

SRC = str(Path(tomlcache.__file__).resolve().parents[2])
BUNDLED = sorted(str(p) for p in (*presets.directory().rglob("*.toml"),
                                  *(Path(SRC) / "sgdma" / "data").glob("*.toml")))


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty cache directory and an empty per-process memo."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(tomlcache, "_MEMO", {})
    return tmp_path / "cache" / "sgdma" / "toml"


def _tomllib(path):
    with open(path, "rb") as f:
        return tomllib.load(f)


def test_bundled_files_parse_as_tomllib_does_cold_and_from_the_cache(fresh):
    for path in BUNDLED:
        assert tomlcache.load(path) == _tomllib(path), path
    assert len(list(fresh.glob("*.json"))) == len(BUNDLED)        # one entry per package file
    # a fresh process reads them from the cache: the same documents, and tomllib never imported
    code = ("import json, sys\nfrom sgdma.hw import tomlcache\n"
            f"docs = [tomlcache.load(p) for p in {BUNDLED!r}]\n"
            "print(json.dumps({'tomllib': 'tomllib' in sys.modules, 'docs': docs}))")
    env = dict(os.environ, PYTHONPATH=SRC)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                         check=True)
    got = json.loads(out.stdout)
    assert got["tomllib"] is False
    assert got["docs"] == [_tomllib(p) for p in BUNDLED]


def test_changed_bytes_are_parsed_again_even_with_the_same_size_and_mtime(fresh, tmp_path, monkeypatch):
    monkeypatch.setattr(tomlcache, "_PACKAGE", str(tmp_path) + os.sep)     # cache this test's files on disk
    f = tmp_path / "p.toml"
    f.write_text('x = 1\nname = "a"\n')
    st = f.stat()
    assert tomlcache.load(f) == {"x": 1, "name": "a"}
    assert len(list(fresh.glob("p-*.json"))) == 1
    f.write_text('x = 2\nname = "b"\n')                              # same length
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))                  # and the old time stamps
    assert f.stat().st_size == st.st_size and f.stat().st_mtime_ns == st.st_mtime_ns
    assert tomlcache.load(f) == {"x": 2, "name": "b"}                # the process's memo does not hide it
    monkeypatch.setattr(tomlcache, "_MEMO", {})
    assert tomlcache.load(f) == {"x": 2, "name": "b"}                # nor the cache file (a new process)
    f.write_text('x = 1\nname = "a"\n')
    monkeypatch.setattr(tomlcache, "_MEMO", {})
    assert tomlcache.load(f) == {"x": 1, "name": "a"}


def test_damaged_or_foreign_cache_entries_are_ignored(fresh, tmp_path, monkeypatch):
    monkeypatch.setattr(tomlcache, "_PACKAGE", str(tmp_path) + os.sep)
    f = tmp_path / "q.toml"
    f.write_text("[t]\nv = 3.5\n")
    assert tomlcache.load(f) == {"t": {"v": 3.5}}
    (slot,) = fresh.glob("q-*.json")
    for junk in (b"\x00\xff not json", b"[1, 2]", b'{"source": 7, "doc": {}}',
                 json.dumps({"source": "[t]\nv = 9.0\n", "doc": {"t": {"v": 9.0}}}).encode()):   # another text's
        slot.write_bytes(junk)
        monkeypatch.setattr(tomlcache, "_MEMO", {})
        assert tomlcache.load(f) == {"t": {"v": 3.5}}, junk


def test_no_writable_cache_directory_is_no_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")                                            # a file where the directory should go
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setattr(tomlcache, "_MEMO", {})
    path = presets.directory() / "zcu111.toml"
    assert tomlcache.load(path) == _tomllib(path)


def test_values_json_cannot_hold_are_parsed_not_cached(fresh, tmp_path, monkeypatch):
    monkeypatch.setattr(tomlcache, "_PACKAGE", str(tmp_path) + os.sep)
    f = tmp_path / "d.toml"
    f.write_text("when = 2024-01-02\nnan = nan\ninf = -inf\n")
    doc = tomlcache.load(f)
    assert doc["when"] == _tomllib(f)["when"] and doc["inf"] == float("-inf") and doc["nan"] != doc["nan"]
    assert not list(fresh.glob("d-*.json"))


def test_bad_toml_is_reported_by_the_preset_loader(fresh, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"x = = 1\n")
    with pytest.raises(ValueError, match="cannot read it"):
        presets.load_part(bad)
    bad.write_bytes(b"x = \"\xff\"\n")                                # not UTF-8
    with pytest.raises(ValueError, match="cannot read it"):
        presets.load_part(bad)


def test_a_loaded_preset_is_a_private_copy(fresh):
    doc = presets.load("zcu111")
    value = doc["dma"]["data_width"]["value"]
    doc["dma"]["data_width"]["value"] = -1
    del doc["ddr"]
    again = presets.load("zcu111")
    assert again["dma"]["data_width"]["value"] == value and "ddr" in again


def test_a_preset_is_loaded_again_when_an_included_part_changes(fresh, tmp_path):
    """presets.load keeps the resolved document of a preset; a change in any file it was built from (here the
    included DRAM part) is seen by the next load."""
    import shutil

    board = tmp_path / "board"
    shutil.copytree(presets.directory(), board)
    part = board / "parts" / "ddr4-2400-micron-083e.toml"
    assert presets.load(board / "zcu111.toml")["dram"]["cl"]["value"] == 16
    part.write_text(part.read_text().replace("cl = { value = 16,", "cl = { value = 17,"))
    assert presets.load(board / "zcu111.toml")["dram"]["cl"]["value"] == 17
    part.unlink()
    with pytest.raises(ValueError, match="does not exist"):
        presets.load(board / "zcu111.toml")
