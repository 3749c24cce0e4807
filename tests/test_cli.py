"""The sgdma command."""
import json

from click.testing import CliRunner

from sgdma.cli import main


def test_selftest_passes_and_writes_json(tmp_path):
    out = tmp_path / "selftest.json"
    res = CliRunner().invoke(main, ["selftest", "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "PASS" in res.output
    data = json.loads(out.read_text())
    assert data["ok"] and data["bytes"] > 0 and data["first_word_latency_ns"] > 0


def test_selftest_other_boards():
    for board in ("zynq7000", "pg021", "zcu102"):
        res = CliRunner().invoke(main, ["selftest", "--board", board, "--rounds", "2", "--packets", "8"])
        assert res.exit_code == 0, (board, res.output)


def test_selftest_is_deterministic(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for p in (a, b):
        CliRunner().invoke(main, ["selftest", "--seed", "7", "--rounds", "1", "--json", str(p)])
    da, db = json.loads(a.read_text()), json.loads(b.read_text())
    da.pop("wall_s"), db.pop("wall_s")
    assert da == db


def test_info_bad_board():
    res = CliRunner().invoke(main, ["info", "--board", "nope"])
    assert res.exit_code != 0 and "unknown board preset" in res.output


def test_every_command_module_is_registered_under_its_own_name():
    """The lazy registry and the modules agree: each cli module's click commands appear under the name they
    declare, and nothing else is registered (the modules are found on disk, not read from the registry)."""
    import importlib
    import pkgutil

    import click

    import sgdma.cli as cli

    declared = {}
    for mod in pkgutil.iter_modules(cli.__path__):
        if mod.name == "__main__":                                   # runs the command line when imported
            continue
        m = importlib.import_module(f"sgdma.cli.{mod.name}")
        for obj in vars(m).values():
            if isinstance(obj, click.Command) and obj.callback and obj.callback.__module__ == m.__name__:
                declared[id(obj)] = obj
    subs = {id(c) for g in declared.values() if isinstance(g, click.Group) for c in g.commands.values()}
    top = {c.name: c for i, c in declared.items() if i not in subs}
    ctx = click.Context(cli.main)
    assert sorted(cli.main.list_commands(ctx)) == sorted(top)
    for name in top:
        assert cli.main.get_command(ctx, name) is top[name]
