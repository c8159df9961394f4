import HitJSON
import HitRouting

extension SceneDecoding {
    /// The fields a shape object may carry, whatever its `type`; which ones
    /// belong to which type is checked once the whole object is read.
    private struct ShapeFields {
        var type: String?
        var x, y, width, height, cornerRadius, cx, cy, rx, ry, r: Double?
        var points: [Point]?
        var path: (d: String, elements: [PathElement])?
        var shapes: [Shape]?
        var fillRule: FillRule?
        var fill: Bool?
        var stroke: Double?
        var vertices = 0
    }

    private static let fieldsByType: [String: [String]] = [
        "rect": ["x", "y", "width", "height", "cornerRadius"],
        "ellipse": ["cx", "cy", "rx", "ry"],
        "circle": ["cx", "cy", "r"],
        "polygon": ["points"],
        "polyline": ["points"],
        "path": ["d"],
        "compound": ["shapes"],
    ]
    private static let requiredByType: [String: [String]] = [
        "rect": ["x", "y", "width", "height"], "ellipse": ["cx", "cy", "rx", "ry"], "circle": ["cx", "cy", "r"],
        "polygon": ["points"], "polyline": ["points"], "path": ["d"], "compound": ["shapes"],
    ]
    private static let commonFields = ["type", "fillRule", "fill", "stroke"]
    private static let typeNames = "\"rect\", \"ellipse\", \"circle\", \"polygon\", \"polyline\", \"path\", \"compound\""

    /// A shape object (SPEC §2.2); nil when it is invalid (reported).
    /// `compoundDepth` counts the compounds around it.
    mutating func shape(compoundDepth: Int) throws -> Shape? {
        let (shape, _) = try shapeCountingVertices(compoundDepth: compoundDepth)
        return shape
    }

    private mutating func shapeCountingVertices(compoundDepth: Int) throws -> (Shape?, Int) {
        guard try d.beginObject() else { return (nil, 0) }
        var f = ShapeFields()
        var seen = d.borrowKeys()
        defer { d.returnKeys(seen) }
        let issuesBefore = d.issues.count
        while let key = try d.nextMember(&seen) {
            switch key {
            case "type": f.type = try d.string()
            case "x": f.x = try d.number()
            case "y": f.y = try d.number()
            case "cx": f.cx = try d.number()
            case "cy": f.cy = try d.number()
            case "width": f.width = try d.nonNegative()
            case "height": f.height = try d.nonNegative()
            case "cornerRadius": f.cornerRadius = try d.nonNegative()
            case "rx": f.rx = try d.nonNegative()
            case "ry": f.ry = try d.nonNegative()
            case "r": f.r = try d.nonNegative()
            case "points":
                f.points = try points()
                f.vertices = f.points?.count ?? 0
            case "d":
                if let text = try d.string() {
                    switch Result(catching: { () throws(PathSyntaxError) in try SVGPathParser.parse(text) }) {
                    case .success(let elements) where elements.count > limits.maxVertices:
                        try d.issue("path data has more than \(limits.maxVertices) commands")
                    case .success(let elements):
                        f.path = (text, elements)
                        f.vertices = elements.count
                    case .failure(let error):
                        try d.issue("invalid path data at offset \(error.offset): \(error.message)")
                    }
                }
            case "shapes": (f.shapes, f.vertices) = try members(compoundDepth: compoundDepth + 1)
            case "fillRule": f.fillRule = try d.enumeration(FillRule.self)
            case "fill": f.fill = try d.bool()
            case "stroke": f.stroke = try d.nonNegative()
            default: try d.unknown(key, in: "a shape")
            }
        }
        guard let type = f.type else {
            if !seen.contains("type") { try d.issue("is required (one of \(Self.typeNames))", [.key("type")]) }
            return (nil, 0)
        }
        guard let own = Self.fieldsByType[type] else {
            try d.issue("must be one of \(Self.typeNames)", [.key("type")])
            return (nil, 0)
        }
        for key in seen where !own.contains(key) && !Self.commonFields.contains(key)
            && Self.fieldsByType.values.contains(where: { $0.contains(key) })
        {
            try d.issue("is not a field of a \(type) (it has \(own.joined(separator: ", ")))", [.key(key)])
        }
        // `!`: requiredByType has a key for every type fieldsByType has (guarded above).
        for key in Self.requiredByType[type]! where !seen.contains(key) {
            try d.issue("is required for a \(type)", [.key(key)])
        }
        guard d.issues.count == issuesBefore else { return (nil, 0) }
        // The `!`s below: every required field was seen and decoded without an issue.
        let geometry: ShapeGeometry
        switch type {
        case "rect":
            geometry = .rect(x: f.x!, y: f.y!, width: f.width!, height: f.height!, cornerRadius: f.cornerRadius)
        case "ellipse":
            geometry = .ellipse(cx: f.cx!, cy: f.cy!, rx: f.rx!, ry: f.ry!)
        case "circle":
            geometry = .circle(cx: f.cx!, cy: f.cy!, r: f.r!)
        case "polygon", "polyline":
            let points = f.points!
            let minimum = type == "polygon" ? 3 : 2
            guard points.count >= minimum else {
                try d.issue("a \(type) needs at least \(minimum) points", [.key("points")])
                return (nil, 0)
            }
            geometry = type == "polygon" ? .polygon(points) : .polyline(points)
        case "path":
            geometry = .path(d: f.path!.d, elements: f.path!.elements)
        default:
            geometry = .compound(f.shapes!)
        }
        return (Shape(geometry, fillRule: f.fillRule, fill: f.fill, stroke: f.stroke), max(1, f.vertices))
    }

