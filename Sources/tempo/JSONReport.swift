import Foundation

/// The one JSON writer of the CLI's reports (`tempo latency --json`, `tempo bench --json`): a document of settings
/// and one list of entries, each entry an object on a line of its own, keys in the order given.
///
/// Numbers are rounded to three decimals, and a missing or non-finite one is `null`; text is escaped by Foundation's
/// `JSONEncoder`, so a quote or a control character in it cannot break the document.
enum JSONReport {
    /// A field's value.
    enum Value {
        /// A measurement, `null` when absent or not finite.
        case number(Double?)
        /// A count.
        case integer(Int)
        /// Text, escaped.
        case text(String)

        var json: String {
            switch self {
            case .number(let value):
                guard let value, value.isFinite else { return "null" }
                return String((value * 1000).rounded() / 1000)
            case .integer(let value):
                return String(value)
            case .text(let value):
                // Encoding a String cannot fail; the fallback keeps the document valid if it ever did.
                let data = (try? JSONEncoder().encode(value)) ?? Data("null".utf8)
                return String(decoding: data, as: UTF8.self)
            }
        }
    }

    /// One entry: `{"key": value, ...}` on one line.
    static func object(_ fields: KeyValuePairs<String, Value>) -> String {
        "{" + fields.map { "\(Value.text($0.key).json): \($0.value.json)" }.joined(separator: ", ") + "}"
    }

    /// The document: the settings, one per line, then `list` holding `entries` (each made by ``object(_:)``), and a
    /// final newline.
    static func document(_ settings: KeyValuePairs<String, Value>, list: String, entries: [String]) -> String {
        let lines = settings.map { "  \(Value.text($0.key).json): \($0.value.json)," }
        return (["{"] + lines + ["  \(Value.text(list).json): ["]).joined(separator: "\n") + "\n"
            + entries.map { "    " + $0 }.joined(separator: ",\n") + "\n  ]\n}\n"
    }
}
