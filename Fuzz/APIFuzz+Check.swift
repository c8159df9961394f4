// The API fuzzer's judge: what every answer must satisfy (see APIFuzz.swift's
// header). A JSON answer is read once with HitJSON's own reader (built
// again without coverage as FuzzCheckJSON: build-api.sh), streaming, with
// no tree: parsing answers into `JSONValue` trees cost about a fifth of an
// execution under ASan (a batch answer is up to a few hundred KiB). The
// tree is built only to describe a failure.

import FuzzCheckJSON
import Glibc
import HTTPServer

/// Traps (so that libFuzzer records the input) when an answer breaks the
/// service's promises; see APIFuzz.swift's header.
func checkAnswer(_ response: HTTPResponse, to request: HTTPRequest, index: Int) {
    func fail(_ why: String) -> Never {
        let body = request.body.prefix(4096)
        let answer = response.body.prefix(4096)
        fatalError(
            """
            request \(index): \(why)
            \(request.method) \(request.target)
            \(String(decoding: body, as: UTF8.self))
            -> \(response.status)
            \(String(decoding: answer, as: UTF8.self))
            """)
    }
    let s = response.status
    guard (200..<300).contains(s) || (400..<500).contains(s) || s == 503 || s == 507 else {
        fail("status \(s)")
    }
    let type = response.headers["Content-Type"] ?? ""
    guard type.hasPrefix("application/json") || type.hasPrefix("application/problem+json") else { return }
    guard !response.body.isEmpty || request.method == "HEAD" else { fail("empty JSON body") }
    if request.method == "HEAD" { return }
    let verdict = response.body.withUnsafeBufferPointer { AnswerJSON.check($0) }
    if crossCheck {
        let tree = AnswerJSON.treeVerdict(response.body)
        guard tree == verdict else { fail("the streaming check says \(verdict), the tree \(tree)") }
    }
    guard verdict.isJSON, verdict.allFinite else {
        // The slow path, for the message: the tree, its error or the pointer to the number.
        do {
            let value = try JSONValue.parse(response.body, maxDepth: AnswerJSON.maxDepth)
            fail("non-finite number at \(value.firstNonFiniteNumber.map { "\($0)" } ?? "? (the streaming check and the tree disagree)")")
        } catch {
            fail("the answer is not JSON: \(error)")
        }
    }
    if (200..<300).contains(s), request.path.hasSuffix("/hit") || request.path.hasSuffix("/hits") {
        guard verdict.hasScene, verdict.hasVersion else { fail("a hit answer without scene and version") }
    }
}

/// Traps when two answers to the same points on the same scene, one traced
/// and one not, name different targets: a hit's `layer`, or each of a
/// batch's `results`.
func checkSameTargets(_ a: HTTPResponse, _ b: HTTPResponse, index: Int) {
    func targets(_ r: HTTPResponse) -> [String?] {
        guard let value = try? JSONValue.parse(r.body, maxDepth: AnswerJSON.maxDepth) else { return ["(not JSON)"] }
        if let results = value["results"]?.arrayValue { return results.map { $0["layer"]?.stringValue } }
        return [value["layer"]?.stringValue]
    }
    let (ta, tb) = (targets(a), targets(b))
    guard ta == tb else {
        fatalError(
            """
            requests \(index - 1) and \(index): the same points, traced and not, route to \(ta.map { $0 ?? "null" }) and \(tb.map { $0 ?? "null" })
            \(String(decoding: a.body.prefix(4096), as: UTF8.self))
            \(String(decoding: b.body.prefix(4096), as: UTF8.self))
            """)
    }
}

