import Glibc
import XCTest

@testable import HTTPServer

/// `ListeningSocket.describe`: a peer's address as the access log writes it.
final class PeerAddressTests: XCTestCase {
    func testIPv4IsAddressColonPort() {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { raw in
            let sin = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
            sin.pointee.sin_family = sa_family_t(AF_INET)
            sin.pointee.sin_port = UInt16(5678).bigEndian
            XCTAssertEqual(inet_pton(AF_INET, "203.0.113.7", &sin.pointee.sin_addr), 1)
        }
        XCTAssertEqual(ListeningSocket.describe(&storage), "203.0.113.7:5678")
    }

    func testIPv6IsBracketedAddressColonPort() {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { raw in
            let sin6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
            sin6.pointee.sin6_family = sa_family_t(AF_INET6)
            sin6.pointee.sin6_port = UInt16(443).bigEndian
            XCTAssertEqual(inet_pton(AF_INET6, "2001:db8::1", &sin6.pointee.sin6_addr), 1)
        }
        XCTAssertEqual(ListeningSocket.describe(&storage), "[2001:db8::1]:443")
        // The longest text: eight groups of four digits.
        withUnsafeMutableBytes(of: &storage) { raw in
            let sin6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
            XCTAssertEqual(inet_pton(AF_INET6, "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255", &sin6.pointee.sin6_addr), 1)
        }
        XCTAssertEqual(ListeningSocket.describe(&storage), "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:443")
    }

    func testAnotherFamilyIsEmpty() {
        var storage = sockaddr_storage()
        storage.ss_family = sa_family_t(AF_UNIX)
        XCTAssertEqual(ListeningSocket.describe(&storage), "")
    }
}
