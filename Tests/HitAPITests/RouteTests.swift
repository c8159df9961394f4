import XCTest

@testable import HitAPI

/// Paths to routes, byte by byte: ids are percent-decoded, fixed segments
/// match once decoded, and anything else is no route (a 404).
final class RouteTests: XCTestCase {
    func testEveryRoute() {
        XCTAssertEqual(Route(path: "/healthz"), .healthz)
        XCTAssertEqual(Route(path: "/readyz"), .readyz)
        XCTAssertEqual(Route(path: "/openapi.yaml"), .openAPI)
        XCTAssertEqual(Route(path: "/scenes"), .scenes)
        XCTAssertEqual(Route(path: "/scenes/ring-demo"), .scene("ring-demo"))
        XCTAssertEqual(Route(path: "/scenes/ring-demo/hit"), .hit("ring-demo"))
        XCTAssertEqual(Route(path: "/scenes/ring-demo/hits"), .hits("ring-demo"))
        XCTAssertEqual(Route(path: "/scenes/a/layers/b.c"), .layer(scene: "a", layer: "b.c"))
    }

    func testIdsArePercentDecoded() {
        XCTAssertEqual(Route(path: "/scenes/a%20b/hit"), .hit("a b"))
        XCTAssertEqual(Route(path: "/scenes/%C3%A9t%c3%a9"), .scene("été"))
        XCTAssertEqual(Route(path: "/scenes/a+b"), .scene("a+b"))
        XCTAssertEqual(Route(path: "/scenes/s/layers/x%2Fy"), .layer(scene: "s", layer: "x/y"))
        XCTAssertEqual(Route(path: "/scenes/été"), .scene("été"))
    }

    func testFixedSegmentsMatchOnceDecoded() {
        XCTAssertEqual(Route(path: "/%73cenes/a/%68it"), .hit("a"))
        XCTAssertEqual(Route(path: "/scenes/a/hit%73"), .hits("a"))
        XCTAssertEqual(Route(path: "/h%65althz"), .healthz)
        XCTAssertEqual(Route(path: "/scenes/a/l%61yers/b"), .layer(scene: "a", layer: "b"))
    }

    func testThePlaygroundRoutes() {
        XCTAssertEqual(Route(path: "/"), .index)
        XCTAssertEqual(Route(path: "/scenes/a/render.svg"), .render("a"))
        XCTAssertEqual(Route(path: "/hitroute.js").map { if case .asset = $0 { true } else { false } }, true)
        XCTAssertEqual(Route(path: "/examples/ring-over-button.json").map { if case .asset = $0 { true } else { false } }, true)
        for path in ["/hitroute.jsx", "/examples/", "/examples/x.json", "/playground.js/", "/scenes/a/render.svgz"] {
            XCTAssertNil(Route(path: path), path)
        }
    }

    func testNoRoute() {
        for path in [
            "", "scenes", "//scenes", "/scenes/", "/scenes//hit", "/scenes/a/", "/scenes/a/hit/", "/scenes/a/hitx",
            "/scenes/a/hi", "/scenes/a/layers", "/scenes/a/layers/", "/scenes/a/layers/b/c", "/scenes/a/b/c",
            "/Scenes", "/healthz/", "/healthz/x", "/scenes/a%zz", "/scenes/a%2", "/scenes/%FF", "/%7", "/scenes/a/%zzit",
            "/scenes/\u{FFFD}%80/hit",
        ] {
            XCTAssertNil(Route(path: path), path)
        }
    }
}
