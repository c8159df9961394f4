import HitJSON
import HitRouting

/// The members `"x":…,"y":…` of the last point an answer wrote, kept as
/// where they are in its writer, so that an equal point later in the same
/// answer is one copy of those bytes and not two numbers formatted again:
/// a hit's `x`, `y`, its `local` and its trace's `local`s are often the
/// same point (layers without a transform).
///
/// Points are equal here when their coordinates have the same bits (so
/// `0` and `-0`, written differently, are not).
struct PointText {
    private var x: UInt64 = 0
    private var y: UInt64 = 0
    /// The members' bytes in the writer; empty before the first point.
    private var range: Range<Int> = 0..<0

    /// Writes `"x":…,"y":…` as the next members of the open object (with
    /// `JSONWriter.number`'s form of each coordinate).
    mutating func writeMembers(_ p: Point, to w: inout JSONWriter) {
        if !range.isEmpty && p.x.bitPattern == x && p.y.bitPattern == y {
            w.membersAgain(range)
            return
        }
        let start = w.memberStart()
        w.keyText(#""x":"#)
        w.number(p.x)
        w.keyText(#","y":"#)
        w.number(p.y)
        (x, y, range) = (p.x.bitPattern, p.y.bitPattern, start..<w.count)
    }

    /// Writes `{"x":…,"y":…}` as the next value (`SceneEncoder.writeXY`'s bytes).
    mutating func writeObject(_ p: Point, to w: inout JSONWriter) {
        w.beginObject()
        writeMembers(p, to: &w)
        w.endObject()
    }
}
