import XCTest

@testable import HitImage

/// The decoder against the oracle corpus made by Tests/Corpus/make_png_corpus.py
/// (every colour type × bit depth × transparency × filter × interlace; expected
/// alpha from Pillow, cross-checked with pypng and the generator's model).
final class PNGCorpusTests: XCTestCase {
    func testEveryCorpusFileDecodesToItsExpectedAlpha() throws {
        let names = try corpusNames()
        XCTAssertGreaterThanOrEqual(names.count, 362, "corpus is missing files")
        for name in names {
            let png = try corpusFile(name, "png")
            let expected = try corpusFile(name, "alpha")
            switch decode(png) {
            case .failure(let error):
                XCTFail("\(name): \(error.message)")
            case .success(let image):
                XCTAssertEqual(image.columns * image.rows, expected.count, name)
                if image.alpha != expected {
                    let first = zip(image.alpha, expected).enumerated().first { $0.element.0 != $0.element.1 }
                    XCTFail("\(name): alpha differs first at pixel \(first?.offset ?? -1) (\(image.columns)×\(image.rows))")
                }
            }
        }
    }

    /// The corpus covers what it claims: every colour type, depth, filter and interlace.
    func testCorpusCoversEveryKind() throws {
        let names = Set(try corpusNames())
        for kind in [
            "gray1", "gray2", "gray4", "gray8", "gray16", "rgb8", "rgb16", "palette1", "palette2", "palette4", "palette8",
            "grayalpha8", "grayalpha16", "rgba8", "rgba16",
        ] {
            for interlace in ["plain", "adam7"] {
                for filter in ["f0", "f1", "f2", "f3", "f4", "mixed"] {
                    XCTAssertTrue(names.contains("\(kind)-none-\(interlace)-\(filter)"), "\(kind) \(interlace) \(filter)")
                }
            }
        }
    }

    /// A corpus file's size limit is exact: width × height pixels pass, one fewer is refused.
    func testMaxPixelsIsInclusive() throws {
        let png = try corpusFile("rgba8-none-plain-f4", "png")
        guard case .success(let image) = decode(png) else { return XCTFail("does not decode") }
        let pixels = image.columns * image.rows
        XCTAssertNoThrow(try decode(png, maxPixels: pixels).get())
        assertRefused(
            png, "image of \(image.columns) × \(image.rows) pixels exceeds the limit of \(pixels - 1) pixels", maxPixels: pixels - 1)
    }
}
