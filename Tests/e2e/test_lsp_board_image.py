"""The hover's board picture through a real renderer: the server, announced as VS Code, answers a
hover with an SVG image in base64; `rsvg-convert` (Debian's librsvg2-bin) draws it, and the
pixels are read back: pieces, the move's squares, a [%csl] square and a [%cal] arrow, from
both sides of the board."""
import base64
import re
import shutil
import struct
import subprocess
import zlib

import pytest

from lsp_client import LSPClient

RSVG = shutil.which("rsvg-convert")
pytestmark = pytest.mark.skipif(RSVG is None, reason="rsvg-convert is not installed (Debian package librsvg2-bin, "
                                                      "which scripts/bootstrap installs)")

URI = "file:///tmp/board-image.pgn"
# Line 2. After 1... e5 White is to move; after 2. Nf3 Black is. With `board.orientation`
# `sideToMove` the first is drawn from White's side, the second from Black's.
TEXT = ('[Event "Pictures"]\n\n'
        "1. e4 e5 {[%csl Yd4][%cal Rf1b5]} 2. Nf3 {[%csl Ga4,Rh5][%cal Bc2c5]} Nc6 *\n")

# The picture's colours (BoardPicture.swift): squares, the move's highlight and the marks
# with their opacities.
LIGHT, DARK = (0xF0, 0xD9, 0xB5), (0xB5, 0x88, 0x63)
MOVE = ((0x9B, 0xC7, 0x00), 0.41)
GREEN, RED, YELLOW, BLUE = (0x15, 0x78, 0x1B), (0x88, 0x20, 0x20), (0xE6, 0x8F, 0x00), (0x00, 0x30, 0x88)
SQUARE_OPACITY, ARROW_OPACITY = 0.6, 0.8
SIZE = 320  # pixels, 40 a square


def read_png(data: bytes):
    """(width, height, rows of (r, g, b, a)) of an 8-bit RGB or RGBA PNG, without interlacing."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    offset, idat, header = 8, b"", None
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        offset += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    width, height, depth, color_type, _, _, interlace = header
    assert depth == 8 and color_type in (2, 6) and interlace == 0, header
    channels = 4 if color_type == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) + ((line[x * channels + 3],) if channels == 4 else (255,))
                     for x in range(width)])
        previous = line
    return width, height, rows


def blend(color, opacity, base):
    return tuple(round(c * opacity + b * (1 - opacity)) for c, b in zip(color, base))


def close(actual, expected, tolerance=4):
    return all(abs(a - e) <= tolerance for a, e in zip(actual[:3], expected))


class Picture:
    def __init__(self, svg: bytes, white_at_bottom: bool):
        png = subprocess.run([RSVG, "--format", "png"], input=svg, capture_output=True, check=True).stdout
        self.width, self.height, self.rows = read_png(png)
        self.white_at_bottom = white_at_bottom

    def at(self, square: str, fx: float, fy: float):
        """The pixel at (fx, fy) of a square, in fractions of the square from its top left."""
        file, rank = "abcdefgh".index(square[0]), int(square[1]) - 1
        column, row = (file, 7 - rank) if self.white_at_bottom else (7 - file, rank)
        side = self.width / 8
        return self.rows[int((row + fy) * side)][int((column + fx) * side)]

    def ground(self, square):
        """Where only the square's own colour (and what marks it) shows: its top right corner,
        beside no piece and no coordinate."""
        return self.at(square, 0.88, 0.1)

    def body(self, square):
        """Where every piece's outline is filled."""
        return self.at(square, 0.5, 0.7)


def base(square):
    file, rank = "abcdefgh".index(square[0]), int(square[1]) - 1
    return DARK if (file + rank) % 2 == 0 else LIGHT


def hover_pictures(orientation=None, sides=(("e5", True), ("Nf3", False))):
    client = LSPClient()
    try:
        options = {"engine": {"hoverMs": 0}}
        if orientation:
            options["board"] = {"orientation": orientation}
        client.initialize(options={"pgn": options}, client_info={"name": "Visual Studio Code", "version": "1.96.0"})
        client.open(URI, TEXT)
        line = TEXT.split("\n")[2]
        found = {}
        for move, white_at_bottom in sides:
            hover = client.request("textDocument/hover", {"textDocument": {"uri": URI},
                                                          "position": {"line": 2, "character": line.index(move)}})
            value = hover["contents"]["value"]
            match = re.search(r"!\[[^\]]*\]\(data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)\)", value)
            assert match, value
            svg = base64.b64decode(match.group(1))
            assert len(svg) <= 8 * 1024
            found[move] = Picture(svg, white_at_bottom)
        client.shutdown()
    finally:
        client.close()
    return found


