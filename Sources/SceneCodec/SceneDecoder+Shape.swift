import HitImage
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
        // A mask's.
        var png: String?
        var alpha: String?
        var columns: Int?
        var rows: Int?
        var threshold: Double?
    }

    private static let fieldsByType: [String: [String]] = [
        "rect": ["x", "y", "width", "height", "cornerRadius"],
        "ellipse": ["cx", "cy", "rx", "ry"],
        "circle": ["cx", "cy", "r"],
        "polygon": ["points"],
        "polyline": ["points"],
        "path": ["d"],
        "compound": ["shapes"],
        "mask": ["x", "y", "width", "height", "png", "alpha", "columns", "rows", "threshold"],
    ]
    private static let requiredByType: [String: [String]] = [
        "rect": ["x", "y", "width", "height"], "ellipse": ["cx", "cy", "rx", "ry"], "circle": ["cx", "cy", "r"],
        "polygon": ["points"], "polyline": ["points"], "path": ["d"], "compound": ["shapes"],
        "mask": ["x", "y", "width", "height"],
    ]
    private static let commonFields = ["type", "fillRule", "fill", "stroke"]
    private static let typeNames = "\"rect\", \"ellipse\", \"circle\", \"polygon\", \"polyline\", \"path\", \"compound\", \"mask\""

    /// A shape object (SPEC §2.2); nil when it is invalid (reported).
    /// `compoundDepth` counts the compounds around it.
    package mutating func shape(compoundDepth: Int) throws -> Shape? {
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
            case "png": f.png = try d.string()
            case "alpha": f.alpha = try d.string()
            case "columns": f.columns = try pixelCount()
            case "rows": f.rows = try pixelCount()
            case "threshold":
                if let t = try d.number() {
                    if t < 0 || t > 1 { try d.issue("must be a number in [0, 1]") } else { f.threshold = t }
                }
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
        for key in seen
        where !own.contains(key) && !Self.commonFields.contains(key)
            && Self.fieldsByType.values.contains(where: { $0.contains(key) })
        {
            try d.issue("is not a field of a \(type) (it has \(own.joined(separator: ", ")))", [.key(key)])
        }
        // `!`: requiredByType has a key for every type fieldsByType has (guarded above).
        for key in Self.requiredByType[type]! where !seen.contains(key) {
            try d.issue("is required for a \(type)", [.key(key)])
        }
        if type == "mask" && compoundDepth > 0 {
            try d.issue("a mask cannot be a member of a compound: its region is a set of pixels, not a path to fill", [.key("type")])
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
        case "mask":
            guard
                let mask = try mask(
                    f.x!, f.y!, f.width!, f.height!, png: f.png, alpha: f.alpha,
                    columns: f.columns, rows: f.rows, threshold: f.threshold, seen: seen)
            else { return (nil, 0) }
            geometry = .mask(mask)
        default:
            geometry = .compound(f.shapes!)
        }
        return (Shape(geometry, fillRule: f.fillRule, fill: f.fill, stroke: f.stroke), max(1, f.vertices))
    }

    /// `columns` or `rows` of a mask: a whole number ≥ 1, at most the pixel limit.
    private mutating func pixelCount() throws -> Int? {
        guard let v = try d.number() else { return nil }
        guard v >= 1, v <= Double(limits.maxMaskPixels), v == v.rounded(.down) else {
            try d.issue("must be a whole number in [1, \(limits.maxMaskPixels)]")
            return nil
        }
        return Int(v)
    }

    /// A mask's fields, checked together once its object is read, and its
    /// image decoded (SPEC §2.2, §6); nil when invalid (reported at the
    /// culprit's pointer).
    private mutating func mask(
        _ x: Double, _ y: Double, _ width: Double, _ height: Double, png: String?, alpha: String?,
        columns: Int?, rows: Int?, threshold: Double?, seen: [String]
    ) throws -> Mask? {
        if !(x + width).isFinite {
            try d.issue("x + width must be finite", [.key("width")])
            return nil
        }
        if !(y + height).isFinite {
            try d.issue("y + height must be finite", [.key("height")])
            return nil
        }
        switch (png, alpha) {
        case (nil, nil):
            if !seen.contains("png") && !seen.contains("alpha") {
                try d.issue("a mask needs png, or alpha with columns and rows")
            }
            return nil
        case (_?, _?):
            try d.issue("a mask takes png or alpha, not both", [.key("alpha")])
            return nil
        case (let png?, nil):
            for key in ["columns", "rows"] where seen.contains(key) {
                try d.issue("belongs to the alpha form: a PNG carries its own size", [.key(key)])
            }
            guard !seen.contains("columns") && !seen.contains("rows") else { return nil }
            guard let image = try pngImage(png) else { return nil }
            return try finishMask(x, y, width, height, threshold: threshold, source: .png(png), image: image)
        case (nil, let text?):
            for key in ["columns", "rows"] where !seen.contains(key) { try d.issue("is required with alpha", [.key(key)]) }
            guard let columns, let rows else { return nil }
            let (pixels, overflow) = columns.multipliedReportingOverflow(by: rows)
            guard !overflow, pixels <= limits.maxMaskPixels else {
                try d.issue(
                    "columns × rows is \(overflow ? "too many" : String(pixels)) pixels, more than the limit of \(limits.maxMaskPixels) per mask"
                )
                return nil
            }
            guard try admitMaskPixels(pixels, at: "alpha") else { return nil }
            var text = text
            let bytes = try text.withUTF8 { utf8 throws -> [UInt8]? in
                // The decoded size is known from the length and padding: refuse a mismatch before decoding.
                let n = utf8.count
                if n % 4 == 0 {
                    let padding = n == 0 ? 0 : (utf8[n - 1] == UInt8(ascii: "=") ? 1 : 0) + (utf8[n - 2] == UInt8(ascii: "=") ? 1 : 0)
                    let count = n / 4 * 3 - padding
                    if count != pixels {
                        try d.issue("decodes to \(count) bytes, columns × rows is \(pixels)", [.key("alpha")])
                        return nil
                    }
                }
                do throws(Base64.Failure) {
                    return try Base64.decode(utf8)
                } catch {
                    try d.issue("invalid base64 at offset \(error.offset): \(error.message)", [.key("alpha")])
                    return nil
                }
            }
            guard let bytes, let image = AlphaPlane(columns: columns, rows: rows, alpha: bytes) else { return nil }
            return try finishMask(x, y, width, height, threshold: threshold, source: .alpha, image: image)
        }
    }

    /// The mask, once its pixels are known to be of a size that can be computed with.
    private mutating func finishMask(
        _ x: Double, _ y: Double, _ width: Double, _ height: Double, threshold: Double?, source: Mask.Source, image: AlphaPlane
    ) throws -> Mask? {
        if width > 0 && !(Double(image.columns) / width).isFinite {
            try d.issue("is too small for \(image.columns) columns of pixels (columns / width overflows)", [.key("width")])
            return nil
        }
        if height > 0 && !(Double(image.rows) / height).isFinite {
            try d.issue("is too small for \(image.rows) rows of pixels (rows / height overflows)", [.key("height")])
            return nil
        }
        return Mask(x: x, y: y, width: width, height: height, threshold: threshold, source: source, image: image)
    }

    /// The `png` of a mask decoded to its alpha plane; nil when it does not decode (reported at `png`).
    /// Bounded (SPEC §6): a header announcing more than `maxMaskPixels` is
    /// refused before anything is inflated, and the stream inflates into a
    /// buffer of exactly the size the header allows.
    private mutating func pngImage(_ text: String) throws -> AlphaPlane? {
        let file: [UInt8]
        do throws(Base64.Failure) {
            file = try Base64.decode(text)
        } catch {
            try d.issue("invalid base64 at offset \(error.offset): \(error.message)", [.key("png")])
            return nil
        }
        let maxPixels = limits.maxMaskPixels
        if let (width, height) = file.withUnsafeBufferPointer(PNGDecoder.announcedSize) {
            // Each below 2^32: the product can overflow, and is then over the limit too.
            let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
            if !overflow && pixels <= maxPixels {
                guard try admitMaskPixels(pixels, at: "png") else { return nil }
            }  // else decodeAlpha refuses it
        }
        let decoded = file.withUnsafeBufferPointer { bytes in
            Result { () throws(PNGError) in try PNGDecoder.decodeAlpha(bytes, maxPixels: maxPixels) }
        }
        switch decoded {
        case .success(let image):
            return AlphaPlane(columns: image.columns, rows: image.rows, alpha: image.alpha)
        case .failure(let error):
            try d.issue(error.message, [.key("png")])
            return nil
        }
    }

    /// Counts a mask's `pixels` (≤ `maxMaskPixels`) towards the document's
    /// `maxSceneMaskPixels`, before they are decoded; false (reported at
    /// `key`) when they would pass it.
    private mutating func admitMaskPixels(_ pixels: Int, at key: String) throws -> Bool {
        let total = maskPixels &+ pixels  // ≤ 2^50 (replay's limit) + 2^28 (a mask's): no overflow
        guard total <= limits.maxSceneMaskPixels else {
            try d.issue(
                "its \(pixels) pixels would bring the document's masks to \(total), more than the limit of \(limits.maxSceneMaskPixels) (--max-scene-mask-pixels)",
                [.key(key)])
            return false
        }
        maskPixels = total
        return true
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
            if let p = try d.point() {
                scratchPoints.append(p)
            } else {
                valid = false
                scratchPoints.append(.zero)
            }
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
