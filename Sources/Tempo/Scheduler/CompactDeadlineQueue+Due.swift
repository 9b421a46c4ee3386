// The due side of ``CompactDeadlineQueue``: taking what a wake finds due, one key at a time or, in a mass expiry, in
// bulk. The members it uses (the slot table, the heaps, releasing a slot) are internal rather than private for this
// file; nothing else touches them.

extension CompactDeadlineQueue {
    /// Removes, in deadline order (FIFO among equals), every live entry due at `now`, appending its id and work
    /// to `due`.
    /// The deadline of each (in nanoseconds since the clock's origin) is appended to `deadlines`, for merging the
    /// due work of several queues (see ``DriverContext/mergeDueRuns()``). In a mass expiry, `handOff` (if given)
    /// receives the default-delivery timers' work instead, as it is taken (see
    /// ``takeDueInBulk(by:into:deadlines:handOff:)``).
    mutating func popDue(
        now: TimerInstant, into due: inout [(UInt64, Work)], deadlines: inout [Int64],
        handOff: ((consuming Work) -> Void)? = nil
    ) {
        let limit = now.nanosecondsRoundedDown
        if punctual.count >= Self.bulkMinimum, let top = punctual.min, top.instant <= limit {
            takeDueInBulk(by: limit, into: &due, deadlines: &deadlines, handOff: handOff)
        }
        while let (top, isPunctual) = earliest(), top.instant <= limit {
            if isPunctual { punctual.removeMin() } else { lenient.removeMin() }
            take(top, into: &due, deadlines: &deadlines)
        }
    }

    /// The size of the punctual heap from which a mass expiry is taken in bulk (see ``takeDueInBulk(by:into:deadlines:)``).
    static let bulkMinimum = 1024

    /// Releases the entry of the due key `key` (already out of its heap, or left there dead) into `due`.
    private mutating func take(_ key: Key, into due: inout [(UInt64, Work)], deadlines: inout [Int64]) {
        let slot = Int(key.slot)
        let id = rows[slot].id
        due.append((id, release(slot)))
        deadlines.append(key.instant)
    }

    /// A mass expiry: when at least a sixteenth of a large punctual heap is due, its due keys are found in one walk of
    /// the heap's due subtree, sorted, and released in order, and the heap is rebuilt once (O(n)), instead of one
    /// `removeMin` per key (O(log n) each, a cache miss a level on a large heap). The lenient heap's due keys go
    /// between them in the same order as the pop loop gives. Fewer due keys than that: nothing is taken (the pop loop
    /// takes them); the walk cost O(k).
    ///
    /// Allocates two arrays of the due count, given back at the end (a mass expiry is rare; an idle queue keeps no
    /// memory for it).
    ///
    /// `handOff`, when given, receives each punctual key's work that targets a default-delivery timer
    /// (``ScheduledTargetReference/pooledTimer(_:)``) as soon as it is released, instead of `due`: the driver hands it to
    /// the delivery pool while the rest is still taken (see ``ClockDriver``'s wake). It runs under the caller's lock.
    private mutating func takeDueInBulk(
        by limit: Int64, into due: inout [(UInt64, Work)], deadlines: inout [Int64],
        handOff: ((consuming Work) -> Void)?
    ) {
        // Bound once, outside the loop: binding the optional closure per key copied its context (a retain and a
        // release per key).
        guard let handOff else {
            var keys: [Key] = []
            punctual.collectLive(dueBy: limit, sequences, into: &keys)
            guard keys.count * 16 >= punctual.count else { return }
            // Keys armed in deadline order (equal deadlines, or increasing ones) come out of the walk sorted already.
            if !keys.isSortedByPrecedence { keys.sort { $0.precedes($1) } }
            due.reserveCapacity(due.count + keys.count)
            deadlines.reserveCapacity(deadlines.count + keys.count)
            for key in keys {
                takeLenient(before: key, by: limit, into: &due, deadlines: &deadlines)
                // Its heap copy is dead from here on (the release clears the slot's sequence number).
                take(key, into: &due, deadlines: &deadlines)
            }
            punctual.removeDead(sequences)
            return
        }
        guard punctual.hasLive(dueBy: limit, sequences, atLeast: (punctual.count + 15) / 16) else { return }
        // Handed over as the walk finds them, a few hundred at a time, so that the pool starts on the first while the
        // rest is still found (collecting every due key first kept the first handler about 2 ms late at 100k). They
        // run in no order among themselves anyway; the other work is kept, and goes to `due` in order at the end.
        var others: [(key: Key, id: UInt64, work: Work)] = []
        var chunk: [Key] = []
        chunk.reserveCapacity(Self.handOffChunk)
        var walk = KeyHeap.DueWalk()
        var more = true
        while more {
            chunk.removeAll(keepingCapacity: true)
            more = punctual.collectLive(dueBy: limit, sequences, from: &walk, atMost: Self.handOffChunk, into: &chunk)
            for key in chunk {
                let slot = Int(key.slot)
                let id = rows[slot].id
                // Its heap copy is dead from here on (detaching clears the slot's sequence number); the heap keeps its
                // order until the walk ends.
                let work = detach(slot)
                // Matched with no binding: the timer is not read here.
                if case .target(.pooledTimer, _) = work {
                    handOff(work)
                } else {
                    others.append((key, id, work))
                }
            }
        }
        if !others.isEmpty {
            others.sort { $0.key.precedes($1.key) }
            for other in others {
                takeLenient(before: other.key, by: limit, into: &due, deadlines: &deadlines)
                due.append((other.id, other.work))
                deadlines.append(other.key.instant)
            }
        }
        punctual.removeDead(sequences)
        compactIfMostlyDead()
        releaseUnusedChunks()
    }

    /// How many due keys a bulk take finds before it hands them over (see ``takeDueInBulk(by:into:deadlines:handOff:)``).
    static let handOffChunk = 256

    /// Takes the lenient heap's live keys due by `limit` that come before `key`, in order (a bulk take puts them
    /// between the punctual keys, as the pop loop would).
    private mutating func takeLenient(
        before key: Key, by limit: Int64, into due: inout [(UInt64, Work)], deadlines: inout [Int64]
    ) {
        while let top = Self.liveTop(&lenient, sequences), top.instant <= limit, top.precedes(key) {
            lenient.removeMin()
            take(top, into: &due, deadlines: &deadlines)
        }
    }
}

extension [CompactDeadlineQueue.Key] {
    /// Whether each key precedes the next.
    fileprivate var isSortedByPrecedence: Bool {
        var index = 1
        while index < count {
            guard self[index - 1].precedes(self[index]) else { return false }
            index += 1
        }
        return true
    }
}
