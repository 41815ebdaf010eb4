import ChessCore
import PGN

extension GameEncoder {
    /// A walk through one game's movetext, node by node: the line being read (its position, the
    /// position before its last move, its ply), the lines it returns to, and what the mainline
    /// gives besides the blob (`Moves2`, the hashes of its positions, the signature, the
    /// materials). A value of its own, as `Movetext` is: the hot loop reaches its fields
    /// without run-time exclusivity checks.
    struct MovetextWalk {
        /// The blob, the mainline's comment rows, and what was kept as text and said.
        var out: Movetext
        /// The lines the line being read returns to; the scratch's array while the walk reads.
        var parents: [Line] = []
        var position: Position
        var inCheck: Bool
        /// The position before the last move of the line being read, when there is one.
        var previous: Position
        var hasPrevious = false
        var ply: Int
        /// Depth inside variations left out (`mainline` content).
        var skipped = 0
        let chess960: Bool
        var mainlinePlies = 0
        /// ocgdb's encoding of the mainline (`Moves2`).
        var moves2: [UInt8] = []
        /// The Zobrist hashes of the mainline's positions, from the start position on.
        var hashes: [UInt64] = []
        /// The game's signature (`GameSignature`), worked out as the mainline is played.
        var signature: SignatureBuilder
        /// The smallest material each side had in the mainline.
        var whiteMaterial: Int
        var blackMaterial: Int

        init(from start: Position, _ syntax: GameSyntax, content: MovesContent, commentRows: Bool) {
            out = Movetext(full: content == .full, commentRows: commentRows)
            position = start
            inCheck = start.isCheck
            previous = start
            ply = PGNWriter.ply(of: start)
            chess960 = start.isChess960
            signature = SignatureBuilder(home: UInt16(truncatingIfNeeded: GameEncoder.pawnHome(start)))
            (whiteMaterial, blackMaterial) = materials(start)
            // The blob is about as long as the movetext (comments are most of both).
            out.moves.reserveCapacity(syntax.range.count + 16)
            moves2.reserveCapacity(syntax.nodes.count)
            hashes.reserveCapacity(syntax.nodes.count / 2 + 2)
            hashes.append(start.hash)
        }

        /// Reads the movetext of `syntax`, then closes what its end leaves open.
        mutating func read(_ syntax: GameSyntax, _ text: Text, scratch: inout Scratch) {
            // The lines it returns to wait in the scratch's array, kept from one game to the next.
            swap(&parents, &scratch.parents)
            parents.removeAll(keepingCapacity: true)
            defer { swap(&parents, &scratch.parents) }
            let nodes = syntax.nodes
            for k in nodes.indices {
                let node = nodes[k]
                var keptUntilHere = false
                if out.keeping != nil {
                    if keepsAsText(node, text, scratch: &scratch.kept) { continue }
                    keptUntilHere = true
                }
                if takesNote(k, nodes, text, scratch: &scratch.kept) { continue }
                switch node.kind {
                case .moveNumber, .note:
                    continue
                case .result:
                    sayResult(k, nodes, text, keptUntilHere: keptUntilHere)
                case .move:
                    if skipped == 0 { play(k, syntax, text.bytes) }
                case .nag:
                    if skipped == 0 && out.full { MovesBlob.appendNAG(node.value, to: &out.moves) }
                case .comment:
                    if skipped == 0 { comment(node, text, scratch: &scratch) }
                case .variationStart:
                    openVariation(node)
                case .variationEnd:
                    closeVariation()
                }
            }
            end(nodes, text, scratch: &scratch.kept)
        }

