// swift-tools-version:6.0
import PackageDescription

// Module graph (arrows point at dependencies):
//
//   hitroute (executable) ──▶ HitAPI ──▶ HitRouting ──▶ CPrefetch   (core: no I/O, no Foundation)
//                                  ├───▶ HitJSON      (byte-level JSON, no Foundation)
//                                  ├───▶ HitJournal   (journal records, CRC-32C, snapshots, group commit; no Foundation)
//                                  └───▶ HTTPServer ──▶ CEpoll (C shim exposing epoll)
//
// The core and the JSON module never import Foundation; the server knows
// nothing of scenes. CPrefetch is two inline C functions, cache prefetch
// hints, which Swift cannot emit itself.
let package = Package(
    name: "hitroute",
    products: [
        .executable(name: "hitroute", targets: ["hitroute"]),
        .library(name: "HitRouting", targets: ["HitRouting"]),
        .library(name: "HitJSON", targets: ["HitJSON"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "HitAPI", targets: ["HitAPI"]),
        .library(name: "HitJournal", targets: ["HitJournal"]),
    ],
    targets: [
        .target(name: "CEpoll"),
        .target(name: "HTTPServer", dependencies: ["CEpoll"]),
        .target(name: "HitJSON"),
        .target(name: "CPrefetch"),
        .target(name: "HitRouting", dependencies: ["CPrefetch"]),
        .target(name: "HitJournal"),
        .target(name: "HitAPI", dependencies: ["HitRouting", "HitJSON", "HTTPServer", "HitJournal"]),
        .executableTarget(name: "hitroute", dependencies: ["HitAPI", "HitJournal"]),
        .executableTarget(name: "hitroute-bench", dependencies: ["HitAPI", "HTTPServer", "TestSupport"]),
        .target(name: "TestSupport", dependencies: ["HTTPServer"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"]),
        .testTarget(name: "HitJSONTests", dependencies: ["HitJSON", "TestSupport"]),
        .testTarget(name: "HitRoutingTests", dependencies: ["HitRouting", "TestSupport"]),
        .testTarget(name: "HitAPITests", dependencies: ["HitAPI", "TestSupport"]),
        .testTarget(name: "HitJournalTests", dependencies: ["HitJournal", "TestSupport"]),
    ]
)
