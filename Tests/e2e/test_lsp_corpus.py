"""Every editor feature on every corpus file (the project's, and the shared folder's when it is
there), through one server: no request fails, every range lies inside the document, and
formatting keeps every move and is idempotent."""
import pathlib

import pytest

from conftest import shared_files
from lsp_client import LSPClient

FILES = shared_files("corpus")
MOVE, DEPRECATED = 3, 1  # the legend's `function` type and `deprecated` modifier


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


class Text:
    """Positions in UTF-16 units, as the client speaks them."""

    def __init__(self, text):
        self.lines = text.split("\n")
        self.widths = [len(line.encode("utf-16-le")) // 2 for line in self.lines]

    def inside(self, position):
        line, character = position["line"], position["character"]
        return 0 <= line < len(self.lines) and 0 <= character <= self.widths[line] or \
            (line == len(self.lines) and character == 0)

    def range_inside(self, r):
        start, end = r["start"], r["end"]
        return self.inside(start) and self.inside(end) and (start["line"], start["character"]) <= (
            end["line"], end["character"])

    def slice(self, line, start, length):
        units = self.lines[line].encode("utf-16-le")
        return units[2 * start:2 * (start + length)].decode("utf-16-le")


def moves_of(tokens, text):
    """(line, character, SAN, playable) of every move token."""
    found, line, character = [], 0, 0
    for i in range(0, len(tokens), 5):
        delta_line, delta_start, length, kind, modifiers = tokens[i:i + 5]
        line += delta_line
        character = character + delta_start if delta_line == 0 else delta_start
        if kind == MOVE:
            found.append((line, character, text.slice(line, character, length), not modifiers & DEPRECATED))
    return found


@pytest.fixture(scope="module")
def client():
    c = LSPClient()
    c.initialize(options={"pgn": {"engine": {"hoverMs": 0}}})
    yield c
    c.close()


@pytest.mark.parametrize("name, path", FILES, ids=[name for name, _ in FILES])
def test_every_feature_on_a_corpus_file(client, name: str, path: pathlib.Path):
    source = decode(path.read_bytes())
    text = Text(source)
    uri = "file:///corpus/" + name
    doc = {"textDocument": {"uri": uri}}
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": len(text.lines), "character": 0}}
    client.open(uri, source)
    try:
        diagnostics = client.diagnostics(uri)
        assert all(text.range_inside(d["range"]) for d in diagnostics)

        symbols = client.request("textDocument/documentSymbol", doc)
        assert all(text.range_inside(s["range"]) and text.range_inside(s["selectionRange"]) for s in symbols)
        folds = client.request("textDocument/foldingRange", doc)
        assert all(0 <= f["startLine"] <= f["endLine"] < len(text.lines) for f in folds)
        tokens = client.request("textDocument/semanticTokens/full", doc)["data"]
        assert len(tokens) % 5 == 0
        moves = moves_of(tokens, text)
        ranged = client.request("textDocument/semanticTokens/range", {**doc, "range": whole})["data"]
        assert ranged == tokens
        hints = client.request("textDocument/inlayHint", {**doc, "range": whole})
        assert all(text.inside(h["position"]) for h in hints)
        actions = client.request("textDocument/codeAction", {**doc, "range": whole, "context": {"diagnostics": []}})
        assert isinstance(actions, list)

        # Hover, completion, selection and highlight on a sample of the moves.
        step = max(1, len(moves) // 15)
        for line, character, san, playable in moves[::step]:
            position = {"line": line, "character": character + 1}
            hover = client.request("textDocument/hover", {**doc, "position": position})
            if playable:
                assert hover and "FEN `" in hover["contents"]["value"], (san, line)
                assert text.range_inside(hover["range"])
            completion = client.request("textDocument/completion", {**doc, "position": position})
            items = completion["items"] if isinstance(completion, dict) else completion
            assert isinstance(items, list)
            (selection,) = client.request("textDocument/selectionRange", {**doc, "positions": [position]})
            assert text.range_inside(selection["range"])
            highlights = client.request("textDocument/documentHighlight", {**doc, "position": position}) or []
            assert all(text.range_inside(h["range"]) for h in highlights)

        # Formatting keeps every move and, once done, has nothing more to do.
        edits = client.request("textDocument/formatting", {**doc, "options": {"tabSize": 4, "insertSpaces": True}})
        assert all(text.range_inside(e["range"]) for e in edits)
        if edits:
            formatted_uri = uri + ".formatted"
            formatted = apply(source, text, edits)
            client.open(formatted_uri, formatted)
            client.diagnostics(formatted_uri)
            again = {"textDocument": {"uri": formatted_uri}}
            after = moves_of(client.request("textDocument/semanticTokens/full", again)["data"], Text(formatted))
            assert [m[2] for m in after] == [m[2] for m in moves]
            assert client.request("textDocument/formatting", {**again, "options": {}}) == []
            client.notify("textDocument/didClose", again)
    finally:
        client.notify("textDocument/didClose", doc)


def apply(source, text, edits):
    offsets = [0]
    for line in text.lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def offset(p):
        prefix = text.lines[p["line"]].encode("utf-16-le")[:2 * p["character"]].decode("utf-16-le") \
            if p["line"] < len(text.lines) else ""
        return offsets[p["line"]] + len(prefix)
    out, cursor = [], 0
    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"])):
        out.append(source[cursor:offset(edit["range"]["start"])])
        out.append(edit["newText"])
        cursor = offset(edit["range"]["end"])
    out.append(source[cursor:])
    return "".join(out)
