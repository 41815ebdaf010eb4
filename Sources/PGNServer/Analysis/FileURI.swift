import Foundation
import LanguageServer

/// `file:` URIs and the paths they name, as bytes. A name need not be UTF-8 (Linux takes any
/// byte but `/` and NUL in one): the URI percent-encodes each byte of the path, and its path is
/// the same bytes again.
enum FileURI {
    /// `file:///…` of an absolute path: every byte but the unreserved ones (`A–Z a–z 0–9 - . _ ~`)
    /// and `/` percent-encoded, as VS Code writes file URIs.
    static func uri(path: [UInt8]) -> DocumentURI {
        let hex = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = Array("file://".utf8)
        text.reserveCapacity(text.count + path.count)
        for byte in path {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                text.append(byte)
            default:
                text += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The path a `file:` URI names (`file:///p`, `file://localhost/p`), its escapes decoded
    /// to the bytes they stand for; nil for another URI.
    static func path(_ uri: String) -> [UInt8]? {
        var bytes = Array(uri.utf8)
        let scheme = Array("file://".utf8)
        guard bytes.count > scheme.count,
            zip(bytes.prefix(scheme.count), scheme).allSatisfy({ $0 | 0x20 == $1 | 0x20 })
        else { return nil }
        bytes.removeFirst(scheme.count)
        // The authority: empty, or this machine.
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let host = String(decoding: bytes[..<slash], as: UTF8.self).lowercased()
        guard host.isEmpty || host == "localhost" else { return nil }
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        var path: [UInt8] = []
        path.reserveCapacity(end - slash)
        var i = slash
        while i < end {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < end, let high = hexValue(bytes[i + 1]),
                let low = hexValue(bytes[i + 2])
            {
                path.append(high << 4 | low)
                i += 3
            } else {
                path.append(bytes[i])
                i += 1
            }
        }
        return path
    }

    /// The file name a URI ends with, as text for a message (bytes that are not UTF-8 shown as
    /// U+FFFD); for another URI, what follows its last `/`.
    static func name(_ uri: String) -> String {
        guard let path = path(uri) else { return URL(string: uri)?.lastPathComponent ?? uri }
        return FileSystem.display(FileSystem.name(path))
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
