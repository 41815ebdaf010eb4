// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "pgn-lsp",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pgn-lsp", targets: ["pgn-lsp"]),
        .library(name: "ChessCore", targets: ["ChessCore"]),
        .library(name: "PGN", targets: ["PGN"]),
        .library(name: "Engine", targets: ["Engine"]),
        .library(name: "LanguageServer", targets: ["LanguageServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        .target(name: "ChessCore"),
        .target(name: "PGN", dependencies: ["ChessCore"]),
        .target(name: "Engine", dependencies: ["ChessCore", "PGN"]),
        .target(name: "LanguageServer", dependencies: ["ChessCore", "PGN", "Engine"]),
        .executableTarget(
            name: "pgn-lsp",
            dependencies: [
                "ChessCore", "PGN", "Engine", "LanguageServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "ChessCoreTests", dependencies: ["ChessCore"]),
        .testTarget(name: "PGNTests", dependencies: ["PGN", "ChessCore"]),
        .testTarget(name: "EngineTests", dependencies: ["Engine", "ChessCore", "PGN"]),
        .testTarget(name: "LanguageServerTests", dependencies: ["LanguageServer"]),
    ]
)
