extension [Int64] {
    /// The index of the first element after `t` in this sorted array (`count` when none is): a binary search.
    ///
    /// - Complexity: O(log n).
    func partitionIndex(after t: Int64) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid] <= t { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
