import Foundation
import TestSupport
import XCTest

@testable import HitRouting

/// `CurvePieces`: a path's fill test through runs of pieces answers as the
/// plain loop over every piece does, and reads only the pieces the ray
/// from the point can meet.
final class CurvePiecesTests: XCTestCase {
    /// The curves of a path's only contour.
    func curves(_ shape: Shape, file: StaticString = #filePath, line: UInt = #line) throws -> CurvePieces {
        let r = region(shape)
        XCTAssertEqual(r.contourCount, 1, file: file, line: line)
        var found: CurvePieces?
        if case .curves(let curves) = try XCTUnwrap(r.contours.first, file: file, line: line).kind { found = curves }
        return try XCTUnwrap(found, "a curve contour", file: file, line: line)
    }

    /// The winding of every piece summed, as before the runs, and what that read.
    func plainWinding(_ c: CurvePieces, _ p: Point) -> (winding: Int, work: Int) {
        var work = 0
        let w = c.pieces.reduce(0) { $0 + $1.crossing(p, c.segments, work: &work) }
        return (w, work + c.pieces.count)
    }

    /// A closed wavy loop of `n` cubics around (500, 500): coherent, as a
    /// glyph or a map outline is, and self-crossing where the waves are deep.
    func wavyLoop(_ n: Int, depth: Double, using rng: inout SplitMix64) -> String {
        func at(_ k: Double, _ r: Double) -> (Double, Double) {
            let a = k / Double(n) * 2 * .pi
            return (500 + r * cos(a), 500 + r * sin(a))
        }
        var d = "M \(at(0, 400).0) \(at(0, 400).1)"
        for k in 0..<n {
            let r1 = 400 + Double.random(in: -depth...depth, using: &rng)
            let r2 = 400 + Double.random(in: -depth...depth, using: &rng)
            let c1 = at(Double(k) + 0.33, r1)
            let c2 = at(Double(k) + 0.67, r2)
            let e = at(Double(k + 1), 400)
            d += " C \(c1.0) \(c1.1) \(c2.0) \(c2.1) \(e.0) \(e.1)"
        }
        return d + " Z"
    }

    func testRunsAnswerAsEveryPieceOnWavyLoopsAndRandomCurves() throws {
        var rng = SplitMix64(seed: 2026)
        var shapes: [Shape] = []
        for depth in [0.0, 30, 300] { shapes.append(try path(wavyLoop(400, depth: depth, using: &rng))) }
        // Random cubics, quads and arcs over the whole square: long pieces
        // that cross each other everywhere.
        var d = "M 500 500"
        for k in 0..<300 {
            func c() -> Int { Int.random(in: 0...1000, using: &rng) }
            switch k % 3 {
            case 0: d += " C \(c()) \(c()) \(c()) \(c()) \(c()) \(c())"
            case 1: d += " Q \(c()) \(c()) \(c()) \(c())"
            default: d += " A \(c() / 4 + 1) \(c() / 8 + 1) \(c() % 90) \(k % 2) \(k % 4 / 2) \(c()) \(c())"
            }
        }
        shapes.append(try path(d))
        for shape in shapes {
            let c = try curves(shape)
            XCTAssertFalse(c.runs.isEmpty, "a long contour has runs")
            for i in 0..<600 {
                // Points anywhere, and on the pieces' end points' lines, where ties fall.
                let p =
                    i % 3 == 0
                    ? Point(Double(Int.random(in: -10...1010, using: &rng)), c.pieces.randomElement(using: &rng)!.a.y)
                    : Point(Double.random(in: -10...1010, using: &rng), Double.random(in: -10...1010, using: &rng))
                var work = 0
                XCTAssertEqual(c.winding(p, work: &work), plainWinding(c, p).winding, "winding at \(p)")
            }
        }
    }

    /// A coherent path, a loop of 2,000 cubics: through the runs a point
    /// reads the groups' boxes, the runs' boxes of a group or two, and one
    /// or two runs, not every piece.
    func testAPointReadsOnlyTheRunsItsRayCanMeet() throws {
        var rng = SplitMix64(seed: 9)
        let c = try curves(try path(wavyLoop(2000, depth: 20, using: &rng)))
        XCTAssertGreaterThanOrEqual(c.pieces.count, 2000)
        let groups = c.runs.groups.count
        let size = PolylineChunks.size
        XCTAssertGreaterThan(c.runs.boxes.count, 200)
        for p in [Point(500, 500), Point(880, 510), Point(120, 480), Point(500, 95), Point(990, 990)] {
            var work = 0
            let w = c.winding(p, work: &work)
            let plain = plainWinding(c, p)
            XCTAssertEqual(w, plain.winding, "\(p)")
            XCTAssertGreaterThanOrEqual(plain.work, c.pieces.count, "every piece")
            // The groups, the runs of at most two groups, and at most two
            // runs near the ray's crossings, each piece with up to 64 bisection steps.
            XCTAssertLessThanOrEqual(work, groups + 2 * size + 2 * size * 65, "\(p)")
        }
        var work = 0
        XCTAssertEqual(c.winding(Point(500, 500), work: &work), 1)
        XCTAssertEqual(work, groups, "the centre's ray crosses the loop in one group wholly right of it: counted from its ends")
    }

    func testShortContoursHaveNoRunsAndRunsCoverTheirPieces() throws {
        var rng = SplitMix64(seed: 3)
        XCTAssertTrue(try curves(try path(wavyLoop(20, depth: 10, using: &rng))).runs.isEmpty)
        let c = try curves(try path(wavyLoop(500, depth: 10, using: &rng)))
        let n = c.pieces.count
        let size = PolylineChunks.size
        XCTAssertEqual(c.runs.boxes.count, (n + size - 1) / size)
        for (k, piece) in c.pieces.enumerated() {
            let box = c.runs.boxes[k / size]
            for q in [piece.a, piece.b] {
                XCTAssertTrue(box.minX <= q.x && q.x <= box.maxX && box.minY <= q.y && q.y <= box.maxY, "piece \(k) in its run's box")
            }
            if k > 0 { XCTAssertEqual(piece.a, c.pieces[k - 1].b, "piece \(k) starts where the one before ends") }
        }
        XCTAssertEqual(c.pieces[n - 1].b, c.pieces[0].a, "the last piece closes the loop")
    }
}