/// Traps when a pointer answer's `boundary` is inconsistent: a member
/// missing or of the wrong type, a layer twice in `leave` or in `enter`, a
/// layer both left and entered, a `removed` layer not in `leave`, or `out`
/// and `over` naming the same layer.
func checkBoundary(_ r: HTTPResponse, index: Int) {
    guard let value = try? JSONValue.parse(r.body, maxDepth: AnswerJSON.maxDepth), let b = value["boundary"] else { return }
    func fail(_ why: String) -> Never {
        fatalError("request \(index): boundary \(why)\n\(String(decoding: r.body.prefix(4096), as: UTF8.self))")
    }
    func ids(_ key: String) -> [String] {
        guard let list = b[key]?.arrayValue else { fail("has no \(key) array") }
        return list.map { entry in
            guard let s = entry.stringValue else { fail("has a \(key) entry that is not a string") }
            return s
        }
    }
    func id(_ key: String) -> String? {
        guard let v = b[key] else { fail("has no \(key)") }
        if v == .null { return nil }
        guard let s = v.stringValue else { fail("has a \(key) that is neither a string nor null") }
        return s
    }
    let (leave, enter, removed) = (ids("leave"), ids("enter"), ids("removed"))
    let (out, over) = (id("out"), id("over"))
    if Set(leave).count != leave.count || Set(enter).count != enter.count { fail("lists a layer twice") }
    if !Set(leave).isDisjoint(with: enter) { fail("leaves and enters one layer") }
    if !Set(removed).isSubset(of: leave) { fail("removes a layer it does not leave") }
    if out != nil, out == over { fail("goes out of and over one layer") }
    if out == nil, over == nil, leave.isEmpty, enter.isEmpty { fail("says nothing changed") }
}

/// `APIFUZZ_CROSSCHECK=1` judges every answer twice, streaming and by
/// the tree, and traps when they differ (to test `AnswerJSON` itself).
let crossCheck = getenv("APIFUZZ_CROSSCHECK") != nil

/// One pass over a JSON answer with `JSONReader`: the same grammar and
/// depth limit as `JSONValue.parse(_:maxDepth:)`, every number read (and
/// required finite), every string validated, nothing kept.
enum AnswerJSON {
    static let maxDepth = 4096

    struct Verdict: Equatable {
        /// The text is one JSON value (JSONValue.parse would accept it).
        var isJSON = false
        /// No number in it reads as ±infinity (`1e999`).
        var allFinite = true
        /// The top level is an object whose (last) `scene` member is a string
        /// and whose (last) `version` member is a number.
        var hasScene = false
        var hasVersion = false
    }

    /// The verdict from a `JSONValue` tree (the check as it was).
    static func treeVerdict(_ bytes: [UInt8]) -> Verdict {
        guard let value = try? JSONValue.parse(bytes, maxDepth: maxDepth) else { return Verdict() }
        return Verdict(
            isJSON: true, allFinite: value.firstNonFiniteNumber == nil,
            hasScene: value["scene"]?.stringValue != nil, hasVersion: value["version"]?.numberValue != nil)
    }

    /// - Complexity: O(length); O(depth) memory, no recursion.
    static func check(_ bytes: UnsafeBufferPointer<UInt8>) -> Verdict {
        var verdict = Verdict()
        var reader = JSONReader(bytes, maxDepth: maxDepth)
        /// Whether each open container is an object.
        var objects: [Bool] = []
        /// The top-level member whose value is read next ("" for any other).
        var topKey = ""
        do {
            readValue: while true {
                let kind = try reader.peek()
                let isTopMember = objects.count == 1 && objects[0]
                switch kind {
                case .object:
                    try reader.beginObject()
                    objects.append(true)
                case .array:
                    try reader.beginArray()
                    objects.append(false)
                case .number:
                    let v = try reader.readNumber()
                    if !v.isFinite { verdict.allFinite = false }
                    if isTopMember, topKey == "version" { verdict.hasVersion = true }
                    if isTopMember, topKey == "scene" { verdict.hasScene = false }
                case .string:
                    try reader.skipValue()  // validated as readString validates it
                    if isTopMember, topKey == "scene" { verdict.hasScene = true }
                    if isTopMember, topKey == "version" { verdict.hasVersion = false }
                case .bool, .null:
                    try reader.skipValue()
                }
                if isTopMember, kind == .object || kind == .array || kind == .bool || kind == .null {
                    if topKey == "scene" { verdict.hasScene = false }
                    if topKey == "version" { verdict.hasVersion = false }
                }
                // Find the next value: the next member or element, closing the containers that end here.
                while let isObject = objects.last {
                    if isObject {
                        if objects.count == 1 {
                            if let key = try reader.nextKey() {
                                topKey = key
                                continue readValue
                            }
                        } else if try reader.nextKeyBytes() != nil {
                            continue readValue
                        }
                    } else if try reader.nextElement() {
                        continue readValue
                    }
                    objects.removeLast()
                }
                try reader.finish()
                verdict.isJSON = true
                return verdict
            }
        } catch {
            return Verdict()
        }
    }
}
