import ChessCore
import PGN

/// libFuzzer target for the PGN reader, the replay and the FEN reader: every input is
/// parsed, replayed and checked, and the results must be consistent. Built and run by
/// scripts/fuzz, outside SwiftPM (libFuzzer brings its own `main`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let source = SourceText(bytes)
    let report = Checker.check(source)
    for diagnostic in report.diagnostics {
        // Every range lies inside the text and maps to a position and back.
        precondition(diagnostic.range.lowerBound >= 0 && diagnostic.range.upperBound <= bytes.count)
        precondition(!diagnostic.message.isEmpty)
        let position = source.position(of: diagnostic.range.lowerBound, in: .utf16)
        precondition(source.offset(of: position, in: .utf16) <= diagnostic.range.lowerBound)
    }
    if bytes.count < 200, let fen = String(validating: bytes, as: UTF8.self),
        let position = try? Position(fen: fen)
    {
        // Whatever FEN is accepted prints a FEN that reads back the same.
        precondition((try? Position(fen: position.fen)) == position)
        _ = position.perft(2)
    }
    return 0
}
