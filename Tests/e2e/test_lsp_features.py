"""The language server's features, driven over pipes like an editor does."""
import json
import pathlib
import re

import pytest

from conftest import ROOT, shared
from lsp_client import LSPClient

MISTAKES = (ROOT / "samples" / "mistakes.pgn").read_text()
SAMPLE = (ROOT / "samples" / "sample.pgn").read_text()
URI = "file:///tmp/mistakes.pgn"


@pytest.fixture
def client():
    c = LSPClient()
    yield c
    c.close()


def pos(text, needle, occurrence=0, delta=0):
    """LSP position (UTF-16) of the `occurrence`-th `needle` in `text`, plus `delta` characters."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    index += delta
    line = text.count("\n", 0, index)
    column = len(text[text.rfind("\n", 0, index) + 1:index].encode("utf-16-le")) // 2
    return {"line": line, "character": column}


def test_diagnostics_are_pushed_with_the_version_and_pulled(client):
    client.initialize()
    client.open(URI, MISTAKES, version=3)
    diagnostics = client.diagnostics(URI, version=3)
    errors = [d for d in diagnostics if d["severity"] == 1]
    assert [d["code"] for d in errors] == ["illegal-move", "ambiguous-move"]
    assert errors[0]["range"] == {"start": pos(MISTAKES, "Nf3 Bb7"), "end": pos(MISTAKES, "Nf3 Bb7", delta=3)}
    assert errors[0]["message"] == "Illegal move Nf3 (White to move): no white knight can move to f3"
    pulled = client.request("textDocument/diagnostic", {"textDocument": {"uri": URI}})
    assert pulled["kind"] == "full"
    assert [d["code"] for d in pulled["items"] if d["severity"] == 1] == ["illegal-move", "ambiguous-move"]
    again = client.request("textDocument/diagnostic", {"textDocument": {"uri": URI}, "previousResultId": pulled["resultId"]})
    assert again == {"kind": "unchanged", "resultId": pulled["resultId"]}


def test_an_edit_that_breaks_and_one_that_repairs_a_move(client):
    client.initialize()
    text = SAMPLE
    client.open(URI, text, version=1)
    assert [d for d in client.diagnostics(URI, version=1) if d["severity"] == 1] == []
    # Nxb5 → Nxb6: illegal.
    where = pos(text, "10. Nxb5", delta=7)
    change = {"range": {"start": where, "end": {"line": where["line"], "character": where["character"] + 1}}, "text": "6"}
    client.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [change]})
    broken = [d for d in client.diagnostics(URI, version=2) if d["severity"] == 1]
    assert [d["code"] for d in broken] == ["illegal-move"]
    assert broken[0]["range"]["start"] == pos(text, "Nxb5")
    change["text"] = "5"
    client.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 3}, "contentChanges": [change]})
    assert [d for d in client.diagnostics(URI, version=3) if d["severity"] == 1] == []


def test_hover_on_a_move_tag_and_nag(client):
    client.initialize()
    client.open(URI, SAMPLE)
    hover = client.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos(SAMPLE, "Rd8#", delta=1)})
    value = hover["contents"]["value"]
    assert value.startswith("**17. Rd8#** — White · checkmate")
    assert "FEN `1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17`" in value
    # White at the bottom, rank 8 first; the material beside the board.
    assert ("```text\n8 · ♞ · ♖ ♚ ♝ · ♜   White lost ♕♖♗♘♘♙\n7 ♟ · · · · ♟ ♟ ♟   Black lost ♜♝♞♟♟♟\n"
            "6 · · · · ♛ · · ·   Black is 10 up\n") in value, value
    assert "1 · · ♔ · · · · ·\n  a b c d e f g h\n```" in value
    tag = client.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos(SAMPLE, "ECO", delta=1)})
    assert "Encyclopaedia of Chess Openings" in tag["contents"]["value"]
    nag = client.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos(SAMPLE, "$2", delta=1)})
    assert nag["contents"]["value"] == "**$2** ?: poor move"


def test_inlay_hints_for_nags_and_clocks(client):
    client.initialize()
    lichess = shared("corpus/lichess/lichess_db_10k.pgn").read_text()
    client.open(URI, SAMPLE)
    hints = client.request("textDocument/inlayHint", {"textDocument": {"uri": URI},
                                                      "range": {"start": {"line": 0, "character": 0},
                                                                "end": {"line": 40, "character": 0}}})
    # The opening's name is a hint of its own (test_lsp_openings.py).
    assert [h["label"] for h in hints if not re.match(r"[A-E]\d\d ", h["label"])][:4] == ["?!", "?", "!", "!!"]
    other = "file:///tmp/lichess.pgn"
    client.open(other, lichess)
    hints = client.request("textDocument/inlayHint", {"textDocument": {"uri": other},
                                                      "range": {"start": {"line": 0, "character": 0},
                                                                "end": {"line": 30, "character": 0}}})
    hints = [h for h in hints if not re.match(r"[A-E]\d\d ", h["label"])]
    # The time the move took, beside the clock written: from each side's second clock on.
    assert re.fullmatch(r"⏱ \d+(\.\d)? s", hints[0]["label"]), hints[0]
    third = [m.end() for m in re.finditer(r"\[%clk [^\]]*\] \}", lichess)][2]
    line = lichess.count("\n", 0, third)
    assert hints[0]["position"] == {"line": line, "character": third - (lichess.rfind("\n", 0, third) + 1)}


def test_symbols_folding_semantic_tokens(client):
    result = client.initialize()
    assert result["capabilities"]["semanticTokensProvider"]["legend"]["tokenTypes"][3] == "function"
    client.open(URI, SAMPLE)
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
    assert [s["name"] for s in symbols] == [
        "Paul Morphy – Duke Karl / Count Isouard, 1-0 (Paris Opera)",
        "Coach – Student, 1-0 (Blitz, round 2)",
        "Student – Coach, 1/2-1/2 (Training game, round 3)",
    ]
    # A game's detail is its date and length; its children are its variations, not its moves.
    assert symbols[0]["detail"] == "1858.??.?? · 17 moves" and symbols[0]["children"] == []
    variation = symbols[1]["children"][0]
    assert variation["name"] == "3... g6" and variation["kind"] == 6
    assert variation["range"]["start"] == pos(SAMPLE, "(3... g6")
    lichess = shared("corpus/lichess/lichess_db_1000k.pgn").read_text()
    client.open("file:///tmp/lichess.pgn", lichess)
    outline = client.request("textDocument/documentSymbol", {"textDocument": {"uri": "file:///tmp/lichess.pgn"}})
    assert len(outline) == 438
    assert len(json.dumps(outline)) <= len(lichess.encode()) / 4, "an outline a quarter of the document at most"
    folds = client.request("textDocument/foldingRange", {"textDocument": {"uri": URI}})
    assert {"startLine": 0, "endLine": 7, "kind": "imports"} in folds
    tokens = client.request("textDocument/semanticTokens/full", {"textDocument": {"uri": URI}})["data"]
    assert tokens[:5] == [0, 1, 5, 0, 0]  # `Event`, a tag name
    assert len(tokens) % 5 == 0


def test_a_file_over_20_mb_gets_whole_tokens_only_in_an_editor_that_asks_for_the_screen():
    """Neovim 0.11 asks for the whole file's tokens only (no `range`): for a file over 20 MB it
    gets none (`null`), and the log says why, instead of 21 MB of JSON it would freeze reading; it still
    gets the lines it asks for. An editor that asks for ranges (VS Code) gets every token."""
    lichess = (ROOT / "Tests" / "Fixtures" / "corpus" / "lichess" / "lichess_db_1000k.pgn").read_text()
    text = "\n".join([lichess] * 21)
    assert len(text.encode()) > 20 << 20
    uri = "file:///tmp/month.pgn"
    doc = {"textDocument": {"uri": uri}}
    screen = {**doc, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 60, "character": 0}}}
    for ranges in (False, True):
        client = LSPClient()
        try:
            client.initialize(capabilities={"textDocument": {
                "hover": {"contentFormat": ["markdown"]},
                "semanticTokens": {"requests": {"range": ranges, "full": {"delta": True}}}}})
            client.open(uri, text)
            whole = client.request("textDocument/semanticTokens/full", doc, timeout=60)
            shown = client.request("textDocument/semanticTokens/range", screen, timeout=60)["data"]
            assert shown[:5] == [0, 1, 5, 0, 0] and len(shown) > 500  # `Event`, a tag name, first
            if ranges:
                assert len(whole["data"]) > 5 * 1_000_000
                continue
            # `null`, not an empty set, which Neovim would place reading every line of the buffer.
            assert whole is None
            delta = client.request("textDocument/semanticTokens/full/delta",
                                   {**doc, "previousResultId": "1"}, timeout=60)
            assert delta is None
            logged = [m["params"]["message"] for m in client.notifications
                      if m["method"] == "window/logMessage" and "no semantic tokens" in m["params"]["message"]]
            assert len(logged) == 1 and "month.pgn" in logged[0] and "20 MB" in logged[0], logged
        finally:
            client.close()


def test_a_large_file_shows_progress_while_it_is_read():
    """A file over 10 MB (here 11 MB, 4,800 games) takes a while to read whole: an editor that
    shows work-done progress shows how much is read and how many games were found, then the
    number of games, before the file's diagnostics come."""
    lichess = (ROOT / "Tests" / "Fixtures" / "corpus" / "lichess" / "lichess_db_1000k.pgn").read_text()
    text = "\n".join([lichess] * 11)
    uri = "file:///tmp/month.pgn"
    client = LSPClient()
    try:
        client.initialize(capabilities={"window": {"workDoneProgress": True}})
        client.open(uri, text)
        client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=60)
        created = [r["params"]["token"] for r in client.server_requests
                   if r["method"] == "window/workDoneProgress/create"]
        assert len(created) == 1
        values = [m["params"]["value"] for m in client.notifications
                  if m["method"] == "$/progress" and m["params"]["token"] == created[0]]
        assert values[0] == {"kind": "begin", "title": "Reading month.pgn", "cancellable": False, "percentage": 0}
        assert values[-1] == {"kind": "end", "message": f"{11 * 438} games"}
        reports = values[1:-1]
        assert reports and all(r["kind"] == "report" for r in reports)
        percents = [r["percentage"] for r in reports]
        assert percents == sorted(percents) and percents[-1] == 100
        games = [int(r["message"].split()[0]) for r in reports]
        assert games == sorted(games) and games[-1] == 11 * 438
        # The end came before the diagnostics.
        ended = next(i for i, m in enumerate(client.notifications)
                     if m["method"] == "$/progress" and m["params"]["value"]["kind"] == "end")
        published = next(i for i, m in enumerate(client.notifications)
                         if m["method"] == "textDocument/publishDiagnostics")
        assert ended < published
    finally:
        client.close()


