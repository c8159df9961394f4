import HitRender
import TestSupport
import XCTest

final class SVGWriterTests: XCTestCase {
    private func written(_ body: (inout SVGWriter) -> Void) -> String {
        var w = SVGWriter()
        body(&w)
        return w.string
    }

    /// Past its limit a writer stops growing: it writes over its start,
    /// holds at most the limit (or one longer write), and says so.
    func testAWriterPastItsLimitStopsGrowingAndSaysSo() {
        var w = SVGWriter(capacity: 16, limit: 100)
        for _ in 0..<10 { w.raw("0123456789") }
        XCTAssertFalse(w.overflowed, "exactly the limit")
        XCTAssertEqual(w.count, 100)
        w.raw("x")
        XCTAssertTrue(w.overflowed)
        XCTAssertEqual(w.string, "x", "the start is written over")
        for _ in 0..<10_000 { w.raw("0123456789") }
        XCTAssertTrue(w.overflowed)
        XCTAssertLessThanOrEqual(w.count, 100)
        var long = SVGWriter(capacity: 16, limit: 100)
        long.text(String(repeating: "a", count: 300))
        XCTAssertTrue(long.overflowed)
        var fits = SVGWriter(limit: 100)
        fits.raw("<svg/>")
        XCTAssertFalse(fits.overflowed)
        let document = fits.finish()
        XCTAssertEqual(document, Array("<svg/>".utf8))
    }

    func testNumbersReadBackToTheSameDouble() {
        XCTAssertEqual(written { $0.number(120) }, "120")
        XCTAssertEqual(written { $0.number(-7) }, "-7")
        XCTAssertEqual(written { $0.number(-0.0) }, "0")
        XCTAssertEqual(written { $0.number(0.5) }, "0.5")
        XCTAssertEqual(written { $0.number(-0.125) }, "-0.125")
        XCTAssertEqual(written { $0.number(12.05) }, "12.05")
        XCTAssertEqual(written { $0.number(1e-7) }, "1e-07")
        XCTAssertEqual(written { $0.number(.infinity) }, "0")
        XCTAssertEqual(written { $0.number(.nan) }, "0")
        var rng = SplitMix64(seed: 15)
        for k in 0..<20_000 {
            let d: Double
            switch k % 4 {
            case 0: d = Double(Int64(bitPattern: rng.next()) % 1_000_000) / 100  // two decimals, as scenes have
            case 1: d = Double(bitPattern: rng.next())
            case 2: d = Double(Int64(bitPattern: rng.next()) % 10_000_000) / 1000
            default: d = Double(rng.next() % 1_000_000_000) * 1e-9 - 0.5
            }
            guard d.isFinite else { continue }
            let text = written { $0.number(d) }
            XCTAssertEqual(Double(text), d, "\(d) written as \(text)")
            XCTAssertFalse(text.contains("nan") || text.contains("inf"), text)
        }
    }

    func testTextIsEscapedForAttributesAndCharacterData() {
        XCTAssertEqual(written { $0.text(#"<a href="x">&'</a>"#) }, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;")
        XCTAssertEqual(written { $0.text("tab\tok\u{0}\u{1B}é→") }, "tab\tok\u{FFFD}\u{FFFD}é→")
        XCTAssertEqual(
            written { $0.attribute("data-layer", #"x" onload="alert(1)"#) },
            #" data-layer="x&quot; onload=&quot;alert(1)""#)
    }

    func testCommentTextNeverHoldsADoubleDash() {
        let text = written { $0.commentText("a--b---c--> \"q\" <x>") }
        XCTAssertFalse(text.contains("--"), text)
        XCTAssertEqual(text, "a-\u{2010}b-\u{2010}-c-\u{2010}> \"q\" <x>")
    }

    func testColoursOutsideTheGrammarAreNotUsed() {
        for good in [
            "#fff", "#FFFA", "#2f6fde", "#2f6fde80", "red", "transparent", "currentColor",
            "rgb(1, 2, 3)", "rgba(1,2,3,0.5)", "hsl(120deg 50% 40%)", "hsla(120, 50%, 40%, .5)", "rgb(1 2 3 / 50%)",
        ] {
            XCTAssertEqual(SVGColor.validated(good), good, good)
        }
        for bad in [
            #"red" onload="alert(1)"#, "#ggg", "#12345", "", "url(#x)", "rgb(1,2,3);x", "expression(alert(1))",
            "red blue", "rgb(1,2,3)) x(", "var(--x)", String(repeating: "a", count: 40), "re", "#fff\"", "hsl(1turn 2 3)",
        ] {
            XCTAssertNil(SVGColor.validated(bad), bad)
            XCTAssertEqual(SVGColor.fill(for: bad), SVGColor.neutral)
        }
        XCTAssertEqual(SVGColor.fill(for: nil), SVGColor.neutral)
    }
}
