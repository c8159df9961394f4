// swift-tools-version:6.0
// In-process benchmarks of hitroute's routing core on big scenes, kept out of
// the service's own package: it depends on the repository root by path and
// uses only the public API of HitAPI (decoding) and HitRouting (routing).
//
//     swift build -c release --package-path Benchmarks/inproc --disable-build-manifest-caching
//
// (without the flag SwiftPM may miss source files added to the repository
// since its last build, as Benchmarks/run.sh explains).
import PackageDescription

let package = Package(
    name: "hitroute-benchmarks",
    dependencies: [.package(name: "hitroute", path: "../..")],
    targets: [
        .executableTarget(
            name: "hitroute-inproc",
            dependencies: [
                .product(name: "HitAPI", package: "hitroute"),
                .product(name: "HitRouting", package: "hitroute"),
            ]),
    ]
)
