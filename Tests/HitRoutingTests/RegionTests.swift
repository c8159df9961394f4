import Foundation
import TestSupport
import XCTest

@testable import HitRouting

final class RegionTests: XCTestCase {
    func testRectIsHalfOpenLikeCGRectContains() {
        let r = region(rect(10, 20, 30, 40))
        XCTAssertEqual(r.test(Point(10, 20)), .inside)
        XCTAssertEqual(r.test(Point(39.999, 59.999)), .inside)
        XCTAssertEqual(r.test(Point(40, 30)), .outside)
        XCTAssertEqual(r.test(Point(20, 60)), .outside)
        XCTAssertEqual(r.test(Point(9.999, 30)), .outside)
    }

    func testAbuttingRectsGiveEveryPointToExactlyOne() {
        // A row of buttons 0..<10, 10..<20, 20..<30 and their rotated twins in a path.
        let buttons = (0..<3).map { region(rect(Double($0) * 10, 0, 10, 10)) }
        for x in stride(from: 0.0, through: 30, by: 0.5) {
            for y in [0.0, 5, 9.75, 10] {
                let owners = buttons.filter { $0.test(Point(x, y)).isHit }.count
                XCTAssertEqual(owners, (x < 30 && y < 10) ? 1 : 0, "(\(x), \(y))")
            }
        }
    }

    func testSlopGrowsARectExactlyAndHalfOpen() {
        let r = region(rect(0, 0, 44, 44), slop: SlopEdges(top: 20, right: 20, bottom: 20, left: 20))
        XCTAssertEqual(r.test(Point(22, 22)), .inside)
        XCTAssertEqual(r.test(Point(-15, 22)), .insideSlop)
        XCTAssertEqual(r.test(Point(44 + 15, 44 + 15)), .insideSlop)  // the grown rect keeps its square corners
        XCTAssertEqual(r.test(Point(-20, -20)), .insideSlop)
        XCTAssertEqual(r.test(Point(64, 22)), .outside)  // half-open on the far side
        XCTAssertEqual(r.test(Point(-25, 22)), .outside)
    }

    func testAsymmetricSlopUsesEachSide() {
        let r = region(rect(0, 0, 10, 10), slop: SlopEdges(top: 1, right: 2, bottom: 3, left: 4))
        XCTAssertEqual(r.test(Point(-3.9, 5)), .insideSlop)
        XCTAssertEqual(r.test(Point(-4.1, 5)), .outside)
        XCTAssertEqual(r.test(Point(11.9, 5)), .insideSlop)
        XCTAssertEqual(r.test(Point(5, -0.9)), .insideSlop)
        XCTAssertEqual(r.test(Point(5, 12.9)), .insideSlop)
        XCTAssertEqual(r.test(Point(5, 13.1)), .outside)
    }

    func testSlopOnACircleIsTheMinkowskiSumWithTheSlopSquare() {
        let r = region(ellipse(0, 0, 10, 10), slop: SlopEdges(top: 5, right: 5, bottom: 5, left: 5))
        XCTAssertEqual(r.test(Point(14.9, 0)), .insideSlop)
        XCTAssertEqual(r.test(Point(15.1, 0)), .outside)
        // Diagonally the square reaches further than a disc would: corner (5, 5) + 10·(√½, √½).
        let d = 10 / 2.0.squareRoot() + 5
        XCTAssertEqual(r.test(Point(d - 0.01, d - 0.01)), .insideSlop)
        XCTAssertEqual(r.test(Point(d + 0.01, d + 0.01)), .outside)
    }

    func testEvenOddRingHasAHoleAndNonzeroFillsIt() {
        let ring = [ellipse(120, 120, 120, 120), ellipse(120, 120, 48, 48)]
        let eo = region(Shape(.compound(ring), fillRule: .evenodd))
        XCTAssertEqual(eo.test(Point(120, 120)), .inHole(contours: 2, winding: 2))
        XCTAssertEqual(eo.test(Point(210, 120)), .inside)
        XCTAssertEqual(eo.test(Point(10, 10)), .outside)
        let nz = region(Shape(.compound(ring), fillRule: .nonzero))
        XCTAssertEqual(nz.test(Point(120, 120)), .inside)
    }

