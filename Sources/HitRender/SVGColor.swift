/// The colours a render writes: a layer's `color` when it is in a small
/// CSS colour grammar, else a neutral tone.
///
/// Accepted (case-insensitive): `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`; a
/// keyword of 3–32 letters (`red`, `transparent`, `currentColor`); and
/// `rgb( )`, `rgba( )`, `hsl( )`, `hsla( )` whose arguments hold only
/// digits, `.`, `,`, `%`, `+`, `-`, `/`, spaces and the unit `deg`. Nothing
/// else reaches the document, so a colour such as `red" onload="…` is
/// neither an attribute break (it is escaped as well) nor a colour: the
/// layer is drawn in the neutral tone.
public enum SVGColor {
    /// The fill of layers without a (usable) colour.
    public static let neutral = "#9aa3ad"

    /// `color` if it is in the accepted grammar, else nil.
    public static func validated(_ color: String) -> String? {
        let bytes = Array(color.utf8)
        guard !bytes.isEmpty, bytes.count <= 64 else { return nil }
        if bytes[0] == UInt8(ascii: "#") {
            let digits = bytes.dropFirst()
            guard [3, 4, 6, 8].contains(digits.count), digits.allSatisfy(isHexDigit) else { return nil }
            return color
        }
        if bytes.allSatisfy(isLetter) { return (3...32).contains(bytes.count) ? color : nil }
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")), bytes.last == UInt8(ascii: ")") else { return nil }
        let name = String(decoding: bytes[..<open], as: UTF8.self).lowercased()
        guard ["rgb", "rgba", "hsl", "hsla"].contains(name) else { return nil }
        let arguments = String(decoding: bytes[(open + 1)..<(bytes.count - 1)], as: UTF8.self).lowercased()
        let withoutUnits = arguments.replacingAll("deg", with: " ")
        guard withoutUnits.utf8.allSatisfy(isArgumentByte) else { return nil }
        return color
    }

    /// The colour to draw a layer with.
    public static func fill(for color: String?) -> String {
        color.flatMap(validated) ?? neutral
    }

    static func isHexDigit(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || (0x41...0x46).contains(b) || (0x61...0x66).contains(b)
    }

    static func isLetter(_ b: UInt8) -> Bool { (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) }

    static func isArgumentByte(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: ",") || b == UInt8(ascii: "%")
            || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: "/") || b == UInt8(ascii: " ")
    }
}

extension String {
    /// `self` with every occurrence of `target` replaced (no Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        let t = Array(target.utf8)
        let s = Array(utf8)
        guard !t.isEmpty, s.count >= t.count else { return self }
        var out: [UInt8] = []
        var i = 0
        while i < s.count {
            if i + t.count <= s.count && Array(s[i..<(i + t.count)]) == t {
                out += replacement.utf8
                i += t.count
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
