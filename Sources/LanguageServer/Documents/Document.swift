/// An open document: its text as UTF-8 bytes, the version the client gave it, and its line index.
public struct Document: Sendable, Hashable {
    public let uri: DocumentURI
    public var languageID: String
    public private(set) var version: Int
    /// The text, in pieces: a copy of the document shares them, and an edit changes only the
    /// piece it falls in.
    public private(set) var content: DocumentText
    public private(set) var lineIndex: LineIndex
    /// The edits that made the latest revisions of the text.
    public private(set) var history: EditHistory

    public init(uri: DocumentURI, languageID: String = "pgn", version: Int, text: String) {
        self.uri = uri
        self.languageID = languageID
        self.version = version
        let bytes = Array(text.utf8)
        self.content = DocumentText(bytes)
        self.lineIndex = LineIndex(bytes)
        self.history = EditHistory()
    }

    /// A document of UTF-8 `bytes` (a file read from disk), taken as they are; `lineIndex`, when
    /// given, is theirs (the reader of a large message finds it as it decodes the text).
    public init(uri: DocumentURI, languageID: String = "pgn", version: Int, bytes: [UInt8], lineIndex: LineIndex? = nil)
    {
        self.uri = uri
        self.languageID = languageID
        self.version = version
        self.content = DocumentText(bytes)
        self.lineIndex = lineIndex ?? LineIndex(bytes)
        self.history = EditHistory()
    }

    public init(_ item: TextDocumentItem) {
        self.init(uri: item.uri, languageID: item.languageId, version: item.version, text: item.text)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Holds the text in `text`: the same bytes, held in other arrays (`DocumentText.sharing`).
    public mutating func hold(_ text: DocumentText) {
        precondition(text.count == content.count, "a text of \(text.count) bytes for one of \(content.count)")
        content = text
    }

    /// The text's bytes in one array: the array it was opened from until an edit, else a copy
    /// (100 MB for a 100 MB document: `content` reads a part without one).
    public var bytes: [UInt8] { content.array }

    /// The length of the text in bytes.
    public var length: Int { content.count }

    public var lineCount: Int { lineIndex.lineCount }

    /// The bytes of a line without its terminator; nil past the last line.
    public func line(_ line: Int) -> [UInt8]? {
        guard line >= 0, line < lineIndex.lineCount else { return nil }
        return content.bytes(in: lineIndex.contentRange(ofLine: line, in: content))
    }

    public func offset(of position: LSPPosition, encoding: PositionEncoding) -> Int {
        lineIndex.offset(of: position, in: content, encoding: encoding)
    }

    public func position(of offset: Int, encoding: PositionEncoding) -> LSPPosition {
        lineIndex.position(of: offset, in: content, encoding: encoding)
    }

    /// The same for offsets asked in increasing order, `line` being the previous answer's line
    /// (`LineIndex.position(of:in:encoding:fromLine:)`).
    public func position(of offset: Int, encoding: PositionEncoding, fromLine line: inout Int) -> LSPPosition {
        lineIndex.position(of: offset, in: content, encoding: encoding, fromLine: &line)
    }

    /// Whether each byte of `range` ends a line (`LineIndex.holdsOnlyLineBreaks`).
    public func holdsOnlyLineBreaks(_ range: Range<Int>, fromLine line: inout Int) -> Bool {
        lineIndex.holdsOnlyLineBreaks(range, fromLine: &line)
    }

    /// The bytes a range covers; a range whose end is before its start covers the bytes between them.
    public func byteRange(of range: LSPRange, encoding: PositionEncoding) -> Range<Int> {
        let start = offset(of: range.start, encoding: encoding)
        let end = offset(of: range.end, encoding: encoding)
        return min(start, end)..<max(start, end)
    }

    public func range(of byteRange: Range<Int>, encoding: PositionEncoding) -> LSPRange {
        LSPRange(
            start: position(of: byteRange.lowerBound, encoding: encoding),
            end: position(of: byteRange.upperBound, encoding: encoding))
    }

    /// The same for ranges asked in document order, `line` being the previous answer's end line
    /// (`position(of:encoding:fromLine:)`).
    public func range(of byteRange: Range<Int>, encoding: PositionEncoding, fromLine line: inout Int) -> LSPRange {
        let start = position(of: byteRange.lowerBound, encoding: encoding, fromLine: &line)
        return LSPRange(start: start, end: position(of: byteRange.upperBound, encoding: encoding, fromLine: &line))
    }

    /// Applies one content change and tells which bytes it replaced.
    @discardableResult
    public mutating func apply(_ change: TextDocumentContentChangeEvent, encoding: PositionEncoding) -> AppliedEdit {
        let inserted = Array(change.text.utf8)
        guard let range = change.range else {
            let edit = AppliedEdit(replacedRange: 0..<content.count, insertedLength: inserted.count)
            history.record(edit)
            content = DocumentText(inserted)
            lineIndex = LineIndex(inserted)
            return edit
        }
        let replaced = byteRange(of: range, encoding: encoding)
        let edit = AppliedEdit(replacedRange: replaced, insertedLength: inserted.count)
        history.record(edit)
        content.replace(replaced, with: inserted)
        lineIndex.replace(replaced, insertedLength: inserted.count, in: content)
        return edit
    }

    /// Applies the changes of one `didChange` in order, each to the result of the previous, then takes the
    /// new version.
    @discardableResult
    public mutating func apply(
        _ changes: [TextDocumentContentChangeEvent], version: Int, encoding: PositionEncoding
    ) -> [AppliedEdit] {
        let edits = changes.map { apply($0, encoding: encoding) }
        self.version = version
        return edits
    }
}

/// What one content change did to a document's bytes: `replacedRange` of the text before the change was
/// replaced by `insertedLength` bytes. A layer that keeps results per region re-computes only those the
/// edit touched and shifts the others by `delta`.
public struct AppliedEdit: Sendable, Hashable, CustomStringConvertible {
    public var replacedRange: Range<Int>
    public var insertedLength: Int

