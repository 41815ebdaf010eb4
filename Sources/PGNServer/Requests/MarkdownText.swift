/// Text from a file or a database (a tag value, a player's name, a comment command) as it
/// enters a markdown hover: shown as written, never read as markdown or HTML (no image a client
/// would load, no link, no heading), on one line, and bounded in length.
enum MarkdownText {
    /// A line break inside a paragraph (two spaces before it): the hovers' lines follow each
    /// other without blank lines, so that a terminal editor, which shows the markdown as written,
    /// spends no line on them.
    static let lineBreak = "  \n"

    /// The most characters of one such text a hover shows; a longer one ends with `…`.
    static let longest = 200

    /// The characters markdown or HTML could read as markup in running text.
    private static let markup: Set<Character> = ["\\", "`", "*", "_", "[", "]", "<", ">", "#", "|", "~", "!"]

    /// `text` on one line (line breaks and other control characters as spaces) and at most
    /// `limit` characters.
    static func bounded(_ text: String, limit: Int = longest) -> String {
        var result = ""
        var count = 0
        for character in text {
            if count == limit {
                result.append("…")
                break
            }
            let isControl = character.unicodeScalars.contains { $0.properties.generalCategory == .control }
            result.append(isControl ? " " : character)
            count += 1
        }
        return result
    }

    /// `text`, bounded, for running text: each markup character escaped with a backslash (an
    /// `_` inside a word is left alone, markdown does not read it there).
    static func escaped(_ text: String, limit: Int = longest) -> String {
        let characters = Array(bounded(text, limit: limit))
        var result = ""
        for (index, character) in characters.enumerated() {
            if markup.contains(character) {
                let inWord =
                    character == "_" && index > 0 && index + 1 < characters.count
                    && characters[index - 1].isLetterOrDigit && characters[index + 1].isLetterOrDigit
                if !inWord { result.append("\\") }
            }
            result.append(character)
        }
        return result
    }

    /// `text`, bounded, as a code span: fenced with more backticks than it holds in a row, so
    /// that nothing in it ends the span.
    static func code(_ text: String, limit: Int = longest) -> String {
        let text = bounded(text, limit: limit)
        var longestRun = 0
        var run = 0
        for character in text {
            run = character == "`" ? run + 1 : 0
            longestRun = max(longestRun, run)
        }
        let fence = String(repeating: "`", count: longestRun + 1)
        let pad = text.hasPrefix("`") || text.hasSuffix("`") || text.isEmpty ? " " : ""
        return fence + pad + text + pad + fence
    }

    /// A message of the server's own that may hold text from elsewhere (a file's name, an
    /// error): what stands between backticks stays a code span (fenced anew), the rest is escaped.
    static func escapedKeepingCode(_ text: String, limit: Int = 400) -> String {
        let parts = bounded(text, limit: limit).split(separator: "`", omittingEmptySubsequences: false)
        return parts.enumerated().map { index, part in
            index % 2 == 1 && index < parts.count - 1
                ? code(String(part), limit: limit) : escaped(String(part), limit: limit)
        }.joined()
    }

    /// Markdown made by this server as plain text: the escapes of `escaped` removed.
    static func unescaped(_ markdown: String) -> String {
        var result = ""
        var escaping = false
        for character in markdown {
            if !escaping && character == "\\" {
                escaping = true
                continue
            }
            if escaping && !markup.contains(character) { result.append("\\") }
            escaping = false
            result.append(character)
        }
        if escaping { result.append("\\") }
        return result
    }
}

extension Character {
    fileprivate var isLetterOrDigit: Bool { isLetter || isNumber }
}
