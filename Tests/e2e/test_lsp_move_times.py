"""The time each move took, an inlay hint beside its `[%clk]`."""
from lsp_client import LSPClient

TEXT = ('[Event "x"]\n[TimeControl "180+2"]\n\n'
        '1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:03:00] } 2. Nf3 { [%clk 0:02:55] } '
        '(2. Bc4 { [%clk 0:01:00] }) 2... Nc6 { [%clk 0:02:20.5] } 3. Bb5 { [%clk 0:02:56] } '
        '3... a6 { [%clk 0:01:10] } 4. Ba4 { [%clk 0:00:58] } *\n')


def test_clock_hints_say_how_long_each_mainline_move_took():
    client = LSPClient()
    try:
        client.initialize()
        client.open("file:///t.pgn", TEXT)
        hints = client.request("textDocument/inlayHint", {
            "textDocument": {"uri": "file:///t.pgn"},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 4, "character": 0}}})
        clocks = [h["label"] for h in hints if h["label"].startswith("⏱")]
        # The clock is written beside the hint: the hint is the time the move took. A side's
        # first clock has nothing to compare with; each later one adds the increment (2 s) to
        # the clock before; the variation's move is not timed.
        assert clocks == ["⏱ 7 s", "⏱ 42 s", "⏱ 1 s", "⏱ 1 min 13 s", "⏱ 2 min"]
    finally:
        client.close()
