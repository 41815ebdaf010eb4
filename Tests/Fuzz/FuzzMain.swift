import Foundation

/// One libFuzzer binary for every input pgn-lsp reads from outside, built and run by
/// scripts/fuzz: `PGN_FUZZ_TARGET` names the reader the inputs go to.
let fuzzTargets: [String: ([UInt8]) -> Void] = [
    "pgn": fuzzPGN,
    "lsp": fuzzLSP,
    "settings": fuzzSettings,
    "jsonrpc": fuzzJSONRPC,
    "engine": fuzzEngineOutput,
    "blob": fuzzMovesBlob,
    "index": fuzzIndexRows,
]

nonisolated(unsafe) var fuzzTarget: ([UInt8]) -> Void = { _ in }

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
)
    -> CInt
{
    let name = ProcessInfo.processInfo.environment["PGN_FUZZ_TARGET"] ?? ""
    guard let target = fuzzTargets[name] else {
        FileHandle.standardError.write(
            Data("PGN_FUZZ_TARGET must be one of: \(fuzzTargets.keys.sorted().joined(separator: ", "))\n".utf8))
        exit(2)
    }
    fuzzTarget = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzTarget(data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    return 0
}