def test_folding_ranges_within_the_clients_limit():
    """VS Code keeps 5,000 folding ranges of a document and says so (`rangeLimit`): it gets the
    outermost first, in document order, and a client without a limit gets every one."""
    text = shared("corpus/lichess/lichess_db_1000k.pgn").read_text()
    doc = {"textDocument": {"uri": "file:///tmp/lichess.pgn"}}

    def folds(limit):
        capabilities = {} if limit is None else {"textDocument": {"foldingRange": {"rangeLimit": limit}}}
        client = LSPClient()
        try:
            client.initialize(capabilities=capabilities)
            client.open(doc["textDocument"]["uri"], text)
            return client.request("textDocument/foldingRange", doc)
        finally:
            client.close()

    every = folds(None)
    games = [f for f in every if f.get("kind") == "region"]
    assert len(games) == 438 and len(every) > 438 + 300
    assert folds(len(every)) == every
    # Games first: 300 of them, in document order; then tag sections, as far as the limit goes.
    assert folds(300) == games[:300]
    more = folds(438 + 100)
    assert [f for f in more if f.get("kind") == "region"] == games
    assert len(more) == 538 and all(f.get("kind") == "imports" for f in more if f.get("kind") != "region")
    assert folds(0) == []


def test_completion_of_legal_moves_tags_and_nags(client):
    client.initialize()
    text = "[Event \"x\"]\n\n1. e4 e5 2. N"
    client.open(URI, text)
    items = client.request("textDocument/completion", {"textDocument": {"uri": URI}, "position": pos(text, "2. N", delta=4)})
    labels = [i["label"] for i in items["items"]]
    assert labels == ["Na3", "Nc3", "Nf3", "Nh3", "Ne2"] or sorted(labels) == sorted(["Na3", "Nc3", "Nf3", "Nh3", "Ne2"])
    variation = "[Event \"x\"]\n\n1. e4 e5 (1... c5 2. "
    client.open("file:///tmp/v.pgn", variation)
    items = client.request("textDocument/completion", {"textDocument": {"uri": "file:///tmp/v.pgn"},
                                                       "position": pos(variation, "2. ", delta=3)})
    assert "Nf3" in [i["label"] for i in items["items"]] and "c4" in [i["label"] for i in items["items"]]
    assert len(items["items"]) == 30
    tags = "[Res"
    client.open("file:///tmp/t.pgn", tags)
    items = client.request("textDocument/completion", {"textDocument": {"uri": "file:///tmp/t.pgn"},
                                                       "position": {"line": 0, "character": 4}})
    assert [i["label"] for i in items] == ["Result"]
    nags = "1. e4 $1"
    client.open("file:///tmp/n.pgn", nags)
    items = client.request("textDocument/completion", {"textDocument": {"uri": "file:///tmp/n.pgn"},
                                                       "position": {"line": 0, "character": 8}})
    assert [i["label"] for i in items][:3] == ["$1", "$10", "$11"]


