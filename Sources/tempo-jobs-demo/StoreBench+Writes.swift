import TempoJobs

extension StoreBench {
    /// How many times `store` wrote its file (its saves are grouped, so fewer than the saves).
    static func fileWrites(of store: JSONFileJobStore) -> Int? {
        store.writeCount
    }
}
