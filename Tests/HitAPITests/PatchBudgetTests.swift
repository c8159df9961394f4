import Foundation
import TestSupport
import XCTest

@testable import HitAPI
@testable import HitStore

/// A 256 × 256 opaque grey PNG: 492 characters of base64 that decode to
/// 65,536 alpha bytes, and with a stroke 4 · 257 · 257 more of summed-area
/// table (made with Python's zlib at level 9).
let tinyBigPNG =
    "iVBORw0KGgoAAAANSUhEUgAAAQAAAAEACAAAAAB5Gfe6AAABN0lEQVR42u3QAQEAAAjDoPcvPYMIEVjPTYAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECKgDag8O8kgPnOEAAAAASUVORK5CYII="

/// What the PNG's mask holds once compiled with a stroke: its alpha plane and table.
let tinyBigPNGStrokedBytes = 256 * 256 + 4 * 257 * 257

/// A scene of a background and one small rect layer `m`.
let budgetScene =
    #"{"layers":[{"id":"back","shape":{"type":"rect","x":0,"y":0,"width":100,"height":100}},{"id":"m","shape":{"type":"rect","x":0,"y":0,"width":10,"height":10}}]}"#

/// Turns `m` into the stroked 256 × 256 mask (the rect's x, y, width, height stay).
let growToMask = #"{"shape":{"type":"mask","png":"\#(tinyBigPNG)","stroke":1}}"#

/// Turns it back into the rect it was.
let shrinkToRect = #"{"shape":{"type":"rect","png":null,"stroke":null}}"#

/// `PATCH /scenes/{id}/layers/{layerId}` against the store's byte budget
/// (`--max-store-bytes`, issue 14), memory backend: a patch is weighed as
/// the upload of its result would be, so a tiny scene cannot be patched
/// into gigabytes of masks the store does not count.
final class PatchBudgetTests: XCTestCase {
    func store(_ app: Application) -> SceneStore { app.store as! SceneStore }

    /// A patch adding a mask past the budget is a 507; the scene, its
    /// version and the bytes counted stay as they were.
    func testAPatchPastTheBudgetIs507AndChangesNothing() throws {
        let app = Application.testing { $0.store.maxStoreBytes = 100_000 }
        XCTAssertEqual(app.call("PUT", "/scenes/s", budgetScene).status, 201)
        let before = app.call("GET", "/scenes/s")
        let bytes = store(app).stats().bytes
        XCTAssertEqual(bytes, budgetScene.utf8.count)
        let refused = app.call("PATCH", "/scenes/s/layers/m", growToMask)
        XCTAssertEqual(refused.status, 507, refused.text)
        XCTAssertEqual(refused.object["type"] as? String, "/problems/store-full")
        XCTAssertTrue((refused.object["detail"] as? String ?? "").contains("--max-store-bytes"), refused.text)
        let after = app.call("GET", "/scenes/s")
        XCTAssertEqual(after.text, before.text, "the layer is the rect it was")
        XCTAssertEqual(after.headers["ETag"], "\"1\"")
        XCTAssertEqual(store(app).stats().bytes, bytes)
        XCTAssertEqual(app.call("GET", "/scenes/s/hit?x=50&y=50&trace=0").object["version"] as? Int, 1)
        // Within the budget the same patch is taken, and weighed by what it holds.
        let roomy = Application.testing { $0.store.maxStoreBytes = 1_000_000 }
        XCTAssertEqual(roomy.call("PUT", "/scenes/s", budgetScene).status, 201)
        XCTAssertEqual(roomy.call("PATCH", "/scenes/s/layers/m", growToMask).status, 200)
        let grown = store(roomy).stats().bytes - bytes
        XCTAssertGreaterThanOrEqual(grown, tinyBigPNGStrokedBytes, "the mask's pixels and table are counted")
        XCTAssertLessThan(grown - tinyBigPNGStrokedBytes, growToMask.utf8.count + 64, "and its JSON, about what the patch adds")
    }

