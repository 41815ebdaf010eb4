"""Opening names in the editor: the hover's line, the inlay hint, the `opening-tags`
diagnostic with its fix, and the source action that fills in the tags."""
import pytest

from lsp_client import LSPClient

URI = "file:///tmp/openings.pgn"
NAJDORF = "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 (5... g6 6. Be3) 6. Rb1 h6 *"
TEXT = f'[Event "x"]\n[ECO "C20"]\n\n{NAJDORF}\n\n[Event "y"]\n\n1. e4 e6 2. d4 d5 *\n'


@pytest.fixture
def client():
    c = LSPClient()
    yield c
    c.close()


def at(text, needle, line):
    return {"line": line, "character": text.split("\n")[line].index(needle)}


def test_hover_names_the_opening_of_the_line_the_move_is_in(client):
    client.initialize()
    client.open(URI, TEXT)
    hover = lambda needle: client.request("textDocument/hover", {"textDocument": {"uri": URI},
                                                                 "position": at(TEXT, needle, 3)})["contents"]["value"]
    assert "Opening: **B90 Sicilian Defense: Najdorf Variation**" in hover("a6")
    # In the variation: the Dragon, reached through the mainline's first moves.
    assert "Opening: **B72 Sicilian Defense: Dragon Variation**" in hover("Be3")
    # After the list's last named position, the name stays.
    assert "Opening: **B90 Sicilian Defense: Najdorf Variation**" in hover("h6")


def test_inlay_hint_where_the_name_was_reached_and_switchable(client):
    client.initialize()
    client.open(URI, TEXT)
    whole = {"textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0},
                                                      "end": {"line": 8, "character": 0}}}
    hints = [(h["label"], h["position"]) for h in client.request("textDocument/inlayHint", whole)]
    # At the end of the line of the move that reached the name, not among the moves.
    najdorf = {"line": 3, "character": len(NAJDORF)}
    # 1... e6 is the French Defense, 2. d4 its Normal Variation, 2... d5 the French Defense
    # again: the name of the last move that changed it.
    french = {"line": 7, "character": len("1. e4 e6 2. d4 d5 *")}
    assert ("B90 Sicilian Defense: Najdorf Variation", najdorf) in hints
    assert ("C00 French Defense", french) in hints
    client.notify("workspace/didChangeConfiguration", {"settings": {"pgn": {"inlayHints": {"opening": False}}}})
    labels = [h["label"] for h in client.request("textDocument/inlayHint", whole)]
    assert not any("Defense" in label for label in labels)


def test_tags_that_disagree_get_a_diagnostic_and_a_fix_and_can_be_filled_in(client):
    client.initialize()
    client.open(URI, TEXT)
    diagnostics = [d for d in client.diagnostics(URI) if d.get("code") == "opening-tags"]
    assert [d["message"] for d in diagnostics] == [
        'The moves reach B90 Sicilian Defense: Najdorf Variation, but the ECO tag says "C20"']
    assert diagnostics[0]["severity"] == 3 and diagnostics[0]["range"]["start"] == {"line": 1, "character": 5}
    fixes = client.request("textDocument/codeAction", {
        "textDocument": {"uri": URI}, "range": diagnostics[0]["range"],
        "context": {"diagnostics": diagnostics, "only": ["quickfix"]}})
    assert [f["title"] for f in fixes] == ['Set ECO to "B90"']
    assert fixes[0]["edit"]["changes"][URI][0]["newText"] == '"B90"'
    # The source actions: this game, and every game of the file.
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": URI}, "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}},
        "context": {"diagnostics": [], "only": ["source.fillOpeningTags"]}})
    assert [a["title"] for a in actions] == ["Fill in ECO and Opening tags",
                                            "Fill in ECO and Opening tags of every game"]
    every = actions[1]["edit"]["changes"][URI]
    assert [e["newText"] for e in every] == [
        '"B90"', '\n[Opening "Sicilian Defense: Najdorf Variation"]', '\n[ECO "C00"]\n[Opening "French Defense"]']
    # Switched off, the diagnostic goes.
    client.notify("workspace/didChangeConfiguration", {"settings": {"pgn": {"diagnostics": {"openingTags": False}}}})
    assert not [d for d in client.diagnostics(URI) if d.get("code") == "opening-tags"]


def test_the_fill_commands_apply_the_tags_through_the_client(client):
    client.initialize()
    client.open(URI, TEXT)
    # The second game, by a position in it: its tags are added after its last one.
    one = client.request("workspace/executeCommand", {
        "command": "pgn.fillOpeningTags", "arguments": [URI, {"line": 6, "character": 3}]})
    assert one == {"applied": True, "games": 1}
    (edit,) = [r for r in client.server_requests if r["method"] == "workspace/applyEdit"]
    assert [e["newText"] for e in edit["params"]["edit"]["changes"][URI]] == [
        '\n[ECO "C00"]\n[Opening "French Defense"]']
    every = client.request("workspace/executeCommand", {"command": "pgn.fillAllOpeningTags", "arguments": [URI]})
    assert every == {"applied": True, "games": 2}
    # Once the tags are right there is nothing to send.
    right = '[ECO "C00"]\n[Opening "French Defense"]\n\n1. e4 e6 2. d4 d5 *\n'
    client.open("file:///tmp/right.pgn", right)
    same = client.request("workspace/executeCommand", {
        "command": "pgn.fillAllOpeningTags", "arguments": ["file:///tmp/right.pgn"]})
    assert same == {"applied": False, "games": 0}
    assert len([r for r in client.server_requests if r["method"] == "workspace/applyEdit"]) == 2
