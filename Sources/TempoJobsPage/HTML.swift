#if Dashboard
/// HTML text: every value interpolated into it is escaped, unless it is HTML already.
///
/// The page builds its markup only from `HTML` values, so a value that reaches the page unescaped has to be written
/// as `HTML(trusted:)` in this module: a job's name, a schedule or an error's text never is.
struct HTML: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    private(set) var text: String

    var description: String { text }

    /// Markup written in this module (never from a value the store or the request gave).
    init(trusted text: String) { self.text = text }

    init(stringLiteral value: String) { self.text = value }

    init(stringInterpolation: StringInterpolation) { self.text = stringInterpolation.text }

    struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity * 2) }

        mutating func appendLiteral(_ literal: String) { text += literal }

        /// Escapes a value's text.
        mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            text += HTML.escape(value.description)
        }

        /// Appends markup as it is.
        mutating func appendInterpolation(_ html: HTML) { text += html.text }

        /// Appends each piece of markup.
        mutating func appendInterpolation(_ pieces: [HTML]) {
            for piece in pieces { text += piece.text }
        }
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references, for element content and quoted
    /// attribute values alike.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// `text` percent-encoded for a URL's query value (everything but RFC 3986's unreserved characters).
    static func queryValue(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                encoded += "%"
                encoded.unicodeScalars.append(hex[Int(byte >> 4)])
                encoded.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return encoded
    }
}
#endif
