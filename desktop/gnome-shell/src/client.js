// The daemon on the session bus (docs/dbus.md), read as an ObjectManager client: one async
// Gio.DBusObjectManagerClient that gets every filesystem object at once, follows objects
// added and removed, the properties each publish changes, and the name's owner coming and
// going (g-name-owner). Nothing here polls, and nothing touches a filesystem: the shell
// only ever waits on the bus, asynchronously.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import {readFilesystem} from './dbusFilesystem.js';

export const BUS_NAME = 'io.github.usedspace.UsedSpace1';
export const ROOT_PATH = '/io/github/usedspace/UsedSpace1';
export const FILESYSTEM_INTERFACE = 'io.github.usedspace.UsedSpace1.Filesystem';

export class UsedSpaceClient {
    // `onChange()` is called after every change of what `filesystems` or `daemon` say.
    constructor(onChange) {
        this._onChange = onChange;
        this._manager = null;
        this._signals = [];
        this._cancellable = new Gio.Cancellable();
        // 'connecting' until the bus first answers, then 'running', 'absent' (not running) or
        // 'missing' (not installed: the bus cannot start it).
        this.daemon = 'connecting';
        this._activatable = null;
        // Once seen running, it is installed: a daemon started by hand has no activation file.
        this._seenRunning = false;
        this.filesystems = [];
        // Without DO_NOT_AUTO_START: the first look at the name starts the daemon through
        // D-Bus activation (its service file says SystemdService=usedspace.service).
        Gio.DBusObjectManagerClient.new_for_bus(
            Gio.BusType.SESSION, Gio.DBusObjectManagerClientFlags.NONE, BUS_NAME, ROOT_PATH,
            null, this._cancellable, (_source, result) => this._ready(result));
    }

    _ready(result) {
        try {
            this._manager = Gio.DBusObjectManagerClient.new_for_bus_finish(result);
        } catch (error) {
            if (!error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                logError(error, 'usedspace: cannot follow the daemon on the session bus');
            return;
        }
        const refresh = () => this._refresh();
        for (const signal of ['notify::name-owner', 'object-added', 'object-removed', 'interface-added',
            'interface-removed', 'interface-proxy-properties-changed'])
            this._signals.push(this._manager.connect(signal, refresh));
        this._refresh();
    }

    // Reads every filesystem object anew from the proxies' caches (a few dozen properties;
    // it runs once per publish, never on an idle disk).
    _refresh() {
        const running = this._manager.name_owner !== null;
        this._seenRunning ||= running;
        this.daemon = running ? 'running' : this._missing() ? 'missing' : 'absent';
        if (!running && !this._seenRunning)
            this._askActivatable();
        this.filesystems = [];
        for (const object of this._manager.get_objects()) {
            const proxy = object.get_interface(FILESYSTEM_INTERFACE);
            if (!proxy)
                continue;
            this.filesystems.push(readFilesystem(object.get_object_path(), name => {
                const value = proxy.get_cached_property(name);
                return value ? [value.get_type_string(), value.deepUnpack()] : null;
            }));
        }
        this._onChange();
    }

    // Whether the bus can start the daemon (usedspace installed its activation file): an
    // extension installed from a store alone says what to install, not that it is stopped.
    // Asked only while no daemon runs, once per change the bus reports.
    _askActivatable() {
        Gio.DBus.session.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'ListActivatableNames', null, new GLib.VariantType('(as)'), Gio.DBusCallFlags.NONE, -1,
            this._cancellable, (connection, result) => {
                let activatable;
                try {
                    activatable = connection.call_finish(result).deepUnpack()[0].includes(BUS_NAME);
                } catch (error) {
                    if (!error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                        logError(error, 'usedspace: cannot ask the session bus what it can start');
                    return;
                }
                if (activatable === this._activatable || !this._manager)
                    return;
                this._activatable = activatable;
                if (this._manager.name_owner === null) {
                    this.daemon = this._missing() ? 'missing' : 'absent';
                    this._onChange();
                }
            });
    }

    _missing() {
        return this._activatable === false && !this._seenRunning;
    }

    // D-Bus activation by hand: the daemon started through the bus (and so by systemd).
    startDaemon() {
        Gio.DBus.session.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'StartServiceByName', new GLib.Variant('(su)', [BUS_NAME, 0]), null, Gio.DBusCallFlags.NONE, -1,
            this._cancellable, (connection, result) => {
                try {
                    connection.call_finish(result);
                } catch (error) {
                    logError(error, 'usedspace: cannot start the daemon');
                }
            });
    }

    destroy() {
        this._cancellable.cancel();
        if (this._manager) {
            for (const id of this._signals)
                this._manager.disconnect(id);
        }
        this._signals = [];
        this._manager = null;
    }
}