        /// A node of the line being kept as text: true when it is kept, false when it ends the
        /// line (and is read on).
        private mutating func keepsAsText(_ node: MovetextNode, _ text: Text, scratch: inout [UInt8]) -> Bool {
            let kept = out.keeping!
            // Everything up to the end of the kept line is text, variations included.
            switch node.kind {
            case .variationStart:
                out.keeping!.depth += 1
                out.keptEnd = node.range.upperBound
                return true
            case .variationEnd where kept.depth > 0:
                out.keeping!.depth -= 1
                out.keptEnd = node.range.upperBound
                if kept.ownParen && kept.depth == 1 {
                    out.endKeeping(text, mainline: parents.isEmpty, ply: mainlinePlies - 1, scratch: &scratch)
                }
                return true
            case .variationEnd, .result:
                // The end of the kept line; the `)` goes on to close its variation.
                out.endKeeping(text, mainline: parents.isEmpty, ply: mainlinePlies - 1, scratch: &scratch)
                return false
            default:
                out.keptEnd = node.range.upperBound
                return true
            }
        }

        /// A note (or a malformed or unknown NAG, with the full content) joins the notes next to
        /// it: true. Before any other node, the notes gathered are kept as one text: false.
        private mutating func takesNote(
            _ k: Int, _ nodes: [MovetextNode], _ text: Text, scratch: inout [UInt8]
        ) -> Bool {
            let node = nodes[k]
            if skipped == 0 && (node.kind == .note || (node.kind == .nag && node.value < 0 && out.full)) {
                if let run = out.notes, out.lastNote == k - 1 {
                    out.notes = run.lowerBound..<node.range.upperBound
                } else {
                    out.flushNotes(
                        text, nodes, mainline: parents.isEmpty, ply: ply, mainlinePly: mainlinePlies - 1,
                        scratch: &scratch)
                    out.notes = node.range
                }
                out.lastNote = k
                return true
            }
            if out.notes != nil {
                out.flushNotes(
                    text, nodes, mainline: parents.isEmpty, ply: ply, mainlinePly: mainlinePlies - 1,
                    scratch: &scratch)
            }
            return false
        }

        /// The termination marker at `k`, said when it is written `1/2` or glued to the move
        /// before it.
        private mutating func sayResult(_ k: Int, _ nodes: [MovetextNode], _ text: Text, keptUntilHere: Bool) {
            let node = nodes[k]
            let bytes = text.bytes
            // `1/2` is the one three-byte result with a slash.
            if node.range.count == 3 && bytes[node.range.lowerBound + 1] == 0x2F {
                out.changes.append("the result 1/2 read as 1/2-1/2")
            }
            if !keptUntilHere, k > 0, nodes[k - 1].kind == .move,
                nodes[k - 1].range.upperBound == node.range.lowerBound
            {
                let move = UnsafeBufferPointer(rebasing: bytes[nodes[k - 1].range])
                out.changes.append(
                    "\(quoted(text, nodes[k - 1].range.lowerBound..<node.range.upperBound)) read as \(moveLabel(san: move, ply: ply - 1)) and the result \(GameResult(rawValue: node.value)?.text ?? "*")"
                )
            }
        }

        /// Plays the move at `k` in the line being read: its index in the blob, and in the
        /// mainline its `Moves2` code, its position's hash, the signature and the materials. A
        /// move that cannot be played, or a null move, keeps its line as text from there.
        private mutating func play(_ k: Int, _ syntax: GameSyntax, _ bytes: UnsafeBufferPointer<UInt8>) {
            let san = UnsafeBufferPointer(rebasing: bytes[syntax.nodes[k].range])
            let inVariation = !parents.isEmpty
            previous = position
            let move: Move
            do throws(SANError) {
                move = try position.applySAN(bytes: san, inCheck: inCheck)
            } catch {
                let what = moveFailure(error, san: san, ply: ply, inVariation: false)
                out.keepLine(syntax, from: k, what, bytes: bytes, mainline: !inVariation)
                if !inVariation { out.incomplete = what }
                return
            }
            guard !move.isNull, let moveIndex = MoveOrder.index(of: move, in: previous, inCheck: inCheck) else {
                position = previous
                out.keepLine(
                    syntax, from: k, "null move \(moveLabel(san: san, ply: ply))", bytes: bytes,
                    mainline: !inVariation)
                return
            }
            out.moves.append(UInt8(truncatingIfNeeded: moveIndex))
            hasPrevious = true
            ply += 1
            inCheck = position.isCheck
            if !inVariation {
                mainlinePlies += 1
                hashes.append(position.hash)
                Moves2.append(move, chess960: chess960, to: &moves2)
                signature.played(home: UInt16(truncatingIfNeeded: GameEncoder.pawnHome(position))) {
                    ReplayMaterial(position).packed
                }
                // Material changes only by a capture or a promotion.
                if position.occupied.count != previous.occupied.count || move.promotion != nil {
                    let (white, black) = materials(position)
                    whiteMaterial = min(whiteMaterial, white)
                    blackMaterial = min(blackMaterial, black)
                }
            }
        }

