import Foundation
import TestSupport
import XCTest

@testable import HitAPI

/// `png` masks over HTTP, with the decoder's corpus (Tests/Corpus/png: each
/// `.png` beside its `.alpha` plane, made and checked with Pillow and pypng)
/// as the oracle of which pixels take hits.
final class PNGMaskRoutesTests: XCTestCase {
    let corpus = repositoryRoot.appendingPathComponent("Tests/Corpus/png")

    func file(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: corpus.appendingPathComponent(name))) }

    /// The image's size from its IHDR.
    func size(_ png: [UInt8]) -> (Int, Int) {
        func be(_ i: Int) -> Int { png[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    func testEveryPixelCentreOfCorpusImagesRoutesByItsAlpha() throws {
        let app = Application.testing()
        for name in [
            "gradient-rgba8-plain", "gradient-rgba8-adam7", "palette4-short-adam7-f0", "palette8-none-plain-f2",
            "gray8-key-adam7-f4", "rgb16-key-plain-f3", "grayalpha16-none-adam7-f1", "gray1-key-plain-f0",
        ] {
            guard FileManager.default.fileExists(atPath: corpus.appendingPathComponent("\(name).png").path) else {
                XCTFail("no corpus file \(name)")
                continue
            }
            let png = try file("\(name).png")
            let alpha = try file("\(name).alpha")
            let (w, h) = size(png)
            XCTAssertEqual(alpha.count, w * h, name)
            let body =
                #"{"layers":[{"id":"back","shape":{"type":"rect","x":-1,"y":-1,"width":9999,"height":9999}},{"id":"sprite","shape":{"type":"mask","x":0,"y":0,"width":\#(2 * w),"height":\#(2 * h),"png":"\#(Data(png).base64EncodedString())","threshold":0.5}}]}"#
            XCTAssertEqual(app.call("PUT", "/scenes/\(name)", body).status, 201, name)
            // Every pixel centre, in one batch.
            var points: [String] = []
            for j in 0..<h { for i in 0..<w { points.append(#"{"x":\#(2 * i + 1),"y":\#(2 * j + 1)}"#) } }
            let results = try XCTUnwrap(
                app.call("POST", "/scenes/\(name)/hits", #"{"points":[\#(points.joined(separator: ","))]}"#).object["results"]
                    as? [[String: Any]])
            XCTAssertEqual(results.count, w * h)
            var wrong = 0
            for (k, r) in results.enumerated() where (r["layer"] as? String == "sprite") != (alpha[k] >= 128) { wrong += 1 }
            XCTAssertEqual(wrong, 0, name)
            // GET gives the text back as given.
            XCTAssertTrue(app.call("GET", "/scenes/\(name)").text.contains(Data(png).base64EncodedString()), name)
        }
    }

    func problems(_ png: [UInt8], _ edit: (inout Configuration) -> Void = { _ in }) -> [String] {
        let reply = Application.testing(edit).call(
            "PUT", "/scenes/p",
            #"{"layers":[{"id":"a","shape":{"type":"mask","x":0,"y":0,"width":1,"height":1,"png":"\#(Data(png).base64EncodedString())"}}]}"#
        )
        XCTAssertEqual(reply.status, 422)
        return zip(reply.pointers, reply.messages).map { "\($0): \($1)" }
    }

    /// A PNG's pixels count towards the scene's mask budget from its
    /// header, before it is inflated.
    func testPNGMasksCountTowardsTheScenesMaskPixels() throws {
        let png = Data(try file("gradient-rgba8-plain.png")).base64EncodedString()  // 160 × 120
        let mask = #"{"type":"mask","x":0,"y":0,"width":1,"height":1,"png":"\#(png)"}"#
        let body = #"{"layers":[{"id":"a","shape":\#(mask)},{"id":"b","shape":\#(mask)}]}"#
        let refused = Application.testing { $0.scene.maxSceneMaskPixels = 2 * 160 * 120 - 1 }.call("PUT", "/scenes/p", body)
        XCTAssertEqual(
            zip(refused.pointers, refused.messages).map { "\($0): \($1)" },
            [
                "/layers/1/shape/png: its 19200 pixels would bring the document's masks to 38400, more than the limit of 38399 (--max-scene-mask-pixels)"
            ])
        XCTAssertEqual(Application.testing { $0.scene.maxSceneMaskPixels = 2 * 160 * 120 }.call("PUT", "/scenes/p", body).status, 201)
    }

    func testBrokenFilesAreProblemsAtThePNG() throws {
        let png = try file("gradient-rgba8-plain.png")
        var badCRC = png
        badCRC[0x29 + 1000] ^= 1  // the IDAT's CRC, after its 1000 bytes of data from 0x29
        XCTAssertEqual(problems(badCRC), ["/layers/0/shape/png: bad CRC in chunk IDAT at byte 33"])
        XCTAssertEqual(
            problems(Array(png.prefix(100))),
            ["/layers/0/shape/png: chunk IDAT at byte 33 is truncated (length 1000, file ends at byte 100)"])
        var signature = png
        signature[1] = 0x51
        XCTAssertEqual(problems(signature), ["/layers/0/shape/png: bad PNG signature at byte 1"])
        XCTAssertEqual(
            problems(png) { $0.scene.maxMaskPixels = 160 * 120 - 1 },
            ["/layers/0/shape/png: image of 160 × 120 pixels exceeds the limit of 19199 pixels"])
        let bad = Application.testing().call(
            "PUT", "/scenes/p",
            #"{"layers":[{"id":"a","shape":{"type":"mask","x":0,"y":0,"width":1,"height":1,"png":"iVBO\nRw==","columns":3}}]}"#)
        XCTAssertEqual(
            zip(bad.pointers, bad.messages).map { "\($0): \($1)" },
            ["/layers/0/shape/columns: belongs to the alpha form: a PNG carries its own size"])
        let text = Application.testing().call(
            "PUT", "/scenes/p", #"{"layers":[{"id":"a","shape":{"type":"mask","x":0,"y":0,"width":1,"height":1,"png":"iVBO\nRw=="}}]}"#)
        XCTAssertEqual(text.messages, ["invalid base64 at offset 4: whitespace is not allowed in base64 here"])
    }
}

/// The sprite walk-through of docs/scenes.md, from `examples/sprite-with-pass-through.json`.
final class SpriteExampleTests: XCTestCase {
    func testTheSpriteExampleRoutesAsTheManualSays() throws {
        let app = Application.testing()
        let scene = try String(contentsOf: repositoryRoot.appendingPathComponent("examples/sprite-with-pass-through.json"), encoding: .utf8)
        XCTAssertEqual(app.call("PUT", "/scenes/sprite-demo", scene).status, 201)
        for (x, y, expected) in [(120.0, 120.0, "sprite"), (125, 55, "button"), (45, 45, "button")] {
            let reply = app.call("POST", "/scenes/sprite-demo/hit", #"{"x":\#(x),"y":\#(y)}"#).object
            XCTAssertEqual(reply["layer"] as? String, expected, "(\(x), \(y))")
            XCTAssertEqual((reply["receivers"] as? [[String: Any]])?.map { $0["layer"] as? String }, ["analytics"])
        }
        let detail = (app.call("GET", "/scenes/sprite-demo/hit?x=125&y=55").object["trace"] as? [[String: Any]])?[1]["detail"] as? String
        XCTAssertEqual(detail, "pixel (8, 1) alpha 100 < 128")
        XCTAssertEqual(app.call("PATCH", "/scenes/sprite-demo/layers/sprite", #"{"shape":{"threshold":0.3}}"#).status, 200)
        XCTAssertEqual(app.call("GET", "/scenes/sprite-demo/hit?x=125&y=55").object["layer"] as? String, "sprite")
        XCTAssertEqual(
            app.call("POST", "/scenes/sprite-demo/hit", #"{"x":120,"y":120,"all":true}"#).object["stack"] as? [String],
            ["analytics", "sprite", "button"])
        // render.svg answers for a scene with a mask (it cannot draw one) and a routed point.
        let svg = app.call("GET", "/scenes/sprite-demo/render.svg?x=120&y=120")
        XCTAssertEqual(svg.status, 200)
        XCTAssertTrue(svg.text.contains("sprite"), svg.text)
    }
}