    public init(replacedRange: Range<Int>, insertedLength: Int) {
        self.replacedRange = replacedRange
        self.insertedLength = insertedLength
    }

    /// The inserted bytes in the text after the change.
    public var insertedRange: Range<Int> { replacedRange.lowerBound..<replacedRange.lowerBound + insertedLength }

    /// How far bytes after the replaced range moved.
    public var delta: Int { insertedLength - replacedRange.count }

    public var description: String { "\(replacedRange) → \(insertedLength) bytes" }
}

/// The latest edits of a document's text, so that a reader that keeps results per region can
/// redo only the regions the edits touched.
public struct EditHistory: Sendable, Hashable {
    /// Names the text: a new stamp for every opened document and after every content change,
    /// never reused in the process (copies of a document that are edited apart get different ones).
    public private(set) var stamp: UInt64
    /// The stamp before the oldest kept edit.
    private var base: UInt64
    /// The latest edits, oldest first, with the stamp each one made.
    private var recent: [AppliedEdit] = []
    private var stamps: [UInt64] = []

    /// How many edits are kept.
    static let kept = 256

    private static let counter = Locked<UInt64>(0)

    private static func newStamp() -> UInt64 {
        counter.withLock {
            $0 += 1
            return $0
        }
    }

    init() {
        stamp = Self.newStamp()
        base = stamp
    }

    mutating func record(_ edit: AppliedEdit) {
        if recent.count == Self.kept {
            base = stamps[Self.kept / 2 - 1]
            recent.removeFirst(Self.kept / 2)
            stamps.removeFirst(Self.kept / 2)
        }
        stamp = Self.newStamp()
        recent.append(edit)
        stamps.append(stamp)
    }

    /// The edits, in order, that turned the text named `stamp` into the current one; nil when
    /// that text is not an earlier one of this history or its edits are no longer kept.
    public func edits(since stamp: UInt64) -> [AppliedEdit]? {
        if stamp == self.stamp { return [] }
        if stamp == base { return recent }
        guard let index = stamps.lastIndex(of: stamp) else { return nil }
        return Array(recent[(index + 1)...])
    }
}

extension AppliedEdit {
    /// Edits applied one after the other, as one edit of the first text: the smallest range of it
    /// whose bytes were replaced, with how many bytes replace them in the last text.
    public static func combining(_ edits: [AppliedEdit]) -> AppliedEdit? {
        guard var low = edits.first?.replacedRange.lowerBound else { return nil }
        var oldEnd = edits[0].replacedRange.upperBound
        var newEnd = edits[0].insertedRange.upperBound
        for edit in edits.dropFirst() {
            let range = edit.replacedRange
            // Bytes before `low` and after `newEnd` are the first text's, shifted after `newEnd`.
            oldEnd += max(0, range.upperBound - newEnd)
            newEnd = max(newEnd, range.upperBound) + edit.delta
            low = min(low, range.lowerBound)
        }
        return AppliedEdit(replacedRange: low..<oldEnd, insertedLength: newEnd - low)
    }
}
