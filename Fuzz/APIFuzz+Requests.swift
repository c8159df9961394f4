// The request half of the API fuzzer's generator: a session uploads a scene
// and then sends, as the stream decides, hits (GET and POST, at ordinary
// and extreme points, with and without trace and `all`), batches, pointer
// down/move/up sequences (which drag `draggable` layers), hover walks (with
// patches under a still pointer, `leave`, pointer types), merge patches,
// GET, HEAD, DELETE, list, OPTIONS, new scenes, raw bodies, and the
// whole-scene questions (audit, reach, diff) at extreme grids.

import HTTPServer

extension FuzzSession {
    /// The structured session: a scene, then up to 24 requests.
    mutating func run(_ d: inout Decisions) {
        putScene(&d)
        var n = 0
        while !d.isExhausted && n < 24 {
            n += 1
            switch d.below(23) {
            case 0, 1, 2: hitGET(&d)
            case 3, 4, 5: hitPOST(&d, pointer: nil)
            case 6, 7: batch(&d)
            case 8, 9: gesture(&d)
            case 10: hoverWalk(&d)
            case 11, 12: patch(&d)
            case 13: putScene(&d)
            case 14: send(d.chance(80) ? "GET" : "HEAD", "/scenes/\(scene(&d))")
            case 15: send("GET", "/scenes")
            case 16: send("DELETE", "/scenes/\(scene(&d))")
            case 17: postScene(&d)
            case 18: sendRaw(&d)
            case 19: render(&d)
            case 20, 21: analysis(&d)
            default: odd(&d)
            }
        }
    }

    /// A known scene id mostly, else an unknown or odd one.
    mutating func scene(_ d: inout Decisions) -> String {
        if !scenes.isEmpty, d.chance(92) { return d.pick(scenes) }
        return d.pick(["nope", "%61", "a%2Fb", "x%", "%00", String(repeating: "z", count: 129), ".", "..", "%2E%2E", "t-nope"])
    }

    mutating func putScene(_ d: inout Decisions) {
        let fresh = (keyed && d.chance(40) ? FuzzCredential.tenantPrefix : "") + "s\(scenes.count)"
        let id = scenes.isEmpty || d.chance(60) ? fresh : (d.chance(95) ? d.pick(scenes) : d.pick([".", "..", "%2e"]))
        var w = SceneWriter(budget: 40)
        w.scene(&d, id: d.chance(90) ? id : (d.chance(50) ? nil : "other"))
        let r = send("PUT", "/scenes/\(id)", json: w.out)
        remember(r, id: id, layers: w.ids)
    }

    mutating func postScene(_ d: inout Decisions) {
        let id = (keyed && d.chance(40) ? FuzzCredential.tenantPrefix : "") + "p\(scenes.count)"
        var w = SceneWriter(budget: 40)
        w.scene(&d, id: d.chance(80) ? id : nil)
        let r = send("POST", "/scenes", json: w.out)
        if (200..<300).contains(r.status), let location = r.headers["Location"], location.hasPrefix("/scenes/") {
            remember(r, id: String(location.dropFirst(8)), layers: w.ids)
        }
    }

    private mutating func remember(_ r: HTTPResponse, id: String, layers ids: [String]) {
        guard (200..<300).contains(r.status) else { return }
        if !scenes.contains(id) { scenes.append(id) }
        layers.append(contentsOf: ids.prefix(64))
    }

    /// A point mostly near the scene's layers, sometimes extreme.
    mutating func point(_ d: inout Decisions) -> (String, String) {
        if d.chance(60) { return (String(d.below(300) - 20), String(d.below(300) - 20)) }
        return (FuzzNumber.next(&d), FuzzNumber.next(&d))
    }

    mutating func hitGET(_ d: inout Decisions) {
        let (x, y) = point(&d)
        var q = "x=\(x)&y=\(y)"
        if d.chance(40) { q += "&trace=\(d.pick(["0", "1", "false", "true", "yes"]))" }
        if d.chance(30) { q += "&all=\(d.pick(["1", "true", "0"]))" }
        if d.chance(10) { q += d.pick(["&pointer=p&phase=down", "&x=1", "&z=1", "&phase=move", "&pointer=p"]) }
        var headers: [(String, String)] = []
        if d.chance(15) {
            headers.append(
                ("X-Min-Version", d.pick(["1", "2", "0", "-1", "", " 7 ", "1e3", "858296970861170604900352", "99999999999999999999"])))
        }
        if d.chance(10) { headers.append(("X-Request-Id", d.pick(["a", "", String(repeating: "x", count: 129), "say\"hi\\"]))) }
        send(d.chance(90) ? "GET" : "HEAD", "/scenes/\(scene(&d))/hit?\(q)", headers: headers)
    }

