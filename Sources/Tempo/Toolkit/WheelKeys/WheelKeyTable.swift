import CTempoShims
import TempoLocks

/// Keys with one wheel timer each: the shared store of ``ExpiringDictionary``, ``DelayQueue`` and
/// ``KeyedRateLimiter``.
///
/// A key's entry lives in a row of a table that grows in chunks of 1,024 rows and reuses freed rows; an open-addressing
/// index maps the key to its row (see `WheelKeyTable+Index.swift`). A row holds the key, the payload, the table index
/// of the key's wheel timer and a generation: 16 bytes beside the key and payload, so an operation on a key touches
/// one index bucket, one row and the wheel's entry.
///
/// The wheel timer of a row carries a token, `generation << 32 | row`, and every change that makes a pending firing
/// stale (removing the key, re-arming its timer after the wheel took the old one for firing) bumps the row's
/// generation, so a firing that raced with such a change resolves to nothing. An entry therefore ends exactly once:
/// removed, or expired. The token also names the timer on the wheel with its index (see `TimingWheel+Keyed.swift`).
///
/// Not thread-safe: the owner keeps it under its lock, and arms the wheel under that lock (lock order: owner, wheel;
/// the wheel calls its handler outside its own lock).
@usableFromInline
struct WheelKeyTable<Key: Hashable, Payload>: ~Copyable {
    /// The part of a row that is kept while the row is free: the wheel index of its timer (``freeTimer`` when free)
    /// and its generation.
    @usableFromInline
    struct Header {
        @usableFromInline var timer: UInt32
        @usableFromInline var generation: UInt32

        @inlinable
        init(timer: UInt32, generation: UInt32) {
            self.timer = timer
            self.generation = generation
        }
    }

    /// One key's entry. The header comes first (offset 0), so a free row's header is read without its key.
    @usableFromInline
    struct Row {
        @usableFromInline var header: Header
        @usableFromInline var key: Key
        @usableFromInline var payload: Payload

        @inlinable
        init(header: Header, key: Key, payload: Payload) {
            self.header = header
            self.key = key
            self.payload = payload
        }
    }

    /// The timer index of a free row (the wheel never uses it: it is its "no entry" mark).
    @inlinable static var freeTimer: UInt32 { .max }
    @inlinable static var chunkBits: Int { 10 }
    @inlinable static var chunkSize: Int { 1 << chunkBits }
    @inlinable static var chunkMask: Int { chunkSize - 1 }

    /// The number of live rows.
    @usableFromInline var count = 0
    /// The row chunks: row `i` lives in chunk `i >> chunkBits`. Every row's header is initialized; key and payload
    /// only while the row is live.
    @usableFromInline var chunks: UnsafeMutablePointer<UnsafeMutablePointer<Row>>
    @usableFromInline var chunkCount = 0
    @usableFromInline var directoryCapacity = 4
    /// Free rows, reused last-in first-out (a new chunk's rows lowest first).
    @usableFromInline var free: [UInt32] = []
    /// The index: a power-of-two number of buckets, each a row (and a tag) or ``emptyBucket``.
    @usableFromInline var buckets: UnsafeMutablePointer<UInt32>
    @usableFromInline var bucketMask: Int
    /// Whether buckets carry tags (see `WheelKeyTable+Index.swift`): until the table has 2^27 rows.
    @usableFromInline var tagged = true
    /// The row count at which buckets drop their tags: 2^27 (tests set a smaller one).
    @usableFromInline var untaggedRows = 1 << 27

    @usableFromInline
    init() {
        chunks = .allocate(capacity: directoryCapacity)
        bucketMask = Self.minimumBuckets - 1
        buckets = .allocate(capacity: Self.minimumBuckets)
        buckets.initialize(repeating: Self.emptyBucket, count: Self.minimumBuckets)
    }

    /// An empty table whose buckets drop their tags once it has `untaggedRows` rows (at most 2^27; for tests).
    init(untaggedRows: Int) {
        self.init()
        self.untaggedRows = min(untaggedRows, 1 << Self.taggedRowBits)
    }

    deinit {
        for chunk in 0..<chunkCount {
            let rows = chunks[chunk]
            if !_isPOD(Row.self) {
                for row in 0..<Self.chunkSize where Self.header(rows + row).timer != Self.freeTimer {
                    (rows + row).deinitialize(count: 1)
                }
            }
            rows.deallocate()
        }
        chunks.deallocate()
        buckets.deallocate()
    }

    // MARK: Rows

