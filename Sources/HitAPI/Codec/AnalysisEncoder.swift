import HitAnalysis
import HitJSON
import HitRouting

/// The JSON of the whole-scene answers (SPEC §12). Every number the
/// analysis computes is finite (`GridRequest.grid` refuses grids that
/// could produce another); `finite` writes null rather than trap if one
/// ever were not.
enum AnalysisEncoder {
    static func finite(_ d: Double, _ w: inout JSONWriter) {
        if d.isFinite { w.number(d) } else { w.null() }
    }

    static func point(_ p: Point?, _ w: inout JSONWriter) {
        guard let p else { return w.null() }
        w.beginObject()
        w.field("x")
        finite(p.x, &w)
        w.field("y")
        finite(p.y, &w)
        w.endObject()
    }

    static func box(_ b: CellBox?, _ w: inout JSONWriter) {
        guard let b else { return w.null() }
        w.beginObject()
        w.field("x")
        finite(b.x, &w)
        w.field("y")
        finite(b.y, &w)
        w.field("width")
        finite(b.width, &w)
        w.field("height")
        finite(b.height, &w)
        w.endObject()
    }

    /// `"scene"`, `"version"`, then the grid: `resolution`, `region`, `samples`.
    static func header(_ id: String, _ version: Int, _ grid: SampleGrid, _ w: inout JSONWriter) {
        w.field("scene")
        w.string(id)
        w.field("version")
        w.int(version)
        w.field("resolution")
        finite(grid.resolution, &w)
        w.field("region")
        box(CellBox(x: grid.x, y: grid.y, width: grid.width, height: grid.height), &w)
        w.field("samples")
        w.int(grid.count)
    }

    static func layer(_ n: Int?, _ scene: CompiledScene, _ w: inout JSONWriter) {
        if let n { w.string(scene.ids[n]) } else { w.null() }
    }

    static func audit(_ r: AuditReport, id: String, version: Int, scene: CompiledScene, _ w: inout JSONWriter) {
        w.beginObject()
        header(id, version, r.grid, &w)
        w.field("minSize")
        finite(r.minSize, &w)
        w.field("spacing")
        if let s = r.spacing { finite(s, &w) } else { w.null() }
        w.field("targets")
        w.beginArray()
        for t in r.targets {
            w.beginObject()
            w.field("layer")
            w.string(scene.ids[t.layer])
            w.field("action")
            w.string(scene.actions[t.layer] ?? "")
            w.field("area")
            finite(t.area, &w)
            w.field("box")
            box(t.box, &w)
            w.field("reachable")
            w.bool(t.cells > 0)
            w.field("largestSquare")
            if let s = t.largestSquare {
                w.beginObject()
                w.field("x")
                finite(s.x, &w)
                w.field("y")
                finite(s.y, &w)
                w.field("side")
                finite(s.side, &w)
                w.endObject()
            } else {
                w.null()
            }
            w.field("size")
            w.string(t.sizePasses ? "pass" : "fail")
            if let p = t.spacingPasses {
                w.field("spacing")
                w.string(p ? "pass" : "fail")
            }
            w.field("reachPoint")
            point(t.reachPoint, &w)
            w.field("clearance")
            if let c = t.clearance { finite(c, &w) } else { w.null() }
            w.field("coveredBy")
            w.beginArray()
            for c in t.coveredBy {
                w.beginObject()
                w.field("layer")
                layer(c.layer, scene, &w)
                w.field("area")
                finite(c.area, &w)
                w.endObject()
            }
            w.endArray()
            w.field("verdict")
            w.string(t.verdict.rawValue)
            w.endObject()
        }
        w.endArray()
        w.field("blockers")
        w.beginArray()
        for b in r.blockers {
            w.beginObject()
            w.field("layer")
            w.string(scene.ids[b.layer])
            w.field("area")
            finite(b.area, &w)
            w.field("covers")
            w.beginArray()
            for c in b.covers { w.string(scene.ids[c]) }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    static func reach(_ r: ReachReport, id: String, version: Int, scene: CompiledScene, _ w: inout JSONWriter) {
        w.beginObject()
        header(id, version, r.grid, &w)
        w.field("layer")
        w.string(scene.ids[r.layer])
        w.field("area")
        finite(r.area, &w)
        w.field("reachPoint")
        point(r.reachPoint, &w)
        w.field("clearance")
        if let c = r.clearance { finite(c, &w) } else { w.null() }
        if let reason = r.reason {
            w.field("reason")
            w.string(reason)
        }
        w.field("lost")
        w.beginArray()
        for l in r.lost {
            w.beginObject()
            w.field("layer")
            layer(l.taker, scene, &w)
            w.field("reason")
            w.string(l.reason)
            w.field("area")
            finite(l.area, &w)
            w.field("point")
            point(l.point, &w)
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    static func diff(
        _ r: DiffReport, id: String, version: Int, scene: CompiledScene, against: String, againstVersion: Int,
        other: CompiledScene, _ w: inout JSONWriter
    ) {
        func side(_ n: Int?, _ s: CompiledScene) {
            w.beginObject()
            w.field("layer")
            layer(n, s, &w)
            w.field("action")
            if let n, let a = s.action(for: n) { w.string(a.action) } else { w.null() }
            w.endObject()
        }
        w.beginObject()
        header(id, version, r.grid, &w)
        w.field("against")
        w.string(against)
        w.field("againstVersion")
        w.int(againstVersion)
        w.field("changed")
        finite(r.changed, &w)
        w.field("groups")
        w.beginArray()
        for g in r.groups {
            w.beginObject()
            w.field("from")
            side(g.from, scene)
            w.field("to")
            side(g.to, other)
            w.field("area")
            finite(g.area, &w)
            w.field("box")
            box(g.box, &w)
            w.field("point")
            point(g.point, &w)
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }
}