    /// A hit body with the options the stream picks, and the body of the
    /// same point's hit with the trace the other way round.
    mutating func hitBody(_ d: inout Decisions, pointer: String?, phase: String?) -> (body: String, twin: String) {
        hitBody(&d, pointer: pointer, phase: phase, type: nil)
    }

    mutating func hitBody(_ d: inout Decisions, pointer: String?, phase: String?, type: String?) -> (body: String, twin: String) {
        let (x, y) = point(&d)
        var body = "{\"x\":\(x),\"y\":\(y)"
        var traced = true
        if d.chance(40) {
            traced = d.chance(50)
            body += ",\"trace\":\(traced)"
        }
        if d.chance(30) { body += ",\"all\":\(d.chance(70) ? "true" : "false")" }
        if let pointer, let phase { body += ",\"pointer\":\"\(pointer)\",\"phase\":\"\(phase)\"" }
        if let type { body += ",\"pointerType\":\"\(type)\"" }
        return (body + "}", "{\"x\":\(x),\"y\":\(y),\"trace\":\(!traced)}")
    }

    /// `POST …/hit`. Without a pointer, the same point is asked again with
    /// the trace the other way round, and both must name the same target:
    /// a traced hit visits every layer in order, an untraced one takes the
    /// sibling indexes and covers, which may only skip what would miss.
    /// With a pointer, a 200 answer's `boundary` must be consistent
    /// (`checkBoundary`).
    @discardableResult
    mutating func hitPOST(_ d: inout Decisions, pointer: (String, String)?, type: String? = nil, in id: String? = nil) -> HTTPResponse {
        let sceneID = id ?? scene(&d)
        let (body, twin) = hitBody(&d, pointer: pointer?.0, phase: pointer?.1, type: type)
        checkDecoders(body, &d)
        let answer = send("POST", "/scenes/\(sceneID)/hit", json: body)
        if pointer == nil, answer.status == 200 {
            let other = send("POST", "/scenes/\(sceneID)/hit", json: twin)
            if other.status == 200 { checkSameTargets(answer, other, index: count) }
        }
        if pointer != nil, answer.status == 200 { checkBoundary(answer, index: count) }
        return answer
    }

    /// A pointer type mostly, now and then a wrong one; nil for the default.
    mutating func pointerType(_ d: inout Decisions) -> String? {
        d.chance(50) ? nil : d.pick(["mouse", "pen", "touch", "touch", "finger"])
    }

    /// A pointer hovering over a scene (its type as the stream picks),
    /// with now and then a patch, a drag by another pointer or a
    /// replacement under it, a press, and a `leave` at the end.
    mutating func hoverWalk(_ d: inout Decisions) {
        let id = scene(&d)
        let pointer = d.pick(["mouse", "pen", "m2"])
        let type = pointerType(&d)
        for _ in 0..<(1 + d.below(6)) {
            switch d.below(10) {
            case 0: patch(&d)
            case 1: gesture(&d)
            case 2: hitPOST(&d, pointer: (pointer, d.pick(["down", "up", "cancel", "move"])), type: type, in: id)
            case 3: putScene(&d)
            default: hitPOST(&d, pointer: (pointer, "hover"), type: type, in: id)
            }
        }
        if d.chance(70) { hitPOST(&d, pointer: (pointer, "leave"), type: type, in: id) }
    }

    /// `down`, some `move`s, then `up` or `cancel` (or nothing) for one
    /// or two pointers: drags any `draggable` layer it captures.
    mutating func gesture(_ d: inout Decisions) {
        let id = scene(&d)
        let pointers = d.chance(30) ? ["f1", "f2"] : [d.pick(["mouse", "f1", ""])]
        let type = pointerType(&d)
        for p in pointers { hitPOST(&d, pointer: (p, "down"), type: type, in: id) }
        for _ in 0..<d.below(5) {
            hitPOST(&d, pointer: (d.pick(pointers), d.pick(["move", "move", "down", "bogus", "hover", "leave"])), type: type, in: id)
        }
        if d.chance(80) { hitPOST(&d, pointer: (d.pick(pointers), d.chance(80) ? "up" : "cancel"), type: type, in: id) }
    }

