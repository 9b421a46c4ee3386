/// The steps one date search of a ``PlanNode`` may still take: each part of the plan asked for a date takes one,
/// however deeply it is nested, so a search costs at most ``PlanNode/stepLimit`` next-date computations of single
/// parts, whatever the plan's shape.
///
/// A value owned by one search (passed `inout`); not shared between threads.
struct StepBudget {
    /// The steps left.
    private(set) var remaining: Int
    /// The steps taken so far.
    private(set) var used = 0

    /// A budget of `limit` steps (default ``PlanNode/stepLimit``).
    init(limit: Int = PlanNode.stepLimit) {
        remaining = limit
    }

    /// Whether a step was refused: the search ran out, and its answer is `nil` whatever the parts found.
    private(set) var isExhausted = false

    /// Takes one step; `false` (and ``isExhausted`` from then on) once none is left.
    mutating func take() -> Bool {
        guard remaining > 0 else {
            isExhausted = true
            return false
        }
        remaining -= 1
        used += 1
        return true
    }
}