        /// A comment: in the blob, and for the mainline a row.
        private mutating func comment(_ node: MovetextNode, _ text: Text, scratch: inout Scratch) {
            let mainline = parents.isEmpty
            guard out.full || (out.commentRows && mainline) else { return }
            // A comment of the game's own that reads as kept movetext is kept as written,
            // braces and all, so that an export gives back a comment.
            if KeptText.isKeptComment(text.bytes, node.range) {
                out.keepText(node.range, text, mainline: mainline, ply: mainlinePlies - 1, scratch: &scratch.kept)
                return
            }
            withCommentText(text, node.range, lineComment: node.value == 1, scratch: &scratch.value) { body in
                out.appendComment(body, mainline: mainline, ply: mainlinePlies - 1)
            }
        }

        /// `(`: the variation replaces the last move read; the line it leaves waits in `parents`.
        private mutating func openVariation(_ node: MovetextNode) {
            if skipped > 0 || !out.full {
                skipped += 1
                return
            }
            guard hasPrevious else {
                // Nothing for it to replace: the whole variation is kept as text.
                out.keeping = (node.range.lowerBound, 1, true)
                out.keptEnd = node.range.upperBound
                out.changes.append("a variation with no move before it to replace kept as a comment")
                return
            }
            out.moves.append(MovesBlob.variationStart)
            parents.append(Line(position: position, before: previous, ply: ply))
            position = previous
            inCheck = position.isCheck
            hasPrevious = false
            ply -= 1
        }

        /// `)`: the line the variation left is read on.
        private mutating func closeVariation() {
            if skipped > 0 {
                skipped -= 1
                return
            }
            guard let parent = parents.popLast() else { return }
            out.moves.append(MovesBlob.variationEnd)
            position = parent.position
            inCheck = position.isCheck
            if let before = parent.before { previous = before }
            hasPrevious = parent.before != nil
            ply = parent.ply
        }

        /// The end of the movetext: the notes and the line kept as text ended, the variations
        /// left open closed.
        private mutating func end(_ nodes: [MovetextNode], _ text: Text, scratch: inout [UInt8]) {
            out.flushNotes(
                text, nodes, mainline: parents.isEmpty, ply: ply, mainlinePly: mainlinePlies - 1, scratch: &scratch)
            out.endKeeping(text, mainline: parents.isEmpty, ply: mainlinePlies - 1, scratch: &scratch)
            // A variation left open at the end of the game is closed.
            if !parents.isEmpty { out.changes.append("a variation left open closed at the end of the game") }
            while let parent = parents.popLast() {
                out.moves.append(MovesBlob.variationEnd)
                position = parent.position
            }
        }
    }

    /// A line that a variation left, read on after it.
    struct Line {
        var position: Position
        var before: Position?
        /// Plies from the start of the game to `position`.
        var ply: Int
    }

