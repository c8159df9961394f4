import XCTest

@testable import HitRouting

final class SVGPathParserTests: XCTestCase {
    func parse(_ d: String) throws -> [PathElement] { try SVGPathParser.parse(d) }

    func assertError(_ d: String, at offset: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try SVGPathParser.parse(d), file: file, line: line) { error in
            XCTAssertEqual((error as? PathSyntaxError)?.offset, offset, "\(error)", file: file, line: line)
        }
    }

    func testAbsoluteAndRelativeCommandsBecomeAbsolute() throws {
        XCTAssertEqual(
            try parse("M10 20 l5 5 h-5 V0 z"),
            [
                .move(Point(10, 20)), .line(Point(15, 25)), .line(Point(10, 25)), .line(Point(10, 0)), .close,
            ])
    }

    func testImplicitLinetoAfterMoveto() throws {
        XCTAssertEqual(try parse("M0 0 10 0 10 10"), [.move(.zero), .line(Point(10, 0)), .line(Point(10, 10))])
        XCTAssertEqual(try parse("m1 1 2 2"), [.move(Point(1, 1)), .line(Point(3, 3))])
    }

    func testCompactNumbers() throws {
        XCTAssertEqual(try parse("M.5.5l1-1"), [.move(Point(0.5, 0.5)), .line(Point(1.5, -0.5))])
        XCTAssertEqual(try parse("M1e-3,-1-2-3"), [.move(Point(0.001, -1)), .line(Point(-2, -3))])
    }

    func testExponentsSignsAndTrailingDot() throws {
        XCTAssertEqual(try parse("M1e2 +2E-1L5. 6"), [.move(Point(100, 0.2)), .line(Point(5, 6))])
    }

    func testRepeatedImplicitCommandsAndSeparators() throws {
        XCTAssertEqual(
            try parse("M0,0L1,1,2,2 , 3 3"),
            [
                .move(.zero), .line(Point(1, 1)), .line(Point(2, 2)), .line(Point(3, 3)),
            ])
    }

    func testSmoothCurvesReflectTheirControlPoints() throws {
        let e = try parse("M0 0 C0 10 10 10 10 0 S20 -10 20 0")
        XCTAssertEqual(e[2], .cubic(c1: Point(10, -10), c2: Point(20, -10), to: Point(20, 0)))
        let q = try parse("M0 0 Q5 10 10 0 T20 0")
        XCTAssertEqual(q[2], .quad(c: Point(15, -10), to: Point(20, 0)))
        // Without a preceding curve the control point is the current point.
        XCTAssertEqual(try parse("M1 1 S5 5 6 6")[1], .cubic(c1: Point(1, 1), c2: Point(5, 5), to: Point(6, 6)))
        XCTAssertEqual(try parse("M1 1 L2 2 T6 6")[2], .quad(c: Point(2, 2), to: Point(6, 6)))
    }

    func testRelativeSmoothCurvesUseTheCurrentPoint() throws {
        let e = try parse("M10 10 c0 10 10 10 10 0 s10 -10 10 0")
        XCTAssertEqual(e[2], .cubic(c1: Point(20, 0), c2: Point(30, 0), to: Point(30, 10)))
    }

    func testArcFlagsMayBeCompactAndRadiiAreAbsolute() throws {
        XCTAssertEqual(
            try parse("M0 0a-5 5 30 1010 0"),
            [
                .move(.zero), .arc(radii: Point(5, 5), rotation: 30, largeArc: true, sweep: false, to: Point(10, 0)),
            ])
        XCTAssertEqual(
            try parse("M0 0 A5,5,0,0,1,10,0")[1],
            .arc(radii: Point(5, 5), rotation: 0, largeArc: false, sweep: true, to: Point(10, 0)))
    }

    func testSubpathsAndCurrentPointAfterClose() throws {
        XCTAssertEqual(
            try parse("M0 0 L10 0 Z l5 5 M20 20 z"),
            [
                .move(.zero), .line(Point(10, 0)), .close, .line(Point(5, 5)), .move(Point(20, 20)), .close,
            ])
    }

    func testErrorsNameTheOffsetWhereParsingStopped() {
        assertError("", at: 0)
        assertError("   ", at: 3)
        assertError("L0 0", at: 0)  // must start with a moveto
        assertError("10 10", at: 0)
        assertError("M0 0 L10", at: 8)  // truncated
        assertError("M0 0 C1 1 2 2", at: 13)
        assertError("M0 0 L1 x", at: 8)
        assertError("M0 0 Z 5 5", at: 7)  // numbers after Z need a command
        assertError("M0 0 A5 5 0 2 0 1 1", at: 12)  // bad flag
        assertError("M1e", at: 3)
        assertError("M0 0 L1 1e999", at: 8)
        assertError("M 0 0 L 1 1 L", at: 13)
        assertError("M0 0 L1 1 #", at: 10)
    }
}
