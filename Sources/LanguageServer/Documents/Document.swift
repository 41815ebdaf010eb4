/// An open document: its text as UTF-8 bytes, the version the client gave it, and its line index.
public struct Document: Sendable, Hashable {
    public let uri: DocumentURI
    public var languageID: String
    public private(set) var version: Int
    public private(set) var bytes: [UInt8]
    public private(set) var lineIndex: LineIndex

    public init(uri: DocumentURI, languageID: String = "pgn", version: Int, text: String) {
        self.uri = uri
        self.languageID = languageID
        self.version = version
        self.bytes = Array(text.utf8)
        self.lineIndex = LineIndex(bytes)
    }

    public init(_ item: TextDocumentItem) {
        self.init(uri: item.uri, languageID: item.languageId, version: item.version, text: item.text)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public var lineCount: Int { lineIndex.lineCount }

    /// The bytes of a line without its terminator; nil past the last line.
    public func line(_ line: Int) -> ArraySlice<UInt8>? {
        guard line >= 0, line < lineIndex.lineCount else { return nil }
        return bytes[lineIndex.contentRange(ofLine: line, in: bytes)]
    }

    public func offset(of position: Position, encoding: PositionEncoding) -> Int {
        lineIndex.offset(of: position, in: bytes, encoding: encoding)
    }

    public func position(of offset: Int, encoding: PositionEncoding) -> Position {
        lineIndex.position(of: offset, in: bytes, encoding: encoding)
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

    /// Applies one content change and tells which bytes it replaced.
    @discardableResult
    public mutating func apply(_ change: TextDocumentContentChangeEvent, encoding: PositionEncoding) -> AppliedEdit {
        let inserted = Array(change.text.utf8)
        guard let range = change.range else {
            let edit = AppliedEdit(replacedRange: 0..<bytes.count, insertedLength: inserted.count)
            bytes = inserted
            lineIndex = LineIndex(bytes)
            return edit
        }
        let replaced = byteRange(of: range, encoding: encoding)
        bytes.replaceSubrange(replaced, with: inserted)
        lineIndex.replace(replaced, insertedLength: inserted.count, in: bytes)
        return AppliedEdit(replacedRange: replaced, insertedLength: inserted.count)
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
