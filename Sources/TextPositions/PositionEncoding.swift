/// The unit in which a column counts: the protocol's `positionEncoding`, and the PGN reader's.
public enum PositionEncoding: String, Codable, Sendable, Hashable {
    /// Bytes of UTF-8.
    case utf8 = "utf-8"
    /// UTF-16 code units: the default, and the only one every client supports.
    case utf16 = "utf-16"
    /// Unicode scalars.
    case utf32 = "utf-32"
}
