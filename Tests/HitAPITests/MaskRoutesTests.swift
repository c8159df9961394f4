import Foundation
import HTTPServer
import HitRouting
import TestSupport
import XCTest

@testable import HitAPI
@testable import SceneCodec

/// The `mask` shape over HTTP: decoding, problems at their pointers, limits, answers and GET.
final class MaskRoutesTests: XCTestCase {
    let app = Application.testing()

    /// 16 × 16 pixels, alpha = column + 16 · row, over 160 × 160 at (20, 40).
    static let ramp = Data((0..<256).map { UInt8($0) }).base64EncodedString()

    func scene(_ shape: String, extra: String = "") -> String {
        #"{"layers":[{"id":"back","action":"back.tap","shape":{"type":"rect","x":0,"y":0,"width":400,"height":400}},{"id":"sprite","action":"sprite.tap"\#(extra),"shape":\#(shape)}]}"#
    }

    var rampShape: String { #"{"type":"mask","x":20,"y":40,"width":160,"height":160,"alpha":"\#(Self.ramp)","columns":16,"rows":16}"# }

    func testAlphaMaskRoutesByPixelWithItsTrace() throws {
        XCTAssertEqual(app.call("PUT", "/scenes/m", scene(rampShape)).status, 201)
        // Pixel (12, 0): alpha 12 < 128.
        let miss = app.call("POST", "/scenes/m/hit", #"{"x":145,"y":45}"#).object
        XCTAssertEqual(miss["layer"] as? String, "back")
        let trace = try XCTUnwrap(miss["trace"] as? [[String: Any]])
        XCTAssertEqual(trace[0]["layer"] as? String, "sprite")
        XCTAssertEqual(trace[0]["reason"] as? String, "outside")
        XCTAssertEqual(trace[0]["detail"] as? String, "pixel (12, 0) alpha 12 < 128")
        // Pixel (3, 9): alpha 147.
        let hit = app.call("POST", "/scenes/m/hit", #"{"x":55,"y":135}"#).object
        XCTAssertEqual(hit["layer"] as? String, "sprite")
        XCTAssertEqual((hit["trace"] as? [[String: Any]])?[0]["detail"] as? String, "pixel (3, 9) alpha 147 >= 128")
        // Exactly at the threshold: 0.5 × 255 = 127.5, so 128 is in and 127 out.
        XCTAssertEqual(app.call("GET", "/scenes/m/hit?x=25&y=125").object["layer"] as? String, "sprite")  // (0, 8): 128
        XCTAssertEqual(app.call("GET", "/scenes/m/hit?x=175&y=115").object["layer"] as? String, "back")  // (15, 7): 127
        // Bounds: the opaque pixels' box (rows 8…15).
        let summary = app.call("PUT", "/scenes/m2", scene(rampShape)).object
        XCTAssertEqual((summary["bounds"] as? [String: Double]) ?? [:], ["x": 0, "y": 0, "width": 400, "height": 400])
        let alone = app.call("PUT", "/scenes/m3", #"{"layers":[{"id":"s","shape":\#(rampShape)}]}"#).object
        XCTAssertEqual((alone["bounds"] as? [String: Double]) ?? [:], ["x": 20, "y": 120, "width": 160, "height": 80])
    }

    func testThresholdAndSlopAndStroke() {
        let shape =
            #"{"type":"mask","x":20,"y":40,"width":160,"height":160,"alpha":"\#(Self.ramp)","columns":16,"rows":16,"threshold":0.9}"#
        XCTAssertEqual(app.call("PUT", "/scenes/t", scene(shape, extra: #","hitSlop":5"#)).status, 201)
        // 0.9 × 255 = 229.5: pixel (14, 14) = 238 is in, (5, 14) = 229 out.
        XCTAssertEqual(app.call("GET", "/scenes/t/hit?x=165&y=185").object["layer"] as? String, "sprite")
        // Row 13 (208…223) is all out; row 15 (240…255) all in but more than 5 below y = 181.
        XCTAssertEqual(app.call("GET", "/scenes/t/hit?x=72&y=181").object["layer"] as? String, "back")
        // (6, 14) = 230 is in: 5 units of slop reach 4 units into pixel (5, 14).
        let slop = app.call("GET", "/scenes/t/hit?x=76&y=181").object
        XCTAssertEqual(slop["layer"] as? String, "sprite")
        XCTAssertEqual((slop["trace"] as? [[String: Any]])?[0]["reason"] as? String, "inside-slop")
        XCTAssertEqual(app.call("GET", "/scenes/t/hit?x=74.9&y=181").object["layer"] as? String, "back")
        // A stroke of 4 without fill: the band within 2 of the opaque set's boundary.
        let ring =
            #"{"type":"mask","x":0,"y":0,"width":40,"height":40,"alpha":"\#(Data(repeating: 255, count: 16).base64EncodedString())","columns":4,"rows":4,"fill":false,"stroke":4}"#
        XCTAssertEqual(app.call("PUT", "/scenes/r", scene(ring)).status, 201)
        XCTAssertEqual(app.call("GET", "/scenes/r/hit?x=20&y=20").object["layer"] as? String, "back")
        XCTAssertEqual(app.call("GET", "/scenes/r/hit?x=1.5&y=20").object["layer"] as? String, "sprite")
        XCTAssertEqual(app.call("GET", "/scenes/r/hit?x=41.5&y=20").object["layer"] as? String, "sprite")
        XCTAssertEqual(app.call("GET", "/scenes/r/hit?x=42.5&y=20").object["layer"] as? String, "back")
    }

    func testGetReturnsTheMaskAsSubmitted() throws {
        let body =
            #"{"layers":[{"id":"s","shape":{"type":"mask","x":1.5,"y":-2,"width":16,"height":8,"alpha":"\#(Self.ramp)","columns":32,"rows":8,"threshold":0.25,"stroke":2,"fill":false},"passThrough":true}]}"#
        XCTAssertEqual(app.call("PUT", "/scenes/g", body).status, 201)
        let got = app.call("GET", "/scenes/g").text
        XCTAssertEqual(
            got,
            #"{"id":"g","version":1,"layers":[{"id":"s","shape":{"type":"mask","x":1.5,"y":-2,"width":16,"height":8,"alpha":"\#(Self.ramp)","columns":32,"rows":8,"threshold":0.25,"fill":false,"stroke":2},"passThrough":true}]}"#
        )
        // And patching a layer keeps the mask.
        let patched = app.call("PATCH", "/scenes/g/layers/s", #"{"action":"go"}"#)
        XCTAssertEqual(patched.status, 200)
        XCTAssertTrue(patched.text.contains(Self.ramp))
    }

    func problems(_ shape: String, _ edit: (inout Configuration) -> Void = { _ in }) -> [String] {
        let app = Application.testing(edit)
        let reply = app.call("PUT", "/scenes/p", #"{"layers":[{"id":"a","shape":\#(shape)}]}"#)
        XCTAssertEqual(reply.status, 422, reply.text)
        return zip(reply.pointers, reply.messages).map { "\($0): \($1)" }
    }

    func testProblemsAtTheShapesPointers() {
        let four = Data([1, 2, 3, 4]).base64EncodedString()
        XCTAssertEqual(
            problems(#"{"type":"mask","x":0,"y":0,"width":1,"height":1,"alpha":"\#(four)","columns":4,"rows":4}"#),
            ["/layers/0/shape/alpha: decodes to 4 bytes, columns × rows is 16"])
        XCTAssertEqual(
            problems(#"{"type":"mask","x":0,"y":0,"width":1,"height":1,"alpha":"AQID BA==","columns":1,"rows":6}"#),
            ["/layers/0/shape/alpha: invalid base64 at offset 4: whitespace is not allowed in base64 here"])
        XCTAssertEqual(
            problems(#"{"type":"mask","x":0,"y":0,"width":1,"height":1,"alpha":"AQIDBB==","columns":4,"rows":1}"#),
            ["/layers/0/shape/alpha: invalid base64 at offset 5: the bits before the padding must be 0 (the encoding is not canonical)"])
        XCTAssertEqual(
            problems(#"{"type":"mask","x":0,"y":0,"width":1,"height":1}"#),
            ["/layers/0/shape: a mask needs png, or alpha with columns and rows"])
        XCTAssertEqual(
            problems(#"{"type":"mask","x":0,"y":0,"width":1,"height":1,"alpha":"AQIDBA=="}"#),
            ["/layers/0/shape/columns: is required with alpha", "/layers/0/shape/rows: is required with alpha"])
        XCTAssertEqual(
            problems(#"{"type":"mask","x":0,"y":0,"width":1,"height":1,"alpha":"AQIDBA==","columns":2.5,"rows":0,"threshold":1.5}"#),
            [
                "/layers/0/shape/columns: must be a whole number in [1, 16777216]",
                "/layers/0/shape/rows: must be a whole number in [1, 16777216]",
                "/layers/0/shape/threshold: must be a number in [0, 1]",
            ])
        XCTAssertEqual(
            problems(#"{"type":"mask","x":0,"y":0,"width":1,"height":1,"alpha":"AQIDBA==","png":"AA==","columns":2,"rows":2}"#),
            ["/layers/0/shape/alpha: a mask takes png or alpha, not both"])
        XCTAssertEqual(
            problems(#"{"type":"mask","x":0,"y":0,"width":1,"alpha":"AQIDBA==","columns":2,"rows":2,"cx":3}"#),
            [
                "/layers/0/shape/cx: is not a field of a mask (it has x, y, width, height, png, alpha, columns, rows, threshold)",
                "/layers/0/shape/height: is required for a mask",
            ])
        XCTAssertEqual(
            problems(#"{"type":"rect","x":0,"y":0,"width":1,"height":1,"alpha":"AA=="}"#),
            ["/layers/0/shape/alpha: is not a field of a rect (it has x, y, width, height, cornerRadius)"])
        XCTAssertEqual(
            problems(#"{"type":"mask","x":1e308,"y":0,"width":1e308,"height":1,"alpha":"AQIDBA==","columns":2,"rows":2}"#),
            ["/layers/0/shape/width: x + width must be finite"])
        XCTAssertEqual(
            problems(#"{"type":"mask","x":0,"y":0,"width":5e-324,"height":1,"alpha":"AQIDBA==","columns":2,"rows":2}"#),
            ["/layers/0/shape/width: is too small for 2 columns of pixels (columns / width overflows)"])
        XCTAssertEqual(
            problems(
                #"{"type":"compound","shapes":[{"type":"mask","x":0,"y":0,"width":1,"height":1,"alpha":"AQIDBA==","columns":2,"rows":2}]}"#),
            ["/layers/0/shape/shapes/0/type: a mask cannot be a member of a compound: its region is a set of pixels, not a path to fill"])
    }

    func testTheMaskPixelLimit() {
        let sixteen = Data(repeating: 255, count: 16).base64EncodedString()
        XCTAssertEqual(
            problems(#"{"type":"mask","x":0,"y":0,"width":1,"height":1,"alpha":"\#(sixteen)","columns":4,"rows":4}"#) {
                $0.scene.maxMaskPixels = 15
            },
            ["/layers/0/shape: columns × rows is 16 pixels, more than the limit of 15 per mask"])
        XCTAssertEqual(
            problems(#"{"type":"mask","x":0,"y":0,"width":1,"height":1,"alpha":"AA==","columns":16777216,"rows":16777216}"#),
            ["/layers/0/shape: columns × rows is 281474976710656 pixels, more than the limit of 16777216 per mask"])
        let app = Application.testing { $0.scene.maxMaskPixels = 16 }
        XCTAssertEqual(
            app.call(
                "PUT", "/scenes/ok",
                #"{"layers":[{"id":"a","shape":{"type":"mask","x":0,"y":0,"width":1,"height":1,"alpha":"\#(sixteen)","columns":4,"rows":4}}]}"#
            ).status, 201)
        XCTAssertEqual(try Configuration.parse(arguments: ["--max-mask-pixels", "99"], environment: [:]).scene.maxMaskPixels, 99)
    }

    /// A scene's masks together are bounded (`--max-scene-mask-pixels`),
    /// counted before they are decoded, since they are decoded before the
    /// store weighs the scene (a PNG of 4096 × 4096 pixels of one value is a
    /// few kilobytes).
    func testTheSceneMaskPixelLimit() throws {
        let sixteen = Data(repeating: 255, count: 16).base64EncodedString()
        let mask = #"{"type":"mask","x":0,"y":0,"width":1,"height":1,"alpha":"\#(sixteen)","columns":4,"rows":4}"#
        let three = #"{"layers":[{"id":"a","shape":\#(mask)},{"id":"b","hitShape":\#(mask)},{"id":"c","shape":\#(mask)}]}"#
        let app = Application.testing { $0.scene.maxSceneMaskPixels = 40 }
        let refused = app.call("PUT", "/scenes/s", three)
        XCTAssertEqual(refused.status, 422)
        XCTAssertEqual(
            zip(refused.pointers, refused.messages).map { "\($0): \($1)" },
            [
                "/layers/2/shape/alpha: its 16 pixels would bring the document's masks to 48, more than the limit of 40 (--max-scene-mask-pixels)"
            ])
        XCTAssertEqual(Application.testing { $0.scene.maxSceneMaskPixels = 48 }.call("PUT", "/scenes/s", three).status, 201)
        // A patched layer is a document of its own: its masks count, the scene's others do not.
        XCTAssertEqual(app.call("PUT", "/scenes/s", #"{"layers":[{"id":"a","shape":\#(mask)},{"id":"b","shape":\#(mask)}]}"#).status, 201)
        XCTAssertEqual(
            app.call("PATCH", "/scenes/s/layers/b", #"{"hitShape":\#(mask)}"#, headers: [("Content-Type", "application/merge-patch+json")])
                .status, 200)
        let big = Data(repeating: 255, count: 25).base64EncodedString()
        let bigger = app.call(
            "PATCH", "/scenes/s/layers/a",
            #"{"hitShape":{"type":"mask","x":0,"y":0,"width":1,"height":1,"alpha":"\#(big)","columns":5,"rows":5}}"#,
            headers: [("Content-Type", "application/merge-patch+json")])
        XCTAssertEqual(bigger.status, 422)
        XCTAssertEqual(bigger.pointers, ["/hitShape/alpha"])
        XCTAssertEqual(
            try Configuration.parse(arguments: ["--max-scene-mask-pixels", "99"], environment: [:]).scene.maxSceneMaskPixels, 99)
        XCTAssertEqual(
            try Configuration.parse(arguments: [], environment: ["HITROUTE_MAX_SCENE_MASK_PIXELS": "7"]).scene.maxSceneMaskPixels, 7)
    }

    /// The store counts a mask's pixels (and its table, with slop) beside the JSON.
    func testTheStoreCountsDecodedPixels() {
        let pixels = Data(repeating: 255, count: 64 * 64).base64EncodedString()
        let body =
            #"{"layers":[{"id":"a","hitSlop":1,"shape":{"type":"mask","x":0,"y":0,"width":1,"height":1,"alpha":"\#(pixels)","columns":64,"rows":64}}]}"#
        let weight = body.utf8.count + 64 * 64 + 4 * 65 * 65
        XCTAssertEqual(Application.testing { $0.store.maxStoreBytes = weight }.call("PUT", "/scenes/a", body).status, 201)
        XCTAssertEqual(Application.testing { $0.store.maxStoreBytes = weight - 1 }.call("PUT", "/scenes/a", body).status, 507)
    }

    /// Every truncation and one-byte edit of a mask scene is a clean answer (201 or 4xx), never a trap.
    func testEveryEditOfAMaskSceneIsAnsweredCleanly() {
        let body = Array(
            #"{"layers":[{"id":"a","hitSlop":1,"shape":{"type":"mask","x":0,"y":0,"width":8,"height":4,"alpha":"AP8A/wD/AP8=","columns":4,"rows":2,"stroke":1}}]}"#
                .utf8)
        forEachEdit(of: body, replacements: Array("0=A\" ".utf8)) { input in
            let request = HTTPRequestFixture.make("PUT", "/scenes/e", input)
            let status = app.respond(to: request).status
            XCTAssertTrue(
                status == 201 || status == 200 || status == 400 || status == 422, "\(status) for \(String(decoding: input, as: UTF8.self))")
        }
    }

    /// Seeded mutations of mask scenes (alpha and PNG forms): decoding ends in a
    /// scene or a described failure, and a scene that decodes compiles and
    /// routes points (traced, with stacks) without a trap.
    func testMutatedMaskScenesNeverTrapAndRoute() throws {
        let sprite = try String(
            contentsOf: repositoryRoot.appendingPathComponent("examples/sprite-with-pass-through.json"), encoding: .utf8)
        let seeds = [
            Array(sprite.utf8),
            Array(
                #"{"layers":[{"id":"a","hitSlop":{"left":3},"passThrough":true,"transform":{"rotate":30},"shape":{"type":"mask","x":-4,"y":2,"width":8,"height":4,"alpha":"AP8A/wD/AP8=","columns":4,"rows":2,"stroke":1.5,"fill":false,"threshold":0.25}},{"id":"b","shape":\#(rampShape)}]}"#
                    .utf8),
        ]
        let tokens = Array(#"{}[],:"0123456789.-+eE=/A truefalsnul"#.utf8) + [0, 0xFF]
        var rng = SplitMix64(seed: 19)
        var routed = 0
        for round in 0..<3000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[i] = tokens.randomElement(using: &rng)!
                case 1: bytes.remove(at: i)
                default: bytes.insert(tokens.randomElement(using: &rng)!, at: i)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            let outcome = bytes.withUnsafeBufferPointer { b in
                Result { () throws(DecodeFailure) in try SceneDecoder.decode(b, limits: SceneLimits()) }
            }
            switch outcome {
            case .success(let scene):
                let compiled = CompiledScene(scene)
                for _ in 0..<20 {
                    let p = Point(Double.random(in: -20...260, using: &rng), Double.random(in: -20...260, using: &rng))
                    let r = compiled.hit(p, trace: true, all: true)
                    XCTAssertEqual(compiled.target(at: p), r.target, "round \(round)")
                }
                routed += 1
            case .failure(.invalid(let issues)):
                XCTAssertFalse(issues.isEmpty)
                for issue in issues { XCTAssertTrue(issue.pointer.isEmpty || issue.pointer.hasPrefix("/"), "\(issue)") }
            case .failure(.syntax(let e)):
                XCTAssertTrue((0...bytes.count).contains(e.offset))
            }
        }
        XCTAssertGreaterThan(routed, 100)
    }

    /// Scene writes with a body of 1 KiB or more leave the event loop
    /// before their body is decoded (`RunWhere`); hits and reads do not.
    func testSceneWritesAreOffloaded() {
        let app = Application.testing()
        let kibibyte = [UInt8](repeating: UInt8(ascii: " "), count: 1024)
        func ran(_ method: String, _ target: String) -> Ran {
            Ran(app.callOnLoop(HTTPRequestFixture.make(method, target, method == "GET" ? [] : kibibyte)))
        }
        XCTAssertEqual(ran("PUT", "/scenes/a"), .worker)
        XCTAssertEqual(ran("POST", "/scenes"), .worker)
        XCTAssertEqual(ran("PATCH", "/scenes/a/layers/b"), .worker)
        XCTAssertNotEqual(ran("POST", "/scenes/a/hits"), .worker)
        XCTAssertNotEqual(ran("GET", "/scenes/a"), .worker)
    }
}

/// Requests made in-process.
enum HTTPRequestFixture {
    static func make(_ method: String, _ target: String, _ body: [UInt8]) -> HTTPRequest {
        HTTPRequest(method: method, target: target, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body)
    }
}
