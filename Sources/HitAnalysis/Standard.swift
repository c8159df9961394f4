/// Target-size presets (SPEC §12.1 `standard`): the least side of a
/// target's largest square, and the spacing that excuses a smaller one
/// (nil: no spacing exception), in scene units taken as CSS px / dp / pt.
public enum Standard: String, CaseIterable, Sendable {
    /// WCAG 2.2 SC 2.5.8 Target Size (Minimum), AA: 24 × 24, or 24 spacing.
    case wcag258 = "wcag-2.5.8"
    /// WCAG 2.2 SC 2.5.5 Target Size (Enhanced), AAA: 44 × 44.
    case wcag255 = "wcag-2.5.5"
    /// Android's accessibility guidance: 48 × 48 dp.
    case android
    /// Apple's Human Interface Guidelines: 44 × 44 pt.
    case apple

    public var minSize: Double {
        switch self {
        case .wcag258: return 24
        case .wcag255, .apple: return 44
        case .android: return 48
        }
    }

    public var spacing: Double? { self == .wcag258 ? 24 : nil }
}
