import Foundation
import Tempo
import TempoPlans
import Testing

/// One error shape (issue #43): `TempoError` and `PlanError` name the rejected input in `value`, are equal by code
/// and value (never by message), and a plan passes a core error on under the core's code name.
@Suite struct ErrorShapeTests {
    @Test func planErrorsAreEqualByCodeFieldAndValueNotByMessage() {
        let a = PlanError(.invalidCron, field: .minute, value: "61", message: "61 is out of range 0-59")
        let reworded = PlanError(.invalidCron, field: .minute, value: "61", message: "minute 61 is too large")
        #expect(a == reworded)
        #expect(a.hashValue == reworded.hashValue)
        #expect(a != PlanError(.invalidCron, field: .hour, value: "61", message: a.message))
        #expect(a != PlanError(.invalidCron, field: .minute, value: "62", message: a.message))
        #expect(a != PlanError(.invalidRule, field: .minute, value: "61", message: a.message))
    }

    @Test func aCronErrorNamesTheRejectedTextInValue() {
        let error = #expect(throws: PlanError.self) { try Plan.cron("61 * * * *", in: .gmt) }
        #expect(error?.code == .invalidCron)
        #expect(error?.field == .minute)
        #expect(error?.value == "61")
    }

    @Test func aCoreErrorKeepsItsCodeNameValueAndMessageInAPlanError() throws {
        let core = try #require(
            #expect(throws: TempoError.self) { try TempoError.validateLeeway(.seconds(-1)) })
        let plan = PlanError(core)
        #expect(plan.code == .invalidLeeway)
        #expect(plan.code.description == core.code.description)
        #expect(plan.value == core.value)
        #expect(plan.message == core.message)
    }
}