    func testOppositeDirectionsCutAHoleUnderNonzero() throws {
        let cw = "M0 0 H100 V100 H0 Z"
        let ccw = "M25 25 V75 H75 V25 Z"
        let r = region(try path(cw + " " + ccw))
        XCTAssertEqual(r.test(Point(50, 50)), .inHole(contours: 2, winding: 0))
        XCTAssertEqual(r.test(Point(10, 50)), .inside)
    }

    func testStrokeBandHasRoundJoinsAndCaps() {
        let line = region(Shape(.polyline([Point(0, 0), Point(100, 0)]), fill: false, stroke: 10))
        XCTAssertEqual(line.test(Point(50, 4.9)), .insideStroke)
        XCTAssertEqual(line.test(Point(50, 5.1)), .outside)
        XCTAssertEqual(line.test(Point(103, 3)), .insideStroke)  // round cap: √18 < 5
        XCTAssertEqual(line.test(Point(104, 4)), .outside)  // √32 > 5
        // Open: no band along the closing edge, though filling closes it.
        let veePoints = [Point(0, 0), Point(50, 50), Point(100, 0)]
        let vee = region(Shape(.polyline(veePoints), fill: false, stroke: 2))
        XCTAssertEqual(vee.test(Point(50, 0.5)), .outside)
        XCTAssertEqual(vee.test(Point(50, 50.9)), .insideStroke)
        XCTAssertEqual(region(Shape(.polyline(veePoints), stroke: 2)).test(Point(50, 20)), .inside)
        XCTAssertEqual(region(Shape(.polygon(veePoints), fill: false, stroke: 2)).test(Point(50, 0.5)), .insideStroke)
    }

    func testStrokeOnACircleAndReasonOrder() {
        let ring = region(Shape(.circle(cx: 0, cy: 0, r: 50), fill: false, stroke: 4))
        XCTAssertEqual(ring.test(Point(51.9, 0)), .insideStroke)
        XCTAssertEqual(ring.test(Point(0, -48.1)), .insideStroke)
        XCTAssertEqual(ring.test(Point(0, 0)), .outside)  // fill off: the centre is not in the region
        // Inside before inside-stroke.
        XCTAssertEqual(region(Shape(.circle(cx: 0, cy: 0, r: 50), stroke: 4)).test(Point(49, 0)), .inside)
    }

    func testStrokeOnAnEllipseUsesTheTrueDistance() {
        let r = region(Shape(.ellipse(cx: 0, cy: 0, rx: 100, ry: 20), fill: false, stroke: 2))
        XCTAssertEqual(r.test(Point(0, 20.9)), .insideStroke)
        XCTAssertEqual(r.test(Point(0, 21.1)), .outside)
        XCTAssertEqual(r.test(Point(100.9, 0)), .insideStroke)
        XCTAssertEqual(r.test(Point(101.1, 0)), .outside)
        // A point near the flat side's end: distance is along the normal, not radial.
        let onCurve = Point(60, 16)  // (60/100)² + (16/20)² = 1
        XCTAssertEqual(r.test(Point(onCurve.x, onCurve.y + 0.5)), .insideStroke)
    }

    func testRoundedRectCornersAreRound() {
        let r = region(rect(0, 0, 100, 100, radius: 20))
        XCTAssertEqual(r.test(Point(1, 1)), .outside)
        XCTAssertEqual(r.test(Point(7, 7)), .inside)  // distance to (20,20) = 18.4 < 20
        XCTAssertEqual(r.test(Point(50, 0.5)), .inside)
        // Clamped to half the smaller side: a 100×40 rect with radius 1000 is a stadium.
        let stadium = region(rect(0, 0, 100, 40, radius: 1000))
        XCTAssertEqual(stadium.test(Point(2, 2)), .outside)
        XCTAssertEqual(stadium.test(Point(50, 1)), .inside)
        XCTAssertEqual(stadium.test(Point(1, 20)), .inside)
    }

