// swift-tools-version:6.0
import PackageDescription

// Module graph (arrows point at dependencies):
//
//   hitroute (executable) ──▶ HitAPI ──▶ HitRouting ──▶ CPrefetch   (core: no I/O, no Foundation)
//                                  ├───▶ HitRender ──▶ HitRouting, HitImage   (SVG of a scene, masks as PNG; no I/O, no Foundation)
//                                  ├───▶ Playground   (the page's files, embedded by scripts/embed-playground.sh)
//                                  ├───▶ HitJSON      (byte-level JSON, no Foundation)
//                                  ├───▶ HitImage     (PNG + zlib inflate → alpha planes; no I/O, no Foundation)
//                                  ├───▶ HitJournal   (journal records, CRC-32C, snapshots, group commit; no Foundation)
//                                  ├───▶ RESPClient ──▶ RESP, HitMetrics   (Redis over sockets and its statistics; the pure RESP2 parser)
//                                  ├───▶ HTTPServer ──▶ CEpoll (C shim exposing epoll)
//                                  │          └─────▶ HitMetrics
//                                  ├───▶ HitMetrics ──▶ CCounters (relaxed atomic loads/stores in C)
//                                  └───▶ HitBase  (byte buffer, JSON string escaper, monotonic clock; HTTPServer,
//                                                  HitJSON, HitRender and RESPClient use it too)
//
// HitMetrics (no Foundation) holds the metric model, the Prometheus and
// OpenMetrics writers, the scrape-time registry, the process collector and
// the per-thread counter cells that the server's loops count into.
// The core, the JSON and the image modules never import Foundation; the server knows
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
        .library(name: "HitMetrics", targets: ["HitMetrics"]),
        .library(name: "HitRender", targets: ["HitRender"]),
        .library(name: "HitJournal", targets: ["HitJournal"]),
        .library(name: "HitImage", targets: ["HitImage"]),
        .library(name: "HitBase", targets: ["HitBase"]),
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
        .target(name: "HitRouting", dependencies: ["CPrefetch"]),
        .target(name: "HitRender", dependencies: ["HitBase", "HitRouting", "HitImage"]),
        .target(name: "Playground"),
        .target(name: "HitJournal"),
        .target(name: "RESP"),
        .target(name: "RESPClient", dependencies: ["HitBase", "RESP", "HitMetrics"]),
        .target(name: "HitAPI", dependencies: ["HitRouting", "HitJSON", "HitImage", "HTTPServer", "HitJournal", "HitRender", "Playground", "RESPClient", "HitMetrics", "HitBase"]),
        .executableTarget(name: "hitroute", dependencies: ["HitAPI", "HitJournal"]),
        .executableTarget(name: "hitroute-bench", dependencies: ["HitAPI", "HitRender", "HTTPServer", "TestSupport"]),
        .target(name: "TestSupport", dependencies: ["HTTPServer"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HitBase", "HTTPServer", "TestSupport"]),
        .testTarget(name: "HitMetricsTests", dependencies: ["HitMetrics", "TestSupport"]),
        .testTarget(name: "HitJSONTests", dependencies: ["HitJSON", "TestSupport"]),
        .testTarget(name: "HitRoutingTests", dependencies: ["HitRouting", "TestSupport"]),
        .testTarget(name: "HitAPITests", dependencies: ["HitAPI", "TestSupport"]),
        .testTarget(name: "HitRenderTests", dependencies: ["HitRender", "HitRouting", "HitImage", "TestSupport"]),
        .testTarget(name: "HitJournalTests", dependencies: ["HitJournal", "TestSupport"]),
        .testTarget(name: "RESPTests", dependencies: ["HitBase", "RESP", "RESPClient", "TestSupport"]),
        .testTarget(name: "HitBaseTests", dependencies: ["HitBase", "TestSupport"]),
        .testTarget(name: "HitImageTests", dependencies: ["HitImage", "TestSupport"]),
    ]
)