    /// What the movetext of one game gives while it is read: the `Moves` blob, the mainline's
    /// comment rows, and what could not be stored as moves, kept as text where it stood
    /// (`KeptText`) and said in `changes`. A value of its own, so that the read's hot loop
    /// reaches it without the run-time exclusivity checks that locals captured by nested
    /// functions would need.
    struct Movetext {
        let full: Bool
        let commentRows: Bool
        var moves: [UInt8] = []
        var rows: [CommentRow] = []
        var commentBytes: [UInt8] = []
        var changes: [String] = []
        /// The line being kept as text since `start`: the variations opened in it, and whether
        /// it began at a `(` of its own (a variation with no move to replace), whose `)` ends it.
        var keeping: (start: Int, depth: Int, ownParen: Bool)?
        var keptEnd = 0
        /// Notes next to each other, kept as one text.
        var notes: Range<Int>?
        var lastNote = -2
        /// Why the mainline stops before the movetext does, when a move of it cannot be played.
        var incomplete: String?

        init(full: Bool, commentRows: Bool) {
            self.full = full
            self.commentRows = commentRows
        }

        /// A comment (UTF-8) at the current place: in the blob, and for the mainline a row, after
        /// the mainline's move `ply` (0-based).
        mutating func appendComment(_ body: UnsafeBufferPointer<UInt8>, mainline: Bool, ply: Int) {
            let row = commentRows && mainline
            // In one chunk of the blob (its header then the text), a row points to it.
            let start = moves.count + 3
            if full { MovesBlob.appendComment(body, to: &moves) }
            guard row else { return }
            if full && body.count < MovesBlob.maximumChunk - 3 {
                rows.append(CommentRow(ply: ply, inMoves: start))
            } else {
                var length = body.count
                for _ in 0..<4 {
                    commentBytes.append(UInt8(truncatingIfNeeded: length))
                    length >>= 8
                }
                rows.append(CommentRow(ply: ply, inExtra: commentBytes.count))
                commentBytes.append(contentsOf: body)
            }
        }

        /// The source text of `range`, kept where it stood. False when nothing can hold it (a
        /// `mainline` blob without comment rows).
        @discardableResult
        mutating func keepText(
            _ range: Range<Int>, _ text: Text, mainline: Bool, ply: Int, scratch: inout [UInt8]
        ) -> Bool {
            guard full || (commentRows && mainline) else { return false }
            if text.latin1 {
                KeptText.comment(keeping: text.string(range).utf8, into: &scratch)
            } else {
                KeptText.comment(keeping: UnsafeBufferPointer(rebasing: text.bytes[range]), into: &scratch)
            }
            scratch.withUnsafeBufferPointer { appendComment($0, mainline: mainline, ply: ply) }
            return true
        }

        /// The notes read since the last other node, kept as one text and said.
        mutating func flushNotes(
            _ text: Text, _ nodes: [MovetextNode], mainline: Bool, ply: Int, mainlinePly: Int, scratch: inout [UInt8]
        ) {
            guard let run = notes else { return }
            notes = nil
            let kept = keepText(run, text, mainline: mainline, ply: mainlinePly, scratch: &scratch)
            // Named by the move it follows in its line.
            var place = "before the first move of its line"
            var k = lastNote
            while k > 0 {
                k -= 1
                let kind = nodes[k].kind
                if kind == .move {
                    place =
                        "after "
                        + moveLabel(san: UnsafeBufferPointer(rebasing: text.bytes[nodes[k].range]), ply: ply - 1)
                    break
                }
                if kind == .variationStart || kind == .variationEnd { break }
            }
            let what = GameResult(text: text.string(run)) != nil ? "the result" : "the note"
            changes.append(
                "\(what) \(quoted(text, run)) \(place) \(kept ? "kept as a comment" : "left out with the comments")")
        }

        /// A line that cannot be stored from the node at `k` on: kept as text to its end (the
        /// `)` of its variation, or the end of the game).
        mutating func keepLine(
            _ syntax: GameSyntax, from k: Int, _ what: String, bytes: UnsafeBufferPointer<UInt8>, mainline: Bool
        ) {
            let nodes = syntax.nodes
            // With the move number before it (which the import's reader may not list as a node).
            var floor = syntax.range.lowerBound
            if let before = nodes[..<k].last(where: { $0.kind != .moveNumber }) { floor = before.range.upperBound }
            let start = moveNumberStart(bytes, before: nodes[k].range.lowerBound, floor: floor)
            keeping = (start, 0, false)
            keptEnd = nodes[k].range.upperBound
            if mainline {
                let rest = full || commentRows ? "the rest kept as a comment" : "the rest left out (no comments stored)"
                changes.append("\(what): the game stored up to it, \(rest)")
            } else {
                changes.append("\(what) in a variation: the variation kept as a comment from there")
            }
        }

