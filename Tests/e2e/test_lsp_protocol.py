"""The language server under hostile or unusual clients: wrong params, garbage frames, both
position encodings on multibyte text, settings."""
import json
import random

import pytest

from conftest import ROOT, shared
from lsp_client import LSPClient

SAMPLE = (ROOT / "samples" / "sample.pgn").read_text()
URI = "file:///tmp/sample.pgn"
FEATURES = ["textDocument/hover", "textDocument/inlayHint", "textDocument/documentSymbol",
            "textDocument/foldingRange", "textDocument/selectionRange", "textDocument/semanticTokens/full",
            "textDocument/semanticTokens/range", "textDocument/documentHighlight", "textDocument/completion",
            "textDocument/codeAction", "textDocument/diagnostic", "workspace/symbol", "workspace/executeCommand"]


@pytest.fixture
def client():
    c = LSPClient()
    yield c
    c.close()


def test_wrong_params_get_invalid_params_and_the_server_keeps_serving(client):
    client.initialize()
    client.open(URI, SAMPLE)
    rng = random.Random(7)
    bad_values = [None, 1, "x", [], {}, {"textDocument": 5}, {"textDocument": {"uri": 7}},
                  {"textDocument": {"uri": URI}, "position": "here"},
                  {"textDocument": {"uri": URI}, "range": {"start": 1}},
                  {"textDocument": {"uri": "file:///not/open.pgn"}, "position": {"line": 0, "character": 0}},
                  {"textDocument": {"uri": URI}, "position": {"line": -5, "character": 10 ** 9}},
                  {"textDocument": {"uri": URI}, "positions": [{"line": "a"}]}]
    for method in FEATURES:
        for params in bad_values:
            message = client.response(client.request_async(method, params))
            if "error" in message:
                assert message["error"]["code"] in (-32602, -32603), (method, params, message)
                assert message["error"]["code"] == -32602 or method == "workspace/executeCommand", message
    # Still serving: a well-formed request works.
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
    assert len(symbols) == 3
    # Random bytes and truncated frames in between requests.
    for _ in range(20):
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        client.send_raw(junk.replace(b"Content-Length", b"Content-Lengtx") + b"\r\n\r\n")
    body = json.dumps({"jsonrpc": "2.0", "id": 999, "method": "textDocument/documentSymbol",
                       "params": {"textDocument": {"uri": URI}}}).encode()
    client.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    assert len(client.response(999)["result"]) == 3
    assert client.shutdown() == 0


def test_huge_line_and_deep_nesting_documents(client):
    client.initialize()
    line = "[Event \"x\"]\n\n1. e4 e5 " + "a" * 5_000_000 + " *"
    client.open("file:///tmp/long.pgn", line)
    diagnostics = client.diagnostics("file:///tmp/long.pgn")
    # Five million letters are no move: a note, reported once, quoted short.
    notes = [d for d in diagnostics if d["code"] == "movetext-note"]
    assert len(notes) == 1 and len(notes[0]["message"]) < 120
    nested = "1. e4 " + "(" * 100_000 + "1. d4 *"
    client.open("file:///tmp/nested.pgn", nested)
    assert any("never closed" in d["message"] for d in client.diagnostics("file:///tmp/nested.pgn"))
    assert client.shutdown() == 0


