// RFC 7396 JSON Merge Patch.

extension JSONValue {
    /// Returns `self` with the RFC 7396 merge patch `patch` applied.
    ///
    /// A non-object patch replaces the target; an object patch sets each of
    /// its members (recursively), and a `null` member removes that key.
    /// Existing members keep their position; new ones are appended in the
    /// patch's order.
    ///
    ///     {"a":"b","c":{"d":"e","f":"g"}}.merging(patch: {"a":"z","c":{"f":null}})
    ///     // {"a":"z","c":{"d":"e"}}
    ///
    /// - Complexity: O(size of target + size of patch) expected; recursion
    ///   depth = nesting depth of the patch.
    public func merging(patch: JSONValue) -> JSONValue {
        guard case .object(let patchMembers) = patch else { return patch }
        var slots: [(String, JSONValue)?]
        if case .object(let members) = self { slots = members } else { slots = [] }
        var index: [String: Int] = [:]
        for (i, slot) in slots.enumerated() {
            // A repeated key (possible only in hand-built values) keeps its last value.
            if let earlier = index.updateValue(i, forKey: slot!.0) { slots[earlier] = nil }
        }
        for (name, value) in patchMembers {
            if case .null = value {
                if let i = index.removeValue(forKey: name) { slots[i] = nil }
            } else if let i = index[name] {
                slots[i]!.1 = slots[i]!.1.merging(patch: value)
            } else {
                index[name] = slots.count
                slots.append((name, JSONValue.null.merging(patch: value)))
            }
        }
        return .object(slots.compactMap { $0 })
    }
}
