import Foundation

/// What a person sees of a bar: the pixels of a screenshot, to find where blocks are drawn,
/// the space between them, and how well their text stands out from what is behind it.
struct BarScreenshot: Equatable {
    let width: Int
    let height: Int
    private let rgb: [UInt8]

    /// A PNG of `width`×`height`, read as raw RGB through ImageMagick's convert.
    init(png path: String, width: Int, height: Int) throws {
        let raw = path + ".rgb"
        let result = try CommandRunner.run("/usr/bin/convert", [path, "-depth", "8", "rgb:" + raw])
        guard result.status == 0, let data = FileManager.default.contents(atPath: raw), data.count == width * height * 3 else {
            throw HarnessFailure("convert \(path): \(result.stderr)")
        }
        self.width = width
        self.height = height
        rgb = [UInt8](data)
    }

    subscript(x: Int, y: Int) -> Color {
        let index = (y * width + x) * 3
        return Color(red: rgb[index], green: rgb[index + 1], blue: rgb[index + 2])
    }

    /// The columns (left to right) with a pixel in `rows` that satisfies `predicate`.
    func columns(rows: Range<Int>? = nil, where predicate: (Color) -> Bool) -> [Int] {
        let rows = rows ?? 0..<height
        return (0..<width).filter { x in rows.contains { predicate(self[x, $0]) } }
    }

    /// The rows whose pixel at column `x` is `color`: where a bar's background is.
    func rows(at x: Int, of color: Color) -> Range<Int>? {
        let matching = (0..<height).filter { self[x, $0] == color }
        guard let first = matching.first, let last = matching.last else { return nil }
        return first..<(last + 1)
    }

    /// The colour most pixels have: the bar's background.
    var background: Color {
        histogram(columns: 0..<width, rows: 0..<height).max { $0.value < $1.value }?.key ?? Color(red: 0, green: 0, blue: 0)
    }

    /// The pixels of a region, column by column: to tell whether it has changed.
    func pixels(columns: Range<Int>, rows: Range<Int>) -> [Color] {
        columns.clamped(to: 0..<width).flatMap { x in rows.clamped(to: 0..<height).map { self[x, $0] } }
    }

    /// How many pixels of each colour a region has.
    func histogram(columns: Range<Int>, rows: Range<Int>) -> [Color: Int] {
        var counts: [Color: Int] = [:]
        for x in columns.clamped(to: 0..<width) {
            for y in rows.clamped(to: 0..<height) { counts[self[x, y], default: 0] += 1 }
        }
        return counts
    }

    /// The WCAG 2 contrast ratio of the text of a region: between its most common colour
    /// (what the text is drawn on) and the colour that stands out most from it (the text's
    /// own, where glyphs are solid; their anti-aliased edges stand out less). Colours of
    /// fewer than `minimum` pixels are strays, not text.
    func textContrast(columns: Range<Int>, rows: Range<Int>, minimum: Int = 8) -> (ratio: Double, text: Color, background: Color)? {
        let counts = histogram(columns: columns, rows: rows)
        guard let background = counts.max(by: { $0.value < $1.value })?.key else { return nil }
        guard let text = counts.filter({ $0.value >= minimum }).keys.max(by: { $0.contrast(with: background) < $1.contrast(with: background) }) else { return nil }
        return (text.contrast(with: background), text, background)
    }
}

struct Color: Hashable, CustomStringConvertible {
    var red: UInt8
    var green: UInt8
    var blue: UInt8

    init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// "#rrggbb"
    init?(hex: String) {
        let digits = hex.hasPrefix("#") ? hex.dropFirst() : Substring(hex)
        guard digits.count == 6, let value = UInt32(digits, radix: 16) else { return nil }
        self.init(red: UInt8(value >> 16 & 0xff), green: UInt8(value >> 8 & 0xff), blue: UInt8(value & 0xff))
    }

    var description: String { String(format: "#%02x%02x%02x", red, green, blue) }

    /// The largest difference of one channel.
    func distance(to other: Color) -> Int {
        max(abs(Int(red) - Int(other.red)), abs(Int(green) - Int(other.green)), abs(Int(blue) - Int(other.blue)))
    }

    /// How far from grey: the largest channel less the smallest.
    var saturation: Int { Int(max(red, green, blue)) - Int(min(red, green, blue)) }

    /// WCAG 2's relative luminance of an sRGB colour.
    var luminance: Double {
        func linear(_ channel: UInt8) -> Double {
            let value = Double(channel) / 255
            return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// WCAG 2's contrast ratio, 1 to 21; 4.5 is the least for normal text (level AA).
    func contrast(with other: Color) -> Double {
        let (light, dark) = (max(luminance, other.luminance), min(luminance, other.luminance))
        return (light + 0.05) / (dark + 0.05)
    }
}