    /// The weight follows what the scene holds: growing and shrinking one
    /// layer again and again never adds up, and shrinking gives back
    /// exactly what growing took.
    func testRepeatedPatchesOfOneLayerDoNotAccumulate() {
        let app = Application.testing { $0.store.maxStoreBytes = 1_000_000 }
        XCTAssertEqual(app.call("PUT", "/scenes/s", budgetScene).status, 201)
        let start = store(app).stats().bytes
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/m", growToMask).status, 200)
        let grown = store(app).stats().bytes
        for round in 0..<20 {
            XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/m", shrinkToRect).status, 200, "round \(round)")
            XCTAssertEqual(store(app).stats().bytes, start, "round \(round)")
            XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/m", growToMask).status, 200, "round \(round)")
            XCTAssertEqual(store(app).stats().bytes, grown, "round \(round)")
        }
        // The same patch twice changes nothing the second time.
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/m", growToMask).status, 200)
        XCTAssertEqual(store(app).stats().bytes, grown)
        // Slop alone adds the table to an unstroked mask, and taking it away frees it.
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/m", #"{"shape":{"stroke":null}}"#).status, 200)
        let unstroked = store(app).stats().bytes
        XCTAssertEqual(grown - unstroked, 4 * 257 * 257 + #","stroke":1"#.utf8.count)
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/m", #"{"hitSlop":2}"#).status, 200)
        XCTAssertEqual(store(app).stats().bytes - unstroked, 4 * 257 * 257 + #","hitSlop":2"#.utf8.count)
    }

    /// A patch that shrinks a layer frees budget, so a later upload fits.
    func testAShrinkingPatchFreesRoomForAnUpload() {
        let masked =
            #"{"layers":[{"id":"m","shape":{"type":"mask","x":0,"y":0,"width":10,"height":10,"png":"\#(tinyBigPNG)","stroke":1}}]}"#
        let app = Application.testing { $0.store.maxStoreBytes = tinyBigPNGStrokedBytes * 3 / 2 }
        XCTAssertEqual(app.call("PUT", "/scenes/a", masked).status, 201)
        XCTAssertEqual(app.call("PUT", "/scenes/b", masked).status, 507, "two masks pass the budget")
        XCTAssertEqual(app.call("PATCH", "/scenes/a/layers/m", #"{"shape":{"type":"rect","png":null,"stroke":null}}"#).status, 200)
        XCTAssertEqual(store(app).stats().bytes, store(app).weight(of: "a"))
        XCTAssertLessThan(store(app).stats().bytes, 1_000)
        XCTAssertEqual(app.call("PUT", "/scenes/b", masked).status, 201, "the freed room takes the upload")
        // Now the first scene cannot take its mask back.
        XCTAssertEqual(app.call("PATCH", "/scenes/a/layers/m", growToMask).status, 507)
    }

    /// A scene full past a lowered budget can still be patched smaller.
    func testAPatchThatDoesNotGrowIsTakenEvenWhenFull() {
        let app = Application.testing { $0.store.maxStoreBytes = budgetScene.utf8.count }
        XCTAssertEqual(app.call("PUT", "/scenes/s", budgetScene).status, 201)
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/m", #"{"shape":{"width":20}}"#).status, 200, "same size")
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/m", #"{"shape":{"width":200}}"#).status, 507, "one byte more")
        XCTAssertEqual(app.call("GET", "/scenes/s").headers["ETag"], "\"2\"")
    }

    /// Patches cannot build a scene no upload could carry: its JSON stays
    /// within --max-body-bytes, else 413 naming the patch's member that grew it.
    func testPatchesCannotGrowASceneBeyondTheBodyLimit() {
        let app = Application.testing { $0.server.limits.maxBodyBytes = 1_000 }
        XCTAssertEqual(app.call("PUT", "/scenes/s", #"{"layers":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#).status, 201)
        let points = (0..<40).map { "[\($0),\($0 * 3)]" }.joined(separator: ",")
        let big = #"{"action":"x","shape":{"type":"polygon","points":[\#(points)]}}"#
        XCTAssertLessThan(big.utf8.count, 1_000)
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/a", big).status, 200)
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/b", big).status, 200)
        let before = app.call("GET", "/scenes/s").text
        let refused = app.call("PATCH", "/scenes/s/layers/c", big)
        XCTAssertEqual(refused.status, 413, refused.text)
        XCTAssertEqual(refused.object["type"] as? String, "/problems/payload-too-large")
        XCTAssertEqual(refused.pointers, ["/shape"])
        XCTAssertEqual(app.call("GET", "/scenes/s").text, before)
        // Shrinking another layer makes room for it.
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/a", #"{"shape":null,"action":null}"#).status, 200)
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/c", big).status, 200)
    }

    /// Through real sockets: the 507, the unchanged scene, the bytes gauge
    /// of /metrics unchanged by the refusal and moved by an accepted patch.
    func testLiveRefusedPatchLeavesSceneAndGaugeAlone() throws {
        try withLiveService({ $0.store.maxStoreBytes = 100_000 }) { service in
            XCTAssertEqual(try service.send("PUT", "/scenes/s", budgetScene).status, 201)
            let before = try service.send("GET", "/scenes/s")
            let (_, metrics) = try service.scrape()
            XCTAssertEqual(metrics.value("hitroute_store_bytes"), Double(budgetScene.utf8.count))
            let refused = try service.send("PATCH", "/scenes/s/layers/m", growToMask)
            XCTAssertEqual(refused.status, 507, refused.text)
            XCTAssertEqual(refused["Content-Type"], "application/problem+json")
            let after = try service.send("GET", "/scenes/s")
            XCTAssertEqual(after.text, before.text)
            XCTAssertEqual(after["ETag"], "\"1\"")
            XCTAssertEqual(try service.scrape().1.value("hitroute_store_bytes"), Double(budgetScene.utf8.count))
            let small = #"{"shape":{"type":"mask","alpha":"/wD/AA==","columns":2,"rows":2}}"#
            XCTAssertEqual(try service.send("PATCH", "/scenes/s/layers/m", small).status, 200)
            let moved = try service.scrape().1.value("hitroute_store_bytes") - Double(budgetScene.utf8.count)
            XCTAssertGreaterThanOrEqual(moved, 4, "the mask's four pixels are counted")
            XCTAssertEqual(try service.send("GET", "/scenes/s")["ETag"], "\"2\"")
        }
    }
}
