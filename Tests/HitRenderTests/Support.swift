import Foundation
import HitRender
import HitRouting
import XCTest

#if canImport(FoundationXML)
    import FoundationXML
#endif

func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, radius: Double? = nil) -> Shape {
    Shape(.rect(x: x, y: y, width: w, height: h, cornerRadius: radius))
}

func ellipse(_ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double) -> Shape {
    Shape(.ellipse(cx: cx, cy: cy, rx: rx, ry: ry))
}

func path(_ d: String, fillRule: FillRule? = nil, fill: Bool? = nil, stroke: Double? = nil) throws -> Shape {
    Shape(.path(d: d, elements: try SVGPathParser.parse(d)), fillRule: fillRule, fill: fill, stroke: stroke)
}

func ringOverButton() -> Scene {
    Scene(
        id: "ring-demo", width: 240, height: 240,
        layers: [
            Layer(id: "button", action: "below.press", shape: rect(0, 0, 240, 240), color: "#2f6fde"),
            Layer(
                id: "ring", action: "ring.select",
                shape: Shape(
                    .compound([ellipse(120, 120, 120, 120), ellipse(120, 120, 48, 48)]), fillRule: .evenodd), color: "#f28c28"),
            Layer(
                id: "frame", shape: Shape(.rect(x: 2, y: 2, width: 236, height: 236, cornerRadius: nil), fill: false, stroke: 4),
                pointerEvents: PointerEvents.none, color: "#808080"),
        ])
}

/// The SVG of `scene`, with `x, y` routed when given.
func svg(_ scene: Scene, x: Double? = nil, y: Double? = nil, regions: Bool = false, width: Double? = nil) -> String {
    let live = LiveScene(scene)
    var options = RenderOptions(regions: regions, pixelWidth: width)
    if let x, let y { options.routed = (Point(x, y), live.compiled.hit(Point(x, y), trace: true)) }
    return String(decoding: SceneRenderer.render(live, id: scene.id ?? "s", version: 1, options: options), as: UTF8.self)
}

/// An element of a parsed document: its name, attributes and text.
struct Element {
    var name: String
    var attributes: [String: String]
    var text = ""
    /// The `data-layer` of the nearest enclosing layer group (itself included).
    var layer: String?
}

/// Parses `text` as XML (failing the test when it is not well-formed) and
/// lists its elements in document order.
func elements(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [Element] {
    final class Collector: NSObject, XMLParserDelegate {
        var out: [Element] = []
        var open: [Int] = []
        var layers: [String?] = []
        func parser(
            _ p: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let layer = attributes["data-layer"] ?? layers.last ?? nil
            out.append(Element(name: name, attributes: attributes, layer: layer))
            open.append(out.count - 1)
            layers.append(layer)
        }
        func parser(_ p: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            open.removeLast()
            layers.removeLast()
        }
        func parser(_ p: XMLParser, foundCharacters s: String) {
            if let k = open.last { out[k].text += s }
        }
    }
    let parser = XMLParser(data: Data(text.utf8))
    let collector = Collector()
    parser.delegate = collector
    XCTAssertTrue(
        parser.parse(), "not well-formed XML: \(parser.parserError.map(String.init(describing:)) ?? "?")\n\(text.prefix(2000))", file: file,
        line: line)
    return collector.out
}
