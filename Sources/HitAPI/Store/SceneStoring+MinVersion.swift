extension SceneStoring {
    /// A store in this process is always at its latest version.
    public func snapshot(_ id: String, minVersion: Int) throws(Problem) -> SceneSnapshot? {
        try snapshot(id)
    }
}
