import XCTest

@testable import HTTPServer

final class HTTPRequestParserTests: XCTestCase {
    func testSimpleGet() {
        let e = parseEverySplit(Array("GET /scenes/a/hit?x=1&y=2 HTTP/1.1\r\nHost: example.com\r\nAccept:  */* \r\nX-Empty:\r\n\r\n"))
        XCTAssertEqual(e.count, 1)
        guard case .request(let r, let keepAlive) = e.first else { return XCTFail("\(e)") }
        XCTAssertTrue(keepAlive)
        XCTAssertEqual(r.method, "GET")
        XCTAssertEqual(r.target, "/scenes/a/hit?x=1&y=2")
        XCTAssertEqual(r.path, "/scenes/a/hit")
        XCTAssertEqual(r.query, "x=1&y=2")
        XCTAssertEqual(r.version, .http1_1)
        XCTAssertEqual(r.headers["host"], "example.com")
        XCTAssertEqual(r.headers["ACCEPT"], "*/*")
        XCTAssertEqual(r.headers["x-empty"], "")
        XCTAssertEqual(r.headers.count, 3)
        XCTAssertEqual(r.body, [])
    }

    func testARequestKeptAliveKeepsItsBytesWhileTheParserReusesItsBuffers() {
        var parser = HTTPRequestParser()
        func next(_ text: String) -> HTTPRequest? {
            var rest = Array(text.utf8)[...]
            while true {
                let (used, event) = parser.parse(rest)
                rest = rest.dropFirst(used)
                switch event {
                case .head: continue
                case .request(let r, _):
                    XCTAssertTrue(rest.isEmpty)
                    return r
                default:
                    XCTFail("\(event)")
                    return nil
                }
            }
        }
        let first = next("POST /scenes/ring-demo/hit HTTP/1.1\r\nHost: a\r\nX-One: 1\r\nContent-Length: 3\r\n\r\nabc")
        let second = next("POST /scenes/ring-demo/hit?q HTTP/1.1\r\nHost: b\r\nContent-Length: 2\r\n\r\nde")
        let third = next("POST /scenes/ring-demo/hit HTTP/1.1\r\nHost: c\r\nContent-Length: 1\r\n\r\nf")
        let fourth = next("GET /scenes/ring-demo/hit HTTP/1.1\r\nHost: d\r\n\r\n")
        XCTAssertEqual(first?.headers["host"], "a")
        XCTAssertEqual(first?.headers["x-one"], "1")
        XCTAssertEqual(first?.body, Array("abc".utf8))
        XCTAssertEqual(second?.target, "/scenes/ring-demo/hit?q")
        XCTAssertEqual(second?.path, "/scenes/ring-demo/hit")
        XCTAssertEqual(second?.query, "q")
        XCTAssertEqual(second?.headers["host"], "b")
        XCTAssertEqual(second?.headers.count, 2)
        XCTAssertEqual(second?.body, Array("de".utf8))
        XCTAssertEqual(third?.target, "/scenes/ring-demo/hit")
        XCTAssertEqual(third?.path, "/scenes/ring-demo/hit")
        XCTAssertNil(third?.query)
        XCTAssertEqual(third?.headers["host"], "c")
        XCTAssertEqual(third?.body, Array("f".utf8))
        XCTAssertEqual(fourth?.headers["host"], "d")
        XCTAssertEqual(fourth?.body, [], "a request without a body gets none of the last one's")
        XCTAssertEqual(first?.body, Array("abc".utf8))
    }

    func testReceivedFieldsAreFoundByNameWhateverTheirNeighboursHold() {
        // Values with a colon where a shorter name's colon would be, lines
        // shorter than the name looked for, repeats, empty values.
        let e = parseEverySplit(
            Array(
                ("GET / HTTP/1.1\r\nHost: a:80\r\nX: 123456789:1\r\nAB:\r\nContent-Typ: c:d\r\n"
                    + "content-type:  text/plain \r\nX-A: 1\r\nx-a:2\r\n\r\n").utf8),
            randomSplits: 4)
        guard case .request(let r, _) = e.first else { return XCTFail("\(e)") }
        XCTAssertEqual(r.headers["Content-Type"], "text/plain")
        XCTAssertEqual(r.headers["content-typ"], "c:d")
        XCTAssertEqual(r.headers["x"], "123456789:1")
        XCTAssertEqual(r.headers["ab"], "")
        XCTAssertEqual(r.headers.values("X-A"), ["1", "2"])
        XCTAssertNil(r.headers["123456789"])
        XCTAssertNil(r.headers["X: 123456789"])
        XCTAssertNil(r.headers["Host: a"])
        XCTAssertNil(r.headers[""])
        XCTAssertTrue(r.headers.first("content-type", is: "text/plain"))
        XCTAssertFalse(r.headers.contains("Content-Types"))
        XCTAssertEqual(r.headers.count, 7)
    }

