import HitJSON
import HitRouting

/// Writes hit answers (SPEC §4.2).
enum HitResponseEncoder {
    /// A single hit's answer.
    static func writeHit(
        _ result: HitResult, query: HitQuery, captured: Bool?, sceneID: String, version: Int,
        scene: CompiledScene, to w: inout JSONWriter
    ) {
        w.beginObject()
        w.field("scene"); w.string(sceneID)
        w.field("version"); w.int(version)
        w.field("x"); w.number(query.point.x)
        w.field("y"); w.number(query.point.y)
        writeTarget(result, scene: scene, path: true, to: &w)
        if query.trace { w.field("trace"); writeTrace(result.trace, scene: scene, to: &w) }
        if let stack = result.stack { w.field("stack"); writeIDs(stack, scene: scene, to: &w) }
        if let captured { w.field("captured"); w.bool(captured) }
        w.endObject()
    }

    /// One entry of a batch answer: `layer`, `action`, `actionLayer`, and
    /// `trace`, `stack`, `captured` where they apply.
    static func writeBatchResult(
        _ result: HitResult, trace: Bool, captured: Bool?, scene: CompiledScene, to w: inout JSONWriter
    ) {
        w.beginObject()
        writeTarget(result, scene: scene, path: false, to: &w)
        if trace { w.field("trace"); writeTrace(result.trace, scene: scene, to: &w) }
        if let stack = result.stack { w.field("stack"); writeIDs(stack, scene: scene, to: &w) }
        if let captured { w.field("captured"); w.bool(captured) }
        w.endObject()
    }

    /// `layer`, (`path`,) `action`, `actionLayer` (and `local` with `path`).
    private static func writeTarget(_ result: HitResult, scene: CompiledScene, path: Bool, to w: inout JSONWriter) {
        guard let target = result.target else {
            w.field("layer"); w.null()
            if path { w.field("path"); w.null() }
            w.field("action"); w.null()
            w.field("actionLayer"); w.null()
            if path { w.field("local"); w.null() }
            return
        }
        w.field("layer"); w.string(scene.ids[target])
        if path {
            w.field("path")
            w.beginArray()
            for id in scene.path(to: target) { w.string(id) }
            w.endArray()
        }
        if let (action, layer) = scene.action(for: target) {
            w.field("action"); w.string(action)
            w.field("actionLayer"); w.string(scene.ids[layer])
        } else {
            w.field("action"); w.null()
            w.field("actionLayer"); w.null()
        }
        if path {
            w.field("local")
            if let local = result.local { SceneEncoder.writeXY(local, to: &w) } else { w.null() }
        }
    }

    private static func writeIDs(_ layers: [Int], scene: CompiledScene, to w: inout JSONWriter) {
        w.beginArray()
        for n in layers { w.string(scene.ids[n]) }
        w.endArray()
    }

    static func writeTrace(_ trace: [TraceEntry], scene: CompiledScene, to w: inout JSONWriter) {
        w.beginArray()
        for entry in trace {
            w.beginObject()
            w.field("layer")
            if entry.layer >= 0 {
                w.string(scene.ids[entry.layer])
            } else if case .captureDropped(_, let layer, _)? = entry.detail {
                w.string(layer)
            } else {
                w.null()
            }
            w.field("decision"); w.string(entry.decision.rawValue)
            w.field("reason"); w.string(entry.reason.rawValue)
            if let detail = entry.detail { w.field("detail"); w.string(detail.description) }
            if let local = entry.local { w.field("local"); SceneEncoder.writeXY(local, to: &w) }
            w.endObject()
        }
        w.endArray()
    }
}
