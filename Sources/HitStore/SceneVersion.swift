import HitJournal

/// Scene versions: the cap a journal record sets, and entity tags.
public enum SceneVersion {
    /// Whether an `If-Match` value (a list of entity tags, or `*`) matches
    /// `version`, whose tag is `"<version>"`; weak tags never match (strong
    /// comparison, RFC 9110 §13.1.1).
    public static func etag(_ header: String, matches version: Int) -> Bool {
        header.split(separator: ",").contains { tag in
            let t = tag.trimmingSpaces
            if t == "*" { return true }
            if t.hasPrefix("W/") { return false }
            return t == "\"\(version)\""
        }
    }
}

extension SceneStore {
    /// The version after `version`, checked before a change is recorded:
    /// `full(.versions)` past ``JournalRecord/maxVersion`` (2^62), the largest a journal
    /// record holds, so that no change is written that a restart would
    /// refuse. Only a scene restored from a hand-made snapshot comes near
    /// it; below it, no version here (`+ 1` on publishing included) overflows.
    static func version(after version: Int) throws(StoreError) -> Int {
        guard version < Int(JournalRecord.maxVersion) else {
            throw StoreError.full(
                .versions,
                "the scene is at version \(version), the largest a journal record holds; DELETE it and PUT it again to start over at 1")
        }
        return version + 1
    }
}

extension StoreError {
    /// A scene or layer not found, or a failed `If-Match`: what a judgement
    /// against a copy that may be old can wrongly conclude.
    var isNotFoundOrPrecondition: Bool {
        switch self {
        case .notFound, .preconditionFailed: return true
        default: return false
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