    /// The row `slot`.
    @inlinable
    @inline(__always)
    func row(_ slot: UInt32) -> UnsafeMutablePointer<Row> {
        chunks[Int(slot) >> Self.chunkBits] + (Int(slot) & Self.chunkMask)
    }

    /// The header of a row, live or free.
    @inlinable
    @inline(__always)
    static func header(_ row: UnsafeMutablePointer<Row>) -> Header {
        UnsafeRawPointer(row).load(as: Header.self)
    }

    /// The live row `slot`.
    @inlinable
    subscript(slot: UInt32) -> Row {
        get { row(slot).pointee }
        nonmutating _modify { yield &row(slot).pointee }
    }

    /// The token a wheel timer of `slot` carries now.
    @inlinable
    func token(_ slot: UInt32) -> UInt64 {
        UInt64(Self.header(row(slot)).generation) << 32 | UInt64(slot)
    }

    /// The live row a firing token names, or `nil` when the firing is stale.
    @inlinable
    func resolve(_ token: UInt64) -> UInt32? {
        let slot = UInt32(truncatingIfNeeded: token)
        guard Int(slot) < chunkCount << Self.chunkBits else { return nil }
        let header = Self.header(row(slot))
        guard header.timer != Self.freeTimer, header.generation == UInt32(truncatingIfNeeded: token >> 32) else {
            return nil
        }
        return slot
    }

    /// Starts fetching what removing the keys of a batch of firing tokens reads, in three stages, for the tokens of
    /// ``Swift/UnsafeBufferPointer/keyedPrefetchTokens(at:)`` while the token at `index` is handled: the row of
    /// `rowToken`; the index bucket of the live row of `bucketToken` (fetched a stage earlier); and the keys of the rows
    /// that follow the live row of `clusterToken` in its cluster (its bucket fetched a stage earlier), which removing
    /// that key reads for their homes: older keys, out of the cache. Each was a cache miss after the other, most of an
    /// expiry's time at a million keys. The home bucket of each key is hashed once, at the second stage, into `homes`,
    /// for the third and for ``remove(_:home:)``. Hints only: nothing changes, and a stale token is skipped.
    @inlinable
    @inline(__always)
    func prefetch(
        _ tokens: (row: UInt64?, bucket: UInt64?, cluster: UInt64?), at index: Int, homes: inout WheelKeyHomes
    ) {
        if let rowToken = tokens.row {
            let slot = UInt32(truncatingIfNeeded: rowToken)
            if Int(slot) < chunkCount << Self.chunkBits {
                let address = UInt(bitPattern: row(slot))
                prefetchLinesForWrite(address, address &+ UInt(MemoryLayout<Row>.stride &- 1))
            }
        }
        var bucketHome = -1
        if let bucketToken = tokens.bucket, let slot = resolve(bucketToken) {
            bucketHome = home(row(slot).pointee.key)
            prefetchLinesForWrite(UInt(bitPattern: buckets + bucketHome), UInt(bitPattern: buckets + bucketHome))
        }
        homes[index &+ 2 &* WheelKeyHomes.stage] = bucketHome
        if let clusterToken = tokens.cluster, let slot = resolve(clusterToken) {
            // Up to 3 rows after the key's bucket (at most 3/4 full, a cluster seldom goes on longer): the line of
            // each one's key.
            let rowMask = rowMask
            let known = homes[index &+ WheelKeyHomes.stage]
            var bucket = known >= 0 ? known : home(row(slot).pointee.key)
            while buckets[bucket] & rowMask != slot { bucket = (bucket &+ 1) & bucketMask }
            for _ in 0..<3 {
                bucket = (bucket &+ 1) & bucketMask
                let entry = buckets[bucket]
                if entry == Self.emptyBucket { break }
                let key = UInt(bitPattern: row(entry & rowMask)) &+ UInt(MemoryLayout<Row>.offset(of: \.key) ?? 0)
                prefetchLinesForWrite(key, key)
            }
        }
    }

    /// Takes a free row (growing by a chunk when none is left); its header is initialized, key and payload not.
    @inlinable
    mutating func takeRow() -> UInt32 {
        if free.isEmpty { addChunk() }
        return free.removeLast()
    }