    func testTheWatchedFieldIsNotedInTheOnePassOverTheFields() {
        var limits = HTTPLimits()
        limits.watchedField = "x-min-version"
        func request(_ fields: String, _ limits: HTTPLimits) -> HTTPRequest? {
            let e = parseEverySplit(Array("GET / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n".utf8), limits: limits, randomSplits: 4)
            guard case .request(let r, _) = e.first else {
                XCTFail("\(e)")
                return nil
            }
            return r
        }
        XCTAssertEqual(request("X-Min-Version: 2\r\n", limits)?.mayHaveWatchedField, true)
        XCTAssertEqual(request("x-MIN-version:\r\n", limits)?.mayHaveWatchedField, true, "names are case-insensitive")
        XCTAssertEqual(request("X-Request-Id: a\r\nX-Min-Version: 2\r\n", limits)?.mayHaveWatchedField, true, "beside a client's id")
        XCTAssertEqual(request("X-Min-Versiom: 2\r\nAccept: */*\r\n", limits)?.mayHaveWatchedField, false)
        XCTAssertEqual(request("", limits)?.mayHaveWatchedField, false)
        XCTAssertEqual(request("Accept: */*\r\n", HTTPLimits())?.mayHaveWatchedField, true, "nothing watched: nothing ruled out")
        XCTAssertTrue(HTTPRequest(method: "GET", target: "/").mayHaveWatchedField, "made in process: never looked at")
        var mixed = HTTPLimits()
        mixed.watchedField = "X-Min-Version"
        XCTAssertEqual(request("x-min-version: 2\r\n", mixed)?.mayHaveWatchedField, true, "the configured name's case does not matter")
        XCTAssertEqual(request("Accept: */*\r\n", mixed)?.mayHaveWatchedField, false)
    }

    /// The server asks an open service's head gate only about heads with
    /// `Origin`: the parser notes it in the same pass, whatever else is noted.
    func testOriginIsNotedInTheOnePassOverTheFields() {
        var limits = HTTPLimits()
        limits.watchedField = "x-min-version"
        func request(_ fields: String) -> HTTPRequest? {
            let e = parseEverySplit(Array("GET / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n".utf8), limits: limits, randomSplits: 4)
            guard case .request(let r, _) = e.first else {
                XCTFail("\(e)")
                return nil
            }
            return r
        }
        XCTAssertEqual(request("Origin: http://evil.example\r\n")?.mayHaveOrigin, true)
        XCTAssertEqual(request("oRIGIN: null\r\n")?.mayHaveOrigin, true, "names are case-insensitive")
        XCTAssertEqual(
            request("X-Request-Id: abc\r\nX-Min-Version: 1\r\nOrigin: x\r\n")?.mayHaveOrigin, true, "beside an id and the watched field")
        XCTAssertEqual(request("X-Request-Id: abc\r\nOrigin: x\r\n")?.requestID?.description, "abc", "the client's id stays")
        XCTAssertEqual(request("X-Request-Id: abc\r\nX-Min-Version: 1\r\nOrigin: x\r\n")?.mayHaveWatchedField, true)
        XCTAssertEqual(request("Origim: x\r\nAccept: */*\r\n")?.mayHaveOrigin, false)
        XCTAssertEqual(request("")?.mayHaveOrigin, false)
        XCTAssertTrue(HTTPRequest(method: "GET", target: "/").mayHaveOrigin, "made in process: never looked at")
    }

