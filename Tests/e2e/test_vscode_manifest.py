"""Static checks of the VS Code extension (building it needs npm, which CI does not have)."""
import json
import re

from conftest import ROOT
from lsp_client import LSPClient

VSCODE = ROOT / "editors" / "vscode"


def test_manifest_settings_match_the_schema():
    manifest = json.loads((VSCODE / "package.json").read_text())
    schema = json.loads((ROOT / "schemas" / "settings.schema.json").read_text())
    contributed = manifest["contributes"]["configuration"]["properties"]
    described = {f"pgn.{section}.{key}": spec for section, body in schema["properties"].items()
                 for key, spec in body["properties"].items()}
    assert set(contributed) == set(described)
    for key, spec in described.items():
        assert contributed[key]["type"] == spec["type"], key
        assert contributed[key]["default"] == spec["default"], key
    assert manifest["contributes"]["languages"][0]["extensions"] == [".pgn"]
    for path in ("main",):
        assert manifest[path].startswith("./out/")
    assert (VSCODE / manifest["contributes"]["languages"][0]["configuration"]).exists()
    json.loads((VSCODE / "language-configuration.json").read_text())


def test_settings_that_name_a_program_to_run_are_the_machine_s_own():
    # A workspace's .vscode/settings.json comes with the repository: it must not choose what runs.
    manifest = json.loads((VSCODE / "package.json").read_text())
    contributed = manifest["contributes"]["configuration"]["properties"]
    for key in ("pgn.engine.path", "pgn.server.path"):
        assert contributed[key].get("scope") == "machine", key


def test_every_contributed_command_is_one_the_server_advertises():
    manifest = json.loads((VSCODE / "package.json").read_text())
    client = LSPClient()
    try:
        capabilities = client.initialize()["capabilities"]
    finally:
        client.close()
    advertised = set(capabilities["executeCommandProvider"]["commands"])
    contributed = {c["command"] for c in manifest["contributes"]["commands"]}
    assert contributed and contributed <= advertised
    assert all(c.startswith("pgn.") for c in advertised)


def test_every_grammar_expression_compiles():
    manifest = json.loads((VSCODE / "package.json").read_text())
    grammar = json.loads((VSCODE / manifest["contributes"]["grammars"][0]["path"]).read_text())
    expressions = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("match", "begin", "end") and isinstance(value, str):
                    expressions.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(grammar)
    assert len(expressions) >= 10
    for expression in expressions:
        re.compile(expression)
    # The move and tag expressions match what they are for.
    move = re.compile(grammar["repository"]["move"]["match"])
    for san in ["e4", "Nf3", "exd5", "O-O-O", "e8=Q+", "Qh5#", "--", "Nbd7", "R1a3"]:
        assert move.fullmatch(san), san
    tag = re.compile(grammar["repository"]["tag"]["match"])
    assert tag.fullmatch('[Event "Paris \\"Opera\\""]')


def test_the_settings_reference_is_the_one_made_from_the_schema():
    import subprocess
    table = subprocess.run([str(ROOT / "scripts" / "settings-table")], capture_output=True, text=True,
                           check=True).stdout.rstrip("\n")
    assert table in (ROOT / "docs" / "settings.md").read_text()