    /// Adds a chunk of free rows.
    @usableFromInline
    mutating func addChunk() {
        precondition((chunkCount + 1) << Self.chunkBits <= Int(UInt32.max), "a keyed table holds at most 2^32 rows")
        if chunkCount == directoryCapacity {
            let grown = UnsafeMutablePointer<UnsafeMutablePointer<Row>>.allocate(capacity: directoryCapacity * 2)
            grown.moveInitialize(from: chunks, count: chunkCount)
            chunks.deallocate()
            chunks = grown
            directoryCapacity *= 2
        }
        let rows = UnsafeMutablePointer<Row>.allocate(capacity: Self.chunkSize)
        for row in 0..<Self.chunkSize {
            UnsafeMutableRawPointer(rows + row).storeBytes(
                of: Header(timer: Self.freeTimer, generation: 0), as: Header.self)
        }
        (chunks + chunkCount).initialize(to: rows)
        let first = chunkCount << Self.chunkBits
        chunkCount += 1
        if tagged, chunkCount << Self.chunkBits >= untaggedRows {
            // Rows no longer fit beside a tag (nor may a row look like an empty bucket): buckets become plain rows.
            tagged = false
            rebuildIndex(buckets: bucketMask + 1)
        }
        free.reserveCapacity(free.count + Self.chunkSize)
        for slot in (first..<first + Self.chunkSize).reversed() { free.append(UInt32(slot)) }
    }

    /// The slot of `key`, or `nil`.
    @inlinable
    func slot(of key: Key) -> UInt32? {
        find(key).slot
    }

    // MARK: Timers

    /// Moves the timer of `slot` on `wheel`; when the wheel already took it for firing, makes that firing stale and
    /// arms a new timer.
    @inlinable
    func rearm(_ slot: UInt32, _ due: WheelDue, on wheel: TimingWheel) throws(TempoError) {
        let row = row(slot)
        let header = row.pointee.header
        let token = UInt64(header.generation) << 32 | UInt64(slot)
        if try wheel.rescheduleKeyed(header.timer, value: token, due) { return }
        let generation = header.generation &+ 1
        row.pointee.header.generation = generation
        row.pointee.header.timer = try wheel.armKeyed(due, value: UInt64(generation) << 32 | UInt64(slot))
    }

    /// Gives `key` the payload `payload` and a timer due at `due`: moves the key's timer when it has one, and
    /// otherwise takes a row and arms one. On a throw the table is unchanged.
    ///
    /// - Returns: The key's previous payload, if it had one.
    @inlinable
    mutating func upsert(_ key: Key, _ payload: Payload, _ due: WheelDue, on wheel: TimingWheel) throws(TempoError)
        -> Payload?
    {
        reserveOne()
        let (bucket, found, tag) = find(key)
        guard let slot = found else {
            try insert(key, payload, at: bucket, tag: tag) { token throws(TempoError) in
                try wheel.armKeyed(due, value: token)
            }
            return nil
        }
        try rearm(slot, due, on: wheel)
        let row = row(slot)
        defer { row.pointee.payload = payload }
        return row.pointee.payload
    }

    /// Takes a row for `key` (not in the table) and arms its timer with `arm`, which receives the token and returns
    /// the timer's wheel index; on a throw nothing is kept.
    @discardableResult
    @inlinable
    mutating func insert<E: Error>(_ key: Key, _ payload: Payload, arm: (UInt64) throws(E) -> UInt32) throws(E)
        -> UInt32
    {
        reserveOne()
        let (bucket, _, tag) = find(key)
        return try insert(key, payload, at: bucket, tag: tag, arm: arm)
    }

    /// ``insert(_:_:arm:)`` into the empty `bucket` with the `tag` that ``find(_:)`` returned for `key` after
    /// ``reserveOne()``.
    @discardableResult
    @inlinable
    mutating func insert<E: Error>(
        _ key: Key, _ payload: Payload, at bucket: Int, tag: UInt32, arm: (UInt64) throws(E) -> UInt32
    ) throws(E) -> UInt32 {
        let tagged = tagged
        let slot = takeRow()
        // A new chunk may have turned tags off: then the bucket holds the plain row (the bucket itself stays free,
        // since rebuilding keeps the same number of buckets and files only live rows, in the same probe order).
        let tag = tagged == self.tagged ? tag : 0
        let row = row(slot)
        let generation = Self.header(row).generation
        let timer: UInt32
        do {
            timer = try arm(UInt64(generation) << 32 | UInt64(slot))
        } catch {
            free.append(slot)
            throw error
        }
        row.initialize(to: Row(header: Header(timer: timer, generation: generation), key: key, payload: payload))
        buckets[bucket] = tag | slot
        count += 1
        return slot
    }

