extension RandomAccessCollection where Index == Int {
    /// In a collection sorted by `key`, the index of the first element whose key is at least
    /// `value` (`endIndex` when there is none), by binary search.
    @inlinable public func firstIndex(atLeast value: Int, by key: (Element) -> Int) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if key(self[middle]) < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// In a collection of disjoint ranges in order, the index of the one that holds `offset`,
    /// its end included (of two that touch there, the first), by binary search.
    @inlinable public func index(holding offset: Int, by range: (Element) -> Range<Int>) -> Int? {
        let index = firstIndex(atLeast: offset, by: { range($0).upperBound })
        guard index < endIndex, range(self[index]).lowerBound <= offset else { return nil }
        return index
    }
}

extension RandomAccessCollection where Index == Int, Element == Int {
    /// In a sorted collection, the index of the first element at least `value` (`endIndex` when
    /// there is none), by binary search.
    @inlinable public func firstIndex(atLeast value: Int) -> Int { firstIndex(atLeast: value, by: { $0 }) }
}
