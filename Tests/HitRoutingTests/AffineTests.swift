import XCTest

@testable import HitRouting

final class AffineTests: XCTestCase {
    func testRotationIsClockwiseOnScreenAndExactOnQuarterTurns() {
        let r = Affine.rotation(degrees: 90)
        XCTAssertEqual(r.apply(Point(1, 0)), Point(0, 1))  // +x turns to +y (down)
        XCTAssertEqual(Affine.rotation(degrees: -90).apply(Point(1, 0)), Point(0, -1))
        XCTAssertEqual(Affine.rotation(degrees: 450).apply(Point(1, 0)), Point(0, 1))
        let r30 = Affine.rotation(degrees: 30).apply(Point(1, 0))
        XCTAssertEqual(r30.x, 0.8660254037844387, accuracy: 1e-15)
        XCTAssertEqual(r30.y, 0.5, accuracy: 1e-15)
    }

    func testProductAppliesRightOperandFirst() {
        let m = Affine.translation(10, 0) * Affine.scale(2, 2)
        XCTAssertEqual(m.apply(Point(1, 1)), Point(12, 2))
    }

    func testInverseRoundTripsAndSingularIsNil() throws {
        let m = Affine(a: 2, b: 1, c: -1, d: 3, e: 5, f: -7)
        let inv = try XCTUnwrap(m.inverse)
        let p = inv.apply(m.apply(Point(3.5, -2)))
        XCTAssertEqual(p.x, 3.5, accuracy: 1e-12)
        XCTAssertEqual(p.y, -2, accuracy: 1e-12)
        XCTAssertNil(Affine.scale(0, 1).inverse)
        XCTAssertNil(Affine.scale(1e-7, 1e-6).inverse)  // |det| = 1e-13 < 1e-12
        XCTAssertNotNil(Affine.scale(1e-6, 1e-6).inverse)  // |det| = 1e-12
    }

    func testPartsFormComposesTranslateOriginRotateScale() {
        // Rotate 90° about (10, 0), then move by (5, 5).
        let parts = TransformParts(translate: Point(5, 5), rotate: 90, scale: .uniform(2), origin: Point(10, 0))
        // (11, 0): relative to origin (1, 0) → scaled (2, 0) → rotated (0, 2) → + origin (10, 2) → + (5, 5)
        XCTAssertEqual(parts.affine.apply(Point(11, 0)), Point(15, 7))
        XCTAssertEqual(Transform.matrix(Affine(a: 1, b: 0, c: 0, d: 1, e: 3, f: 4)).affine.apply(.zero), Point(3, 4))
    }

    func testMaxScaleIsTheLargestSingularValue() {
        XCTAssertEqual(Affine.scale(3, -5).maxScale, 5, accuracy: 1e-12)
        XCTAssertEqual((Affine.rotation(degrees: 33) * Affine.scale(2, 0.5)).maxScale, 2, accuracy: 1e-12)
    }

    func testAppliesFinitelyCatchesAShearWhoseTermsOverflowInOppositeSigns() {
        // x = 2x' - 2y': at (1.05e308, 5.2e307) the term 2x' is inf though the exact x, 1.06e308, is not.
        let shear = Affine(a: 2, b: 0, c: -2, d: 1, e: 0, f: 0)
        XCTAssertFalse(shear.apply(Point(1.05e308, 5.2e307)).x.isFinite)
        XCTAssertFalse(shear.appliesFinitely(within: Box(minX: 6.3e307, minY: 4.5e307, maxX: 1.17e308, maxY: 5.85e307)))
        XCTAssertTrue(shear.appliesFinitely(within: Box(minX: -1e300, minY: -1e300, maxX: 1e300, maxY: 1e300)))
        XCTAssertTrue(Affine.identity.appliesFinitely(within: Box(minX: -1e307, minY: 0, maxX: 8e307, maxY: 1)))
        XCTAssertFalse(Affine.translation(1e308, 0).appliesFinitely(within: Box(minX: 0, minY: 0, maxX: 1e308, maxY: 1)))
    }

    func testTranslatedGrowsTheTranslationOfEitherForm() {
        XCTAssertEqual(
            Transform.parts(TransformParts(rotate: 10)).translated(by: Point(1, 2)),
            .parts(TransformParts(translate: Point(1, 2), rotate: 10)))
        XCTAssertEqual(Transform.matrix(.identity).translated(by: Point(1, 2)), .matrix(.translation(1, 2)))
    }
}
