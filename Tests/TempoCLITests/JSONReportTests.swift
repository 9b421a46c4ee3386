import Foundation
import Testing

@testable import tempo

/// The CLI's one JSON writer: text that would break hand-written JSON (quotes, backslashes, control characters, a
/// line break) still gives a document `JSONSerialization` reads back to the same values.
@Suite struct JSONReportTests {
    @Test func textIsEscapedAndNumbersAreRoundedOrNull() throws {
        let awkward = "a \"quoted\" back\\slash, a tab\t, a line\nbreak and \u{1} µs"
        let entry = JSONReport.object([
            "description": .text(awkward), "p50_us": .number(1.23456), "missing": .number(nil),
            "infinite": .number(.infinity), "ticks": .integer(42),
        ])
        let document = JSONReport.document(["label": .text(awkward)], list: "entries", entries: [entry, entry])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any], "\(document)")
        #expect(object["label"] as? String == awkward)
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.count == 2)
        #expect(entries[0]["description"] as? String == awkward)
        #expect(entries[0]["p50_us"] as? Double == 1.235)
        #expect(entries[0]["missing"] is NSNull && entries[0]["infinite"] is NSNull)
        #expect(entries[0]["ticks"] as? Int == 42)
        #expect(document.hasSuffix("}\n"))
    }
}