        /// Ends the line kept as text at `keptEnd`.
        mutating func endKeeping(_ text: Text, mainline: Bool, ply: Int, scratch: inout [UInt8]) {
            guard let kept = keeping else { return }
            keeping = nil
            keepText(kept.start..<keptEnd, text, mainline: mainline, ply: ply, scratch: &scratch)
        }
    }

    /// A piece of the text in quotes, as a change is said: at most 40 characters.
    static func quoted(_ text: Text, _ range: Range<Int>) -> String {
        var words = text.string(range)
        if words.count > 40 { words = String(words.prefix(39)) + "…" }
        return "\"\(words)\""
    }

    /// Where the move number written before `offset` starts (`12.`, `12...`, `12 ...`, `12…`,
    /// white space between), not before `floor`; `offset` when there is none.
    static func moveNumberStart(_ bytes: UnsafeBufferPointer<UInt8>, before offset: Int, floor: Int) -> Int {
        var k = offset
        func skipSpace() { while k > floor && Lexer.isSpace(bytes[k - 1]) { k -= 1 } }
        skipSpace()
        let dotsEnd = k
        if k - 3 >= floor && bytes[k - 3] == 0xE2 && bytes[k - 2] == 0x80 && bytes[k - 1] == 0xA6 {
            k -= 3
        } else {
            while k > floor && bytes[k - 1] == 0x2E { k -= 1 }
        }
        guard k < dotsEnd else { return offset }
        skipSpace()
        let digitsEnd = k
        while k > floor && bytes[k - 1] &- 0x30 < 10 { k -= 1 }
        return k < digitsEnd && (k == floor || !Lexer.isSymbolByte(bytes[k - 1])) ? k : offset
    }

    /// Calls `body` with a comment's text without its delimiters and surrounding white space,
    /// as UTF-8: the source bytes themselves, or their conversion (in `scratch`) from Latin-1.
    @inline(__always)
    static func withCommentText(
        _ text: Text, _ range: Range<Int>, lineComment: Bool, scratch: inout [UInt8],
        _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        let bytes = text.bytes
        var lower = range.lowerBound + 1  // `{` or `;`
        var upper = range.upperBound
        if !lineComment && upper > lower && bytes[upper - 1] == 0x7D { upper -= 1 }
        while lower < upper && Lexer.isSpace(bytes[lower]) { lower += 1 }
        while upper > lower && Lexer.isSpace(bytes[upper - 1]) { upper -= 1 }
        if text.latin1 {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: text.string(lower..<upper).utf8)
            scratch.withUnsafeBufferPointer(body)
        } else {
            body(UnsafeBufferPointer(rebasing: bytes[lower..<upper]))
        }
    }

    /// `23...Nf3` for the move about to be played at `ply`.
    static func moveLabel(san: UnsafeBufferPointer<UInt8>, ply: Int) -> String {
        var text = String(decoding: san, as: UTF8.self)
        if text.count > 40 { text = String(text.prefix(39)) + "…" }
        return PGNWriter.moveNumber(ply: ply) + text
    }

    static func moveFailure(_ error: SANError, san: UnsafeBufferPointer<UInt8>, ply: Int, inVariation: Bool) -> String {
        let label = moveLabel(san: san, ply: ply)
        let place = inVariation ? " in a variation" : ""
        switch error {
        case .syntax: return "unreadable move \(label)\(place)"
        case .illegal: return "illegal move \(label)\(place)"
        case .ambiguous: return "ambiguous move \(label)\(place)"
        }
    }
}