    func testDegenerateShapesHaveNoRegion() throws {
        XCTAssertTrue(region(rect(0, 0, 0, 10)).isEmpty)
        XCTAssertTrue(region(Shape(.rect(x: 0, y: 0, width: 10, height: 0, cornerRadius: nil), stroke: 4)).isEmpty)
        XCTAssertTrue(region(ellipse(0, 0, 0, 5)).isEmpty)
        XCTAssertTrue(region(Shape(.circle(cx: 0, cy: 0, r: 0))).isEmpty)
        XCTAssertTrue(region(try path("M5 5 Z M6 6", stroke: 10)).isEmpty)
        XCTAssertTrue(region(Shape(.rect(x: 0, y: 0, width: 10, height: 10, cornerRadius: nil), fill: false)).isEmpty)
        XCTAssertEqual(region(try path("M5 5 Z M0 0 H10 V10 H0 Z")).contourCount, 1)
    }

    func testArcsFollowTheTrueCircle() throws {
        // A circle of radius 100 drawn as two arcs, checked against the equation near the boundary.
        let r = region(try path("M0 -100 A100 100 0 0 1 0 100 A100 100 0 0 1 0 -100 Z"))
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let angle = Double.random(in: 0..<(2 * .pi), using: &rng)
            let radius = Double.random(in: 99.99...100.01, using: &rng)
            guard abs(radius - 100) > 1e-6 else { continue }
            let p = Point(radius * cos(angle), radius * sin(angle))
            XCTAssertEqual(r.test(p).isHit, radius < 100, "angle \(angle) radius \(radius)")
        }
    }

    func testOutOfRangeArcRadiiAreScaledUp() throws {
        // Radius 1 cannot span 0→100: it grows to a half circle of radius 50 (sweep 1 bulges up, y-down).
        let r = region(try path("M0 0 A1 1 0 0 1 100 0 Z"))
        XCTAssertTrue(r.test(Point(50, -49)).isHit)
        XCTAssertFalse(r.test(Point(50, -51)).isHit)
        XCTAssertFalse(r.test(Point(50, 1)).isHit)
        XCTAssertEqual(r.bounds.minY, -50, accuracy: 1e-9)
    }

    func testCubicCurvesAreTestedExactly() throws {
        // y = 3t(1-t)·100 peaks at 75 for the curve (0,0) C(0,100) (100,100) (100,0).
        let r = region(try path("M0 0 C0 100 100 100 100 0 Z"))
        XCTAssertTrue(r.test(Point(50, 74.999)).isHit)
        XCTAssertFalse(r.test(Point(50, 75.001)).isHit)
        XCTAssertEqual(r.bounds.maxY, 75, accuracy: 1e-9)
    }

    func testQuadraticCurvesAreTestedExactly() throws {
        // Peak of (0,0) Q(50,100) (100,0) is y = 50 at x = 50.
        let r = region(try path("M0 0 Q50 100 100 0 Z"))
        XCTAssertTrue(r.test(Point(50, 49.9999)).isHit)
        XCTAssertFalse(r.test(Point(50, 50.0001)).isHit)
    }

    func testStrokeOnCurvesIsWithinTolerance() throws {
        let arc = region(try path("M-100 0 A100 100 0 0 1 100 0", fill: false, stroke: 2))
        XCTAssertEqual(arc.test(Point(0, -100.99)), .insideStroke)
        XCTAssertEqual(arc.test(Point(0, -101.01)), .outside)
        XCTAssertEqual(arc.test(Point(70.71, -70.71)), .insideStroke)
        XCTAssertEqual(arc.test(Point(0, 0)), .outside)
    }
}
