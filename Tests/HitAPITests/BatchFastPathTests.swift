import Foundation
import HitJSON
import HitRouting
import TestSupport
import XCTest

@testable import HitAPI
@testable import SceneCodec

/// The batch fast paths (points read without key strings, entries written
/// from per-target fragments) against the general code they shortcut: the
/// same batch, the same problems with the same pointers, the same bytes.
final class BatchFastPathTests: XCTestCase {
    let app = Application.testing()

    override func setUp() {
        XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
    }

    // MARK: - Decoding

    typealias Outcome = Result<BatchQuery, DecodeFailure>

    func decode(_ body: [UInt8], fast: Bool, maxPoints: Int = 100_000) -> Outcome {
        body.withUnsafeBufferPointer { b in
            do throws(DecodeFailure) {
                return .success(try HitRequestDecoder.decodeBatch(b, maxPoints: maxPoints, fastPoints: fast))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Decodes `body` both ways, asserts they agree (bit for bit on numbers,
    /// so -0 and 0 differ) and returns the outcome.
    @discardableResult
    func decodeBoth(_ body: String, maxPoints: Int = 100_000, file: StaticString = #filePath, line: UInt = #line) -> Outcome {
        decodeBoth(Array(body.utf8), maxPoints: maxPoints, file: file, line: line)
    }

    @discardableResult
    func decodeBoth(_ body: [UInt8], maxPoints: Int = 100_000, file: StaticString = #filePath, line: UInt = #line) -> Outcome {
        let fast = decode(body, fast: true, maxPoints: maxPoints)
        let slow = decode(body, fast: false, maxPoints: maxPoints)
        XCTAssertEqual(fingerprint(fast), fingerprint(slow), String(decoding: body, as: UTF8.self), file: file, line: line)
        return fast
    }

    /// Everything observable in an outcome, with numbers by their bits.
    func fingerprint(_ o: Outcome) -> String {
        switch o {
        case .success(let b):
            let points = b.points.indices.map { i in
                let p = b.query(i)
                return "\(p.x.bitPattern),\(p.y.bitPattern),\(p.pointer.map { "\"\($0)\"" } ?? "nil"),\(p.phase?.rawValue ?? "nil")"
            }
            return "ok trace=\(b.trace) all=\(b.all) [\(points.joined(separator: "; "))]"
        case .failure(.syntax(let e)):
            return "syntax \(e.offset) \(e.message)"
        case .failure(.invalid(let issues)):
            return "invalid " + issues.map { "\($0.pointer): \($0.message)" }.joined(separator: " | ")
        }
    }

    func points(_ o: Outcome) -> [PointQuery] {
        guard case .success(let b) = o else { return [] }
        return b.points.indices.map(b.query)
    }

    func issues(_ o: Outcome) -> [String] {
        guard case .failure(.invalid(let issues)) = o else { return [] }
        return issues.map { "\($0.pointer): \($0.message)" }
    }

    func testKeysInEitherOrderWithWhitespaceEverywhere() {
        let o = decodeBoth(" \n{ \"points\" :\t[ {\"x\":1,\"y\":2} ,{ \"y\" : 4 ,\r\n \"x\" : 3 } , {\"x\":5,\"y\":6}\n] }\t")
        XCTAssertEqual(points(o).map { [$0.x, $0.y] }, [[1, 2], [3, 4], [5, 6]])
        XCTAssertEqual(points(decodeBoth(#"{"points":[{"y":2,"x":1}],"trace":true}"#)).map(\.x), [1])
    }

    func testNumbersKeepTheirExactValues() {
        let o = decodeBoth(
            #"{"points":[{"x":-0,"y":0},{"x":1e2,"y":-2.5E-3},{"x":0.1,"y":123456789012345678901234},{"x":1e-400,"y":-0.0e5}]}"#)
        let p = points(o)
        XCTAssertEqual(p.count, 4)
        XCTAssertEqual(p[0].x.sign, .minus)
        XCTAssertEqual(p[0].x, 0)
        XCTAssertEqual(p[0].y.sign, .plus)
        XCTAssertEqual(p[1].x, 100)
        XCTAssertEqual(p[1].y, -0.0025)
        XCTAssertEqual(p[2].x, 0.1)
        XCTAssertEqual(p[2].y, 123_456_789_012_345_678_901_234)
        XCTAssertEqual(p[3].x, 0)
        XCTAssertEqual(p[3].y.sign, .minus)
    }

    func testEscapedKeysMeanTheSameKeys() {
        let o = decodeBoth(#"{"points":[{"\u0078":1,"y":2},{"x":3,"\u0079":4},{"\u0070ointer":"p","phas\u0065":"down","x":5,"y":6}]}"#)
        XCTAssertEqual(points(o).map { [$0.x, $0.y] }, [[1, 2], [3, 4], [5, 6]])
        XCTAssertEqual(points(o).last?.pointer, "p")
        // An escaped spelling of a key already given is a duplicate.
        XCTAssertEqual(
            issues(decodeBoth(#"{"points":[{"x":1,"y":2},{"x":1,"\u0078":2,"y":3}]}"#)),
            [#"/points/1/x: duplicate key "x""#])
    }

    func testDuplicateAndUnknownKeysAreReportedWithTheirPointers() {
        let dup = app.call("POST", "/scenes/ring-demo/hits", #"{"points":[{"x":1,"y":2},{"x":1,"y":2,"y":3}]}"#)
        XCTAssertEqual(dup.status, 422)
        XCTAssertEqual(dup.pointers, ["/points/1/y"])
        XCTAssertEqual(dup.messages, [#"duplicate key "y""#])
        XCTAssertEqual(
            issues(decodeBoth(#"{"points":[{"x":1,"y":2},{"x":1,"y":2,"z":3},{"x":0,"y":0,"X":1}]}"#)),
            [
                #"/points/1/z: unknown field "z" in a point (x, y, pointer, phase, pointerType)"#,
                #"/points/2/X: unknown field "X" in a point (x, y, pointer, phase, pointerType)"#,
            ])
        // An unknown key given twice is a duplicate the second time.
        XCTAssertEqual(
            issues(decodeBoth(#"{"points":[{"x":1,"y":2,"q":[1,{"a":2}],"q":3}]}"#)),
            [
                #"/points/0/q: unknown field "q" in a point (x, y, pointer, phase, pointerType)"#,
                #"/points/0/q: duplicate key "q""#,
            ])
        // Keys that only start like the known ones.
        XCTAssertEqual(issues(decodeBoth(#"{"points":[{"x":1,"y":2,"xx":1,"pointe":"a","phases":"b","":0}]}"#)).count, 4)
    }

    func testMissingAndMistypedValues() {
        XCTAssertEqual(
            issues(decodeBoth(#"{"points":[{"x":1},{"y":1},{},{"x":"1","y":null},{"x":1e999,"y":-1e999},[1,2],7]}"#)),
            [
                "/points/0/y: is required",
                "/points/1/x: is required",
                "/points/2/x: is required",
                "/points/2/y: is required",
                "/points/3/x: must be a number, not a string",
                "/points/3/y: must be a number, not null",
                "/points/4/x: must be a finite number (this one overflows a double)",
                "/points/4/y: must be a finite number (this one overflows a double)",
                "/points/5: must be an object, not an array",
                "/points/6: must be an object, not a number",
            ])
    }

    func testPointerAndPhasePointsMixedIn() {
        let o = decodeBoth(
            #"{"points":[{"x":1,"y":2},{"pointer":"a","phase":"down","x":3,"y":4},{"x":5,"y":6,"phase":"up","pointer":"a"},{"x":7,"y":8}]}"#
        )
        XCTAssertEqual(points(o).map(\.pointer), [nil, "a", "a", nil])
        XCTAssertEqual(points(o).map(\.phase), [nil, .down, .up, nil])
        let long = String(repeating: "p", count: 129)
        XCTAssertEqual(
            issues(
                decodeBoth(
                    """
                    {"points":[{"x":1,"y":2,"pointer":"a"},{"x":1,"y":2,"phase":"move"},{"x":1,"y":2,"pointer":"","phase":"up"},
                               {"x":1,"y":2,"pointer":"\(long)","phase":"up"},{"x":1,"y":2,"pointer":"a","phase":"hovering"},
                               {"x":1,"y":2,"pointer":3,"phase":"up"},{"x":1,"y":2,"pointer":"a","phase":"Down"}]}
                    """)),
            [
                "/points/0/phase: pointer and phase go together: phase is missing",
                "/points/1/pointer: pointer and phase go together: pointer is missing",
                "/points/2/pointer: must be 1 to 128 bytes",
                "/points/3/pointer: must be 1 to 128 bytes",
                #"/points/4/phase: must be one of "down", "move", "up", "cancel", "hover", "leave""#,
                "/points/4/phase: pointer and phase go together: phase is missing",
                "/points/5/pointer: must be a string, not a number",
                "/points/5/pointer: pointer and phase go together: pointer is missing",
                #"/points/6/phase: must be one of "down", "move", "up", "cancel", "hover", "leave""#,
                "/points/6/phase: pointer and phase go together: phase is missing",
            ])
        // 128 bytes is allowed, escaped pointer strings too.
        XCTAssertEqual(
            points(
                decodeBoth(
                    #"{"points":[{"x":1,"y":2,"pointer":"\#(String(repeating: "é", count: 64))","phase":"up"},{"x":1,"y":2,"pointer":"a\"b","phase":"cancel"}]}"#
                )
            ).map(\.pointer),
            [String(repeating: "é", count: 64), "a\"b"])
    }

    func testSyntaxErrorsInsideAPointStopAtTheSameByte() {
        for body in [
            #"{"points":[{"x":1,"y":}]}"#, #"{"points":[{"x":1,"y":2,}]}"#, #"{"points":[{"x":1 "y":2}]}"#,
            #"{"points":[{"x":01,"y":2}]}"#, #"{"points":[{"x":1.,"y":2}]}"#, #"{"points":[{"x":-,"y":2}]}"#,
            #"{"points":[{"x":1,"y":2e}]}"#, #"{"points":[{"x\":1,"y":2}]}"#, #"{"points":[{"x":1,"y":2}"#,
            #"{"points":[{"x":1,"y":2,"pointer":"a"#, #"{"points":[{x:1,"y":2}]}"#, #"{"points":[{"x":1,"y":2]}"#,
            #"{"points":[{"\ud800":1}]}"#, "{\"points\":[{\"x\u{1}\":1}]}", #"{"points":[{"x":1,"y":2,"z":[}]}"#,
        ] {
            guard case .failure(.syntax) = decodeBoth(body) else { return XCTFail("not a syntax error: \(body)") }
        }
    }

    func testTooManyPointsStopsAtTheSameIndex() {
        XCTAssertEqual(
            issues(decodeBoth(#"{"points":[{"x":1,"y":2},{"x":1,"y":2},{"x":1,"y":2}]}"#, maxPoints: 2)),
            ["/points: more than 2 points in one batch"])
    }

    /// Byte by byte: every prefix of a batch, and the batch with each byte
    /// replaced, dropped or doubled, decodes the same both ways.
    func testEveryTruncationAndOneByteEditAgrees() {
        let body = Array(#"{"points":[{"x":1.5,"y":-2e1},{"y":0,"x":-0},{"pointer":"p","phase":"move","x":3,"y":4}],"trace":false}"#.utf8)
        forEachEdit(of: body, replacements: Array(#"{}[],:" xyp0-1.eE\u"#.utf8) + [0x00, 0x80, 0xC3]) { decodeBoth($0) }
    }

    /// Seeded random batches built from plain and unusual points agree both ways.
    func testRandomBatchesAgree() {
        var rng = SplitMix64(seed: 0xBA7C4)
        func number() -> String {
            [
                "0", "-0", "12", "-7.25", "1e3", "2.5E-2", "1e999", "0.1", "\(Int.random(in: -500...500, using: &rng))",
                "\"3\"", "null", "[1]", "-0.0e-0",
            ].randomElement(using: &rng)!
        }
        func ws() -> String { ["", "", "", " ", "\n\t", "\r\n  "].randomElement(using: &rng)! }
        for round in 0..<3000 {
            var points: [String] = []
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                var members: [String] = []
                if Int.random(in: 0..<10, using: &rng) > 0 { members.append(#""x":\#(ws())\#(number())"#) }
                if Int.random(in: 0..<10, using: &rng) > 0 { members.append(#""y":\#(number())"#) }
                switch Int.random(in: 0..<12, using: &rng) {
                case 0: members.append(#""pointer":"p\#(Int.random(in: 0..<3, using: &rng))","phase":"down""#)
                case 1: members.append(#""phase":"up""#)
                case 2: members.append(#""\u0078":1"#)
                case 3: members.append(#""x":2"#)
                case 4: members.append(#""extra":{"a":[1,2]}"#)
                case 5: members.append(#""pointer":"q","phase":"sideways""#)
                default: break
                }
                members.shuffle(using: &rng)
                points.append("{" + ws() + members.joined(separator: ws() + "," + ws()) + ws() + "}")
            }
            var body = #"{"points":["# + ws() + points.joined(separator: "," + ws()) + "]" + (round % 3 == 0 ? #","trace":true"# : "") + "}"
            if round % 7 == 0, !body.isEmpty {  // and some broken ones
                var bytes = Array(body.utf8)
                bytes.remove(at: Int.random(in: 0..<bytes.count, using: &rng))
                body = String(decoding: bytes, as: UTF8.self)
            }
            decodeBoth(body)
        }
    }

    // MARK: - Decoding a single hit

    typealias HitOutcome = Result<HitQuery, DecodeFailure>

    func decodeHit(_ body: [UInt8], fast: Bool) -> HitOutcome {
        body.withUnsafeBufferPointer { b in
            do throws(DecodeFailure) {
                return .success(try HitRequestDecoder.decodeHit(b, fastPath: fast))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Decodes a `…/hit` body both ways, asserts they agree (numbers by
    /// their bits) and returns the outcome.
    @discardableResult
    func decodeHitBoth(_ body: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> HitOutcome {
        func fingerprint(_ o: HitOutcome) -> String {
            switch o {
            case .success(let q):
                let p = q.point
                return
                    "ok \(p.x.bitPattern),\(p.y.bitPattern),\(p.pointer.map { "\"\($0)\"" } ?? "nil"),\(p.phase?.rawValue ?? "nil") trace=\(q.trace) all=\(q.all)"
            case .failure(.syntax(let e)):
                return "syntax \(e.offset) \(e.message)"
            case .failure(.invalid(let issues)):
                return "invalid " + issues.map { "\($0.pointer): \($0.message)" }.joined(separator: " | ")
            }
        }
        let fast = decodeHit(body, fast: true)
        let slow = decodeHit(body, fast: false)
        XCTAssertEqual(fingerprint(fast), fingerprint(slow), String(decoding: body, as: UTF8.self), file: file, line: line)
        return fast
    }

    @discardableResult
    func decodeHitBoth(_ body: String, file: StaticString = #filePath, line: UInt = #line) -> HitOutcome {
        decodeHitBoth(Array(body.utf8), file: file, line: line)
    }

    func testHitFlagsAndDefaults() throws {
        func query(_ body: String) throws -> HitQuery { try decodeHitBoth(body).get() }
        XCTAssertEqual(try query(#"{"x":1,"y":2}"#), HitQuery(point: PointQuery(x: 1, y: 2), trace: true, all: false))
        XCTAssertEqual(
            try query(#"{"trace":false,"y":2,"x":1,"all":true}"#), HitQuery(point: PointQuery(x: 1, y: 2), trace: false, all: true))
        XCTAssertEqual(try query(#" {"x":-0,"y":1e2,"pointer":"m","phase":"down","trace":true} "#).point.phase, .down)
        XCTAssertEqual(try query(#"{"x":1,"y":2,"trace":false}"#).trace, false)  // escaped: the reporting path
    }

    func testHitProblemsAreTheSameBothWays() {
        for body in [
            #"{"x":1,"y":2,"trace":false,"trace":true}"#, #"{"x":1,"y":2,"trace":null}"#, #"{"x":1,"y":2,"all":1}"#,
            #"{"x":1}"#, #"{"x":1,"y":2,"z":3}"#, #"{"x":1e999,"y":2}"#, #"{"x":1,"y":2,"pointer":"a"}"#,
            #"{"x":1,"y":2} {}"#, #"[1,2]"#, "", #"{"x":1,"y":2,"trace":tru}"#, #"{"x":1,"y":2,"Trace":false}"#,
        ] {
            guard case .failure = decodeHitBoth(body) else { return XCTFail("accepted: \(body)") }
        }
    }

    /// Byte by byte: every prefix of a hit body, and the body with each byte
    /// replaced, dropped or doubled, decodes the same both ways.
    func testEveryHitTruncationAndOneByteEditAgrees() {
        let body = Array(#"{"x":1.5,"trace":false,"y":-2e1,"all":true,"pointer":"p","phase":"move"}"#.utf8)
        forEachEdit(of: body, replacements: Array(#"{}[],:" xyatf0-1.eE\u"#.utf8) + [0x00, 0x80]) { decodeHitBoth($0) }
    }

    // MARK: - Encoding

    /// Entries written from fragments are byte for byte those of
    /// `writeBatchResult`, over a scene with more targets than cache slots,
    /// actions that need escaping and long ids that overflow the fragment arena.
    func testEntriesMatchTheGeneralEncoder() throws {
        var layers: [String] = []
        for i in 0..<150 {
            let id = i % 2 == 1 ? "l\(i)-" + String(repeating: "x", count: 120) : "l\(i)"
            let action = i % 3 == 0 ? "" : #""action":"a\#(i).\"press\"\u00e9\n\u0001","#
            layers.append(
                #"{"id":"\#(id)",\#(action)"shape":{"type":"rect","x":\#(i % 15 * 10),"y":\#(i / 15 * 10),"width":10,"height":10}}"#)
        }
        // A parent with an action over children without: the action comes from the parent.
        let sceneJSON =
            #"{"id":"grid","layers":[{"id":"group","action":"group.tap","children":["# + layers.joined(separator: ",")
            + #"]},{"id":"top","pointerEvents":"none","shape":{"type":"rect","x":0,"y":0,"width":10,"height":10}}]}"#
        XCTAssertEqual(app.call("PUT", "/scenes/grid", sceneJSON).status, 201, app.call("PUT", "/scenes/grid", sceneJSON).text)
        let scene = try XCTUnwrap(app.store.snapshot("grid")).compiled
        var rng = SplitMix64(seed: 7)
        var targets = Set<Int>()
        for (trace, all) in [(false, false), (true, false), (false, true)] {
            var fast = JSONWriter()
            var slow = JSONWriter()
            var entries = BatchResultWriter(scene: scene)
            for k in 0..<3000 {
                let p = Point(Double.random(in: -5...160, using: &rng), Double.random(in: -5...110, using: &rng))
                let result = scene.hit(p, trace: trace, all: all)
                if let t = result.target { targets.insert(t) }
                let captured: Bool? = k % 5 == 0 ? k % 2 == 0 : nil
                entries.write(result, trace: trace, captured: captured, to: &fast)
                HitResponseEncoder.writeBatchResult(result, trace: trace, captured: captured, scene: scene, to: &slow)
            }
            XCTAssertEqual(String(decoding: fast.bytes, as: UTF8.self), String(decoding: slow.bytes, as: UTF8.self))
            XCTAssertTrue(String(decoding: fast.bytes, as: UTF8.self).contains(#"\"press\"é\n\u0001""#))
        }
        XCTAssertGreaterThan(targets.count, 140, "most layers hit: slots shared, arena refilled")
    }

    /// After `rescene`, entries describe the new scene even where a layer
    /// index of the old one was cached.
    func testEntriesDescribeTheNewSceneAfterRescene() throws {
        func scene(_ id: String, _ names: [String]) throws -> CompiledScene {
            let layers = names.map { #"{"id":"\#($0)","action":"\#($0).act","shape":{"type":"rect","x":0,"y":0,"width":10,"height":10}}"# }
            XCTAssertEqual(app.call("PUT", "/scenes/\(id)", #"{"layers":["# + layers.joined(separator: ",") + "]}").status, 201)
            return try XCTUnwrap(app.store.snapshot(id)).compiled
        }
        let old = try scene("old", ["a", "b"])
        let new = try scene("new", ["c", "d"])
        var fast = JSONWriter()
        var slow = JSONWriter()
        var entries = BatchResultWriter(scene: old)
        entries.write(old.hit(Point(5, 5), trace: false, all: false), trace: false, captured: nil, to: &fast)
        HitResponseEncoder.writeBatchResult(
            old.hit(Point(5, 5), trace: false, all: false), trace: false, captured: nil, scene: old, to: &slow)
        entries.rescene(new)
        entries.write(new.hit(Point(5, 5), trace: false, all: false), trace: false, captured: true, to: &fast)
        HitResponseEncoder.writeBatchResult(
            new.hit(Point(5, 5), trace: false, all: false), trace: false, captured: true, scene: new, to: &slow)
        XCTAssertEqual(String(decoding: fast.bytes, as: UTF8.self), String(decoding: slow.bytes, as: UTF8.self))
        XCTAssertEqual(
            String(decoding: fast.bytes, as: UTF8.self),
            #"{"layer":"b","action":"b.act","actionLayer":"b"},{"layer":"d","action":"d.act","actionLayer":"d","captured":true}"#)
    }

    /// Seeded random batches over HTTP: each entry says what a single `hit`
    /// of the same point says.
    func testRandomBatchesAnswerLikeSingleHits() throws {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<40 {
            let n = Int.random(in: 1...60, using: &rng)
            let xs = (0..<n).map { _ in Double(Int.random(in: -20...260, using: &rng)) / 2 }
            let ys = (0..<n).map { _ in Double(Int.random(in: -20...260, using: &rng)) / 2 }
            let trace = Bool.random(using: &rng)
            let body =
                #"{"points":["# + (0..<n).map { #"{"x":\#(xs[$0]),"y":\#(ys[$0])}"# }.joined(separator: ",") + #"],"trace":\#(trace)}"#
            let batch = app.call("POST", "/scenes/ring-demo/hits", body)
            XCTAssertEqual(batch.status, 200)
            let results = try XCTUnwrap(batch.object["results"] as? [[String: Any]])
            XCTAssertEqual(results.count, n)
            for i in 0..<n {
                let single = app.call("POST", "/scenes/ring-demo/hit", #"{"x":\#(xs[i]),"y":\#(ys[i]),"trace":\#(trace)}"#).object
                for key in ["layer", "action", "actionLayer"] {
                    XCTAssertEqual(results[i][key] as? String, single[key] as? String, "\(key) at (\(xs[i]), \(ys[i]))")
                    XCTAssertTrue(results[i][key] is NSNull == (single[key] is NSNull))
                }
                XCTAssertEqual(
                    (results[i]["trace"] as? [[String: Any]]).map { $0 as NSArray },
                    (single["trace"] as? [[String: Any]]).map { $0 as NSArray })
            }
            // The exact bytes of a plain entry.
            let text = batch.text
            XCTAssertTrue(text.hasPrefix(#"{"scene":"ring-demo","version":1,"results":[{"layer":"#), text)
        }
    }

    /// A batch over many distinct layers: fragments outgrow the writer's
    /// arena and slots are reused, and every entry still says what a single
    /// hit says, inherited actions included.
    func testABatchOverManyLayersAnswersLikeSingleHits() throws {
        // 40 × 40 cells of 10 × 10; every other group has its action on the parent.
        let groups = (0..<40).map { row in
            let cells = (0..<40).map { col in
                let action = col % 3 == 0 ? "" : #","action":"cell-\#(row)-\#(col).tap""#
                return
                    #"{"id":"c\#(row)-\#(col)"\#(action),"shape":{"type":"rect","x":\#(col * 10),"y":\#(row * 10),"width":10,"height":10}}"#
            }
            return #"{"id":"row\#(row)","action":"row\#(row).tap","children":[\#(cells.joined(separator: ","))]}"#
        }
        XCTAssertEqual(app.call("PUT", "/scenes/cells", #"{"layers":[\#(groups.joined(separator: ","))]}"#).status, 201)
        var rng = SplitMix64(seed: 77)
        let points = (0..<3000).map { _ in (Double.random(in: -5...405, using: &rng), Double.random(in: -5...405, using: &rng)) }
        let body = #"{"points":["# + points.map { #"{"x":\#($0.0),"y":\#($0.1)}"# }.joined(separator: ",") + "]}"
        let batch = app.call("POST", "/scenes/cells/hits", body)
        XCTAssertEqual(batch.status, 200)
        let results = try XCTUnwrap(batch.object["results"] as? [[String: Any]])
        XCTAssertEqual(results.count, points.count)
        var distinct = Set<String>()
        for (i, (x, y)) in points.enumerated() {
            let single = app.call("POST", "/scenes/cells/hit", #"{"x":\#(x),"y":\#(y),"trace":false}"#).object
            for key in ["layer", "action", "actionLayer"] {
                XCTAssertEqual(results[i][key] as? String, single[key] as? String, "\(key) at (\(x), \(y))")
            }
            if let layer = results[i]["layer"] as? String { distinct.insert(layer) }
        }
        XCTAssertGreaterThan(distinct.count, 1000)
    }

    /// A drag inside a batch makes a new scene version; the entries after it
    /// describe the new scene, as single requests in the same order do.
    func testEntriesFollowTheSceneWhenADragChangesIt() throws {
        let scene = """
            {"id": "drag", "layers": [
              {"id": "under", "action": "under.tap", "shape": {"type": "rect", "x": 0, "y": 0, "width": 400, "height": 400}},
              {"id": "box", "action": "box.drag", "draggable": true, "shape": {"type": "rect", "x": 0, "y": 0, "width": 50, "height": 50}}]}
            """
        let points: [(Double, Double, String?)] = [
            (10, 10, nil), (10, 10, "down"), (100, 100, "move"), (10, 10, nil), (100, 100, nil), (200, 200, "move"),
            (100, 100, nil), (210, 210, nil), (200, 200, "up"), (205, 205, nil), (10, 10, nil),
        ]
        func member(_ p: (Double, Double, String?)) -> String {
            #""x":\#(p.0),"y":\#(p.1)"# + (p.2.map { #","pointer":"m","phase":"\#($0)""# } ?? "")
        }
        XCTAssertEqual(app.call("PUT", "/scenes/drag", scene).status, 201)
        let batch = app.call(
            "POST", "/scenes/drag/hits", #"{"points":["# + points.map { "{" + member($0) + "}" }.joined(separator: ",") + "]}")
        XCTAssertEqual(batch.status, 200, batch.text)
        let results = try XCTUnwrap(batch.object["results"] as? [[String: Any]])

        let fresh = Application.testing()
        XCTAssertEqual(fresh.call("PUT", "/scenes/drag", scene).status, 201)
        var last: [String: Any] = [:]
        for (i, p) in points.enumerated() {
            last = fresh.call("POST", "/scenes/drag/hit", "{" + member(p) + #","trace":false}"#).object
            for key in ["layer", "action", "actionLayer"] {
                XCTAssertEqual(results[i][key] as? String, last[key] as? String, "\(key) of point \(i)")
            }
            XCTAssertEqual(results[i]["captured"] as? Bool, last["captured"] as? Bool, "captured of point \(i)")
        }
        XCTAssertEqual(batch.object["version"] as? Int, last["version"] as? Int)
        XCTAssertGreaterThan(last["version"] as? Int ?? 0, 1)
        XCTAssertEqual(
            results.map { $0["layer"] as? String }, ["box", "box", "box", "under", "box", "box", "under", "box", "box", "box", "under"])
    }
}

extension HitResponseEncoder {
    /// A batch entry written member by member, without fragments: the
    /// reference `BatchResultWriter` must match byte for byte.
    static func writeBatchResult(
        _ result: HitResult, trace: Bool, captured: Bool?, scene: CompiledScene, to w: inout JSONWriter
    ) {
        w.beginObject()
        writeTarget(result, scene: scene, path: false, to: &w)
        writeBatchExtras(result, trace: trace, captured: captured, boundary: nil, scene: scene, to: &w)
        w.endObject()
    }
}

extension BatchQuery {
    /// Point `i` as it was sent (the decoder's `PointQuery`).
    func query(_ i: Int) -> PointQuery {
        var q = PointQuery(x: points[i].x, y: points[i].y)
        if let event = pointerEvents.first(where: { $0.index == i }) {
            q.pointer = event.pointer
            q.phase = event.phase
        }
        return q
    }
}