    func testPathWithoutQuery() {
        let e = requests(parseEverySplit(Array("GET /a/b HTTP/1.1\r\nHost: h\r\n\r\n")))
        XCTAssertEqual(e.first?.0.path, "/a/b")
        XCTAssertNil(e.first?.0.query)
        let empty = requests(parseEverySplit(Array("GET /a? HTTP/1.1\r\nHost: h\r\n\r\n")))
        XCTAssertEqual(empty.first?.0.query, "")
    }

    func testAbsoluteFormAsteriskAndAuthorityTargets() {
        let abs = requests(parseEverySplit(Array("GET http://h:8080/x/y?q HTTP/1.1\r\nHost: h\r\n\r\n")))
        XCTAssertEqual(abs.first?.0.path, "/x/y")
        XCTAssertEqual(abs.first?.0.query, "q")
        let bare = requests(parseEverySplit(Array("GET http://h HTTP/1.1\r\nHost: h\r\n\r\n")))
        XCTAssertEqual(bare.first?.0.path, "/")
        let star = requests(parseEverySplit(Array("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n")))
        XCTAssertEqual(star.first?.0.path, "*")
        let connect = requests(parseEverySplit(Array("CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n")))
        XCTAssertEqual(connect.first?.0.path, "h:443")
    }

    func testContentLengthBody() {
        let e = parseEverySplit(Array("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world"))
        XCTAssertEqual(e.first, .head(expectsContinue: false))
        let r = requests(e)
        XCTAssertEqual(r.count, 1)
        XCTAssertEqual(r.first.map { String(decoding: $0.0.body, as: UTF8.self) }, "hello world")
    }

