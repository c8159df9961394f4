import HitJSON
import HitStore
import SceneCodec

extension SceneEncoder {
    /// A scene summary (SPEC §4.1): id, version, layer count and bounds.
    static func writeSummary(_ s: SceneSummary, to w: inout JSONWriter) {
        w.beginObject()
        w.field("id")
        w.string(s.id)
        w.field("version")
        w.int(s.version)
        w.field("layers")
        w.int(s.layers)
        w.field("bounds")
        if let b = s.bounds {
            w.beginObject()
            w.field("x")
            w.number(b.minX)
            w.field("y")
            w.number(b.minY)
            w.field("width")
            w.number(b.width)
            w.field("height")
            w.number(b.height)
            w.endObject()
        } else {
            w.null()
        }
        w.endObject()
    }
}
