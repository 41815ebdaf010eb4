import LanguageServer
import Synchronization

/// A whole reading of a large document under way (`PGNAnalyzer.onWholeReading`): how much of
/// its text is read and how many games are found as the pieces read on every core finish, then
/// the end, with the number of games.
public final class WholeReading: Sendable {
    public enum Event: Sendable, Equatable {
        /// Bytes of the text read so far, and the games found in them.
        case read(bytes: Int, games: Int)
        /// The reading is made (its findings across games included).
        case finished(games: Int)
    }

    public let uri: DocumentURI
    /// The length of the text.
    public let length: Int
    /// The reading's events, in order.
    public let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let done = Mutex((bytes: 0, games: 0))

    init(uri: DocumentURI, length: Int) {
        self.uri = uri
        self.length = length
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
    }

    /// A piece of the text is read: `bytes` long, with `games` games.
    func pieceRead(bytes: Int, games: Int) {
        // Told under the lock, so that the counts told only grow.
        done.withLock { done in
            done.bytes += bytes
            done.games += games
            continuation.yield(.read(bytes: done.bytes, games: done.games))
        }
    }

    func finish(games: Int) {
        continuation.yield(.finished(games: games))
        continuation.finish()
    }
}