@pytest.fixture(scope="module")
def pictures():
    return hover_pictures("sideToMove")


def test_by_default_white_is_at_the_bottom_whoever_is_to_move():
    nf3 = hover_pictures(sides=(("Nf3", True),))["Nf3"]
    # Top left a8 (a black rook), bottom right h1 (a white rook); the arrow c2 → c5 up the c-file.
    assert close(nf3.rows[int(40 * 0.7)][20], (0, 0, 0))
    assert close(nf3.rows[280 + int(40 * 0.7)][300], (255, 255, 255))
    assert close(nf3.at("c4", 0.5, 0.5), blend(BLUE, ARROW_OPACITY, base("c4")))
    assert close(nf3.ground("a4"), blend(GREEN, SQUARE_OPACITY, base("a4")))


def test_the_picture_is_drawn_at_its_size(pictures):
    for picture in pictures.values():
        assert (picture.width, picture.height) == (SIZE, SIZE)


def test_pieces_stand_on_their_squares_and_empty_squares_are_empty(pictures):
    for picture in pictures.values():
        assert close(picture.body("e4"), (255, 255, 255)), "the white pawn on e4"
        assert close(picture.body("e8"), (0, 0, 0)), "the black king on e8"
        assert close(picture.body("e3"), base("e3")), "e3 is empty"
        assert close(picture.body("d5"), base("d5")), "d5 is empty"
        assert close(picture.ground("a6"), base("a6")), "a6 is empty and unmarked"


def test_the_board_can_be_seen_from_the_side_to_move(pictures):
    # Top left: a8 (a black rook) from White's side, h1 (a white rook) from Black's.
    white, black = pictures["e5"], pictures["Nf3"]
    assert close(white.rows[int(40 * 0.7)][20], (0, 0, 0))
    assert close(black.rows[int(40 * 0.7)][20], (255, 255, 255))
    # Bottom right: h1 (white) from White's side, a8 (black) from Black's.
    assert close(white.rows[280 + int(40 * 0.7)][300], (255, 255, 255))
    assert close(black.rows[280 + int(40 * 0.7)][300], (0, 0, 0))


def test_the_move_s_squares_are_highlighted(pictures):
    e5 = pictures["e5"]
    for square in ("e7", "e5"):
        assert close(e5.ground(square), blend(*MOVE, base(square))), square
    nf3 = pictures["Nf3"]
    for square in ("g1", "f3"):
        assert close(nf3.ground(square), blend(*MOVE, base(square))), square
    assert close(nf3.ground("e7"), base("e7")), "the move before is not"


def test_marked_squares_take_their_colour(pictures):
    assert close(pictures["e5"].ground("d4"), blend(YELLOW, SQUARE_OPACITY, base("d4")))
    nf3 = pictures["Nf3"]
    assert close(nf3.ground("a4"), blend(GREEN, SQUARE_OPACITY, base("a4")))
    assert close(nf3.ground("h5"), blend(RED, SQUARE_OPACITY, base("h5")))
    # The marks of one move are not on the next one's board.
    assert close(nf3.ground("d4"), base("d4"))


def test_arrows_take_their_colour_along_their_length(pictures):
    # f1 → b5 passes through the middle of d3 (empty), from White's side.
    e5 = pictures["e5"]
    assert close(e5.at("d3", 0.5, 0.5), blend(RED, ARROW_OPACITY, base("d3")))
    assert close(e5.at("d3", 0.05, 0.5), base("d3")), "the arrow is narrower than the square"
    # c2 → c5 passes through the middle of c4 (empty), from Black's side.
    nf3 = pictures["Nf3"]
    assert close(nf3.at("c4", 0.5, 0.5), blend(BLUE, ARROW_OPACITY, base("c4")))
    assert close(nf3.at("c4", 0.5, 0.2), blend(BLUE, ARROW_OPACITY, base("c4")))
    assert close(nf3.at("c4", 0.1, 0.5), base("c4"))
