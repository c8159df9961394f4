import HitJSON
import HitRouting

/// Writes hit answers (SPEC §4.2).
enum HitResponseEncoder {
    /// A single hit's answer; `captured` and `boundary` only for a pointer event.
    static func writeHit(
        _ result: HitResult, query: HitQuery, captured: Bool?, boundary: Boundary? = nil, sceneID: String, version: Int,
        scene: CompiledScene, to w: inout JSONWriter
    ) {
        w.beginObject()
        w.keyText(#""scene":"#)
        w.string(sceneID)
        w.keyText(#","version":"#)
        w.int(version)
        var points = PointText()
        points.writeMembers(query.point.point, to: &w)
        writeTarget(result, scene: scene, path: true, to: &w)
        w.keyText(#","local":"#)
        if let local = result.local { points.writeObject(local, to: &w) } else { w.null() }
        if !result.receivers.isEmpty {
            w.field("receivers")
            writeReceivers(result.receivers, scene: scene, to: &w)
        }
        if query.trace {
            w.keyText(#","trace":"#)
            TraceWriter.write(result.trace, scene: scene, points: &points, to: &w)
        }
        if let stack = result.stack {
            w.field("stack")
            writeIDs(stack, scene: scene, to: &w)
        }
        if let captured {
            w.field("captured")
            w.bool(captured)
        }
        if let boundary {
            w.field("boundary")
            writeBoundary(boundary, to: &w)
        }
        w.endObject()
    }

    /// A batch entry's members after its target's: `receivers`, `trace`,
    /// `stack`, `captured`, `boundary`.
    @inline(__always)
    static func writeBatchExtras(
        _ result: HitResult, trace: Bool, captured: Bool?, boundary: Boundary?, scene: CompiledScene, to w: inout JSONWriter
    ) {
        if !result.receivers.isEmpty {
            w.field("receivers")
            writeReceivers(result.receivers, scene: scene, to: &w)
        }
        if trace {
            var points = PointText()
            w.field("trace")
            TraceWriter.write(result.trace, scene: scene, points: &points, to: &w)
        }
        if let stack = result.stack {
            w.field("stack")
            writeIDs(stack, scene: scene, to: &w)
        }
        if let captured {
            w.field("captured")
            w.bool(captured)
        }
        if let boundary {
            w.field("boundary")
            writeBoundary(boundary, to: &w)
        }
    }

    /// `{"out", "leave", "over", "enter", "removed"}` (SPEC §11.1), every
    /// member present, `null` for no layer.
    static func writeBoundary(_ b: Boundary, to w: inout JSONWriter) {
        func id(_ s: String?) { if let s { w.string(s) } else { w.null() } }
        func ids(_ list: [String]) {
            w.beginArray()
            for s in list { w.string(s) }
            w.endArray()
        }
        w.beginObject()
        w.field("out")
        id(b.out)
        w.field("leave")
        ids(b.leave)
        w.field("over")
        id(b.over)
        w.field("enter")
        ids(b.enter)
        w.field("removed")
        ids(b.removed)
        w.endObject()
    }

    /// A stream's push for one pointer after the scene changed under it
    /// (SPEC §11.2): `{"type": "boundary", "pointer", "version", "layer",
    /// "boundary"}`, `layer` being what the pointer is over now (`null`:
    /// nothing), in `scene` at `version`.
    static func writeBoundaryPush(_ change: PointerSessions.Change, version: Int, scene: CompiledScene, to w: inout JSONWriter) {
        w.beginObject()
        w.field("type")
        w.string("boundary")
        w.field("pointer")
        w.string(change.pointer)
        w.field("version")
        w.int(version)
        w.field("layer")
        if let target = change.target { w.string(scene.ids[target]) } else { w.null() }
        w.field("boundary")
        writeBoundary(change.boundary, to: &w)
        w.endObject()
    }

    /// `layer`, (`path`,) `action`, `actionLayer`:
    /// the ids and the action copied as the scene keeps them quoted
    /// (`CompiledScene.quotedIDs`, `quotedActions`), the keys as text known
    /// when the program is built.
    /// - Complexity: O(depth of the target + the bytes written).
    static func writeTarget(_ result: HitResult, scene: CompiledScene, path: Bool, to w: inout JSONWriter) {
        guard let target = result.target else {
            if path {
                w.member(#""layer":null,"path":null,"action":null,"actionLayer":null"#)
            } else {
                w.member(#""layer":null,"action":null,"actionLayer":null"#)
            }
            return
        }
        w.field("layer")
        scene.quotedIDs.withText(target) { w.raw($0) }
        if path {
            w.keyText(#","path":["#)
            scene.forEachLayer(onPathTo: target) { n in scene.quotedIDs.withText(n) { w.raw($0) } }
            w.endArray()
        }
        if let layer = scene.actionLayer(for: target) {
            w.keyText(#","action":"#)
            scene.quotedActions.withText(layer) { w.raw($0) }
            w.keyText(#","actionLayer":"#)
            scene.quotedIDs.withText(layer) { w.raw($0) }
        } else {
            w.member(#""action":null,"actionLayer":null"#)
        }
    }

    /// `[{"layer", "action", "actionLayer"}, …]`: the pass-through layers
    /// that received the point, front to back, each with its action bubbled.
    static func writeReceivers(_ layers: [Int], scene: CompiledScene, to w: inout JSONWriter) {
        w.beginArray()
        for n in layers {
            w.beginObject()
            writeTarget(HitResult(target: n, local: nil), scene: scene, path: false, to: &w)
            w.endObject()
        }
        w.endArray()
    }

    private static func writeIDs(_ layers: [Int], scene: CompiledScene, to w: inout JSONWriter) {
        w.beginArray()
        for n in layers { scene.quotedIDs.withText(n) { w.raw($0) } }
        w.endArray()
    }
}

/// Writes the entries of one batch answer. An entry's `layer`, `action` and
/// `actionLayer` depend only on the target layer, so their bytes are made
/// once per target (by ``HitResponseEncoder/writeTarget``) and
/// copied for every later point with that target.
struct BatchResultWriter {
    /// The scene the entries describe; `rescene` when it changes.
    private(set) var scene: CompiledScene
    /// Made fragments, back to back; cleared when it outgrows `maxArena`.
    private var arena: [UInt8] = []
    /// A direct-mapped cache: slot `target % slots.count` holds the target's
    /// fragment as a range of `arena`, or layer -1.
    private var slots: [(layer: Int, start: Int, end: Int)]
    private static let slotCount = 64
    private static let maxArena = 16 * 1024
    /// The members of an entry without a target.
    private static let noTarget: StaticString = #""layer":null,"action":null,"actionLayer":null"#

    init(scene: CompiledScene) {
        self.scene = scene
        slots = Array(repeating: (-1, 0, 0), count: BatchResultWriter.slotCount)
    }

    /// Describes `scene` from now on (a pointer event changed the scene).
    mutating func rescene(_ scene: CompiledScene) {
        self.scene = scene
        for i in slots.indices { slots[i].layer = -1 }
        arena.removeAll(keepingCapacity: true)
    }

    /// One entry of a batch answer: `layer`, `action`, `actionLayer`, and
    /// `trace`, `stack`, `captured`, `boundary` where they apply.
    mutating func write(_ result: HitResult, trace: Bool, captured: Bool?, boundary: Boundary? = nil, to w: inout JSONWriter) {
        w.beginObject()
        if let target = result.target {
            let slot = target & (BatchResultWriter.slotCount - 1)
            if slots[slot].layer != target { makeFragment(target, result, slot: slot) }
            let (_, start, end) = slots[slot]
            arena.withUnsafeBufferPointer { w.rawMembers(UnsafeBufferPointer(rebasing: $0[start..<end])) }
        } else {
            BatchResultWriter.noTarget.withUTF8Buffer { w.rawMembers($0) }
        }
        HitResponseEncoder.writeBatchExtras(result, trace: trace, captured: captured, boundary: boundary, scene: scene, to: &w)
        w.endObject()
    }

    /// Writes the target's members at the end of `arena` and points its
    /// slot at them.
    private mutating func makeFragment(_ target: Int, _ result: HitResult, slot: Int) {
        if arena.count > BatchResultWriter.maxArena {
            for i in slots.indices { slots[i].layer = -1 }
            arena.removeAll(keepingCapacity: true)
        }
        var f = JSONWriter(capacity: 128)
        f.beginObject()
        HitResponseEncoder.writeTarget(result, scene: scene, path: false, to: &f)
        let start = arena.count
        f.withBytes { arena.append(contentsOf: $0.dropFirst()) }  // the members, without the `{`
        slots[slot] = (target, start, arena.count)
    }
}
