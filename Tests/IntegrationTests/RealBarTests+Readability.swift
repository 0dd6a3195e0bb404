import Foundation
import Testing

/// Whether waybar's module, styled by the documented style.css over the user's own theme,
/// can be read: measured on the pixels drawn, not on the colours written.
extension RealBarTests {
    /// On waybar ours is the last module, right of the clock, whose text the user's style
    /// draws bluish; the bar's own background is at its left end.
    static func waybarLayout(_ shot: BarScreenshot) -> (ours: ClosedRange<Int>, neighbour: ClosedRange<Int>)? {
        let background = shot[1, 1]
        let clock = shot.columns { $0.distance(to: background) > 60 && Int($0.blue) - Int($0.red) > 50 }
        guard let start = clock.first, let end = clock.last, end + 3 < shot.width - 1 else { return nil }
        return ((end + 3)...(shot.width - 1), start...end)
    }

    /// Our module once the bar, on a `window` background, has drawn a new look of it:
    /// unlike `before`, more than one colour (text, not the bare module), and the same in two
    /// screenshots in a row (the drawing is done). Its right end only, which the ticking
    /// clock never moves.
    static func waybarModule(_ desktop: BarDesktop, window: Color, unlike before: [Color]?) -> (shot: BarScreenshot, columns: Range<Int>, rows: Range<Int>, look: [Color])? {
        var previous: [Color]?
        var found: (shot: BarScreenshot, columns: Range<Int>, rows: Range<Int>, look: [Color])?
        _ = waitUntil(seconds: 10) {
            guard let shot = try? desktop.capture(height: 30), let ours = waybarLayout(shot)?.ours,
                  shot[1, 1] == window, let rows = shot.rows(at: 1, of: window) else { previous = nil; return false }
            let columns = max(ours.lowerBound, ours.upperBound - 120)..<(ours.upperBound + 1)
            let look = shot.pixels(columns: columns, rows: rows)
            defer { previous = look }
            guard look != before, look == previous, Set(look).count > 1 else { return false }
            found = (shot, columns, rows, look)
            return true
        }
        return found
    }

    /// Our module's text stands out from what is right behind it by at least WCAG AA's
    /// 4.5:1, once the bar has drawn the new state (unlike the look `before`, or anew on
    /// another theme). Returns the look.
    @discardableResult
    static func expectReadable(_ desktop: BarDesktop, _ what: String, window: Color, unlike before: [Color]?,
                               sourceLocation: SourceLocation = #_sourceLocation) -> [Color]? {
        guard let module = waybarModule(desktop, window: window, unlike: before) else {
            Issue.record("\(what): the module was not drawn anew", sourceLocation: sourceLocation)
            return nil
        }
        guard let text = module.shot.textContrast(columns: module.columns, rows: module.rows) else {
            Issue.record("\(what): no text in the module", sourceLocation: sourceLocation)
            return nil
        }
        #expect(text.ratio >= 4.5, "\(what): text \(text.text) on \(text.background) is \(String(format: "%.2f", text.ratio)):1",
                sourceLocation: sourceLocation)
        return module.look
    }

    /// The colour (#rrggbb) that a rule of a style sheet gives a property (`background` also
    /// as `background-color`).
    static func cssColor(_ css: String, rule: String, property: String) -> String? {
        guard let start = css.range(of: rule + " ") ?? css.range(of: rule + "{"),
              let open = css[start.upperBound...].firstIndex(of: "{"), let close = css[open...].firstIndex(of: "}") else { return nil }
        for declaration in css[css.index(after: open)..<close].split(separator: ";") {
            let parts = declaration.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0] == property || parts[0] == property + "-color", parts[1].hasPrefix("#") { return parts[1] }
        }
        return nil
    }
}