def test_quick_fixes_and_fix_all(client):
    client.initialize()
    client.open(URI, SAMPLE)
    diagnostics = client.diagnostics(URI)
    hint = next(d for d in diagnostics if d["code"] == "non-canonical-san")
    actions = client.request("textDocument/codeAction", {"textDocument": {"uri": URI}, "range": hint["range"],
                                                         "context": {"diagnostics": [hint]}})
    fix = next(a for a in actions if a["kind"] == "quickfix")
    assert fix["title"] == "Write e4"
    assert fix["edit"]["changes"][URI][0] == {"range": hint["range"], "newText": "e4"}
    everything = client.request("textDocument/codeAction", {"textDocument": {"uri": URI}, "range": hint["range"],
                                                            "context": {"diagnostics": [], "only": ["source.fixAll"]}})
    assert len(everything) == 1 and everything[0]["kind"] == "source.fixAll.pgn"
    texts = sorted(e["newText"] for e in everything[0]["edit"]["changes"][URI])
    assert texts == ["1-0", "9.", "Nf3", "O-O", "O-O", "e4"]


def test_edits_give_the_diagnostics_of_a_fresh_reading():
    """Random edits: games whose text did not change keep their cached replay, moved to their
    new place; the diagnostics equal those of a server reading the new text afresh."""
    import random
    lichess = shared("corpus/lichess/lichess_db_10k.pgn").read_text()
    text = SAMPLE + "\n" + MISTAKES + "\n" + lichess
    snippets = ["1-0", "*", "[Event \"x\"]\n", "[Site \"y\"]", "Nf3 ", "e4", "{", "}", "(", ")", "\n\n", "$1",
                " ", "Qxf7#", "2... ", ";", "[", "]", "\""]
    rng = random.Random(3)
    incremental, fresh = LSPClient(), LSPClient()
    try:
        incremental.initialize(encodings=["utf-8"])
        fresh.initialize(encodings=["utf-8"])
        incremental.open(URI, text)
        for version in range(2, 152):
            data = text.encode()
            a = rng.randrange(len(data) + 1)
            b = min(len(data), a + (rng.randrange(12) if rng.random() < 0.5 else 0))
            insert = rng.choice(snippets) if rng.random() < 0.7 or a == b else ""
            new = (data[:a] + insert.encode() + data[b:]).decode(errors="ignore")
            if new.encode() != data[:a] + insert.encode() + data[b:]:
                continue  # the edit would split a multibyte character
            def at(offset):
                line = data.count(b"\n", 0, offset)
                return {"line": line, "character": offset - (data.rfind(b"\n", 0, offset) + 1)}
            incremental.notify("textDocument/didChange", {
                "textDocument": {"uri": URI, "version": version},
                "contentChanges": [{"range": {"start": at(a), "end": at(b)}, "text": insert}]})
            text = new
            mine = incremental.request("textDocument/diagnostic", {"textDocument": {"uri": URI}})["items"]
            fresh.open(f"file:///tmp/fresh{version}.pgn", text)
            theirs = fresh.request("textDocument/diagnostic", {"textDocument": {"uri": f"file:///tmp/fresh{version}.pgn"}})["items"]
            # Closed again: open documents with the same games would be twins of each other.
            fresh.notify("textDocument/didClose", {"textDocument": {"uri": f"file:///tmp/fresh{version}.pgn"}})
            key = lambda d: (d["range"]["start"]["line"], d["range"]["start"]["character"], d["code"], d["message"])
            assert sorted(map(key, mine)) == sorted(map(key, theirs)), f"after edit {version}"
    finally:
        incremental.close()
        fresh.close()


