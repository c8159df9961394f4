/// Scene ids: `[A-Za-z0-9._-]{1,128}`, but not `.` or `..`, which no URL
/// can name (clients resolve them as path segments).
public enum SceneID {
    /// Whether `s` is a valid scene id.
    public static func isValid(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 128 && s != "." && s != ".."
            && s.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                    || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
            }
    }
}
