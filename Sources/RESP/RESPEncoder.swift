/// Writes commands as a client sends them: an array of bulk strings.
public enum RESPEncoder {
    /// Appends `*<n>\r\n` and each argument as `$<len>\r\n<bytes>\r\n`.
    /// - Complexity: O(total bytes of the arguments).
    public static func appendCommand(_ arguments: [[UInt8]], to out: inout [UInt8]) {
        appendHeader(UInt8(ascii: "*"), arguments.count, to: &out)
        for a in arguments {
            appendHeader(UInt8(ascii: "$"), a.count, to: &out)
            out.append(contentsOf: a)
            out.append(13)
            out.append(10)
        }
    }

    /// One command's bytes (tests, single commands).
    public static func command(_ arguments: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        appendCommand(arguments, to: &out)
        return out
    }

    /// Writes any value (tests build server replies with it).
    public static func append(_ value: RESPValue, to out: inout [UInt8]) {
        switch value {
        case .simple(let s):
            out.append(UInt8(ascii: "+"))
            out.append(contentsOf: s.utf8)
            out += [13, 10]
        case .error(let s):
            out.append(UInt8(ascii: "-"))
            out.append(contentsOf: s.utf8)
            out += [13, 10]
        case .integer(let n):
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: String(n).utf8)
            out += [13, 10]
        case .bulk(nil): out += Array("$-1\r\n".utf8)
        case .bulk(let b?):
            appendHeader(UInt8(ascii: "$"), b.count, to: &out)
            out.append(contentsOf: b)
            out += [13, 10]
        case .array(nil): out += Array("*-1\r\n".utf8)
        case .array(let a?):
            appendHeader(UInt8(ascii: "*"), a.count, to: &out)
            for v in a { append(v, to: &out) }
        }
    }

    private static func appendHeader(_ type: UInt8, _ n: Int, to out: inout [UInt8]) {
        out.append(type)
        out.append(contentsOf: String(n).utf8)
        out.append(13)
        out.append(10)
    }
}
