// The extension's settings (org.gnome.shell.extensions.usedspace): the date menu's section
// on or off, and the command "Open Disk Usage Analyzer" runs. Shown by GNOME's Extensions
// app, or `gnome-extensions prefs usedspace@usedspace.github.io`.
import Adw from 'gi://Adw';
import Gio from 'gi://Gio';
import Gtk from 'gi://Gtk';

export function fillPreferencesWindow(window, settings) {
    const page = new Adw.PreferencesPage({title: 'Used Space', icon_name: 'drive-harddisk-symbolic'});
    const group = new Adw.PreferencesGroup({
        title: 'Used Space',
        description: 'The numbers come from the usedspace daemon; its limits and labels are set in ~/.config/usedspace/config.',
    });
    page.add(group);

    const dateMenu = new Adw.ActionRow({
        title: 'Show in the Date Menu',
        subtitle: 'A Used Space section below World Clocks and Weather',
    });
    const toggle = new Gtk.Switch({valign: Gtk.Align.CENTER});
    settings.bind('show-in-date-menu', toggle, 'active', Gio.SettingsBindFlags.DEFAULT);
    dateMenu.add_suffix(toggle);
    dateMenu.activatable_widget = toggle;
    group.add(dateMenu);

    const analyzer = new Adw.EntryRow({title: 'Disk Usage Analyzer Command (empty: baobab)'});
    settings.bind('analyzer-command', analyzer, 'text', Gio.SettingsBindFlags.DEFAULT);
    group.add(analyzer);

    window.add(page);
}