    /// `POST …/hits`: a few points mostly; now and then enough for the
    /// grid's batch order (GridOrder.minimumPoints: 2048) and the
    /// batch limit.
    mutating func batch(_ d: inout Decisions) {
        let id = scene(&d)
        var trace = d.chance(30)
        var all = d.chance(25)
        var count = d.below(12)
        if d.chance(4) {
            // The grid order's batches: untraced (a traced one this big costs
            // seconds under ASan, mostly in writing and re-parsing its answer).
            // Below and at the grid order's threshold (2048), at the limit (FuzzSession: 2049), past it.
            count = d.pick([2047, 2048, 2049, 2050])
            trace = false
            all = false
        }
        var body = "{\"points\":["
        var phased = false
        let base = point(&d)
        for i in 0..<count {
            if i > 0 { body += "," }
            if i >= 16 {
                body += "{\"x\":\(i % 97 * 3),\"y\":\(i / 97 * 3)}"  // many points: no decisions spent
                continue
            }
            let (x, y) = d.chance(50) ? base : point(&d)
            body += "{\"x\":\(x),\"y\":\(y)"
            if d.chance(25) {
                phased = true
                body +=
                    ",\"pointer\":\"\(d.pick(["a", "b"]))\",\"phase\":\"\(d.pick(["down", "move", "up", "cancel", "hover", "hover", "leave"]))\""
                if let type = pointerType(&d) { body += ",\"pointerType\":\"\(type)\"" }
            }
            body += "}"
        }
        body += "]"
        let twin = body + (trace ? "}" : ",\"trace\":true}")
        if trace { body += ",\"trace\":true" }
        if all { body += ",\"all\":true" }
        let answer = send("POST", "/scenes/\(id)/hits", json: body + "}")
        // A small batch without pointer phases, once more with the trace the other way round:
        // the same targets (an untraced batch routes by the indexes and covers, interleaved).
        if !phased, count <= 16, answer.status == 200 {
            let other = send("POST", "/scenes/\(id)/hits", json: twin)
            if other.status == 200 { checkSameTargets(answer, other, index: self.count) }
        }
    }

    /// A merge patch of one layer: geometry, flags, nulls, bad fields.
    mutating func patch(_ d: inout Decisions) {
        let id = scene(&d)
        let layer = !layers.isEmpty && d.chance(90) ? d.pick(layers) : "missing"
        var w = SceneWriter(budget: 1)
        w.out = "{"
        for i in 0..<(1 + d.below(3)) {
            if i > 0 { w.out += "," }
            switch d.below(9) {
            case 0, 1:
                w.field("shape")
                w.shape(&d, depth: 0)
            case 2:
                w.field(d.pick(["shape", "hitShape", "transform", "hitSlop", "action"]))
                w.out += "null"
            case 3:
                w.field("id")
                w.out += "\"renamed\""
            case 4:
                w.field("children")
                w.out += "[]"
            case 5:
                w.field("hitShape")
                w.shape(&d, depth: 0)
            default: w.commonLayerField(&d)
            }
        }
        w.out += "}"
        var headers: [(String, String)] = [("Content-Type", "application/merge-patch+json")]
        if d.chance(20) { headers.append(("If-Match", d.pick(["\"1\"", "\"2\"", "*", "W/\"1\"", "x"]))) }
        send("PATCH", "/scenes/\(id)/layers/\(layer)", json: w.out, headers: headers)
    }

    /// `render.svg` with and without the routing overlay, regions and a
    /// width, at ordinary and extreme points; sometimes `/metrics`.
    mutating func render(_ d: inout Decisions) {
        if d.chance(15) {
            send("GET", "/metrics")
            return
        }
        var query: [String] = []
        if d.chance(60) { query += ["x=" + FuzzNumber.next(&d), "y=" + FuzzNumber.next(&d)] }
        if d.chance(40) { query.append("regions=" + d.pick(["1", "0", "true", "2"])) }
        if d.chance(30) { query.append("width=" + d.pick(["1", "640", "16384", "16385", "0", "-1", "1e308", "x"])) }
        let target = "/scenes/\(scene(&d))/render.svg" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        send(d.chance(90) ? "GET" : "HEAD", target)
    }