# A file with multibyte text, a move after multibyte text on its line, and a name in the White tag.
MULTIBYTE = {
    "pgn-lsp": ("corpus/pgn-lsp/utf8-multibyte.pgn", "Bd2 Qxe5", "Ива́н"),
    "scid": ("corpus/scid/res_gameUTF8.pgn", "Bd2 Be7 6.Bg2", "Влади́мир"),  # GPL-2: with the shared folder only
}


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
@pytest.mark.parametrize("file", MULTIBYTE)
def test_positions_on_multibyte_text(client, file, encoding):
    relative, target, name = MULTIBYTE[file]
    text = shared(relative).read_text()
    result = client.initialize(encodings=[encoding])
    assert result["capabilities"]["positionEncoding"] == encoding
    # Break a move that follows multibyte text on its line, so its column depends on the encoding.
    index = text.index(target)
    broken = text[:index] + "Bd7" + text[index + 3:]
    uri = "file:///tmp/utf8.pgn"
    client.open(uri, broken)
    [error] = [d for d in client.diagnostics(uri) if d["severity"] == 1]
    line = broken.count("\n", 0, index)
    prefix = broken[broken.rfind("\n", 0, index) + 1:index]
    unit = "utf-8" if encoding == "utf-8" else "utf-16-le"
    width = 1 if encoding == "utf-8" else 2
    column = len(prefix.encode(unit)) // width
    assert error["range"]["start"] == {"line": line, "character": column}
    # Hover at the tag with Cyrillic text: its range ends where the encoding says.
    white = text.index("[White")
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": text.count("\n", 0, white), "character": 3}})
    tag_line = text[white:text.index("\n", white)]
    assert hover["range"]["end"]["character"] == len(tag_line.encode(unit)) // width
    assert name in hover["contents"]["value"]


def test_settings_from_initialization_options_configuration_and_changes(client):
    client.configuration = {"inlayHints": {"clocks": False}}
    client.initialize(options={"pgn": {"inlayHints": {"nags": False, "opening": False}, "bogus": {"key": 1}}},
                      capabilities={"workspace": {"configuration": True}})
    warning = client.wait_for(lambda m: m.get("method") == "window/logMessage" and "bogus.key" in m["params"]["message"])
    assert warning["params"]["type"] == 2
    client.open(URI, SAMPLE)
    full = {"textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 50, "character": 0}}}
    client.wait_for(lambda m: m.get("method") == "workspace/configuration" if "method" in m else False)
    assert client.request("textDocument/inlayHint", full) == []
    client.notify("workspace/didChangeConfiguration", {"settings": {"pgn": {"inlayHints": {"nags": True}}}})
    assert [h["label"] for h in client.request("textDocument/inlayHint", full)][:2] == ["?!", "?"]
    client.notify("workspace/didChangeConfiguration", {"settings": {"pgn": {"diagnostics": {"nonCanonicalNotation": False}}}})
    pulled = client.request("textDocument/diagnostic", {"textDocument": {"uri": URI}})
    assert "non-canonical-san" not in {d["code"] for d in pulled["items"]}


def test_a_false_setting_sent_as_null_by_eglot_is_false(client):
    # Emacs's eglot writes false as nil, which goes out as JSON null.
    client.initialize(options={"pgn": {"inlayHints": {"nags": None, "clocks": None, "opening": None}}})
    client.open(URI, SAMPLE)
    full = {"textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 50, "character": 0}}}
    assert client.request("textDocument/inlayHint", full) == []
    warnings = [n for n in client.notifications
                if n.get("method") == "window/logMessage" and "invalid settings" in n["params"]["message"]]
    assert warnings == []


def test_settings_schema_describes_every_setting():
    """Every key of the schema is one the server reads (no warning for it, whatever its value's
    default), and the server warns of a key the schema does not have."""
    schema = json.loads((ROOT / "schemas" / "settings.schema.json").read_text())
    defaults = {section: {key: spec["default"] for key, spec in body["properties"].items()}
                for section, body in schema["properties"].items()}
    assert len([k for body in defaults.values() for k in body]) >= 20
    for section in schema["properties"].values():
        for key, body in section["properties"].items():
            assert "default" in body and "description" in body, key
    client = LSPClient()
    try:
        client.initialize(options={"pgn": {**defaults, "extra": {"key": 1}}})
        warning = client.wait_for(lambda m: m.get("method") == "window/logMessage"
                                  and "unknown or invalid settings" in m["params"]["message"])
        assert warning["params"]["message"].endswith(": extra.key")
    finally:
        client.close()
