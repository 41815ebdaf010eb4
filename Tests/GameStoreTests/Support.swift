import Foundation
import GRDB

/// A fresh directory under the system's temporary directory, removed by `cleanUp`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("gamestore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

/// Bytes as lower-case hex pairs separated by spaces, as the format document writes them.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined(separator: " ")
}

/// Hex pairs separated by spaces back to bytes.
func bytes(hex text: String) -> [UInt8] {
    text.split(separator: " ").map { UInt8($0, radix: 16)! }
}

/// Another connection holding an exclusive lock on the database at `path` until the returned
/// queue runs `ROLLBACK`.
func lockedByAnotherConnection(_ path: String) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.allowsUnsafeTransactions = true
    let other = try DatabaseQueue(path: path, configuration: configuration)
    try other.writeWithoutTransaction { try $0.execute(sql: "BEGIN EXCLUSIVE") }
    return other
}