    /// The `shapes` of a compound, with their vertices added up.
    private mutating func members(compoundDepth: Int) throws -> ([Shape]?, Int) {
        guard try d.reader.peek() == .array else {
            try d.mismatch("an array of shapes")
            return (nil, 0)
        }
        if compoundDepth > limits.maxCompoundDepth {
            try d.issue("compound shapes nest deeper than \(limits.maxCompoundDepth) levels")
            try d.reader.skipValue()
            return (nil, 0)
        }
        try d.reader.beginArray()
        var shapes: [Shape] = []
        var vertices = 0
        var valid = true
        var index = 0
        while try d.reader.nextElement() {
            d.push(index)
            let (shape, count) = try shapeCountingVertices(compoundDepth: compoundDepth)
            d.pop()
            if let shape { shapes.append(shape) } else { valid = false }
            vertices += count
            index += 1
        }
        if vertices > limits.maxVertices {
            try d.issue("the compound has more than \(limits.maxVertices) vertices in all")
            return (nil, 0)
        }
        return (valid ? shapes : nil, vertices)
    }

    /// `points`: `[[x, y], ...]`, at most `maxVertices`.
    private mutating func points() throws -> [Point]? {
        guard try d.reader.peek() == .array else {
            try d.mismatch("an array of [x, y] points")
            return nil
        }
        try d.reader.beginArray()
        // Read into a reused scratch buffer, then keep an exact-size copy:
        // growing the kept array by doubling would waste up to half of it.
        scratchPoints.removeAll(keepingCapacity: true)
        var valid = true
        while try d.reader.nextElement() {
            guard scratchPoints.count < limits.maxVertices else {
                try d.issue("has more than \(limits.maxVertices) points")
                try d.reader.skipValue()
                while try d.reader.nextElement() { try d.reader.skipValue() }
                return nil
            }
            if let (x, y) = d.reader.readPlainPair() {
                scratchPoints.append(Point(x, y))
                continue
            }
            d.push(scratchPoints.count)
            if let p = try d.point() { scratchPoints.append(p) } else { valid = false; scratchPoints.append(.zero) }
            d.pop()
        }
        return valid ? exactCopy(scratchPoints) : nil
    }

    /// A copy of `points` in a buffer of its own, of exactly their size.
    /// (`Array(points[...])` would not do: a slice covering a whole array
    /// hands back that array's buffer, scratch capacity and all.)
    private func exactCopy(_ points: [Point]) -> [Point] {
        points.withUnsafeBufferPointer { source in
            [Point](unsafeUninitializedCapacity: source.count) { buffer, count in
                _ = buffer.initialize(from: source)
                count = source.count
            }
        }
    }
}