    /// Frees `slot` and returns its key and payload; its pending firing, if any, becomes stale. The caller cancels
    /// its timer (its wheel index is in the returned header).
    @discardableResult
    @inlinable
    mutating func remove(_ slot: UInt32) -> (key: Key, payload: Payload, header: Header) {
        remove(slot, home: -1)
    }

    /// ``remove(_:)`` of a row whose key's home bucket is `home` (from ``prefetch(_:at:homes:)``), or -1 when it is not
    /// known.
    @discardableResult
    @inlinable
    mutating func remove(_ slot: UInt32, home: Int) -> (key: Key, payload: Payload, header: Header) {
        let row = row(slot)
        let entry = row.move()
        UnsafeMutableRawPointer(row).storeBytes(
            of: Header(timer: Self.freeTimer, generation: entry.header.generation &+ 1), as: Header.self)
        unindex(entry.key, slot: slot, home: home)
        free.append(slot)
        count -= 1
        return (entry.key, entry.payload, entry.header)
    }

    /// Removes `key` and cancels its timer on `wheel`.
    ///
    /// - Returns: The key's payload, or `nil` when the table does not hold it.
    @inlinable
    mutating func remove(_ key: Key, cancellingOn wheel: TimingWheel) -> Payload? {
        guard let slot = slot(of: key) else { return nil }
        let token = token(slot)
        let entry = remove(slot)
        wheel.cancelKeyed(entry.header.timer, value: token)
        return entry.payload
    }

    /// The `_checkInvariants()` of the keyed toolkit types: the table under its lock, then the wheel. A no-op in
    /// release builds.
    static func _checkInvariants(of state: borrowing TempoMutex<Self>, armedOn wheel: TimingWheel) {
        #if DEBUG
        state.withLock { $0._checkInvariants(armedOn: wheel) }
        wheel._checkInvariants()
        #endif
    }
}

/// Starts fetching the cache lines from `first` to `last` for writing (see ``WheelKeyTable/prefetch(_:at:homes:)``): a
/// hint that never faults, whatever the addresses.
@usableFromInline
func prefetchLinesForWrite(_ first: UInt, _ last: UInt) {
    var line = first & ~63
    while line <= last {
        ctempo_prefetch_line_for_write(UnsafeRawPointer(bitPattern: line))
        line &+= 64
    }
}

/// The home buckets of the keys of the last 16 tokens of a batch, by token index modulo 16 (-1: not known), hashed once
/// by ``WheelKeyTable/prefetch(_:at:homes:)`` for its later stage and for ``WheelKeyTable/remove(_:home:)``.
@usableFromInline
struct WheelKeyHomes {
    @usableFromInline var storage: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1
    )

    /// How many tokens apart the stages of ``WheelKeyTable/prefetch(_:at:homes:)`` work: the row 3 stages ahead of the
    /// token handled, its bucket 2, its cluster 1 (``Swift/UnsafeBufferPointer/keyedPrefetchTokens(at:)``). The one
    /// place these distances are set: a home is written 2 stages ahead and read 1 stage ahead and at the token itself.
    /// Under 8, so that the 16 places hold a home until it is read.
    @inlinable static var stage: Int { 4 }

    @inlinable
    init() {}

    /// The home of the token at `index` (modulo 16).
    @inlinable
    subscript(index: Int) -> Int {
        @inline(__always) get {
            withUnsafeBytes(of: storage) { $0.load(fromByteOffset: (index & 15) &* 8, as: Int.self) }
        }
        @inline(__always) set {
            withUnsafeMutableBytes(of: &storage) {
                $0.storeBytes(of: newValue, toByteOffset: (index & 15) &* 8, as: Int.self)
            }
        }
    }
}

extension UnsafeBufferPointer<UInt64> {
    /// The tokens of a batch that ``WheelKeyTable/prefetch(_:at:homes:)`` works on while the token at `index` is
    /// handled: 3, 2 and 1 ``WheelKeyHomes/stage`` ahead (the row, then its bucket, then its cluster's rows, each stage a
    /// few tokens after the fetch it needs).
    ///
    /// Token values, not the buffer, go to the table: the buffer is not `Sendable`, and passing it with the table would
    /// tie it to the table's isolation region under the owner's lock.
    @inlinable
    @inline(__always)
    func keyedPrefetchTokens(at index: Int) -> (row: UInt64?, bucket: UInt64?, cluster: UInt64?) {
        func token(_ stages: Int) -> UInt64? {
            let ahead = index &+ stages &* WheelKeyHomes.stage
            return ahead < count ? self[ahead] : nil
        }
        return (token(3), token(2), token(1))
    }
}
