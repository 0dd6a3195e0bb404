import Foundation

/// What the extension shows in a GnomeShellSession, read through org.gnome.Shell.Eval from
/// the shell's actors as drawn: the texts of the labels that are visible, and the colour
/// the theme gives them (the stylesheet's, as rendered).
struct GnomeIndicator: Equatable {
    var text: String
    /// The style classes of the indicator's box (usedspace-warning, usedspace-stale…).
    var styleClasses: Set<String>
    /// The label's foreground colour, "#rrggbb".
    var color: String
}

extension GnomeShellSession {
    /// A JavaScript function, `visibleLabels(actor)`: the texts of the St.Labels under actor
    /// that are mapped (on screen), in order.
    static let labelsFunction = """
        const visibleLabels = actor => { const texts = [];
          const walk = a => { if (!a.visible) return; if (a instanceof imports.gi.St.Label && a.mapped && a.text) texts.push(a.text);
            for (const child of a.get_children()) walk(child); };
          walk(actor); return texts; };
        const withClass = (actor, name) => { if (actor.has_style_class_name && actor.has_style_class_name(name)) return actor;
          for (const child of actor.get_children()) { const found = withClass(child, name); if (found) return found; } return null; };
        """

    /// The top bar's indicator (nil when the extension has none in the panel).
    func indicator() throws -> GnomeIndicator? {
        let value = try evalJSON("""
            (() => { \(Self.labelsFunction)
              const button = Main.panel.statusArea['usedspace']; if (!button) return null;
              const box = withClass(button, 'usedspace-indicator'); const label = withClass(box, 'usedspace-label');
              const c = label.get_theme_node().get_foreground_color();
              const hex = v => v.toString(16).padStart(2, '0');
              return {text: label.text, classes: box.get_style_class_name(), color: `#${hex(c.red)}${hex(c.green)}${hex(c.blue)}`}; })()
            """)
        guard let object = value as? [String: Any], let text = object["text"] as? String, let classes = object["classes"] as? String,
              let color = object["color"] as? String else { return nil }
        return GnomeIndicator(text: text, styleClasses: Set(classes.split(separator: " ").map(String.init)), color: color)
    }

    /// Opens the indicator's menu and returns the texts it shows, in order.
    func openMenu() throws -> [String] {
        _ = try evalJSON("(() => { Main.panel.statusArea['usedspace'].menu.open(false); return true; })()")
        return try waitForTexts("Main.panel.statusArea['usedspace'].menu.box")
    }

    /// Opens the date menu and returns the texts of the extension's section in it ([] when
    /// there is none).
    func openDateMenu() throws -> [String] {
        _ = try evalJSON("(() => { Main.panel.statusArea.dateMenu.menu.open(false); return true; })()")
        return try waitForTexts("(withClass(Main.panel.statusArea.dateMenu.menu.box, 'usedspace-datemenu') || new imports.gi.St.Widget())")
    }

    /// Activates the menu item whose label says `text`.
    func activateMenuItem(_ text: String) throws {
        let done = try evalJSON("""
            (() => { const item = Main.panel.statusArea['usedspace'].menu._getMenuItems().find(i => i.label && i.label.text === \(Self.jsString(text)));
              if (!item) return false; item.activate(imports.gi.Clutter.get_current_event()); return true; })()
            """)
        guard done as? Bool == true else { throw HarnessFailure("no menu item \(text)") }
    }

    func closeMenus() throws {
        _ = try evalJSON("(() => { Main.panel.statusArea['usedspace'].menu.close(false); Main.panel.statusArea.dateMenu.menu.close(false); return true; })()")
    }

    /// The texts under `actor` once the menu's opening has mapped them (it animates).
    private func waitForTexts(_ actor: String) throws -> [String] {
        var texts: [String] = []
        _ = waitUntil(seconds: 5) {
            texts = ((try? self.evalJSON("(() => { \(Self.labelsFunction) return visibleLabels(\(actor)); })()")) as? [String]) ?? []
            return !texts.isEmpty
        }
        return texts
    }

    static func jsString(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [text])
        return String(String(decoding: data ?? Data(), as: UTF8.self).dropFirst().dropLast())
    }
}