def test_formatting_the_document_and_a_range(client):
    client.initialize()
    text = "[White \"B\"]\n[Event \"E\"]\n\n1.e4 e5 2.Nf3 {A comment\nover two lines} Nc6 *\n\n[Event \"F\"]\n\n1.d4 d5 *\n"
    client.open(URI, text)
    [edit] = client.request("textDocument/formatting", {"textDocument": {"uri": URI},
                                                       "options": {"tabSize": 4, "insertSpaces": True}})
    assert edit["newText"] == ("[Event \"E\"]\n[White \"B\"]\n\n1. e4 e5 2. Nf3 {A comment over two lines} 2... Nc6 *\n\n"
                               "[Event \"F\"]\n\n1. d4 d5 *\n")
    # Formatting the formatted text changes nothing.
    client.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2},
                                             "contentChanges": [{"text": edit["newText"]}]})
    assert client.request("textDocument/formatting", {"textDocument": {"uri": URI}, "options": {}}) == []
    # A range touches only its games.
    client.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{"text": text}]})
    edits = client.request("textDocument/rangeFormatting", {
        "textDocument": {"uri": URI}, "options": {},
        "range": {"start": {"line": 7, "character": 0}, "end": {"line": 9, "character": 0}}})
    assert [e["newText"] for e in edits] == ["[Event \"F\"]\n\n1. d4 d5 *"]


