import XCTest

@testable import HTTPServer

/// The parser notes where the first `Authorization` value is as it reads
/// the fields: ``HTTPHeaders/withAuthorization(_:)`` then reads it in
/// place, and it is always the value a lookup by name finds.
final class AuthorizationNoteTests: XCTestCase {
    /// The value `withAuthorization` gives, as a string.
    func noted(_ headers: HTTPHeaders) -> String? {
        var value: String?
        headers.withAuthorization { bytes in value = bytes.map { String(decoding: $0, as: UTF8.self) } }
        return value
    }

    /// The request of `fields` after a `Host` field, parsed in every split.
    func request(_ fields: String, body: String = "", file: StaticString = #filePath, line: UInt = #line) -> HTTPRequest? {
        let framing = body.isEmpty ? "" : "Content-Length: \(body.utf8.count)\r\n"
        let raw = "POST /s HTTP/1.1\r\nHost: h\r\n\(fields)\(framing)\r\n\(body)"
        let e = parseEverySplit(Array(raw.utf8), randomSplits: 8, file: file, line: line)
        guard let r = requests(e).first?.0 else {
            XCTFail("\(e)", file: file, line: line)
            return nil
        }
        return r
    }

    func testTheNotedValueIsTheValueALookupFinds() throws {
        let cases: [(fields: String, want: String?)] = [
            ("Authorization: Bearer k3y\r\n", "Bearer k3y"),
            ("authorization:Bearer k3y\r\n", "Bearer k3y"),
            ("AUTHORIZATION: \t Bearer  k3y \t\r\n", "Bearer  k3y"),
            ("aUtHoRiZaTiOn: Basic YTpi\r\n", "Basic YTpi"),
            ("Authorization:\r\n", ""),
            ("Authorization:   \r\n", ""),
            ("Authorization: first\r\nAuthorization: second\r\n", "first"),
            ("authorization: first\r\nX-A: b\r\nAUTHORIZATION: second\r\n", "first"),
            ("X-Authorization: no\r\nAuthorizations: no\r\nAuthorizatio: no\r\nAuthorization: yes\r\n", "yes"),
            ("X-Min-Version: 2\r\nX-Request-Id: abc\r\nAuthorization: Bearer k\r\nOrigin: o\r\n", "Bearer k"),
            ("X-Authorization: Bearer no\r\nAccept: */*\r\n", nil),
            ("", nil),
        ]
        for (fields, want) in cases {
            for body in ["", "{}"] {
                let r = try XCTUnwrap(request(fields, body: body), fields.debugDescription)
                XCTAssertTrue(r.headers.authorizationIsNoted, fields.debugDescription)
                XCTAssertEqual(noted(r.headers), want, fields.debugDescription)
                XCTAssertEqual(r.headers["Authorization"], want, fields.debugDescription)
            }
        }
    }

    /// A long value past a long field block still lands on its bytes.
    func testAValueAfterManyFieldsIsNotedWhole() throws {
        let key = String(repeating: "k", count: 3000)
        let before = (0..<100).map { "X-F\($0): \(String(repeating: "v", count: $0))\r\n" }.joined()
        let r = try XCTUnwrap(request(before + "Authorization: Bearer \(key)\r\nX-After: a\r\n"))
        XCTAssertEqual(noted(r.headers), "Bearer " + key)
    }

    /// The head a gate is asked about (before its body is read) carries
    /// the note too.
    func testAPendingHeadCarriesTheNote() throws {
        var parser = HTTPRequestParser()
        let raw = Array("PUT /s HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nAuthorization:  Bearer w \r\n\r\n".utf8)
        XCTAssertEqual(parser.parse(raw[...]).1, .head(expectsContinue: false))
        let head = try XCTUnwrap(parser.pending)
        XCTAssertTrue(head.headers.authorizationIsNoted)
        XCTAssertEqual(noted(head.headers), "Bearer w")
    }

    /// A folded line is no field at all: the head is refused, nothing noted.
    func testAFoldedAuthorizationIsRefused() {
        let e = parseEverySplit(Array("GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer\r\n k3y\r\n\r\n".utf8), randomSplits: 4)
        guard case .error(let error)? = e.last else { return XCTFail("\(e)") }
        XCTAssertEqual(error.kind, .obsoleteLineFolding)
    }

    /// A chunked body's trailers are not fields of the request.
    func testATrailerIsNotTheRequestsField() throws {
        let raw = "POST /s HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\nAuthorization: Bearer t\r\n\r\n"
        let r = try XCTUnwrap(requests(parseEverySplit(Array(raw.utf8), randomSplits: 4)).first?.0)
        XCTAssertNil(noted(r.headers))
        XCTAssertNil(r.headers["Authorization"])
    }

    /// A changed list forgets the note and looks the field up; a list
    /// made of strings is looked up.
    func testChangedAndMadeListsAreLookedUp() throws {
        var h = try XCTUnwrap(request("X-A: 1\r\nAuthorization: Bearer old\r\n")?.headers)
        h.add("X-B", "2")
        XCTAssertFalse(h.authorizationIsNoted)
        XCTAssertEqual(noted(h), "Bearer old")
        h.set("authorization", "Bearer new")
        XCTAssertEqual(noted(h), "Bearer new")
        h.remove("AUTHORIZATION")
        XCTAssertNil(noted(h))

        var none = try XCTUnwrap(request("X-A: 1\r\n")?.headers)
        none.add("Authorization", "Bearer added")
        XCTAssertEqual(noted(none), "Bearer added")

        let made = HTTPHeaders([("X-A", "1"), ("authorization", " Bearer m"), ("Authorization", "Bearer n")])
        XCTAssertFalse(made.authorizationIsNoted)
        XCTAssertEqual(noted(made), " Bearer m")
        XCTAssertEqual(noted(made), made["Authorization"])
        XCTAssertNil(noted(HTTPHeaders()))
    }

    /// The note and the offset of the received lines take one word
    /// beyond the list's four: a request is moved by value.
    func testTheNoteTakesAtMostOneWord() {
        XCTAssertLessThanOrEqual(MemoryLayout<HTTPHeaders>.size, 40)
    }
}