    /// The whole-scene questions (audit, reach, diff, and their pictures)
    /// with ordinary and extreme grids: resolutions tiny, huge, zero,
    /// negative and not numbers; regions at ±1e308, empty or partial;
    /// unknown layers and scenes.
    mutating func analysis(_ d: inout Decisions) {
        var query: [String] = []
        if d.chance(70) {
            query.append(
                "resolution="
                    + (d.chance(60)
                        ? d.pick(["3", "7.5", "16", "40", "300"])
                        : d.pick(["0", "-1", "1e-300", "5e-324", "1e308", "1e154", "nan", "x", "1e999", ""])))
        }
        if d.chance(30) {
            let region =
                d.chance(50)
                ? [String(d.below(300) - 20), String(d.below(300) - 20), String(d.below(300)), String(d.below(300))]
                : (0..<4).map { _ in FuzzNumber.next(&d) }
            let names = ["x", "y", "width", "height"]
            for (k, v) in region.enumerated() where d.chance(95) { query.append(names[k] + "=" + v) }
        }
        let id = scene(&d)
        let path: String
        switch d.below(5) {
        case 0, 1:
            if d.chance(40) { query.append("standard=" + d.pick(["wcag-2.5.8", "wcag-2.5.5", "android", "apple", "iso"])) }
            if d.chance(30) { query.append("minSize=" + d.pick(["0", "24", "1e308", "-1"])) }
            if d.chance(30) { query.append("spacing=" + d.pick(["none", "24", "0", "1e308", "-2"])) }
            path = "/scenes/\(id)/audit"
        case 2:
            let layer = layers.isEmpty || d.chance(10) ? d.pick(["nope", "%2F", "a%"]) : d.pick(layers)
            path = "/scenes/\(id)/layers/\(layer)/reach"
        case 3:
            if d.chance(95) { query.append("against=" + scene(&d)) }
            path = "/scenes/\(id)/diff"
        default:
            query = [d.chance(50) ? "audit=1" : "diff=" + scene(&d)]
            path = "/scenes/\(id)/render.svg"
        }
        send(d.chance(90) ? "GET" : "HEAD", path + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
    }

    /// Methods and paths off the usual track.
    mutating func odd(_ d: inout Decisions) {
        let id = scene(&d)
        let method = d.pick(["OPTIONS", "TRACE", "PUT", "POST", "DELETE", "PATCH", "GET"])
        let target = d.pick([
            "/", "/healthz", "/readyz", "/scenes/\(id)/hit", "/scenes/\(id)/layers/", "/scenes/\(id)/layers/a/b",
            "/scenes/\(id)/hits?x=1", "/%73cenes/\(id)", "//", "/scenes/", "/scenes/\(id)/hit?x=1&y=2&x=3", "*",
        ])
        let body = d.chance(50) ? Array("{\"x\":1,\"y\":2}".utf8) : []
        var headers: [(String, String)] = []
        if d.chance(30) {
            headers.append(("Content-Type", d.pick(["text/plain", "application/xml", "", "application/vnd.a+json; charset=utf-8"])))
        }
        if d.chance(10) { headers.append(("Access-Control-Request-Headers", "X-A")) }
        send(method, target, body: body, headers: headers)
    }

    /// The rest of the input (up to 4 KiB) as the body of a request that
    /// reads one: a scene upload, a hit, a batch or a patch.
    mutating func sendRaw(_ d: inout Decisions) {
        let route = d.below(5)
        let body = d.raw(max: 4096)
        switch route {
        case 0: send("PUT", "/scenes/raw", body: body)
        case 1: send("POST", "/scenes", body: body)
        case 2, 3:
            if scenes.isEmpty {
                var w = SceneWriter(budget: 8)
                var empty = Decisions(UnsafeBufferPointer(start: nil, count: 0))
                w.scene(&empty, id: "raw")
                remember(send("PUT", "/scenes/raw", json: w.out), id: "raw", layers: w.ids)
            }
            send("POST", "/scenes/\(scenes.first ?? "raw")/\(route == 2 ? "hit" : "hits")", body: body)
        default:
            send("PATCH", "/scenes/raw/layers/l0", body: body)
        }
        // And the same bytes once more against a scene that exists now, if the first made one.
        if route <= 1, let first = scenes.first { send("POST", "/scenes/\(first)/hit", body: body) }
    }
}