def test_selection_ranges_and_document_highlight(client):
    client.initialize()
    client.open(URI, SAMPLE)
    at = pos(SAMPLE, "(3... g6", delta=6)
    [selection] = client.request("textDocument/selectionRange", {"textDocument": {"uri": URI}, "positions": [at]})
    ranges = []
    while selection:
        ranges.append(selection["range"])
        selection = selection.get("parent")
    assert ranges[0] == {"start": pos(SAMPLE, "g6 4. Qf3"), "end": pos(SAMPLE, "g6 4. Qf3", delta=2)}
    assert ranges[1] == {"start": pos(SAMPLE, "(3... g6"), "end": pos(SAMPLE, "Nf6)", delta=4)}
    assert ranges[-1]["start"] == {"line": 0, "character": 0}
    # The square of Qxf7#: f7. Moves to f7 (write) and from f7 (read) in the same line.
    highlights = client.request("textDocument/documentHighlight",
                                {"textDocument": {"uri": URI}, "position": pos(SAMPLE, "Qxf7#", delta=1)})
    assert {"range": {"start": pos(SAMPLE, "Qxf7#"), "end": pos(SAMPLE, "Qxf7#", delta=5)}, "kind": 3} in highlights


def test_workspace_symbols_find_players_events_and_openings(tmp_path):
    (tmp_path / "club.pgn").write_text(SAMPLE)
    (tmp_path / "notes.txt").write_text("not a game")
    client = LSPClient()
    try:
        client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        client.notify("initialized", {})
        found = client.request("workspace/symbol", {"query": "morphy"})
        assert [(s["name"], s["kind"]) for s in found] == [("Paul Morphy", 13)]
        assert found[0]["location"]["uri"].endswith("/club.pgn")
        openings = client.request("workspace/symbol", {"query": "C41"})
        assert [s["name"] for s in openings] == ["C41"]
    finally:
        client.close()


