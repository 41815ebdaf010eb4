// swift-tools-version:6.0
import PackageDescription

// Bitboards count squares with popcount: on x86-64 the code is for Nehalem (2008) and later
// processors, which have POPCNT, not for the 2003 baseline, which counts bits in a dozen
// instructions.
#if arch(x86_64)
    let processor: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "nehalem"])]
#else
    let processor: [SwiftSetting] = []
#endif

let package = Package(
    name: "pgn-lsp",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pgn-lsp", targets: ["pgn-lsp"]),
        .library(name: "ChessCore", targets: ["ChessCore"]),
        .library(name: "PGN", targets: ["PGN"]),
        .library(name: "Engine", targets: ["Engine"]),
        .library(name: "GameStore", targets: ["GameStore"]),
        .library(name: "LanguageServer", targets: ["LanguageServer"]),
        .library(name: "PGNServer", targets: ["PGNServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(name: "ChessCore", swiftSettings: processor),
        .target(name: "TextPositions"),
        .target(name: "PGN", dependencies: ["ChessCore", "TextPositions"], swiftSettings: processor),
        .target(name: "Engine", dependencies: ["ChessCore", "PGN"]),
        .target(name: "CStorageShims", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "GameStore",
            dependencies: [
                "ChessCore", "PGN", "CStorageShims",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: processor
        ),
        // The protocol, transport, documents and request loop: no chess in it.
        .target(name: "LanguageServer", dependencies: ["TextPositions"], swiftSettings: processor),
        // The PGN language: every feature, on the LanguageServer framework.
        .target(
            name: "PGNServer", dependencies: ["ChessCore", "PGN", "Engine", "GameStore", "LanguageServer"],
            swiftSettings: processor),
        .executableTarget(
            name: "pgn-lsp",
            dependencies: [
                "ChessCore", "PGN", "Engine", "GameStore", "LanguageServer", "PGNServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // On Linux the release binary carries the Swift runtime and Foundation, so that it runs
            // where Swift is not installed: scripts/package ships it as built and tested. Only this
            // module is compiled for it (the static Foundation module names the libraries, ICU's
            // among them, that the linker needs), so the library modules are built once, where
            // `--static-swift-stdlib` would compile every module a second time.
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))]
        ),
        // Finds the test material: the project's copy under Tests/Fixtures, else ../shared's file,
        // else the test is skipped. And the in-memory client that drives a server through the
        // protocol, for the framework's tests and the PGN server's.
        .target(name: "TestSupport", dependencies: ["LanguageServer"], path: "Tests/TestSupport"),
        .testTarget(name: "ChessCoreTests", dependencies: ["ChessCore", "TestSupport"]),
        .testTarget(name: "PGNTests", dependencies: ["PGN", "ChessCore", "TextPositions", "TestSupport"]),
        .testTarget(name: "EngineTests", dependencies: ["Engine", "ChessCore", "PGN"]),
        .testTarget(
            name: "GameStoreTests",
            dependencies: [
                "GameStore", "PGN", "ChessCore", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "LanguageServerTests", dependencies: ["LanguageServer", "TestSupport"]),
        // The PGN language's features through the protocol, one file per feature.
        .testTarget(
            name: "PGNServerTests",
            dependencies: ["PGNServer", "LanguageServer", "PGN", "ChessCore", "GameStore", "TestSupport"]),
    ]
)