    func testRepeatedEqualContentLengthIsAccepted() {
        let r = requests(parseEverySplit(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc")))
        XCTAssertEqual(r.first?.0.body, Array("abc"))
    }

    func testChunkedBodyWithExtensionsAndTrailers() {
        let raw =
            "POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value;quoted=\"a b\"\r\nhello\r\n"
            + "6 ; ext\r\n world\r\n"
            + "A\r\n0123456789\r\n"
            + "0;last\r\nX-Trailer: yes\r\nChecksum: abc\r\n\r\n"
        let e = parseEverySplit(Array(raw))
        XCTAssertEqual(e.first, .head(expectsContinue: false))
        let r = requests(e)
        XCTAssertEqual(r.count, 1)
        XCTAssertEqual(r.first.map { String(decoding: $0.0.body, as: UTF8.self) }, "hello world0123456789")
        XCTAssertNil(r.first?.0.headers["x-trailer"], "trailers are not merged into the headers")
    }

    func testChunkedEmptyBody() {
        let r = requests(parseEverySplit(Array("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")))
        XCTAssertEqual(r.first?.0.body, [])
    }

    func testExpectContinue() {
        let e = parseEverySplit(Array("PUT /x HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nok"))
        XCTAssertEqual(e.first, .head(expectsContinue: true))
        XCTAssertEqual(requests(e).count, 1)
        // Without a body there is nothing to continue to.
        let noBody = parseEverySplit(Array("GET /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n"))
        XCTAssertEqual(noBody.count, 1)
        XCTAssertEqual(requests(noBody).count, 1)
    }

    func testPipelinedRequests() {
        let raw =
            "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n"
            + "POST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
            + "GET /3 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
        let r = requests(parseEverySplit(Array(raw)))
        XCTAssertEqual(r.map { $0.0.path }, ["/1", "/2", "/3"])
        XCTAssertEqual(r.map { $0.1 }, [true, true, false])
        XCTAssertEqual(r[1].0.body, Array("abc"))
    }

    func testLeadingEmptyLinesAreSkipped() {
        let r = requests(parseEverySplit(Array("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")))
        XCTAssertEqual(r.count, 1)
    }

    func testKeepAliveRules() {
        func keepAlive(_ raw: String) -> Bool? { requests(parseEverySplit(Array(raw))).first?.1 }
        XCTAssertEqual(keepAlive("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), true)
        XCTAssertEqual(keepAlive("GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, CLOSE\r\n\r\n"), false)
        XCTAssertEqual(keepAlive("GET / HTTP/1.0\r\n\r\n"), false)
        XCTAssertEqual(keepAlive("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"), true)
        XCTAssertEqual(requests(parseEverySplit(Array("GET / HTTP/1.0\r\n\r\n"))).first?.0.version, .http1_0)
        // A later minor version is served as HTTP/1.1.
        XCTAssertEqual(requests(parseEverySplit(Array("GET / HTTP/1.7\r\nHost: h\r\n\r\n"))).first?.0.version, .http1_1)
    }

    func testObsTextInFieldValueIsKept() {
        let r = requests(parseEverySplit([UInt8]("GET / HTTP/1.1\r\nHost: h\r\nX-Name: caf") + [0xC3, 0xA9] + Array("\r\n\r\n")))
        XCTAssertEqual(r.first?.0.headers["x-name"], "café")
    }

    /// A value is what lies between its first and last visible byte: OWS
    /// (spaces, tabs) around it goes, inside it stays, however it is split.
    func testFieldValuesAreTrimmedOfOWSOnly() {
        let values: [(String, String)] = [
            ("a", "a"), (" \t a \t ", "a"),
            ("\t\t\t\t\t\t\t\t\tlong value with\tinner tabs and spaces   ", "long value with\tinner tabs and spaces"),
            ("        ", ""), ("\t", ""), ("x\ty", "x\ty"),
            (String(repeating: "0123456789", count: 5) + " \t", String(repeating: "0123456789", count: 5)),
        ]
        for (raw, want) in values {
            let r = requests(parseEverySplit(Array("GET / HTTP/1.1\r\nHost: h\r\nX-V:\(raw)\r\nX-After:  b \r\n\r\n")))
            XCTAssertEqual(r.first?.0.headers["x-v"], want, raw.debugDescription)
            XCTAssertEqual(r.first?.0.headers["x-after"], "b")
        }
    }

    /// Received fields are read in place and behave like fields made of
    /// strings: lookups, order, repeats, iteration, equality, and changes.
    func testReceivedFieldsActLikeStringFields() throws {
        let raw = "GET / HTTP/1.1\r\nHost: h\r\nX-A:1\r\nx-a: \t2 \r\nEmpty:\r\nContent-Type: application/json\r\n\r\n"
        var received = try XCTUnwrap(requests(parseEverySplit(Array(raw))).first?.0.headers)
        let strings = HTTPHeaders([("Host", "h"), ("X-A", "1"), ("x-a", "2"), ("Empty", ""), ("Content-Type", "application/json")])
        XCTAssertEqual(received, strings)
        XCTAssertEqual(received.count, 5)
        XCTAssertFalse(received.isEmpty)
        XCTAssertEqual(received["X-a"], "1")
        XCTAssertEqual(received.values("X-A"), ["1", "2"])
        XCTAssertEqual(received["empty"], "")
        XCTAssertTrue(received.contains("content-type"))
        XCTAssertFalse(received.contains("Content-Typ"))
        XCTAssertNil(received["Host2"])
        XCTAssertTrue(received.first("content-type", is: "application/json"))
        XCTAssertFalse(received.first("content-type", is: "application/jso"))
        XCTAssertTrue(received.first("x-a", is: "1"))
        XCTAssertFalse(received.first("x-a", is: "2"))  // the first one only
        XCTAssertFalse(received.first("missing", is: ""))
        XCTAssertTrue(strings.first("X-A", is: "1"))
        XCTAssertEqual(received.map { "\($0.name)=\($0.value)" }, ["Host=h", "X-A=1", "x-a=2", "Empty=", "Content-Type=application/json"])
        var names: [String] = []
        received.forEachField { name, _ in
            names.append(String(decoding: name, as: UTF8.self))
            return names.count < 2
        }
        XCTAssertEqual(names, ["Host", "X-A"])
        received.set("x-A", "3")
        received.add("Vary", "Origin")
        XCTAssertEqual(
            received.map { "\($0.name)=\($0.value)" }, ["Host=h", "x-A=3", "Empty=", "Content-Type=application/json", "Vary=Origin"])
        XCTAssertNotEqual(received, strings)
        let none = try XCTUnwrap(requests(parseEverySplit(Array("GET / HTTP/1.0\r\n\r\n"))).first?.0.headers)
        XCTAssertTrue(none.isEmpty)
        XCTAssertEqual(none, HTTPHeaders())
    }

    func testParserIsReusableAfterManyRequests() {
        var raw = ""
        for i in 0..<50 { raw += "GET /\(i) HTTP/1.1\r\nHost: h\r\n\r\n" }
        let r = requests(parseEverySplit(Array(raw), randomSplits: 5))
        XCTAssertEqual(r.count, 50)
        XCTAssertEqual(r.last?.0.path, "/49")
    }

    func testPhases() {
        var parser = HTTPRequestParser()
        func feed(_ s: String) -> [Event] {
            var rest = Array(s)[...]
            var out: [Event] = []
            while true {
                let (used, event) = parser.parse(rest)
                rest = rest.dropFirst(used)
                if event == .needMoreData { return out }
                out.append(event)
            }
        }
        XCTAssertEqual(parser.phase, .idle)
        XCTAssertEqual(feed("GET / HT"), [])
        XCTAssertEqual(parser.phase, .head)
        XCTAssertEqual(feed("TP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nab"), [.head(expectsContinue: false)])
        XCTAssertEqual(parser.phase, .body)
        XCTAssertEqual(requests(feed("cd")).count, 1)
        XCTAssertEqual(parser.phase, .idle)
        XCTAssertTrue(parser.isIdle)
    }

    /// The body's buffer grows with what arrives: never more than sixteen
    /// times the bytes received, or the first MiB (a client that only
    /// announces a size gets little), and a big body ends in one buffer of
    /// its own size (give or take the allocator's rounding).
    func testBodyBufferGrowsWithWhatArrives() {
        let total = 77_000_000
        let slack = 4096
        var limits = HTTPLimits()
        limits.maxBodyBytes = total
        var parser = HTTPRequestParser(limits: limits)
        let head = Array("PUT /s HTTP/1.1\r\nHost: h\r\nContent-Length: \(total)\r\n\r\n")
        XCTAssertEqual(parser.parse(head[...]).1, .head(expectsContinue: false))
        let piece = [UInt8](repeating: 0x61, count: 65_536)
        var received = 0
        var capacities: [Int] = []
        while received < total {
            let chunk = piece[..<min(piece.count, total - received)]
            received += chunk.count
            let (used, event) = parser.parse(chunk)
            XCTAssertEqual(used, chunk.count)
            if received < total {
                XCTAssertEqual(event, .needMoreData)
                XCTAssertLessThanOrEqual(parser.body.capacity, max(16 * received, (1 << 20) + slack), "after \(received) bytes")
                if capacities.last != parser.body.capacity { capacities.append(parser.body.capacity) }
            } else {
                guard case .request(let request, _) = event else { return XCTFail("\(event)") }
                XCTAssertEqual(request.body.count, total)
                XCTAssertEqual(request.body.capacity, total, accuracy: slack, "one buffer of the body's own size")
            }
        }
        XCTAssertEqual(capacities.last ?? 0, total, accuracy: slack, "the last growth goes to the announced total")
        // Buffers copied on the way hold a quarter of the body at most.
        XCTAssertLessThanOrEqual(capacities.dropLast().reduce(0, +), total / 4)
    }

    /// A big body's buffer is backed ahead of the bytes (`prefaultAhead`):
    /// what arrives is kept byte for byte, however it is split.
    func testBigBodiesKeepTheirBytes() {
        let total = 5_000_000
        var limits = HTTPLimits()
        limits.maxBodyBytes = total
        let data = (0..<total).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
        for pieceSize in [65_536, 1_000_003] {
            var parser = HTTPRequestParser(limits: limits)
            let head = Array("PUT /s HTTP/1.1\r\nHost: h\r\nContent-Length: \(total)\r\n\r\n")
            XCTAssertEqual(parser.parse(head[...]).1, .head(expectsContinue: false))
            var start = 0
            var last: Event = .needMoreData
            while start < total {
                let piece = data[start..<min(total, start + pieceSize)]
                let (used, event) = parser.parse(piece)
                XCTAssertEqual(used, piece.count)
                start += piece.count
                last = event
            }
            guard case .request(let request, _) = last else { return XCTFail("\(last)") }
            XCTAssertTrue(request.body == data, "pieces of \(pieceSize)")
        }
    }
}
