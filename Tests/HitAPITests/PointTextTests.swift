import HitJSON
import HitRouting
import SceneCodec
import TestSupport
import XCTest

@testable import HitAPI

/// `PointText` against `SceneEncoder.writeXY`: the same bytes whether a
/// point is formatted or copied from an equal one before it.
final class PointTextTests: XCTestCase {
    func testPointsCopiedOrFormattedReadAsWriteXY() {
        let coordinates: [Double] = [0, -0.0, 120, 120.5, -7.25, 0.1, 1e16, 9_007_199_254_740_993, 5e-324, -1e300]
        var points: [Point] = []
        for x in coordinates { for y in coordinates { points.append(Point(x, y)) } }
        var g = SplitMix64(seed: 7)
        // Runs of equal points, and points equal but for the sign of zero.
        for _ in 0..<2_000 {
            let p = points[Int(g.next() % UInt64(points.count))]
            let q = g.next() % 3 == 0 ? p : points[Int(g.next() % UInt64(points.count))]
            var text = PointText()
            var got = JSONWriter(capacity: 1)
            var want = JSONWriter(capacity: 1)
            got.beginObject()
            want.beginObject()
            got.keyText(#""v":"#)
            want.keyText(#""v":"#)
            got.int(1)
            want.int(1)
            text.writeMembers(p, to: &got)
            want.keyText(#","x":"#)
            want.number(p.x)
            want.keyText(#","y":"#)
            want.number(p.y)
            got.keyText(#","a":["#)
            want.keyText(#","a":["#)
            for r in [p, q, q, p] {
                text.writeObject(r, to: &got)
                SceneEncoder.writeXY(r, to: &want)
            }
            got.endArray()
            want.endArray()
            got.endObject()
            want.endObject()
            XCTAssertEqual(String(decoding: got.bytes, as: UTF8.self), String(decoding: want.bytes, as: UTF8.self))
        }
    }
}