def test_rename_a_player_across_the_workspace(tmp_path):
    # VS Code's capabilities: versioned document changes with annotations the user confirms.
    (tmp_path / "club.pgn").write_text(SAMPLE.replace("Paul Morphy", "paul  morphy", 1))
    uri = (tmp_path / "open.pgn").as_uri()
    client = LSPClient()
    try:
        caps = {"workspace": {"workspaceEdit": {"documentChanges": True, "changeAnnotationSupport": {}}}}
        client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": caps})
        client.notify("initialized", {})
        client.open(uri, SAMPLE, version=4)
        where = {"textDocument": {"uri": uri}, "position": pos(SAMPLE, "Paul Morphy", delta=2)}
        prepared = client.request("textDocument/prepareRename", where)
        assert prepared["placeholder"] == "Paul Morphy"
        edit = client.request("textDocument/rename", {**where, "newName": "Morphy, Paul"})
        by_uri = {change["textDocument"]["uri"]: change for change in edit["documentChanges"]}
        assert by_uri[uri]["textDocument"]["version"] == 4
        assert [(e["newText"], e["annotationId"]) for e in by_uri[uri]["edits"]] == [('"Morphy, Paul"', "same")]
        other = by_uri[(tmp_path / "club.pgn").as_uri()]
        assert other["textDocument"]["version"] is None
        assert [(e["range"]["start"], e["annotationId"]) for e in other["edits"]] == [(pos(SAMPLE, '"Paul Morphy"'), "spelling")]
        assert edit["changeAnnotations"]["same"]["needsConfirmation"] is False
        assert edit["changeAnnotations"]["spelling"]["needsConfirmation"] is True
    finally:
        client.close()


def test_cancellation_and_results_made_stale_by_an_edit(client):
    client.initialize()
    big = shared("corpus/lichess/lichess_db_1000k.pgn").read_text() * 4
    client.open(URI, big)
    # A slow request cancelled at once is answered RequestCancelled.
    slow = client.request_async("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
    client.notify("$/cancelRequest", {"id": slow})
    answer = client.response(slow)
    assert answer.get("error", {}).get("code") == -32800
    # A slow request overtaken by an edit of its document is answered ContentModified.
    stale = client.request_async("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
    client.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2},
                                             "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                                                           "end": {"line": 0, "character": 0}},
                                                                 "text": " "}]})
    assert client.response(stale).get("error", {}).get("code") == -32801
    # And the server goes on serving.
    assert len(client.request("textDocument/foldingRange", {"textDocument": {"uri": URI}})) > 1000


def test_twins_are_pushed_with_related_information(client):
    client.initialize()
    game = '[White "Anna"]\n[Black "Boris"]\n[Date "2024.01.05"]\n[Round "{round}"]\n\n1. e4 e5 2. Nf3 *\n\n'
    text = game.format(round=1) + game.format(round=1) + game.format(round=2)
    client.open(URI, text, version=1)
    twins = [d for d in client.diagnostics(URI, version=1) if d["code"] == "twin-game"]
    assert [(d["range"]["start"]["line"], d["severity"]) for d in twins] == [(7, 3)]
    assert twins[0]["message"] == "This game is a copy of game 1: the same players, date, round and moves"
    (related,) = twins[0]["relatedInformation"]
    assert related["location"] == {"uri": URI, "range": {"start": {"line": 0, "character": 0},
                                                         "end": {"line": 0, "character": 14}}}
