// swift-tools-version:6.0
import PackageDescription

// Module graph: each arrow points at a dependency declared below, and every
// module a target imports is declared (scripts/check-imports.py, CI).
//
//   hitroute (executable) ──▶ HitAPI, HitStore, HTTPServer, HitJournal
//   HitAPI ──┬─▶ HitStore ──▶ SceneCodec, HitJournal, RESPClient, RESP, HitRouting, HitJSON, HitMetrics, HitBase
//            │                 the store protocol, snapshots, capabilities, StoreError; memory, journal, Redis
//            ├─▶ SceneCodec ──▶ HitRouting, HitJSON, HitImage   the scene document: decode (JSON Pointers), encode
//            ├─▶ HitRender ──▶ HitRouting, HitImage, HitBase    SVG of a scene, masks as PNG (no I/O, no Foundation)
//            ├─▶ HitAnalysis ──▶ HitRouting       sample grids: audit, reach, diff (no I/O, no Foundation)
//            ├─▶ HitRouting ──▶ CPrefetch, HitBase   core: model, geometry, regions, router, answer text (no I/O, no Foundation)
//            ├─▶ HitJSON ──▶ HitBase               byte-level JSON reader and writer (no Foundation)
//            ├─▶ HTTPServer ──▶ CEpoll, HitMetrics, HitBase   HTTP/1.1 over epoll; knows nothing of scenes
//            ├─▶ HitMetrics ──▶ CCounters          metric model, exposition, per-thread counter cells
//            ├─▶ HitJournal, RESPClient            (flags: --fsync modes, --store URLs)
//            └─▶ Playground                        the page's files (scripts/embed-playground.sh)
//   RESPClient ──▶ RESP, HitMetrics, HitBase       Redis over sockets and its statistics; RESP: the RESP2 parser
//   HitJournal                                     journal records, CRC-32C, snapshots, group commit
//   HitImage                                       PNG + zlib inflate → alpha planes (no I/O, no Foundation)
//   HitStore never imports HTTPServer: it throws StoreError, which HitAPI
//   turns into problem+json in one place, and says in its capabilities
//   which calls may wait; HitAPI's RunWhere decides loop or worker.
//   HitBase: the byte buffer both writers grow, the JSON string escaper, the
//   monotonic clock (no dependencies, no Foundation).
//
// The core, the JSON and the image modules never import Foundation; the
// server knows nothing of scenes. CPrefetch is two inline C functions, cache
// prefetch hints, which Swift cannot emit itself; CCounters is relaxed
// atomic loads and stores in C. hitroute-bench and the test targets sit
// beside the executable (TestSupport: test clients, the Redis process).
let package = Package(
    name: "hitroute",
    products: [
        .executable(name: "hitroute", targets: ["hitroute"]),
        .library(name: "HitRouting", targets: ["HitRouting"]),
        .library(name: "HitJSON", targets: ["HitJSON"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "HitAPI", targets: ["HitAPI"]),
        .library(name: "HitMetrics", targets: ["HitMetrics"]),
        .library(name: "HitRender", targets: ["HitRender"]),
        .library(name: "HitJournal", targets: ["HitJournal"]),
        .library(name: "HitImage", targets: ["HitImage"]),
        .library(name: "HitBase", targets: ["HitBase"]),
        .library(name: "HitAnalysis", targets: ["HitAnalysis"]),
        .library(name: "HitStore", targets: ["HitStore"]),
        .library(name: "SceneCodec", targets: ["SceneCodec"]),
    ],
    targets: [
        .target(name: "CEpoll"),
        .target(name: "CCounters"),
        .target(name: "HitMetrics", dependencies: ["CCounters"]),
        .target(name: "HitBase"),
        .target(name: "HTTPServer", dependencies: ["CEpoll", "HitBase", "HitMetrics"]),
        .target(name: "HitJSON", dependencies: ["HitBase"]),
        .target(name: "CPrefetch"),
        .target(name: "HitImage"),
        .target(name: "HitRouting", dependencies: ["CPrefetch", "HitBase"]),
        .target(name: "HitRender", dependencies: ["HitBase", "HitRouting", "HitImage"]),
        .target(name: "HitAnalysis", dependencies: ["HitRouting"]),
        .target(name: "Playground"),
        .target(name: "HitJournal"),
        .target(name: "RESP"),
        .target(name: "RESPClient", dependencies: ["HitBase", "RESP", "HitMetrics"]),
        .target(name: "SceneCodec", dependencies: ["HitImage", "HitJSON", "HitRouting"]),
        .target(
            name: "HitStore",
            dependencies: ["HitBase", "HitJournal", "HitJSON", "HitMetrics", "HitRouting", "RESP", "RESPClient", "SceneCodec"]),
        .target(
            name: "HitAPI",
            dependencies: [
                "HitRouting", "HitAnalysis", "HitJSON", "HTTPServer", "HitJournal", "HitRender", "HitStore", "Playground", "RESPClient",
                "HitMetrics", "SceneCodec",
            ]),
        .executableTarget(name: "hitroute", dependencies: ["HitAPI", "HitJournal", "HitStore", "HTTPServer"]),
        .executableTarget(
            name: "hitroute-bench",
            dependencies: [
                "CEpoll", "HitAnalysis", "HitAPI", "HitBase", "HitJSON", "HitRender", "HitRouting", "HitStore", "HTTPServer", "SceneCodec",
                "TestSupport",
            ]),
        .target(name: "TestSupport", dependencies: ["HTTPServer"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HitBase", "HTTPServer", "TestSupport"]),
        .testTarget(name: "HitMetricsTests", dependencies: ["HitMetrics", "TestSupport"]),
        .testTarget(name: "HitJSONTests", dependencies: ["HitJSON", "TestSupport"]),
        .testTarget(name: "HitRoutingTests", dependencies: ["HitRouting", "TestSupport"]),
        .testTarget(
            name: "HitAPITests",
            dependencies: [
                "HitAPI", "HTTPServer", "HitJSON", "HitJournal", "HitRouting", "HitStore", "Playground", "RESP", "RESPClient",
                "SceneCodec", "TestSupport",
            ]),
        .testTarget(name: "HitRenderTests", dependencies: ["HitRender", "HitRouting", "HitImage", "TestSupport"]),
        .testTarget(name: "HitJournalTests", dependencies: ["HitJournal", "TestSupport"]),
        .testTarget(name: "RESPTests", dependencies: ["HitBase", "RESP", "RESPClient", "TestSupport"]),
        .testTarget(name: "HitBaseTests", dependencies: ["HitBase", "TestSupport"]),
        .testTarget(name: "SceneCodecTests", dependencies: ["SceneCodec", "TestSupport"]),
        .testTarget(
            name: "HitStoreTests",
            dependencies: ["HitStore", "HitJournal", "HitRouting", "RESPClient", "SceneCodec", "TestSupport"]),
        .testTarget(name: "HitImageTests", dependencies: ["HitImage", "TestSupport"]),
        .testTarget(name: "HitAnalysisTests", dependencies: ["HitAnalysis", "HitRouting", "TestSupport"]),
    ]
)
