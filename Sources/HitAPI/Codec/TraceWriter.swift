import HitJSON
import HitRouting

/// Writes a trace's entries (SPEC §4.2 `trace`) straight into the answer:
/// `decision` and `reason` as members known when the program is built, and
/// `detail` piece by piece, so no entry makes a String (but a pointer
/// capture's note, one an event, which holds the client's ids). The bytes are those
/// of `TraceDetail.description` written with `JSONWriter.string`
/// (TraceWriterTests holds the two side by side).
enum TraceWriter {
    /// `[{"layer",  "decision", "reason", "detail"?, "local"?}, …]`; a
    /// `local` equal to the last point of `points` is copied from it.
    /// - Complexity: O(entries + the length of their ids and details).
    static func write(_ trace: [TraceEntry], scene: CompiledScene, points: inout PointText, to w: inout JSONWriter) {
        w.beginArray()
        trace.withUnsafeBufferPointer { entries in
            // Read in place: a copy of an entry would copy (and destroy) its detail.
            guard var entry = entries.baseAddress else { return }
            for _ in entries.indices {
                defer { entry += 1 }
                w.beginObject()
                w.keyText(#""layer":"#)
                let layer = entry.pointee.layer
                if layer >= 0 {
                    scene.quotedIDs.withText(layer) { w.raw($0) }
                } else if case .captureDropped(_, let id, _)? = entry.pointee.detail {
                    w.string(id)
                } else {
                    w.null()
                }
                w.member(decisionMember(entry.pointee.decision))
                w.member(reasonMember(entry.pointee.reason))
                if let detail = entry.pointee.detail {
                    w.keyText(#","detail":"#)
                    writeDetail(detail, to: &w)
                }
                if let local = entry.pointee.local {
                    w.keyText(#","local":"#)
                    points.writeObject(local, to: &w)
                }
                w.endObject()
            }
        }
        w.endArray()
    }

    /// `detail`'s sentence as a JSON string: the text of
    /// `TraceDetail.description`, escaped as `JSONWriter.string` escapes it.
    static func writeDetail(_ detail: TraceDetail, to w: inout JSONWriter) {
        switch detail {
        case .capturedBy, .captureDropped:
            // Notes about a pointer (one an event) hold the client's ids: the sentence itself.
            w.string(detail.description)
            return
        default:
            w.beginString()
        }
        switch detail {
        case .opacity(let o):
            w.stringText("opacity ")
            w.stringShort(o)
            w.stringText(" is below 0.01")
        case .determinant(let d):
            w.stringText("transform is not invertible (determinant ")
            w.stringShort(d)
            w.stringText(")")
        case .clippedDescendants(let n):
            w.stringText("outside its hit region with clipChildren; ")
            w.stringInt(n)
            w.stringText(n == 1 ? " descendant not visited" : " descendants not visited")
        case .noShape:
            w.stringText("no shape or hitShape: a container is never a target itself")
        case .emptyRegion:
            w.stringText("its hit region is empty (zero size, or neither fill nor stroke)")
        case .inHole(let rule, let contours, let winding):
            if rule == .evenodd {
                w.stringText("even-odd: inside ")
            } else {
                w.stringText("nonzero: winding ")
                w.stringInt(winding)
                w.stringText(" inside ")
            }
            w.stringInt(contours)
            w.stringText(contours == 1 ? " contour" : " contours")
        case .withinStroke(let half):
            w.stringText("within ")
            w.stringShort(half)
            w.stringText(" of the outline (stroke / 2)")
        case .withinSlop:
            w.stringText("outside the region but within its hitSlop")
        case .maskPixel(let column, let row, let alpha, let minimum):
            w.stringText("pixel (")
            w.stringInt(column)
            w.stringText(", ")
            w.stringInt(row)
            w.stringText(") alpha ")
            w.stringInt(alpha)
            w.stringText(alpha >= minimum ? " >= " : " < ")
            w.stringInt(minimum)
        case .outsideMask(let columns, let rows):
            w.stringText("outside the mask's ")
            w.stringInt(columns)
            w.stringText(" x ")
            w.stringInt(rows)
            w.stringText(" pixels")
        case .passedThrough(let reason):
            w.stringText(reasonText(reason))
            w.stringText("; passThrough lets the point go on to the layers below")
        case .capturedBy, .captureDropped:
            break  // written above
        }
        w.endString()
    }

    /// `"decision":"…"` for `decision`.
    static func decisionMember(_ decision: Decision) -> StaticString {
        switch decision {
        case .hit: #""decision":"hit""#
        case .miss: #""decision":"miss""#
        case .skip: #""decision":"skip""#
        case .captured: #""decision":"captured""#
        case .pass: #""decision":"pass""#
        }
    }

    /// `"reason":"…"` for `reason`.
    static func reasonMember(_ reason: Reason) -> StaticString {
        switch reason {
        case .hidden: #""reason":"hidden""#
        case .transparent: #""reason":"transparent""#
        case .pointerEventsNone: #""reason":"pointer-events-none""#
        case .singularTransform: #""reason":"singular-transform""#
        case .clipped: #""reason":"clipped""#
        case .childrenOnly: #""reason":"children-only""#
        case .noShape: #""reason":"no-shape""#
        case .inside: #""reason":"inside""#
        case .insideStroke: #""reason":"inside-stroke""#
        case .insideSlop: #""reason":"inside-slop""#
        case .outside: #""reason":"outside""#
        case .inHole: #""reason":"in-hole""#
        case .captured: #""reason":"captured""#
        case .passThrough: #""reason":"pass-through""#
        }
    }

    /// `reason.rawValue`, known when the program is built.
    static func reasonText(_ reason: Reason) -> StaticString {
        switch reason {
        case .hidden: "hidden"
        case .transparent: "transparent"
        case .pointerEventsNone: "pointer-events-none"
        case .singularTransform: "singular-transform"
        case .clipped: "clipped"
        case .childrenOnly: "children-only"
        case .noShape: "no-shape"
        case .inside: "inside"
        case .insideStroke: "inside-stroke"
        case .insideSlop: "inside-slop"
        case .outside: "outside"
        case .inHole: "in-hole"
        case .captured: "captured"
        case .passThrough: "pass-through"
        }
    }
}
